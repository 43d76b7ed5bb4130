package vet

import "go/token"

// SentCall is, for the tests, the call a retrykey finding's key is sent
// by.
type SentCall struct {
	Pos                 token.Pos
	Callee, Tool, Event string
}

// SentCalls returns retrykey's result, by the finding's position.
func SentCalls(result any) map[token.Pos]SentCall {
	out := map[token.Pos]SentCall{}
	for p, c := range result.(sentCalls) {
		out[p] = SentCall{c.pos, c.callee, c.tool, c.event}
	}
	return out
}

// FaultKinds is, for the tests, each analyzer's run-time evidence.
var FaultKinds = faultKinds
