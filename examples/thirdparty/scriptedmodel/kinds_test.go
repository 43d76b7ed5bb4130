package scriptedmodel_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"

	"github.com/faultline/faultline/httpfault"
)

// disturbed is a transport whose answers the scripted model's Disturb
// leaves as kind does; acted records whether it acted.
func disturbed(kind string, acted *bool) rewrite {
	m := newModel()
	return rewrite{httpfault.InProcess(m), func(_ *http.Response, b []byte) []byte {
		out, ok := m.Disturb(kind, b)
		*acted = ok
		return out
	}}
}

// TestAnthropicDecodesTheReplyKinds: anthropic-sdk-go decodes the replies
// duplicate_tool_call and model_refusal leave, JSON and streamed: the
// same refund call twice under toolu_1 and toolu_1_2; a refusal (stop
// reason "refusal", a text, no tool call). On a stream cut before its
// tool call is whole neither kind acts.
func TestAnthropicDecodesTheReplyKinds(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		var acted bool
		var msg anthropic.Message
		var err error
		read := func(rt rewrite) {
			if streamed {
				msg, err = stream(client(rt))
			} else {
				var p *anthropic.Message
				if p, err = client(rt).Messages.New(context.Background(), params); p != nil {
					msg = *p
				}
			}
		}
		read(disturbed("duplicate_tool_call", &acted))
		if err != nil || !acted || len(msg.Content) != 2 || msg.StopReason != anthropic.StopReasonToolUse {
			t.Fatalf("duplicate (stream %v): %v %v %+v", streamed, acted, err, msg)
		}
		for i, id := range []string{"toolu_1", "toolu_1_2"} {
			u, ok := msg.Content[i].AsAny().(anthropic.ToolUseBlock)
			if !ok || u.ID != id || u.Name != "refund" || string(u.Input) != `{"order": "O-731"}` {
				t.Errorf("duplicate (stream %v): block %d %+v", streamed, i, msg.Content[i])
			}
		}
		read(disturbed("model_refusal", &acted))
		if err != nil || !acted || msg.StopReason != anthropic.StopReasonRefusal || msg.ID != "msg_1" || len(msg.Content) != 1 ||
			msg.Content[0].Type != "text" || msg.Content[0].Text != "I can't help with that request." {
			t.Errorf("refusal (stream %v): %v %v %+v", streamed, acted, err, msg)
		}
	}
	for _, kind := range []string{"duplicate_tool_call", "model_refusal"} {
		m := newModel()
		cut := rewrite{httpfault.InProcess(m), func(_ *http.Response, b []byte) []byte {
			out, ok := m.Disturb(kind, b[:len(b)/2])
			if ok {
				t.Errorf("%s acted on a cut stream", kind)
			}
			return out
		}}
		if msg, err := stream(client(cut)); err != nil || msg.StopReason != "" {
			t.Errorf("%s on a cut stream: %v %+v", kind, err, msg)
		}
	}
}

// TestOpenAIDecodesTheReplyKinds: openai-go decodes the completions
// duplicate_tool_call and model_refusal leave, JSON and streamed chunks:
// two tool calls call_1 and call_1_2 with the same arguments; a refusal in
// the message's refusal field, no content and no tool call.
func TestOpenAIDecodesTheReplyKinds(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		var acted bool
		get := func(kind string) *completion {
			rt := disturbed(kind, &acted)
			if streamed {
				c, err := chatStream(openaiClient(rt))
				return &completion{c, err}
			}
			c, err := openaiClient(rt).Chat.Completions.New(context.Background(), chatParams)
			if c == nil {
				return &completion{err: err}
			}
			return &completion{*c, err}
		}
		d := get("duplicate_tool_call")
		if d.err != nil || !acted || len(d.c.Choices) != 1 || d.c.Choices[0].FinishReason != "tool_calls" || len(d.c.Choices[0].Message.ToolCalls) != 2 {
			t.Fatalf("duplicate (stream %v): %v %v %+v", streamed, acted, d.err, d.c)
		}
		for i, id := range []string{"call_1", "call_1_2"} {
			call := d.c.Choices[0].Message.ToolCalls[i]
			if call.ID != id || call.Function.Name != "refund" || call.Function.Arguments != `{"order": "O-731"}` {
				t.Errorf("duplicate (stream %v): call %d %+v", streamed, i, call)
			}
		}
		r := get("model_refusal")
		if r.err != nil || !acted || len(r.c.Choices) != 1 || r.c.ID != "chatcmpl-1" {
			t.Fatalf("refusal (stream %v): %v %v %+v", streamed, acted, r.err, r.c)
		}
		if msg := r.c.Choices[0].Message; msg.Refusal != "I can't help with that request." || msg.Content != "" || len(msg.ToolCalls) != 0 || r.c.Choices[0].FinishReason != "stop" {
			t.Errorf("refusal (stream %v): %+v", streamed, r.c.Choices[0])
		}
	}
}

type completion struct {
	c   openai.ChatCompletion
	err error
}
