package httpfault_test

import (
	"net/http"
	"testing"

	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
)

// TestDefaultResultRetryAfter: a provider's own 429 owes the wait its
// Retry-After-Ms says when it has one (the header the OpenAI and Anthropic
// SDKs obey first: a correct SDK waiting 100 ms was judged 900 ms early
// when only Retry-After's rounded-up second was read), else Retry-After's
// seconds; a header that does not parse owes none.
func TestDefaultResultRetryAfter(t *testing.T) {
	result := httpfault.DefaultResult("receipt_id", "amount")
	for _, c := range []struct {
		name    string
		headers map[string]string
		want    model.Millis
	}{
		{"both", map[string]string{"Retry-After": "1", "Retry-After-Ms": "100"}, 100},
		{"fractional ms", map[string]string{"Retry-After-Ms": "250.2"}, 251},
		{"seconds only", map[string]string{"Retry-After": "2"}, 2000},
		{"bad ms, seconds", map[string]string{"Retry-After": "3", "Retry-After-Ms": "soon"}, 3000},
		{"negative ms, seconds", map[string]string{"Retry-After": "1", "Retry-After-Ms": "-5"}, 1000},
		{"an HTTP date", map[string]string{"Retry-After": "Wed, 21 Oct 2026 07:28:00 GMT"}, 0},
		{"none", nil, 0},
	} {
		resp := &http.Response{StatusCode: http.StatusTooManyRequests, Status: "429 Too Many Requests", Header: http.Header{}}
		for k, v := range c.headers {
			resp.Header.Set(k, v)
		}
		got := result("k-1", resp, nil)
		if got.Outcome != model.OutcomeRejected || got.Class != model.ClassRateLimited || got.RetryAfter != c.want {
			t.Errorf("%s: %+v, want rejected, rate limited, RetryAfter %d", c.name, got, c.want)
		}
	}
}
