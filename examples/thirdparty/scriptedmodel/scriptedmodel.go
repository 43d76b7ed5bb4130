// Package scriptedmodel is a deterministic scripted language model that
// speaks Anthropic's Messages API and OpenAI's Chat Completions API (their
// JSON requests, answers, server-sent-event streams and error envelopes),
// served in process through httpfault.InProcess: no network, no weights. It is
// scripted per task from the fixture: asked about a task, it calls the
// task's tool for the task's subject; given the tool's error, it calls it
// again (a new tool-use id); given its result, it ends its turn.
//
// [Model.Transport] joins it to a run: the model's reply, a proposal,
// crosses the proposal event, where subject_swap rewrites the tool call's
// subject, and a Retry-After the run's faults announce is kept by the
// model's own limiter. [Result] maps its answers for httpfault.Join.
//
// It lives in the module of third-party clients, not in faultline's own:
// it is tested there against anthropic-sdk-go's own types, and it adds no
// exported name to faultline's surface.
package scriptedmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
)

// Model is the scripted model of one run (build it in Configure: its
// counters and its limiter are the run's durable state).
type Model struct {
	// Tool and Field: the reply for a task calls Tool with the argument
	// Field set to the task's subject ({"order": "O-731"}).
	Tool, Field string
	// Tasks are the fixture's tasks; a request is for the task whose ID
	// its first user message names.
	Tasks []model.Task
	// Decoys are, per tenant, the other subjects a retrieved document may
	// name: subject_swap swaps the task's subject for the first of them.
	Decoys map[string][]string
	// TenantArg and PurposeArg, when set, name further arguments of the
	// tool call carrying the task's tenant and purpose ({"order": "O-731",
	// "tenant": "acme"}); tenant_swap and purpose_swap rewrite them.
	TenantArg, PurposeArg string
	// ContextArg, when set, names an argument of the tool call carrying
	// ContextVersion, the version of the context the reply relies on
	// ({"order": "O-731", "context_version": 2}); stale_context rewrites
	// it to the version before, omitted_context drops it.
	ContextArg     string
	ContextVersion int
	// OpenAI: the run's client speaks OpenAI's API, so Client renders a
	// rate_limit fault as OpenAI's 429 (default: Anthropic's 529).
	OpenAI bool

	mu    sync.Mutex
	n     int       // replies given
	until time.Time // the limiter: no request before this time
	log   []string  // what each request got, in order
}

// request is the part of a Messages API request the model reads.
type request struct {
	Model     string `json:"model"`
	MaxTokens int    `json:"max_tokens"`
	Stream    bool   `json:"stream"`
	// StreamOptions: OpenAI's include_usage asks for a last chunk with
	// the stream's usage
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// block is a content block of a request's message.
type block struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	IsError bool   `json:"is_error"`
}

func blocks(raw json.RawMessage) []block {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	json.Unmarshal(raw, &bs)
	return bs
}

// Paths the model answers: Anthropic's Messages API and OpenAI's Chat
// Completions API.
const (
	MessagesPath = "/v1/messages"
	ChatPath     = "/v1/chat/completions"
)

// ServeHTTP answers POST MessagesPath in Anthropic's formats and POST
// ChatPath in OpenAI's (a tool result is an error when its text begins
// with "error"); anything else, a request naming no task, or a request
// inside the limiter's window is answered with the API's error envelope
// (404, 400, and Anthropic's 529 overloaded_error or OpenAI's 429).
func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	openai := r.URL.Path == ChatPath
	var req request
	if r.Method != http.MethodPost || r.URL.Path != MessagesPath && !openai {
		m.fail(w, openai, 404, "not_found_error", "Not found: "+r.Method+" "+r.URL.Path)
		return
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 || !openai && req.MaxTokens < 1 || req.Model == "" {
		m.fail(w, openai, 400, "invalid_request_error", "messages, model and max_tokens are required")
		return
	}
	if wait := time.Until(m.until); wait > 0 {
		m.log = append(m.log, "limited")
		a := httpfault.AnthropicOverloaded("rate_limit", model.Millis(wait.Milliseconds()))
		if openai {
			a = httpfault.OpenAIError("rate_limit", model.Millis(wait.Milliseconds()))
		}
		for k, v := range a.Header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.Status)
		w.Write(a.Body)
		return
	}
	var task *model.Task
	for _, msg := range req.Messages {
		for i, t := range m.Tasks {
			for _, b := range blocks(msg.Content) {
				if msg.Role == "user" && task == nil && strings.Contains(b.Text, t.ID) {
					task = &m.Tasks[i]
				}
			}
		}
	}
	if task == nil {
		m.fail(w, openai, 400, "invalid_request_error", "no user message names a task of the script")
		return
	}
	last := req.Messages[len(req.Messages)-1]
	m.n++
	n := strconv.Itoa(m.n)
	input := fmt.Sprintf(`{"%s": %q`, m.Field, task.Subject)
	for _, a := range [][2]string{{m.TenantArg, task.Tenant}, {m.PurposeArg, task.Purpose}} {
		if a[0] != "" {
			input += fmt.Sprintf(`, "%s": %q`, a[0], a[1])
		}
	}
	if m.ContextArg != "" {
		input += fmt.Sprintf(`, "%s": %d`, m.ContextArg, m.ContextVersion)
	}
	msg := message{ID: "msg_" + n, Stop: "tool_use", Tool: m.Tool, UseID: "toolu_" + n, Input: input + "}"}
	if openai {
		msg.ID, msg.UseID = "chatcmpl-"+n, "call_"+n
	}
	for _, b := range blocks(last.Content) {
		if b.Type == "tool_result" && !b.IsError || last.Role == "tool" && !strings.HasPrefix(b.Text, "error") {
			msg.Stop, msg.Tool, msg.Text = "end_turn", "", "Done."
		}
	}
	m.log = append(m.log, msg.Stop)
	switch {
	case req.Stream:
		w.Header().Set("Content-Type", "text/event-stream")
		if openai {
			w.Write(msg.chunks(req.Model, req.StreamOptions.IncludeUsage))
		} else {
			w.Write(msg.events(req.Model))
		}
	case openai:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req_"+n)
		w.Write(msg.completion(req.Model))
	default:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_"+n)
		w.Write(msg.json(req.Model))
	}
}

