package scriptedmodel

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/faultline/faultline/model"
)

// Kinds are the kinds Disturb renders on a reply that carries a tool
// call, at the proposal event.
var Kinds = []string{"subject_swap", "duplicate_tool_call", "model_refusal", "tenant_swap", "purpose_swap", "malformed_tool_call"}

// Disturb returns the reply body (an Anthropic message or stream, an
// OpenAI completion or chunk stream) as the fault kind leaves it, and
// whether the kind acted: subject_swap rewrites the tool call's subject
// to its tenant's first decoy; duplicate_tool_call repeats the tool call
// under a second call id (toolu_1 and toolu_1_2, call_1 and call_1_2);
// model_refusal replaces the reply by a refusal (Anthropic's stop_reason
// "refusal", OpenAI's message refusal) with no tool call; tenant_swap and
// purpose_swap rewrite the call's TenantArg or PurposeArg (see swapArg);
// stale_context and omitted_context the call's ContextArg (see context);
// malformed_tool_call cuts the call's last chunk of arguments to half
// (a stream, or OpenAI's arguments string), so they do not parse. A reply
// the kind cannot act on (a stream cut before its tool call is whole, an
// argument the call does not carry, Anthropic's non-streamed input, which
// is a JSON object, an unknown kind) is returned as it is, with false.
func (m *Model) Disturb(kind string, body []byte) ([]byte, bool) {
	switch kind {
	case "subject_swap":
		return m.swap(body)
	case "duplicate_tool_call":
		return duplicate(body)
	case "model_refusal":
		return refuse(body)
	case "tenant_swap":
		return m.swapArg(body, m.TenantArg, func(t model.Task) string { return t.Tenant })
	case "purpose_swap":
		return m.swapArg(body, m.PurposeArg, func(t model.Task) string { return t.Purpose })
	case "malformed_tool_call":
		return cutArguments(body)
	case "stale_context", "omitted_context":
		return m.context(body, kind == "omitted_context")
	}
	return body, false
}

var (
	anthropicUse = regexp.MustCompile(`\{"type":"tool_use","id":"(toolu_[0-9]+)","name":"[^"]*","input":\{[^}]*\}\}`)
	openAICall   = regexp.MustCompile(`\{"id":"(call_[0-9]+)","type":"function","function":\{"name":"[^"]*","arguments":"(?:[^"\\]|\\.)*"\}\}`)
	modelName    = regexp.MustCompile(`"model":"([^"]*)"`)
)

// duplicate repeats the reply's tool call: in a message or a completion
// the call's block once more; in a stream the call's events (Anthropic:
// its content block as index 1; OpenAI: its chunks as tool call 1).
func duplicate(body []byte) ([]byte, bool) {
	twice := func(re *regexp.Regexp) ([]byte, bool) {
		loc := re.FindSubmatchIndex(body)
		if loc == nil {
			return body, false
		}
		call, id := body[loc[0]:loc[1]], string(body[loc[2]:loc[3]])
		dup := bytes.Replace(call, []byte(`"`+id+`"`), []byte(`"`+id+`_2"`), 1)
		return concat(body[:loc[1]], []byte(","), dup, body[loc[1]:]), true
	}
	switch {
	case bytes.HasPrefix(body, []byte("event: ")):
		start := bytes.Index(body, []byte("event: content_block_start\n"))
		stop := bytes.Index(body, []byte("event: content_block_stop\n"))
		if start < 0 || stop < 0 || !bytes.Contains(body[start:stop], []byte(`"type":"tool_use"`)) {
			return body, false
		}
		end := stop + bytes.Index(body[stop:], []byte("\n\n")) + 2
		dup := bytes.ReplaceAll(body[start:end], []byte(`"index":0`), []byte(`"index":1`))
		id := regexp.MustCompile(`"id":"(toolu_[0-9]+)"`).FindSubmatch(dup)
		dup = bytes.Replace(dup, id[0], []byte(`"id":"`+string(id[1])+`_2"`), 1)
		return concat(body[:end], dup, body[end:]), true
	case bytes.HasPrefix(body, []byte("data: ")):
		var calls [][]byte
		var last int
		for _, ev := range bytes.SplitAfter(body, []byte("\n\n")) {
			if bytes.Contains(ev, []byte(`"tool_calls":[{"index":0`)) {
				calls = append(calls, ev)
				last = bytes.Index(body, ev) + len(ev)
			}
		}
		if len(calls) < 3 || !bytes.Contains(body[last:], []byte(`"finish_reason":"tool_calls"`)) {
			return body, false // the call's arguments are not whole
		}
		var dup []byte
		for _, ev := range calls {
			ev = bytes.Replace(ev, []byte(`"tool_calls":[{"index":0`), []byte(`"tool_calls":[{"index":1`), 1)
			if id := regexp.MustCompile(`"id":"(call_[0-9]+)"`).FindSubmatch(ev); id != nil {
				ev = bytes.Replace(ev, id[0], []byte(`"id":"`+string(id[1])+`_2"`), 1)
			}
			dup = append(dup, ev...)
		}
		return concat(body[:last], dup, body[last:]), true
	case bytes.Contains(body, []byte(`"object":"chat.completion"`)):
		return twice(openAICall)
	}
	return twice(anthropicUse)
}

