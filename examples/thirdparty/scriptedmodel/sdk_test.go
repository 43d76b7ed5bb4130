package scriptedmodel_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/faultline/faultline/examples/thirdparty/scriptedmodel"
	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
)

func newModel() *scriptedmodel.Model {
	return &scriptedmodel.Model{Tool: "refund", Field: "order", Tasks: []model.Task{{ID: "T-1", Subject: "O-731", Tenant: "acme"}},
		Decoys: map[string][]string{"acme": {"O-732"}}}
}

// rewrite passes each answer of next through f (a kind's rendering).
type rewrite struct {
	next http.RoundTripper
	f    func(resp *http.Response, body []byte) []byte
}

func (r rewrite) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	b, _ := io.ReadAll(resp.Body)
	b = r.f(resp, b)
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	resp.Header.Del("Content-Length")
	return resp, nil
}

func client(rt http.RoundTripper, opts ...option.RequestOption) *anthropic.Client {
	c := anthropic.NewClient(append([]option.RequestOption{option.WithAPIKey("sk-ant-scripted"), option.WithBaseURL("http://127.0.0.1/"),
		option.WithHTTPClient(&http.Client{Transport: rt})}, opts...)...)
	return &c
}

var params = anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 64,
	Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Task T-1: refund order O-731."))}}

// stream reads one streamed reply with the SDK's own accumulator.
func stream(c *anthropic.Client) (anthropic.Message, error) {
	var msg anthropic.Message
	s := c.Messages.NewStreaming(context.Background(), params)
	defer s.Close()
	for s.Next() {
		if err := msg.Accumulate(s.Current()); err != nil {
			return msg, err
		}
	}
	return msg, s.Err()
}

func toolInput(t *testing.T, msg anthropic.Message) string {
	t.Helper()
	if len(msg.Content) != 1 || msg.StopReason != anthropic.StopReasonToolUse {
		t.Fatalf("reply %+v", msg)
	}
	u, ok := msg.Content[0].AsAny().(anthropic.ToolUseBlock)
	if !ok || u.Name != "refund" || u.ID != "toolu_1" || msg.ID != "msg_1" {
		t.Fatalf("reply %+v", msg)
	}
	return string(u.Input)
}

// TestSDKDecodesTheModel: anthropic-sdk-go decodes the scripted model's
// answers with its own types, as each kind leaves them: the reply (JSON
// and streamed), the reply with subject_swap's rewrite (both forms), the
// stream cut by malformed_response (an error, no stop reason), and the
// model's own error envelope.
func TestSDKDecodesTheModel(t *testing.T) {
	m := newModel()
	msg, err := client(httpfault.InProcess(m)).Messages.New(context.Background(), params)
	if err != nil || toolInput(t, *msg) != `{"order": "O-731"}` {
		t.Fatalf("JSON reply: %v %+v", err, msg)
	}
	for _, c := range []struct {
		name, want string
		f          func(*http.Response, []byte) []byte
	}{
		{"stream", `{"order": "O-731"}`, func(_ *http.Response, b []byte) []byte { return b }},
		{"subject_swap", `{"order": "O-732"}`, func(_ *http.Response, b []byte) []byte {
			return bytes.ReplaceAll(b, []byte(`\"O-731\"`), []byte(`\"O-732\"`))
		}},
	} {
		msg, err := stream(client(rewrite{httpfault.InProcess(newModel()), c.f}))
		if err != nil || toolInput(t, msg) != c.want {
			t.Errorf("%s: %v %+v", c.name, err, msg)
		}
	}
	// malformed_response on a stream: half the events, then the end
	msg2, err := stream(client(rewrite{httpfault.InProcess(newModel()), func(_ *http.Response, b []byte) []byte { return b[:len(b)/2] }}))
	if err != nil || msg2.StopReason != "" || msg2.ID != "msg_1" {
		t.Errorf("cut stream: %v, stop reason %q", err, msg2.StopReason)
	}
	var ae *anthropic.Error
	_, err = client(httpfault.InProcess(newModel())).Messages.New(context.Background(), anthropic.MessageNewParams{Model: "m", MaxTokens: 8,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("no task"))}})
	if !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Type() != "invalid_request_error" {
		t.Errorf("no task: %v", err)
	}
}

// TestLimiterKeepsRetryAfter: after a 529 overloaded answer with
// Retry-After-Ms 100 (httpfault.AnthropicOverloaded, as rate_limit
// renders it) the model's limiter answers a request at once with a 529
// of its own, which the SDK decodes; its default retries wait the 100 ms
// and get the reply.
func TestLimiterKeepsRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newModel()
		first := true
		overloaded := roundTrip(func(req *http.Request) (*http.Response, error) {
			if first {
				first = false
				return answer(req, httpfault.AnthropicOverloaded("rate_limit", 100)), nil
			}
			return httpfault.InProcess(m).RoundTrip(req)
		})
		rt := m.Transport(nil, overloaded)
		var ae *anthropic.Error
		_, err := client(rt, option.WithMaxRetries(0)).Messages.New(context.Background(), params)
		_, err2 := client(rt, option.WithMaxRetries(0)).Messages.New(context.Background(), params)
		if !errors.As(err, &ae) || ae.StatusCode != 529 || !errors.As(err2, &ae) || ae.StatusCode != 529 || ae.Type() != "overloaded_error" {
			t.Fatalf("want two 529s: %v / %v", err, err2)
		}
		start := time.Now()
		msg, err := client(rt).Messages.New(context.Background(), params)
		if err != nil || toolInput(t, *msg) != `{"order": "O-731"}` || time.Since(start) != 100*time.Millisecond {
			t.Fatalf("after %v: %v", time.Since(start), err)
		}
		if got := strings.Join(m.Log(), ","); got != "limited,limited,tool_use" {
			t.Errorf("log %s", got)
		}
	})
}

// answer is a rendered answer as a response to req.
func answer(req *http.Request, a httpfault.Answer) *http.Response {
	h := a.Header.Clone()
	h.Set("Content-Type", "application/json")
	return &http.Response{StatusCode: a.Status, Header: h, Body: io.NopCloser(bytes.NewReader(a.Body)), Request: req}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
