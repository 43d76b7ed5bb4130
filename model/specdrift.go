package model

import (
	"math"
	"strconv"
)

// specState is the provider's contract as spec_drift moved it: moved
// once the provider's API version went from 1 to 2, the version in which
// the amount field is read in whole units (100 of the version-1 minor
// units) rather than in minor units.
type specState struct {
	moved bool
	at    Millis
}

// contractMoved is the provider's contract version after spec_drift.
const contractMoved = 2

type specDrift struct{}

// onCommit moves the provider's contract before the call arrives (the
// plan was made under version 1): from now on the provider reads every
// call under version 2 (underContract). A call that carries no amount has
// nothing to misread (the kind does not fire); the contract moves once.
func (specDrift) onCommit(r *run, call ToolCall, provider func(ToolCall) ToolResult) (ToolResult, bool) {
	if r.spec.moved || call.Action.Amount <= 0 {
		return provider(call), false
	}
	r.spec = specState{moved: true, at: r.world.Clock}
	return provider(call), true
}

// underContract reads call as the provider's current contract does. A
// call pinned to another version (ToolCall.Contract) is refused with
// class precondition_failed; an unpinned one is read under the current
// version: after spec_drift its amount in whole units. ok is false with
// the refusal.
func (r *run) underContract(call *ToolCall) (ToolResult, bool) {
	current := 1
	if r.spec.moved {
		current = contractMoved
	}
	if call.Contract != 0 && call.Contract != current {
		return ToolResult{Outcome: OutcomeRejected, Class: classPrecondition,
			Reason: "precondition failed: contract version " + strconv.Itoa(call.Contract) + " is not the provider's (version " + strconv.Itoa(current) + ")"}, false
	}
	if r.spec.moved && call.Contract == 0 {
		if call.Action.Amount > math.MaxInt64/100 {
			return ToolResult{Outcome: OutcomeRejected, Reason: "invalid request"}, false
		}
		call.Action.Amount *= 100
	}
	return ToolResult{}, true
}

// driftGap is current_entitlement's finding on effect e of a run whose
// provider contract moved when nothing else bounds the amount: the
// effect's amount exceeds the task's approved one. "" when it does not.
func (r *run) driftGap(e LedgerEntry) string {
	if !r.spec.moved || e.Amount <= r.task.Amount {
		return ""
	}
	return "effect on " + e.Subject + " of amount " + strconv.FormatInt(e.Amount, 10) + " exceeds the approved " +
		strconv.FormatInt(r.task.Amount, 10) + ": the provider read the call under contract version 2 (moved at " +
		strconv.FormatInt(int64(r.spec.at), 10) + " ms)"
}
