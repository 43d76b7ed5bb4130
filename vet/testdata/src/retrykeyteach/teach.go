// Package retrykeyteach retries calls of a client vet learns from its
// user: acmepay.Client.Create and acmepay.Capturer.Capture carry the
// //faultline:consequential directive (a fact of their package), Refund
// is named by -retrykey.consequential=(*acmepay.Client).Refund, and
// Lookup is neither.
package retrykeyteach

import (
	"context"
	"fmt"

	"acmepay"
)

func createFromCounter(ctx context.Context, cl *acmepay.Client, order string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = cl.Create(ctx, &acmepay.Charge{Amount: 5}, acmepay.WithIdempotencyKey(fmt.Sprintf("%s:%d", order, attempt))); err == nil { // want `the key WithIdempotencyKey sets varies across the attempts of the retry loop at line \d+: it is built from the attempt counter attempt`
			return nil
		}
	}
	return err
}

func captureFromCounter(ctx context.Context, c acmepay.Capturer, id string) {
	for attempt := range 3 {
		if c.Capture(ctx, id, acmepay.WithIdempotencyKey(id+fmt.Sprint(attempt))) == nil { // want `the key WithIdempotencyKey sets varies across the attempts of the retry loop at line \d+: it is built from the attempt counter attempt`
			return
		}
	}
}

func refundFromCounter(ctx context.Context, cl *acmepay.Client, id string) {
	for attempt := range 3 {
		if cl.Refund(ctx, id, acmepay.WithIdempotencyKey(fmt.Sprintf("refund-%s-%d", id, attempt))) == nil { // want `the key WithIdempotencyKey sets varies across the attempts of the retry loop at line \d+: it is built from the attempt counter attempt`
			return
		}
	}
}

// --- true negatives ---

func createStable(ctx context.Context, cl *acmepay.Client, order string) error {
	key := "charge:" + order
	var err error
	for range 3 {
		if err = cl.Create(ctx, &acmepay.Charge{Amount: 5}, acmepay.WithIdempotencyKey(key)); err == nil {
			return nil
		}
	}
	return err
}

func lookupFromCounter(ctx context.Context, cl *acmepay.Client, id string) {
	for attempt := range 3 {
		if cl.Lookup(ctx, id, acmepay.WithIdempotencyKey(fmt.Sprint(attempt))) == nil {
			return
		}
	}
}
