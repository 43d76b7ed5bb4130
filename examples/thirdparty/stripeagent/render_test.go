package stripeagent_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"testing"
	"testing/synctest"

	"github.com/stripe/stripe-go/v82"

	"github.com/faultline/faultline/httpfault"
)

// answering is a RoundTripper that gives every request the same answer
// and counts the requests.
type answering struct {
	a     httpfault.Answer
	calls int
}

func (r *answering) RoundTrip(req *http.Request) (*http.Response, error) {
	r.calls++
	h := r.a.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(r.a.Body)))
	return &http.Response{StatusCode: r.a.Status, Status: strconv.Itoa(r.a.Status), Header: h, Request: req,
		Body: io.NopCloser(bytes.NewReader(r.a.Body)), ContentLength: int64(len(r.a.Body))}, nil
}

// TestStripeErrorDecodes: stripe-go, with its default two retries, decodes
// httpfault.StripeError's answers as its own *stripe.Error (status, type,
// code, message, request id) and sends the request once, as it does for
// Stripe's own rejection and rate limit (do_not_retry: Stripe-Should-Retry
// false). Counterfactual: faultline's
// default answer is no Stripe error to stripe-go, which takes it for a
// failure of the network and sends the request three times, a path
// production never takes.
func TestStripeErrorDecodes(t *testing.T) {
	for _, c := range []struct {
		kind         string
		status       int
		typ, code    string
		message      string
		defaultCalls int
	}{
		{"reject_before_commit", 400, "invalid_request_error", "", "The request was rejected before it was committed.", 3},
		{"rate_limit", 429, "invalid_request_error", "rate_limit", "Too many requests hit the API too quickly.", 3},
		{"do_not_retry", 400, "invalid_request_error", "", "The request was rejected before it was committed.", 3},
	} {
		synctest.Test(t, func(t *testing.T) {
			rt := &answering{a: httpfault.StripeError(c.kind, 100)}
			_, err := stripeClient(rt).V1Refunds.Create(context.Background(), &stripe.RefundCreateParams{Charge: stripe.String("ch_1")})
			var se *stripe.Error
			if !errors.As(err, &se) || se.HTTPStatusCode != c.status || string(se.Type) != c.typ || string(se.Code) != c.code ||
				se.Msg != c.message || se.RequestID != "req_faultline" || rt.calls != 1 {
				t.Errorf("%s: %d requests, error %T %v", c.kind, rt.calls, err, err)
			}
			def := &answering{a: defaultAnswer(c.kind)}
			_, err = stripeClient(def).V1Refunds.Create(context.Background(), &stripe.RefundCreateParams{Charge: stripe.String("ch_1")})
			if errors.As(err, &se) || def.calls != c.defaultCalls {
				t.Errorf("%s, default answer: %d requests, error %T %v", c.kind, def.calls, err, err)
			}
		})
	}
}

// defaultAnswer is the answer httpfault gives without JoinOptions.Render
// (httpfault's TestRenderProviderAnswers holds its bytes).
func defaultAnswer(kind string) httpfault.Answer {
	switch kind {
	case "rate_limit":
		return httpfault.Answer{Status: 429, Header: http.Header{"Retry-After": {"1"}, "Retry-After-Ms": {"100"}}, Body: []byte(`{"error":"rate limited"}`)}
	case "do_not_retry":
		return httpfault.Answer{Status: 400, Header: http.Header{"X-Should-Retry": {"false"}}, Body: []byte(`{"error":"rejected permanently: do not retry"}`)}
	}
	return httpfault.Answer{Status: 422, Body: []byte(`{"error":"rejected before commit"}`)}
}
