// Package stripeagent is production code over stripe-go, left unmodified
// with its default retries (two, each back-off jittered with math/rand's
// global source): a refund agent that asks Stripe for one refund per task.
// It imports no faultline package; its test (faultline_test.go) checks it
// through httpfault with a fake Stripe in process.
//
// Its planted bug (Agent.Planted) is the one a team finds in real agent
// loops: when Create fails without an answer from Stripe (stripe-go's own
// retries spent on lost replies), the loop calls Create again without a
// key of its own, so stripe-go sends a fresh automatic Idempotency-Key and
// Stripe makes a second refund.
package stripeagent

import (
	"context"
	"errors"
	"fmt"

	"github.com/stripe/stripe-go/v82"
)

// Agent refunds charges through Client.
type Agent struct {
	Client *stripe.Client
	// Attempts is how many times the loop calls Create (default 2).
	Attempts int
	// Planted: the loop sends no key of its own (the bug); otherwise every
	// attempt carries "TASK:refund", which Stripe deduplicates.
	Planted bool
}

// Refund asks for a refund of amount (cents) of charge for task and
// returns the refund's id. An error from Stripe itself (*stripe.Error: a
// rejection, a rate limit) ends the loop; an error without Stripe's
// answer (a lost reply, an undecodable body) is tried again.
func (a Agent) Refund(ctx context.Context, task, charge string, amount int64) (string, error) {
	attempts := a.Attempts
	if attempts == 0 {
		attempts = 2
	}
	var err error
	for range attempts {
		p := &stripe.RefundCreateParams{Charge: stripe.String(charge), Amount: stripe.Int64(amount),
			Metadata: map[string]string{"task": task}}
		if !a.Planted {
			p.SetIdempotencyKey(task + ":refund")
		}
		var r *stripe.Refund
		if r, err = a.Client.V1Refunds.Create(ctx, p); err == nil {
			return r.ID, nil
		}
		if se := (*stripe.Error)(nil); errors.As(err, &se) {
			return "", fmt.Errorf("stripe refused the refund: %w", err)
		}
	}
	return "", fmt.Errorf("refund of %s: no answer after %d attempts: %w", charge, attempts, err)
}
