package httpfault_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
)

// TestRenderProviderAnswers: with JoinOptions.Render, reject_before_commit,
// rate_limit and do_not_retry answer in the provider's format (status, the headers its
// SDK obeys, body), the model's rate-limit wait in Retry-After-Ms; the
// client's three outcomes follow (a 529 overloaded answer is unknown to
// OutcomeOf, as any 5xx). The SDKs' own error types decode these answers
// in examples/thirdparty (TestStripeErrorDecodes and its siblings).
func TestRenderProviderAnswers(t *testing.T) {
	headers := []string{"Retry-After", "Retry-After-Ms", "X-Should-Retry", "Stripe-Should-Retry", "Request-Id", "X-Request-Id"}
	want := map[string]map[string]string{
		"default": {
			"do_not_retry":         `rejected 400 Bad Request {"error":"rejected permanently: do not retry"} X-Should-Retry=false`,
			"reject_before_commit": `rejected 422 Unprocessable Entity {"error":"rejected before commit"}`,
			"rate_limit":           `rejected 429 Too Many Requests {"error":"rate limited"} Retry-After=1 Retry-After-Ms=100`,
		},
		"stripe": {
			"reject_before_commit": `rejected 400 Bad Request {"error":{"type":"invalid_request_error","message":"The request was rejected before it was committed."}} Stripe-Should-Retry=false Request-Id=req_faultline`,
			"rate_limit":           `rejected 429 Too Many Requests {"error":{"type":"invalid_request_error","code":"rate_limit","message":"Too many requests hit the API too quickly."}} Request-Id=req_faultline`,
		},
		"openai": {
			"reject_before_commit": `rejected 400 Bad Request {"error":{"message":"The request was rejected before it was committed.","type":"invalid_request_error","param":null,"code":null}} X-Should-Retry=false X-Request-Id=req_faultline`,
			"rate_limit":           `rejected 429 Too Many Requests {"error":{"message":"Rate limit reached for requests.","type":"requests","param":null,"code":"rate_limit_exceeded"}} Retry-After=1 Retry-After-Ms=100 X-Should-Retry=true X-Request-Id=req_faultline`,
		},
		"anthropic": {
			"reject_before_commit": `rejected 400 Bad Request {"type":"error","error":{"type":"invalid_request_error","message":"The request was rejected before it was committed."},"request_id":"req_faultline"} X-Should-Retry=false Request-Id=req_faultline`,
			"rate_limit":           `rejected 429 Too Many Requests {"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit."},"request_id":"req_faultline"} Retry-After=1 Retry-After-Ms=100 X-Should-Retry=true Request-Id=req_faultline`,
		},
		"anthropic_overloaded": {
			"reject_before_commit": `rejected 400 Bad Request {"type":"error","error":{"type":"invalid_request_error","message":"The request was rejected before it was committed."},"request_id":"req_faultline"} X-Should-Retry=false Request-Id=req_faultline`,
			"rate_limit":           `unknown 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_faultline"} Retry-After=1 Retry-After-Ms=100 X-Should-Retry=true Request-Id=req_faultline`,
		},
	}
	renders := map[string]func(string, model.Millis) httpfault.Answer{"default": nil, "stripe": httpfault.StripeError,
		"openai": httpfault.OpenAIError, "anthropic": httpfault.AnthropicError, "anthropic_overloaded": httpfault.AnthropicOverloaded}
	for name, render := range renders {
		if want[name]["do_not_retry"] == "" {
			// the provider's format has one answer for a request it
			// will not take: a 400 that says not to retry
			want[name]["do_not_retry"] = want[name]["reject_before_commit"]
		}
		for _, kind := range []string{"reject_before_commit", "rate_limit", "do_not_retry"} {
			var got []string
			res, err := model.NewHarness(payFixture, model.Options{Builtin: []string{}}).Run(
				func() model.System { return outcomeSystem{p: &jpayments{}, got: &got, render: render, header: headers} },
				&model.Schedule{Version: model.ScheduleVersion, Seed: "r", Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: kind}}})
			require.NoError(t, err, "%s %s", name, kind)
			assert.Equal(t, []string{want[name][kind]}, got, "%s %s", name, kind)
			assert.Equal(t, 1, res.Faults[0].Fired, "%s %s", name, kind)
			for _, e := range res.Timeline.Events() {
				if e.Event == model.EvToolCommit {
					assert.Equal(t, "rejected", e.Outcome, "%s %s: the model's outcome", name, kind)
				}
			}
		}
	}
}
