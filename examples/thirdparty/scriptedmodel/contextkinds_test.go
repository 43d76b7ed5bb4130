package scriptedmodel_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/faultline/faultline/httpfault"
)

// contextKinds are the arguments each kind leaves in the tool call of a
// model whose reply relies on version 2 of its context (ContextArg
// "context_version"): stale_context the version before, omitted_context
// none.
var contextKinds = []struct{ kind, args string }{
	{"", `{"order": "O-731", "context_version": 2}`},
	{"stale_context", `{"order": "O-731", "context_version": 1}`},
	{"omitted_context", `{"order": "O-731"}`},
}

func contextDisturbed(kind string, acted *bool) rewrite {
	m := newModel()
	m.ContextArg, m.ContextVersion = "context_version", 2
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

// TestSDKsDecodeTheContextKinds: anthropic-sdk-go and openai-go decode
// the replies stale_context and omitted_context leave, JSON and streamed,
// with their own types: the call relies on version 1, or carries no
// version. A model without ContextArg is left as it is (false).
func TestSDKsDecodeTheContextKinds(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		for _, c := range contextKinds {
			var acted bool
			var msg anthropic.Message
			var err error
			if rt := contextDisturbed(c.kind, &acted); streamed {
				msg, err = stream(client(rt))
			} else {
				var p *anthropic.Message
				if p, err = client(rt).Messages.New(context.Background(), params); p != nil {
					msg = *p
				}
			}
			if got := toolInput(t, msg); err != nil || !acted || got != c.args {
				t.Errorf("anthropic %q (stream %v): %v %v %s, want %s", c.kind, streamed, acted, err, got, c.args)
			}
			acted = false
			rt := contextDisturbed(c.kind, &acted)
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
			if !acted || got != c.args {
				t.Errorf("openai %q (stream %v): %v %s, want %s", c.kind, streamed, acted, got, c.args)
			}
		}
	}
	for _, kind := range []string{"stale_context", "omitted_context"} {
		body := []byte(`{"type":"tool_use","id":"toolu_1","name":"refund","input":{"order": "O-731"}}`)
		if out, ok := newModel().Disturb(kind, body); ok || string(out) != string(body) {
			t.Errorf("%s without ContextArg: %v %s", kind, ok, out)
		}
	}
}
