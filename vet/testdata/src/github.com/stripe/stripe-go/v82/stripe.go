// Package stripe is a stub of stripe-go's root package: the params every
// request embeds, with its idempotency key setter.
package stripe

// Params are the options every request's params embed.
type Params struct {
	IdempotencyKey *string
}

// SetIdempotencyKey sets the request's Idempotency-Key header.
func (p *Params) SetIdempotencyKey(val string) { p.IdempotencyKey = &val }

// ChargeParams are a charge's params.
type ChargeParams struct {
	Params
	Amount   *int64
	Currency *string
}

// Charge is a created charge.
type Charge struct {
	ID string
}

// Int64 returns a pointer to v.
func Int64(v int64) *int64 { return &v }

// String returns a pointer to v.
func String(v string) *string { return &v }
