package scriptedmodel

import (
	"bytes"
	"regexp"
	"strings"
)

// Kinds are the kinds Disturb renders on a reply that carries a tool
// call, at the proposal event.
var Kinds = []string{"subject_swap", "duplicate_tool_call", "model_refusal"}

// Disturb returns the reply body (an Anthropic message or stream, an
// OpenAI completion or chunk stream) as the fault kind leaves it, and
// whether the kind acted: subject_swap rewrites the tool call's subject
// to its tenant's first decoy; duplicate_tool_call repeats the tool call
// under a second call id (toolu_1 and toolu_1_2, call_1 and call_1_2);
// model_refusal replaces the reply by a refusal (Anthropic's stop_reason
// "refusal", OpenAI's message refusal) with no tool call. A reply the
// kind cannot act on (a stream cut before its tool call is whole, an
// unknown kind) is returned as it is, with false.
func (m *Model) Disturb(kind string, body []byte) ([]byte, bool) {
	switch kind {
	case "subject_swap":
		return m.swap(body)
	case "duplicate_tool_call":
		return duplicate(body)
	case "model_refusal":
		return refuse(body)
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
		return msg.chunks(string(name[1])), true
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
