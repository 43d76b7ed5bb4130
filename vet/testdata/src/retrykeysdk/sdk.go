// Package retrykeysdk retries through real SDKs' shapes, untaught:
// stripe-go's params with SetIdempotencyKey passed to the call that sends
// them, and a retryablehttp-style client's Do.
package retrykeysdk

import (
	"fmt"
	"strconv"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
	stripe "github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/charge"
)

func chargeFromCounter(order string, amount int64) (*stripe.Charge, error) {
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		params := &stripe.ChargeParams{Amount: stripe.Int64(amount), Currency: stripe.String("eur")}
		params.SetIdempotencyKey(fmt.Sprintf("charge-%s:%d", order, attempt)) // want `the key SetIdempotencyKey sets varies across the attempts of the retry loop at line \d+: it is built from the attempt counter attempt`
		var ch *stripe.Charge
		if ch, err = charge.New(params); err == nil {
			return ch, nil
		}
	}
	return nil, err
}

func retryableFromCounter(c *retryablehttp.Client, id string) {
	for attempt := 0; attempt < 3; attempt++ {
		req, _ := retryablehttp.NewRequest("POST", "http://127.0.0.1/charges", nil)
		req.Header.Set("Idempotency-Key", id+"-"+strconv.Itoa(attempt)) // want `the "Idempotency-Key" header varies across the attempts of the retry loop at line \d+: it is built from the attempt counter attempt`
		if resp, err := c.Do(req); err == nil && resp.StatusCode < 300 {
			return
		}
	}
}

// --- true negatives ---

func chargeStable(order string, amount int64) (*stripe.Charge, error) {
	key := "charge-" + order
	var err error
	for range 3 {
		params := &stripe.ChargeParams{Amount: stripe.Int64(amount)}
		params.SetIdempotencyKey(key)
		var ch *stripe.Charge
		if ch, err = charge.New(params); err == nil {
			return ch, nil
		}
	}
	return nil, err
}

func retryableStable(c *retryablehttp.Client, id string) {
	for range 3 {
		req, _ := retryablehttp.NewRequest("POST", "http://127.0.0.1/charges", nil)
		req.Header.Set("Idempotency-Key", "charge-"+id)
		if resp, err := c.Do(req); err == nil && resp.StatusCode < 300 {
			return
		}
	}
}