// refusalText is what the model says when it refuses.
const refusalText = "I can't help with that request."

// refuse replaces a whole reply by the model's refusal, in the reply's
// format, under the reply's id.
func refuse(body []byte) ([]byte, bool) {
	id, name := messageID.FindSubmatch(body), modelName.FindSubmatch(body)
	if id == nil || name == nil {
		return body, false
	}
	msg := message{ID: string(id[1]), Stop: "refusal", Text: refusalText}
	switch {
	case bytes.HasPrefix(body, []byte("event: ")):
		if !bytes.Contains(body, []byte("event: message_stop")) {
			return body, false
		}
		return msg.events(string(name[1])), true
	case bytes.HasPrefix(body, []byte("data: ")):
		if !bytes.Contains(body, []byte("data: [DONE]")) {
			return body, false
		}
		return msg.chunks(string(name[1]), bytes.Contains(body, []byte(`"choices":[],"usage"`))), true
	case bytes.Contains(body, []byte(`"object":"chat.completion"`)):
		return msg.completion(string(name[1])), true
	}
	return msg.json(string(name[1])), true
}

func concat(parts ...[]byte) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		b.Write(p)
	}
	return b.Bytes()
}

// refusal reports whether the message is a refusal (OpenAI renders it in
// the message's refusal field, not its content).
func (m message) refusal() bool { return strings.EqualFold(m.Stop, "refusal") }

// swapArg rewrites the argument arg of the reply's tool call from its
// task's value (of) to another task's, or, when no task has another, to
// one of no record ("injected-" and the value), as model's tenant_swap
// and purpose_swap do: in a JSON message ("tenant": "acme") or an
// escaped arguments string or stream chunk (\"tenant\": \"acme\"); false
// when arg is "" or the reply carries no task's value under it.
func (m *Model) swapArg(body []byte, arg string, of func(model.Task) string) ([]byte, bool) {
	if arg == "" {
		return body, false
	}
	for _, t := range m.Tasks {
		own := of(t)
		other := "injected-" + own
		for _, u := range m.Tasks {
			if v := of(u); v != "" && v != own {
				other = v
				break
			}
		}
		for _, enc := range []func(string) string{strconv.Quote, func(s string) string { q := strconv.Quote(strconv.Quote(s)); return q[1 : len(q)-1] }} {
			if old := []byte(enc(arg) + ": " + enc(own)); own != "" && bytes.Contains(body, old) {
				return bytes.ReplaceAll(body, old, []byte(enc(arg)+": "+enc(other))), true
			}
		}
	}
	return body, false
}

// context rewrites the reply's ContextArg: to the version before
// ContextVersion (stale_context), or, omit set, drops it with the comma
// before it (omitted_context), in a JSON message or an escaped arguments
// string or stream chunk; false when ContextArg is "" or the reply does
// not carry it.
func (m *Model) context(body []byte, omit bool) ([]byte, bool) {
	if m.ContextArg == "" {
		return body, false
	}
	for _, enc := range []func(string) string{strconv.Quote, func(s string) string { q := strconv.Quote(strconv.Quote(s)); return q[1 : len(q)-1] }} {
		old := []byte(", " + enc(m.ContextArg) + ": " + strconv.Itoa(m.ContextVersion))
		if !bytes.Contains(body, old) {
			continue
		}
		if omit {
			return bytes.ReplaceAll(body, old, nil), true
		}
		return bytes.ReplaceAll(body, old, []byte(", "+enc(m.ContextArg)+": "+strconv.Itoa(m.ContextVersion-1))), true
	}
	return body, false
}

var argumentChunk = regexp.MustCompile(`"(?:partial_json|arguments)":("(?:[^"\\]|\\.)*")`)

// cutArguments cuts the last non-empty chunk of the tool call's arguments
// (Anthropic's last input_json_delta, OpenAI's arguments string or last
// arguments chunk) to half its text: the arguments no longer parse. A
// stream not whole (its tool call may be cut already) and Anthropic's
// non-streamed message (whose input is a JSON object) are left as they
// are.
func cutArguments(body []byte) ([]byte, bool) {
	switch {
	case bytes.HasPrefix(body, []byte("event: ")) && !bytes.Contains(body, []byte("event: message_stop")),
		bytes.HasPrefix(body, []byte("data: ")) && !bytes.Contains(body, []byte("data: [DONE]")),
		!bytes.HasPrefix(body, []byte("event: ")) && !bytes.HasPrefix(body, []byte("data: ")) && !bytes.Contains(body, []byte(`"object":"chat.completion"`)):
		return body, false
	}
	all := argumentChunk.FindAllSubmatchIndex(body, -1)
	for i := len(all) - 1; i >= 0; i-- {
		loc := all[i]
		var text string
		if json.Unmarshal(body[loc[2]:loc[3]], &text) != nil || text == "" {
			continue
		}
		cut, _ := json.Marshal(text[:len(text)/2])
		return concat(body[:loc[2]], cut, body[loc[3]:]), true
	}
	return body, false
}
