package billing_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/model"
)

// practiceSchedule is a schedule in the harness practice's portable shape
// ("Agent Harness Fault Injection"): the agent's charge call times out.
const practiceSchedule = `{"seed": "billing-practice", "faults": [{"event": "tool.call", "ordinal": 1, "kind": "timeout", "tool": "charge"}]}`

// TestImportPracticeSchedule: the practice's shape converts into a
// tool_timeout at the agent's first charge (its tool renamed), which the
// correct agent recovers from and the fresh_key_per_retry bug turns into a
// second charge its record lacks; the practice's own example names a branch the agent
// never fans out to, and is refused naming it.
func TestImportPracticeSchedule(t *testing.T) {
	def := billing.Definition()
	verdicts := map[billing.Bugs]string{}
	for _, bugs := range []billing.Bugs{0, billing.FreshKeyPerRetry} {
		s, err := corpus.ImportPractice([]byte(practiceSchedule), def, billing.Config(bugs), map[string]string{"charge": billing.ToolCharge})
		require.NoError(t, err)
		require.Equal(t, []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "tool_timeout", Tool: billing.ToolCharge}}, s.Faults)
		back, err := model.ParseSchedule(model.Format(s))
		require.NoError(t, err)
		res, err := def.Replay(back)
		require.NoError(t, err)
		require.True(t, res.Faults[0].Reached && res.Faults[0].Fired == 1)
		v := string(res.RunVerdict)
		for _, inv := range res.Invariants {
			if !inv.Held {
				v += " " + inv.Invariant
			}
		}
		verdicts[bugs] = v
	}
	assert.Equal(t, map[billing.Bugs]string{0: "recovered", billing.FreshKeyPerRetry: "unrecoverable recorded_agrees_with_ledger charged_once"}, verdicts)

	example, err := os.ReadFile("../../corpus/testdata/harness-practice-example.json")
	require.NoError(t, err)
	_, err = corpus.ImportPractice(example, def, billing.Config(0), map[string]string{"search": billing.ToolCharge})
	assert.EqualError(t, err, `practice schedule: faults[2]: the fault-free run of billing has no branch "summarize" before branch.join #1`)
}

// TestTerminalTimedOut: a clock advance of 1900 ms at the approval leaves
// the agent 30 ms, too little for a charge: it holds at its deadline, a
// timed_out terminal state; the schedule expecting it stays contained,
// one expecting completed is inconclusive naming the invoice. The
// timeline's claim leaves the task timed_out, not failed.
func TestTerminalTimedOut(t *testing.T) {
	def := billing.Definition()
	got := map[string][]string{}
	for _, expect := range []string{"timed_out", "completed"} {
		s := &model.Schedule{Version: 3, Seed: "deadline", Config: billing.Config(0),
			Faults:         []model.FaultEntry{{Event: model.EvAuthorityGrant, Ordinal: 1, Kind: "clock_advance", Target: "1900"}},
			ExpectTerminal: []string{expect}}
		back, err := model.ParseSchedule(model.Format(s))
		require.NoError(t, err)
		res, err := def.Replay(back)
		require.NoError(t, err)
		require.Len(t, res.Claims, 1)
		assert.Equal(t, "timed_out", res.Claims[0].Terminal())
		// the timeline says so too: the claim leaves the task timed out
		evs := res.Timeline.Events()
		last := evs[len(evs)-1]
		assert.Equal(t, []string{"claim", "timed_out"}, []string{string(last.Event), last.StateAfter})
		got[expect] = append([]string{string(res.RunVerdict)}, res.Unexpected...)
	}
	assert.Equal(t, map[string][]string{
		"timed_out": {"contained_failure"},
		"completed": {"inconclusive", "task inv-1042 ended timed_out, the schedule expects completed"},
	}, got)
}

// TestFaultMatrix: of the 22 catalogue kinds the agent's fault-free run
// places, and the 9 placements again under repeated or persistent (the
// modifiers a sequential exploration draws), greedy set cover keeps 22,
// one per key visited: every key of the agent's universe. The kinds it
// drops share a key with one it keeps (malformed_response and
// output_drift the after-commit timeout's, tool_timeout the unsent
// timeout's, false_success reject_before_commit's, the checkpoint store's
// kinds missing_checkpoint's); 17 reachable keys need a modifier of two
// workers or tenants, a second task or an event the agent never crosses.
// The matrix runs first, as the practice asks: its runs alone pass the
// gate at ratio 1, and they are recorded for the coverage report
// (FAULTLINE_COVERAGE=FILE go test).
func TestFaultMatrix(t *testing.T) {
	def := billing.Definition()
	m, err := coverage.FaultMatrix(def, "", billing.Config(0), nil)
	require.NoError(t, err)
	own, err := coverage.NewTracker(nil, def)
	require.NoError(t, err)
	var kinds []string
	for _, r := range m.Rows {
		require.Len(t, r.Keys, 1, r.Kind)
		kind := r.Kind
		if c := r.Schedule.Faults[0].Correlation; c != "" {
			kind += " " + string(c)
		}
		kinds = append(kinds, kind)
		res, err := def.Replay(r.Schedule)
		require.NoError(t, err)
		require.NoError(t, tracker.Record(res))
		require.NoError(t, own.Record(res))
	}
	// the matrix's runs alone pass the release gate at ratio 1: 22 of the
	// 22 keys the agent can reach
	g, err := coverage.Gate(coverage.Default(), own.Data(), coverage.GateOptions{MinRatio: 1, HasMinRatio: true})
	require.NoError(t, err)
	assert.True(t, g.Passed())
	assert.Equal(t, []int{22, 22}, []int{g.Visited, g.Applicable})
	assert.Equal(t, []string{"revoked_capability", "timeout_after_commit", "partial_success_response", "checkpoint_rollback",
		"concurrent_version_change", "drop_effect_receipt", "break_trace_lineage", "sandbox_denial", "timeout_before_send",
		"reject_before_commit", "rate_limit", "budget_exhaustion", "worker_restart", "missing_checkpoint", "lagging_readback",
		"timeout_after_commit repeated", "timeout_after_commit persistent", "checkpoint_rollback repeated", "checkpoint_rollback persistent",
		"malformed_response repeated", "malformed_response persistent", "tool_timeout repeated"}, kinds)
	assert.Equal(t, 31, m.Candidates)
	assert.Len(t, m.Visited, 22)
	assert.Len(t, m.Unvisited, 18)
	assert.Equal(t, "tool/effect/after_commit/isolated/ledger_readback", m.Rows[1].Keys[0].String())
	assert.Equal(t, "tool/effect/after_commit/repeated/ledger_readback", m.Rows[15].Keys[0].String())
}
