package model

import (
	"encoding/json"
	"reflect"
)

// EventName names a boundary crossing. Faults attach to events by ordinal
// (the n-th occurrence of the event in a run), as in the harness practice.
type EventName string

// Events. Every Env call is one event; the harness adds worker.start,
// worker.crash and claim.
const (
	// EvContextSubject: a read of the subject's record. Schedules of
	// format versions 1 and 2 may spell it "context.order".
	EvContextSubject     EventName = "context.subject"
	EvContextPolicy      EventName = "context.policy"
	EvContextEligibility EventName = "context.eligibility"
	EvProposal           EventName = "proposal"
	EvAuthorityGrant     EventName = "authority.grant"
	EvAuthorityCheck     EventName = "authority.check"
	EvStateRead          EventName = "state.read"
	EvToolCommit         EventName = "tool.commit"
	EvLedgerReadback     EventName = "ledger.readback"
	EvEvidenceDecision   EventName = "evidence.decision"
	EvEvidenceReceipt    EventName = "evidence.receipt"
	EvEvidenceReadback   EventName = "evidence.readback"
	EvEvidenceDenial     EventName = "evidence.denial"
	EvEvidenceLookup     EventName = "evidence.lookup"
	EvCheckpointWrite    EventName = "checkpoint.write"
	EvCheckpointLoad     EventName = "checkpoint.load"
	EvMemoryWrite        EventName = "memory.write"
	EvMemoryRead         EventName = "memory.read"
	EvBranchRun          EventName = "branch.run"
	EvBranchJoin         EventName = "branch.join"
	evEvidenceJoin       EventName = "evidence.join"
	EvClockSleep         EventName = "clock.sleep"
	EvWorkerStart        EventName = "worker.start"
	EvWorkerCrash        EventName = "worker.crash"
	EvWarn               EventName = "system.warn"
	EvClaim              EventName = "claim"
)

// EvNoticeReceive is a read of the provider's notices (Env.Notices), in a
// run whose provider sends them (Config.Notices).
const EvNoticeReceive EventName = "notice.receive"

// AllEvents lists every event name a schedule may name but
// EvNoticeReceive, which only a run whose provider sends notices crosses
// (see Notices), so that the explorations and fuzz sites drawn from this
// list are those of every run.
var AllEvents = []EventName{
	EvContextSubject, EvContextPolicy, EvContextEligibility, EvProposal, EvAuthorityGrant,
	EvAuthorityCheck, EvStateRead, EvToolCommit, EvLedgerReadback, EvEvidenceDecision,
	EvEvidenceReceipt, EvEvidenceReadback, EvEvidenceDenial, EvEvidenceLookup,
	EvCheckpointWrite, EvCheckpointLoad, EvMemoryWrite, EvMemoryRead, EvBranchRun, EvBranchJoin,
	evEvidenceJoin, EvClockSleep, EvWorkerStart,
}

// eventIndex returns e's index in AllEvents, len(AllEvents) for
// EvNoticeReceive, or -1.
func eventIndex(e EventName) int {
	switch e {
	case EvContextSubject:
		return 0
	case EvContextPolicy:
		return 1
	case EvContextEligibility:
		return 2
	case EvProposal:
		return 3
	case EvAuthorityGrant:
		return 4
	case EvAuthorityCheck:
		return 5
	case EvStateRead:
		return 6
	case EvToolCommit:
		return 7
	case EvLedgerReadback:
		return 8
	case EvEvidenceDecision:
		return 9
	case EvEvidenceReceipt:
		return 10
	case EvEvidenceReadback:
		return 11
	case EvEvidenceDenial:
		return 12
	case EvEvidenceLookup:
		return 13
	case EvCheckpointWrite:
		return 14
	case EvCheckpointLoad:
		return 15
	case EvMemoryWrite:
		return 16
	case EvMemoryRead:
		return 17
	case EvBranchRun:
		return 18
	case EvBranchJoin:
		return 19
	case evEvidenceJoin:
		return 20
	case EvClockSleep:
		return 21
	case EvWorkerStart:
		return 22
	case EvNoticeReceive:
		return 23
	}
	return -1
}

