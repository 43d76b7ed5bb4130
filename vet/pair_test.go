package vet_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/vet"
)

// stepFindings returns retrykey's findings in the inventory agent's
// (*flow).step: the fresh key of the agent without stable_keys, then the
// planted bug's.
func stepFindings(t *testing.T) []vet.Finding {
	t.Helper()
	rep, err := vet.Check([]string{"./examples/inventory"}, vet.Options{Dir: ".."})
	require.NoError(t, err)
	var out []vet.Finding
	for _, f := range rep.Findings {
		if f.Analyzer == "retrykey" && f.Function == "(*flow).step" {
			out = append(out, f)
		}
	}
	require.Len(t, out, 2, "retrykey's findings in (*flow).step: %v", rep.Findings)
	return out
}

// TestFindingAndCounterexampleNameTheSameCall: the static finding of the
// inventory agent's planted bug and the dynamic counterexample of it name
// the same tool call. retrykey flags the fresh key the confirm retry mints
// and carries the call that sends it (env.Tool.Commit, tool
// inventory.confirm, event tool.commit); the single timeout_after_commit
// schedule, aimed at that tool, run on the agent with the bug on (every
// control but hold_lookup, which would read the lost confirm back before
// the retry), breaks confirmed_once at a commit of that tool, its fault on
// that event; the fixed agent holds under the same schedule.
func TestFindingAndCounterexampleNameTheSameCall(t *testing.T) {
	fs := stepFindings(t)
	blind, planted := fs[0], fs[1]

	// the static side: the flagged line, and the call its key reaches
	file := filepath.Join("..", planted.File)
	assert.Equal(t, "examples/inventory/inventory.go", planted.File)
	assert.Contains(t, sourceLine(t, file, planted.Line-1), "the planted bug")
	assert.Contains(t, sourceLine(t, file, planted.Line), "key = env.NewRequestID()")
	assert.Equal(t, "timeout_after_commit, tool_timeout", planted.FaultKind)
	call := planted.Call
	assert.Equal(t, vet.CallSite{File: planted.File, Line: call.Line, Column: call.Column, Callee: "env.Tool.Commit",
		Tool: inventory.ToolConfirm, Event: string(model.EvToolCommit)}, call)
	assert.Greater(t, call.Line, planted.Line, "the call follows the key it sends")
	assert.Contains(t, sourceLine(t, file, call.Line)[call.Column-1:], "env.Tool.Commit(ctx, model.ToolCall{Tool: tool, RequestKey: key")
	// the agent without stable_keys mints its key for either tool: the
	// same call, no tool the source fixes
	assert.Contains(t, sourceLine(t, file, blind.Line), "key = env.NewRequestID()")
	assert.Less(t, blind.Line, planted.Line)
	assert.Equal(t, vet.CallSite{File: call.File, Line: call.Line, Column: call.Column, Callee: call.Callee, Event: call.Event}, blind.Call)

	// the dynamic side: the finding's fault kind, at its event, aimed at
	// its tool
	kind, _, _ := strings.Cut(planted.FaultKind, ", ") // the first of the kinds it names
	s, err := model.SingleFault(kind, model.Config{})
	require.NoError(t, err)
	require.Len(t, s.Faults, 1)
	require.Equal(t, model.EventName(call.Event), s.Faults[0].Event, "timeout_after_commit's own event")
	s.Faults[0].Tool = call.Tool
	h := model.NewHarness(inventory.Fixture(), inventory.HarnessOptions())
	buggy := inventory.Defended.Without(inventory.HoldLookup)
	res, err := h.Run(inventory.Factory(buggy, inventory.Planted), s)
	require.NoError(t, err)

	// the second confirm goes out under a key the record does not name
	assert.Equal(t, []string{model.InvRecordedAgreesWithLedger, inventory.InvConfirmedOnce}, violated(res))
	inv, ok := res.Invariant(inventory.InvConfirmedOnce)
	require.True(t, ok)
	assert.Equal(t, model.EventName(call.Event), inv.Event)
	assert.Equal(t, "f1", inv.FaultID)
	assert.Equal(t, "cart-7 confirmed 2 times", inv.Detail)
	// the fault fires on a commit of the finding's tool, and the
	// violation is seen at a second commit of it
	var faulted, broke []model.Event
	for _, e := range res.Timeline.Events() {
		if e.FaultID == "f1" && e.Event == model.EvToolCommit {
			faulted = append(faulted, e)
		}
		if e.Seq == inv.FirstSeq {
			broke = append(broke, e)
		}
	}
	require.Len(t, faulted, 1, "tool.commit events carrying the fault")
	assert.Equal(t, call.Tool, faulted[0].Tool)
	assert.Equal(t, model.EventName(call.Event), faulted[0].Event)
	require.Len(t, broke, 1, "the event at the violation's first seq")
	assert.Equal(t, call.Tool, broke[0].Tool)
	assert.Equal(t, model.EventName(call.Event), broke[0].Event)
	assert.Greater(t, broke[0].Seq, faulted[0].Seq)
	assert.Equal(t, model.Unrecoverable, res.RunVerdict)

	// the schedule docs/vet.md gives for it is this one, and the agent
	// its config's system part configures is the one run here
	page, err := os.ReadFile(filepath.Join("..", "docs", "vet.md"))
	require.NoError(t, err)
	require.Contains(t, string(page), docSchedule)
	doc, err := model.ParseSchedule([]byte(docSchedule))
	require.NoError(t, err)
	assert.Equal(t, s.Faults, doc.Faults)
	f, err := inventory.Definition().Configure(doc.Config.System)
	require.NoError(t, err)
	again, err := h.Run(f, doc)
	require.NoError(t, err)
	assert.Equal(t, []string{model.InvRecordedAgreesWithLedger, inventory.InvConfirmedOnce}, violated(again))

	// the fixed code path (key = ref on the retry too) holds under the
	// same schedule, and carries no finding (TestSystemFindings)
	fixed, err := h.Run(inventory.Factory(buggy, inventory.Fixed), s)
	require.NoError(t, err)
	assert.Empty(t, violated(fixed))
}

// docSchedule is the schedule docs/vet.md's worked example gives.
const docSchedule = `{"version": 2, "seed": "timeout_after_commit", "config": {"system": {"variant": "planted",
  "controls": ["stable_keys", "typed_outcomes", "checkpoint_check", "bind_request", "recheck_authority"]}},
 "faults": [{"event": "tool.commit", "ordinal": 1, "kind": "timeout_after_commit", "tool": "inventory.confirm"}]}`

func violated(res *model.Result) []string {
	out := []string{}
	for _, i := range res.Invariants {
		if !i.Held {
			out = append(out, i.Invariant)
		}
	}
	return out
}
