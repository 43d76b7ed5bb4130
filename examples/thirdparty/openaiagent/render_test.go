package openaiagent_test

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

	"github.com/openai/openai-go/v3"

	"github.com/faultline/faultline/httpfault"
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

// TestOpenAIErrorDecodes: openai-go, with its default two retries, decodes
// OpenAIError's answers as its own *openai.Error (status, type, code,
// message); it sends a rejection and do_not_retry's 400 once
// (x-should-retry: false) and a rate
// limit three times, 250 ms apart (Retry-After-Ms, the wait the model
// gave, not its own jittered back-off), in a synctest bubble.
func TestOpenAIErrorDecodes(t *testing.T) {
	for _, c := range []struct {
		kind      string
		status    int
		typ, code string
		message   string
		calls     int
		elapsed   time.Duration
	}{
		{"reject_before_commit", 400, "invalid_request_error", "", "The request was rejected before it was committed.", 1, 0},
		{"rate_limit", 429, "requests", "rate_limit_exceeded", "Rate limit reached for requests.", 3, 500 * time.Millisecond},
		{"do_not_retry", 400, "invalid_request_error", "", "The request was rejected before it was committed.", 1, 0},
	} {
		synctest.Test(t, func(t *testing.T) {
			rt := &answering{a: httpfault.OpenAIError(c.kind, 250)}
			start := time.Now()
			client := openaiClient(rt)
			_, err := client.Batches.New(context.Background(), openai.BatchNewParams{InputFileID: "file-abc",
				Endpoint: openai.BatchNewParamsEndpointV1ChatCompletions, CompletionWindow: openai.BatchNewParamsCompletionWindow24h})
			var oe *openai.Error
			if !errors.As(err, &oe) || oe.StatusCode != c.status || oe.Type != c.typ || oe.Code != c.code || oe.Message != c.message ||
				rt.calls != c.calls || time.Since(start) != c.elapsed {
				t.Errorf("%s: %d requests in %v, error %T %v", c.kind, rt.calls, time.Since(start), err, err)
			}
		})
	}
}