// Workflow states of the harness practice, derived by the harness from the calls it
// sees (the system is not asked for them).
const (
	stateCreated        = "created"
	stateRunning        = "running"
	stateCheckpointed   = "checkpointed"
	stateWaitingForTool = "waiting_for_tool"
	stateFailed         = "failed"
	stateRecovering     = "recovering"
	stateResumed        = "resumed"
	stateCompleted      = "completed"
)

// Event is one timeline record, with the fields the harness practice lists for the
// evidence record ("Evidence Output"). Detail is a redacted, stable
// description (no payloads). FaultID names the scheduled fault that fired at
// this event, if any.
type Event struct {
	RunID       string    `json:"run_id"`
	Seq         int       `json:"seq"`
	At          Millis    `json:"t_ms"`
	StateBefore string    `json:"state_before"`
	StateAfter  string    `json:"state_after"`
	Actor       string    `json:"actor"`
	Event       EventName `json:"event"`
	// Tool is the tool a tool.commit called (ToolCall.Tool), "" for
	// every other event: what a fault entry's Tool aims at.
	Tool                string `json:"tool,omitempty"`
	Ordinal             int    `json:"ordinal"`
	Task                string `json:"task"`
	Worker              int    `json:"worker"`
	FaultID             string `json:"fault_id,omitempty"`
	Attempt             int    `json:"attempt"`
	CheckpointSeq       int    `json:"checkpoint_seq"`
	RetryRemaining      int    `json:"retry_remaining"`
	DeadlineRemainingMs Millis `json:"deadline_remaining_ms"`
	EvidenceRef         string `json:"evidence_ref,omitempty"`
	Outcome             string `json:"outcome,omitempty"`
	Detail              string `json:"detail,omitempty"`
}

// Normalize returns a copy of tl without run-specific identifiers, for
// comparing two runs of one schedule.
func Normalize(tl []Event) []Event {
	out := make([]Event, len(tl))
	for i, e := range tl {
		e.RunID = ""
		out[i] = e
	}
	return out
}

func init() {
	for i, e := range AllEvents {
		if eventIndex(e) != i {
			panic("model: eventIndex out of step with AllEvents at " + string(e))
		}
	}
}

// eventAliases maps the event names earlier files spell differently to
// their names now: schedule, counterexample and coverage files of format
// versions 1 and 2 written before the subject read was named neutrally
// say "context.order". Decoding (EventName.UnmarshalJSON, canonicalEvent)
// maps an alias to its event; encoding writes the name now.
var eventAliases = map[EventName]EventName{
	"context.order": EvContextSubject,
}

// canonicalEvent returns the event e names now: e itself, or the event an
// alias of eventAliases stands for.
func canonicalEvent(e EventName) EventName {
	if c, ok := eventAliases[e]; ok {
		return c
	}
	return e
}

// UnmarshalJSON decodes an event name from a JSON string, mapping an
// alias (eventAliases) to the event it stands for. A value that is not a
// string is a *json.UnmarshalTypeError; an unknown name decodes as it is,
// for the reader to name.
func (e *EventName) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil // as encoding/json leaves a string at null
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		// the type error encoding/json gives a plain string, so a reader
		// names the field as it always did
		v := "value"
		switch c := data[0]; {
		case c == '{':
			v = "object"
		case c == '[':
			v = "array"
		case c == 't' || c == 'f':
			v = "bool"
		case c == '-' || c >= '0' && c <= '9':
			v = "number"
		}
		return &json.UnmarshalTypeError{Value: v, Type: reflect.TypeFor[EventName]()}
	}
	*e = canonicalEvent(EventName(s))
	return nil
}
