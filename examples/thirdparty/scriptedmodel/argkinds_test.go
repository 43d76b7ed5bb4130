package scriptedmodel_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/faultline/faultline/examples/thirdparty/scriptedmodel"
	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
)

// argModel is a model whose tool call carries the task's tenant and
// purpose; a second task of another tenant and purpose is the fixture's.
func argModel() *scriptedmodel.Model {
	m := newModel()
	m.TenantArg, m.PurposeArg = "tenant", "purpose"
	m.Tasks = []model.Task{{ID: "T-1", Subject: "O-731", Tenant: "acme", Purpose: "refund"}, {ID: "T-9", Subject: "O-900", Tenant: "globex", Purpose: "goodwill"}}
	return m
}

// argKinds are the arguments each kind leaves in the tool call of T-1's
// reply; malformed_tool_call's are cut in the stream's last chunk (Anthropic
// renders it on a stream only: its non-streamed input is a JSON object).
var argKinds = []struct{ kind, args string }{
	{"", `{"order": "O-731", "tenant": "acme", "purpose": "refund"}`},
	{"tenant_swap", `{"order": "O-731", "tenant": "globex", "purpose": "refund"}`},
	{"purpose_swap", `{"order": "O-731", "tenant": "acme", "purpose": "goodwill"}`},
	{"malformed_tool_call", cutStream},
}

// cutStream is a stream's arguments cut: the first chunk ({"order": )
// whole, the second (the rest) to half.
var cutStream = func() string {
	rest := `"O-731", "tenant": "acme", "purpose": "refund"}`
	return `{"order": ` + rest[:len(rest)/2]
}()

func argsDisturbed(kind string, acted *bool) rewrite {
	m := argModel()
	return rewrite{httpfault.InProcess(m), func(_ *http.Response, b []byte) []byte {
		if kind == "" {
			*acted = true
			return b
		}
		out, ok := m.Disturb(kind, b)
		*acted = ok
		return out
	}}
}

// TestAnthropicDecodesTheArgumentKinds: anthropic-sdk-go decodes the
// replies tenant_swap, purpose_swap and malformed_tool_call leave, JSON
// and streamed, with its own types: the swapped tenant and purpose are
// another task's; the cut arguments are accumulated with no error and,
// not being JSON, emptied by Message.Accumulate to {} (the agent gets a
// call with no order, tenant or purpose); a non-streamed message is left
// whole by malformed_tool_call.
func TestAnthropicDecodesTheArgumentKinds(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		for _, c := range argKinds {
			var acted bool
			rt := argsDisturbed(c.kind, &acted)
			var msg anthropic.Message
			var err error
			if streamed {
				msg, err = stream(client(rt))
			} else {
				var p *anthropic.Message
				if p, err = client(rt).Messages.New(context.Background(), params); p != nil {
					msg = *p
				}
			}
			want := c.args
			switch {
			case c.kind == "malformed_tool_call" && !streamed:
				if acted {
					t.Errorf("malformed_tool_call acted on a non-streamed message")
				}
				acted, want = true, argKinds[0].args
			case c.kind == "malformed_tool_call":
				want = "{}"
			}
			if err != nil || !acted || toolInput(t, msg) != want {
				t.Errorf("%q (stream %v): %v %v %+v", c.kind, streamed, acted, err, msg)
			}
		}
	}
}

// TestOpenAIDecodesTheArgumentKinds: openai-go decodes the same kinds'
// completions, JSON and streamed chunks; OpenAI's arguments are a string,
// so malformed_tool_call cuts them in both forms (the JSON completion's
// whole string, the stream's last chunk).
func TestOpenAIDecodesTheArgumentKinds(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		for _, c := range argKinds {
			var acted bool
			rt := argsDisturbed(c.kind, &acted)
			var got string
			if streamed {
				cc, err := chatStream(openaiClient(rt))
				if err != nil {
					t.Fatal(err)
				}
				got = toolArgs(t, cc)
			} else {
				cc, err := openaiClient(rt).Chat.Completions.New(context.Background(), chatParams)
				if err != nil {
					t.Fatal(err)
				}
				got = toolArgs(t, *cc)
			}
			want := c.args
			if c.kind == "malformed_tool_call" && !streamed {
				want = argKinds[0].args[:len(argKinds[0].args)/2]
			}
			if !acted || got != want || c.kind == "malformed_tool_call" && json.Valid([]byte(got)) {
				t.Errorf("%q (stream %v): %v %s, want %s", c.kind, streamed, acted, got, want)
			}
		}
	}
}
