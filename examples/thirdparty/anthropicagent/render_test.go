package anthropicagent_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
)

// answering gives every request the same answer and counts the requests.
type answering struct {
	a     httpfault.Answer
	calls int
}

func (r *answering) RoundTrip(req *http.Request) (*http.Response, error) {
	r.calls++
	h := r.a.Header.Clone()
	h.Set("Content-Type", "application/json")
	return &http.Response{StatusCode: r.a.Status, Status: strconv.Itoa(r.a.Status), Header: h, Request: req,
		Body: io.NopCloser(bytes.NewReader(r.a.Body)), ContentLength: int64(len(r.a.Body))}, nil
}

// TestAnthropicErrorDecodes: anthropic-sdk-go, with its default two
// retries, decodes AnthropicError's and AnthropicOverloaded's answers as
// its own *anthropic.Error (status, type, message, request id); it sends a
// rejection and do_not_retry's 400 once (x-should-retry: false) and a rate limit or a 529
// overloaded answer three times, 250 ms apart (Retry-After-Ms, the wait
// the model gave), in a synctest bubble.
func TestAnthropicErrorDecodes(t *testing.T) {
	for _, c := range []struct {
		name    string
		render  func(string, model.Millis) httpfault.Answer
		kind    string
		status  int
		typ     string
		message string
		calls   int
		elapsed time.Duration
	}{
		{"reject", httpfault.AnthropicError, "reject_before_commit", 400, "invalid_request_error", "The request was rejected before it was committed.", 1, 0},
		{"rate_limit", httpfault.AnthropicError, "rate_limit", 429, "rate_limit_error", "Number of requests has exceeded your rate limit.", 3, 500 * time.Millisecond},
		{"overloaded", httpfault.AnthropicOverloaded, "rate_limit", 529, "overloaded_error", "Overloaded", 3, 500 * time.Millisecond},
		{"do_not_retry", httpfault.AnthropicError, "do_not_retry", 400, "invalid_request_error", "The request was rejected before it was committed.", 1, 0},
	} {
		synctest.Test(t, func(t *testing.T) {
			rt := &answering{a: c.render(c.kind, 250)}
			client := anthropic.NewClient(option.WithAPIKey("sk-ant-faultline"), option.WithBaseURL("http://127.0.0.1:8080/"),
				option.WithHTTPClient(&http.Client{Transport: rt}))
			start := time.Now()
			_, err := client.Messages.New(context.Background(), anthropic.MessageNewParams{Model: anthropic.Model("claude-faultline"), MaxTokens: 16,
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
			var ae *anthropic.Error
			if !errors.As(err, &ae) || ae.StatusCode != c.status || string(ae.Type()) != c.typ || ae.Message != c.message ||
				ae.RequestID != "req_faultline" || rt.calls != c.calls || time.Since(start) != c.elapsed {
				t.Errorf("%s: %d requests in %v, error %T %v", c.name, rt.calls, time.Since(start), err, err)
			}
		})
	}
}
