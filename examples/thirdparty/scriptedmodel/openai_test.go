package scriptedmodel_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openai/openai-go/v3"
	oaioption "github.com/openai/openai-go/v3/option"

	"github.com/faultline/faultline/httpfault"
)

func openaiClient(rt http.RoundTripper, opts ...oaioption.RequestOption) *openai.Client {
	c := openai.NewClient(append([]oaioption.RequestOption{oaioption.WithAPIKey("sk-scripted"), oaioption.WithBaseURL("http://127.0.0.1/v1/"),
		oaioption.WithHTTPClient(&http.Client{Transport: rt})}, opts...)...)
	return &c
}

var chatParams = openai.ChatCompletionNewParams{Model: "gpt-4o", Messages: []openai.ChatCompletionMessageParamUnion{
	openai.SystemMessage("You refund orders."), openai.UserMessage("Task T-1: refund order O-731.")}}

// chatStream reads one streamed completion with the SDK's accumulator.
func chatStream(c *openai.Client) (openai.ChatCompletion, error) {
	var acc openai.ChatCompletionAccumulator
	s := c.Chat.Completions.NewStreaming(context.Background(), chatParams)
	defer s.Close()
	for s.Next() {
		acc.AddChunk(s.Current())
	}
	return acc.ChatCompletion, s.Err()
}

func toolArgs(t *testing.T, c openai.ChatCompletion) string {
	t.Helper()
	if len(c.Choices) != 1 || c.ID != "chatcmpl-1" || c.Choices[0].FinishReason != "tool_calls" || len(c.Choices[0].Message.ToolCalls) != 1 {
		t.Fatalf("completion %+v", c)
	}
	call := c.Choices[0].Message.ToolCalls[0]
	if call.ID != "call_1" || call.Function.Name != "refund" {
		t.Fatalf("tool call %+v", call)
	}
	return call.Function.Arguments
}

// TestOpenAIDecodesTheModel: openai-go decodes the scripted model's Chat
// Completions answers with its own types, as each kind leaves them: the
// completion (JSON and streamed chunks), the stream with subject_swap's
// rewrite, the stream cut by malformed_response (no finish reason) and
// the model's error envelope (*openai.Error); a tool message that is not
// an error ends the turn.
func TestOpenAIDecodesTheModel(t *testing.T) {
	c, err := openaiClient(httpfault.InProcess(newModel())).Chat.Completions.New(context.Background(), chatParams)
	if err != nil || toolArgs(t, *c) != `{"order": "O-731"}` {
		t.Fatalf("JSON completion: %v %+v", err, c)
	}
	for _, k := range []struct {
		name, want string
		f          func(*http.Response, []byte) []byte
	}{
		{"stream", `{"order": "O-731"}`, func(_ *http.Response, b []byte) []byte { return b }},
		{"subject_swap", `{"order": "O-732"}`, func(_ *http.Response, b []byte) []byte {
			return bytes.ReplaceAll(b, []byte(`\"O-731\"`), []byte(`\"O-732\"`))
		}},
	} {
		got, err := chatStream(openaiClient(rewrite{httpfault.InProcess(newModel()), k.f}))
		if err != nil || toolArgs(t, got) != k.want {
			t.Errorf("%s: %v %+v", k.name, err, got)
		}
	}
	cut, err := chatStream(openaiClient(rewrite{httpfault.InProcess(newModel()), func(_ *http.Response, b []byte) []byte { return b[:len(b)/2] }}))
	if len(cut.Choices) != 1 || cut.Choices[0].FinishReason != "" {
		t.Errorf("cut stream: %v %+v", err, cut)
	}
	var oe *openai.Error
	_, err = openaiClient(httpfault.InProcess(newModel())).Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "gpt-4o",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("no task")}})
	if !errors.As(err, &oe) || oe.StatusCode != 400 || oe.Type != "invalid_request_error" {
		t.Errorf("no task: %v", err)
	}
	done := chatParams
	done.Messages = append(append([]openai.ChatCompletionMessageParamUnion(nil), chatParams.Messages...),
		openai.ToolMessage(`{"id": "re_1"}`, "call_1"))
	c, err = openaiClient(httpfault.InProcess(newModel())).Chat.Completions.New(context.Background(), done)
	if err != nil || c.Choices[0].FinishReason != "stop" || c.Choices[0].Message.Content != "Done." {
		t.Errorf("after the tool's result: %v %+v", err, c)
	}
}

// TestOpenAILimiter: after OpenAI's 429 with Retry-After-Ms 100
// (httpfault.OpenAIError, as rate_limit renders it with Model.OpenAI) the
// limiter answers at once with a 429 of its own, decoded as *openai.Error
// (the second client's, then the third's first attempt); openai-go's
// default retries wait the 100 ms and get the completion.
func TestOpenAILimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newModel()
		m.OpenAI = true
		first := true
		limited := roundTrip(func(req *http.Request) (*http.Response, error) {
			if first {
				first = false
				return answer(req, httpfault.OpenAIError("rate_limit", 100)), nil
			}
			return httpfault.InProcess(m).RoundTrip(req)
		})
		rt := m.Transport(nil, limited)
		var oe *openai.Error
		_, err := openaiClient(rt, oaioption.WithMaxRetries(0)).Chat.Completions.New(context.Background(), chatParams)
		_, err2 := openaiClient(rt, oaioption.WithMaxRetries(0)).Chat.Completions.New(context.Background(), chatParams)
		if !errors.As(err, &oe) || oe.StatusCode != 429 || !errors.As(err2, &oe) || oe.StatusCode != 429 || oe.Code != "rate_limit_exceeded" {
			t.Fatalf("want two 429s: %v / %v", err, err2)
		}
		start := time.Now()
		c, err := openaiClient(rt).Chat.Completions.New(context.Background(), chatParams)
		if err != nil || toolArgs(t, *c) != `{"order": "O-731"}` || time.Since(start) != 100*time.Millisecond {
			t.Fatalf("after %v: %v", time.Since(start), err)
		}
		if got := strings.Join(m.Log(), ","); got != "limited,limited,tool_use" {
			t.Errorf("log %s", got)
		}
	})
}
