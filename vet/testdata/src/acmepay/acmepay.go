// Package acmepay is a user's own payment client: vet knows none of its
// calls until the user teaches it, with the //faultline:consequential
// directive (Create, Capture) or the -retrykey.consequential flag
// (Refund).
package acmepay

import "context"

// Client is the payment provider's client.
type Client struct{}

// Charge is a charge to create.
type Charge struct {
	Amount int64
}

// Option is a request option.
type Option func(*options)

type options struct{ key string }

// WithIdempotencyKey sends key as the request's idempotency key.
func WithIdempotencyKey(key string) Option { return func(o *options) { o.key = key } }

// Create creates a charge.
//
//faultline:consequential
func (cl *Client) Create(ctx context.Context, c *Charge, opts ...Option) error { return nil }

// Refund refunds a charge.
func (cl *Client) Refund(ctx context.Context, id string, opts ...Option) error { return nil }

// Lookup reads a charge back: not consequential.
func (cl *Client) Lookup(ctx context.Context, id string, opts ...Option) error { return nil }

// Capturer captures an authorised charge.
type Capturer interface {
	Capture(ctx context.Context, id string, opts ...Option) error //faultline:consequential
}
