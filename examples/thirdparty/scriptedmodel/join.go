package scriptedmodel

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
)

// Transport returns next (the run's httpfault.Join transport) behind the
// model's side of the run, for the SDK's *http.Client: a reply that
// carries a tool call crosses the proposal event through calls, with
// the reply's Tokens as the crossing's spend (Step.Tokens), where the
// armed kinds Disturb renders (Kinds) rewrite the reply (JSON or
// stream) and are recorded fired; a 429 or 5xx answer with
// Retry-After-Ms (a fault rendered by httpfault.AnthropicOverloaded, or
// the limiter's own) starts the model's limiter, which answers every
// request before the wait is over with a 529 of its own. With calls nil
// (outside a run) nothing crosses.
func (m *Model) Transport(calls model.Calls, next http.RoundTripper) http.RoundTripper {
	return transport{m, calls, next}
}

type transport struct {
	m     *Model
	calls model.Calls
	next  http.RoundTripper
}

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || req.URL.Path != MessagesPath && req.URL.Path != ChatPath {
		return resp, err
	}
	if ms, e := strconv.Atoi(resp.Header.Get("Retry-After-Ms")); e == nil && (resp.StatusCode == 429 || resp.StatusCode >= 500) {
		t.m.mu.Lock()
		t.m.until = time.Now().Add(time.Duration(ms) * time.Millisecond)
		t.m.mu.Unlock()
	}
	if resp.StatusCode != http.StatusOK {
		return resp, nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if t.calls != nil && (bytes.Contains(body, []byte(`"tool_use"`)) || bytes.Contains(body, []byte(`"tool_calls"`))) {
		step, err := t.calls.Enter(req.Context(), model.EvProposal)
		if err != nil {
			return nil, err
		}
		step.Tokens = Tokens(body)
		for _, k := range step.Faults() {
			// a kind Disturb does not render stays unfired: the run is
			// inconclusive
			if b, ok := t.m.Disturb(k, body); ok {
				body = b
				if err := step.Fire(k); err != nil {
					return nil, err
				}
			}
		}
		if err := step.Done("ok", "tool_use"); err != nil {
			return nil, err
		}
	}
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return resp, nil
}

var (
	inputTokens  = regexp.MustCompile(`"(?:input|prompt)_tokens":([0-9]+)`)
	outputTokens = regexp.MustCompile(`"(?:output|completion)_tokens":([0-9]+)`)
)

// Tokens is what a reply body (a message, a completion or a stream of
// either) cost by its own usage fields: the first input (prompt) tokens
// plus the last output (completion) tokens, which a stream's
// message_delta states cumulatively; 0 for a reply that states no usage
// (an OpenAI stream without stream_options.include_usage).
func Tokens(body []byte) int {
	in, out := inputTokens.FindSubmatch(body), outputTokens.FindAllSubmatch(body, -1)
	n := 0
	if in != nil {
		n, _ = strconv.Atoi(string(in[1]))
	}
	if len(out) > 0 {
		o, _ := strconv.Atoi(string(out[len(out)-1][1]))
		n += o
	}
	return n
}

// swap rewrites the subject of the reply's tool call to the first decoy
// of its task's tenant, in a JSON message ("O-1") or a stream's
// input_json_delta (\"O-1\"); false when no task's subject is there or
// its tenant has no decoy.
func (m *Model) swap(body []byte) ([]byte, bool) {
	for _, t := range m.Tasks {
		ds := m.Decoys[t.Tenant]
		if len(ds) == 0 || ds[0] == t.Subject {
			continue
		}
		for _, enc := range []func(string) string{strconv.Quote, func(s string) string { q := strconv.Quote(strconv.Quote(s)); return q[1 : len(q)-1] }} {
			if old := []byte(enc(t.Subject)); bytes.Contains(body, old) {
				return bytes.ReplaceAll(body, old, []byte(enc(ds[0]))), true
			}
		}
	}
	return body, false
}

var messageID = regexp.MustCompile(`"id":"(msg_[0-9]+|chatcmpl-[0-9]+)"`)

// Result is httpfault.JoinOptions.Result for a run whose commits are the
// model's replies and JSON tools' answers: httpfault.DefaultResult("id",
// "amount"), and a streamed reply's receipt is its message id once the
// stream is complete (message_stop, or OpenAI's [DONE]): a stream cut
// short carries none.
func Result(key string, resp *http.Response, body []byte) model.ToolResult {
	res := httpfault.DefaultResult("id", "amount")(key, resp, body)
	if res.Outcome == model.OutcomeCommitted && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		if m := messageID.FindSubmatch(body); m != nil && (bytes.Contains(body, []byte("event: message_stop")) || bytes.Contains(body, []byte("data: [DONE]"))) {
			res.Receipt = &model.Receipt{ID: string(m[1]), Key: key}
		}
	}
	return res
}

// Client returns the *http.Client of one run's agent, for both the SDK
// (option.WithHTTPClient) and its tools: POST MessagesPath and ChatPath go
// to the model, every other request to tools, in process, through one
// httpfault.Join transport on calls whose commits are the model's
// replies (tool "model") and the requests rules call commits; answers
// map by Result (the answer faults rewrite the field "id" Result
// reads; a stream, which is no JSON object, they leave unfired but
// malformed_response, which cuts it), and rate_limit renders as Anthropic's 529 overloaded
// (httpfault.AnthropicOverloaded), or with Model.OpenAI as OpenAI's 429
// (httpfault.OpenAIError).
// Its error is Join's.
func (m *Model) Client(calls model.Calls, tools http.Handler, rules ...httpfault.Rule) (*http.Client, error) {
	classify, err := httpfault.Rules(append([]httpfault.Rule{{Method: http.MethodPost, Path: MessagesPath, Class: httpfault.Commit, Tool: "model"},
		{Method: http.MethodPost, Path: ChatPath, Class: httpfault.Commit, Tool: "model"}}, rules...)...)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(MessagesPath, m)
	mux.Handle(ChatPath, m)
	mux.Handle("/", tools)
	render := func(kind string, wait model.Millis) httpfault.Answer {
		if kind == "rate_limit" && m.OpenAI {
			return httpfault.OpenAIError(kind, wait)
		}
		return httpfault.AnthropicOverloaded(kind, wait)
	}
	tr, err := httpfault.Join(calls, httpfault.InProcess(mux), httpfault.JoinOptions{Classify: classify, Result: Result, Receipt: "id", Render: render})
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: m.Transport(calls, tr)}, nil
}
