// Package scriptedmodel is a deterministic scripted language model that
// speaks Anthropic's Messages API (POST /v1/messages: its JSON request,
// its message or server-sent-event stream, its error envelope), served in
// process through httpfault.InProcess: no network, no weights. It is
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
	Messages  []struct {
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

// ServeHTTP answers POST /v1/messages; anything else, a request naming no
// task, or a request inside the limiter's window is answered with
// Anthropic's error envelope (404, 400, 529 overloaded_error).
func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var req request
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		m.fail(w, 404, "not_found_error", "Not found: "+r.Method+" "+r.URL.Path)
		return
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 || req.MaxTokens < 1 || req.Model == "" {
		m.fail(w, 400, "invalid_request_error", "messages, model and max_tokens are required")
		return
	}
	if wait := m.until.Sub(time.Now()); wait > 0 {
		m.log = append(m.log, "limited")
		a := httpfault.AnthropicOverloaded("rate_limit", model.Millis(wait.Milliseconds()))
		for k, v := range a.Header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.Status)
		w.Write(a.Body)
		return
	}
	var task *model.Task
	for i, t := range m.Tasks {
		for _, b := range blocks(req.Messages[0].Content) {
			if strings.Contains(b.Text, t.ID) {
				task = &m.Tasks[i]
			}
		}
	}
	if task == nil {
		m.fail(w, 400, "invalid_request_error", "the first message names no task of the script")
		return
	}
	last := blocks(req.Messages[len(req.Messages)-1].Content)
	m.n++
	msg := message{ID: "msg_" + strconv.Itoa(m.n), Stop: "tool_use", Tool: m.Tool, UseID: "toolu_" + strconv.Itoa(m.n),
		Input: fmt.Sprintf(`{"%s": %q}`, m.Field, task.Subject)}
	for _, b := range last {
		if b.Type == "tool_result" && !b.IsError {
			msg.Stop, msg.Tool, msg.Text = "end_turn", "", "Done: "+b.Text
		}
	}
	m.log = append(m.log, msg.Stop)
	if req.Stream {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(msg.events(req.Model))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Request-Id", "req_"+strconv.Itoa(m.n))
	w.Write(msg.json(req.Model))
}

func (m *Model) fail(w http.ResponseWriter, status int, typ, msg string) {
	m.log = append(m.log, typ)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}, "request_id": "req_scripted"})
	w.Write(b)
}

// Log returns what each request got, in order: "tool_use", "end_turn",
// "limited" or an error type.
func (m *Model) Log() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.log...)
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
