package scriptedmodel

import "testing"

// TestTokens reads each format's own usage fields: 25 input and 12
// output tokens in a message, a stream (message_start's input and
// message_delta's cumulative output), a completion and a chunk stream
// that asked for usage; a chunk stream that did not states none.
func TestTokens(t *testing.T) {
	m := message{ID: "msg_1", Stop: "tool_use", Tool: "refund", UseID: "toolu_1", Input: `{"order": "O-1"}`}
	for name, c := range map[string]struct {
		body []byte
		want int
	}{
		"message": {m.json("m"), 37}, "stream": {m.events("m"), 37}, "completion": {m.completion("m"), 37},
		"chunks with usage": {m.chunks("m", true), 37}, "chunks": {m.chunks("m", false), 0},
	} {
		if got := Tokens(c.body); got != c.want {
			t.Errorf("%s: Tokens = %d, want %d:\n%s", name, got, c.want, c.body)
		}
	}
}