// fail answers with the API's error envelope.
func (m *Model) fail(w http.ResponseWriter, openai bool, status int, typ, msg string) {
	m.log = append(m.log, typ)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	var b []byte
	if openai {
		b, _ = json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
	} else {
		b, _ = json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}, "request_id": "req_scripted"})
	}
	w.Write(b)
}

// Log returns what each request got, in order: "tool_use", "end_turn",
// "limited" or an error type.
func (m *Model) Log() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.log...)
}

// openAIStop is OpenAI's finish reason for a stop reason.
func openAIStop(stop string) string {
	if stop == "tool_use" {
		return "tool_calls"
	}
	return "stop"
}

// completion is the message as a non-streamed chat completion.
func (m message) completion(modelName string) []byte {
	msg := fmt.Sprintf(`{"role":"assistant","content":%q,"refusal":null}`, m.Text)
	if m.refusal() {
		msg = fmt.Sprintf(`{"role":"assistant","content":null,"refusal":%q}`, m.Text)
	}
	if m.Tool != "" {
		args, _ := json.Marshal(m.Input)
		msg = fmt.Sprintf(`{"role":"assistant","content":null,"refusal":null,"tool_calls":[{"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}]}`, m.UseID, m.Tool, args)
	}
	return fmt.Appendf(nil, `{"id":%q,"object":"chat.completion","created":946684800,"model":%q,"choices":[{"index":0,"message":%s,"logprobs":null,"finish_reason":%q}],"usage":{"prompt_tokens":25,"completion_tokens":12,"total_tokens":37}}`,
		m.ID, modelName, msg, openAIStop(m.Stop))
}

// chunks is the message as OpenAI streams it, ending with [DONE]; a tool
// call's arguments come in two chunks, the subject's value whole in the
// second; with usage (stream_options.include_usage), a chunk with no
// choices and the usage comes before [DONE].
func (m message) chunks(modelName string, usage bool) []byte {
	var b bytes.Buffer
	chunk := func(delta, finish string) {
		fmt.Fprintf(&b, `data: {"id":%q,"object":"chat.completion.chunk","created":946684800,"model":%q,"choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}]}`+"\n\n", m.ID, modelName, delta, finish)
	}
	if m.Tool != "" {
		chunk(fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]}`, m.UseID, m.Tool), "null")
		cut := strings.Index(m.Input, ": ") + 2
		for _, part := range []string{m.Input[:cut], m.Input[cut:]} {
			q, _ := json.Marshal(part)
			chunk(fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":%s}}]}`, q), "null")
		}
	} else if m.refusal() {
		q, _ := json.Marshal(m.Text)
		chunk(fmt.Sprintf(`{"role":"assistant","content":null,"refusal":%s}`, q), "null")
	} else {
		q, _ := json.Marshal(m.Text)
		chunk(fmt.Sprintf(`{"role":"assistant","content":%s}`, q), "null")
	}
	chunk("{}", strconv.Quote(openAIStop(m.Stop)))
	if usage {
		fmt.Fprintf(&b, `data: {"id":%q,"object":"chat.completion.chunk","created":946684800,"model":%q,"choices":[],"usage":{"prompt_tokens":25,"completion_tokens":12,"total_tokens":37}}`+"\n\n", m.ID, modelName)
	}
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// message is one scripted reply: a tool call (Tool set) or a text.
type message struct {
	ID, Stop, Text     string
	Tool, UseID, Input string
}

const usage = `{"input_tokens":25,"output_tokens":12}`

func (m message) block() string {
	if m.Tool != "" {
		return fmt.Sprintf(`{"type":"tool_use","id":%q,"name":%q,"input":%s}`, m.UseID, m.Tool, m.Input)
	}
	return fmt.Sprintf(`{"type":"text","text":%q}`, m.Text)
}

// json is the message as a non-streamed answer.
func (m message) json(modelName string) []byte {
	return fmt.Appendf(nil, `{"id":%q,"type":"message","role":"assistant","model":%q,"content":[%s],"stop_reason":%q,"stop_sequence":null,"usage":%s}`,
		m.ID, modelName, m.block(), m.Stop, usage)
}

// events is the message as the API streams it; a tool call's input comes
// in two input_json_delta chunks, the subject's value whole in the second.
func (m message) events(modelName string) []byte {
	var b bytes.Buffer
	ev := func(name, data string) { fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, data) }
	ev("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":%q,"type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}`, m.ID, modelName))
	if m.Tool != "" {
		ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, m.UseID, m.Tool))
		cut := strings.Index(m.Input, ": ") + 2
		for _, part := range []string{m.Input[:cut], m.Input[cut:]} {
			q, _ := json.Marshal(part)
			ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":%s}}`, q))
		}
	} else {
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		q, _ := json.Marshal(m.Text)
		ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%s}}`, q))
	}
	ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
	ev("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":12}}`, m.Stop))
	ev("message_stop", `{"type":"message_stop"}`)
	return b.Bytes()
}
