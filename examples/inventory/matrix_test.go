package inventory_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
)

// TestFaultMatrix: the reservation service's fault matrix. Its tasks
// call two tools (reserve, then confirm): of the 28 catalogue kinds its
// fault-free run places, the 12 at tool.commit are placed once per tool
// (40 placements), and 16 of them again under repeated or persistent (56
// runs). Greedy set cover over the keys at each tool keeps 36: the 10 keys
// of other events once, the 13 of tool.commit once per tool (12 rows
// under a modifier); 23 keys visited, 17 reachable keys need more than a
// single fault of the catalogue on its fault-free run.
func TestFaultMatrix(t *testing.T) {
	m, err := coverage.FaultMatrix(inventory.Definition(), "", model.Config{}, nil)
	require.NoError(t, err)
	assert.Equal(t, 56, m.Candidates)
	assert.Len(t, m.Rows, 36)
	assert.Len(t, m.Visited, 23)
	assert.Len(t, m.Unvisited, 17)
	assert.Equal(t, model.Correlation("repeated"), m.Rows[24].Schedule.Faults[0].Correlation)
	assert.Equal(t, "tool.commit(inventory.reserve)#1", m.Rows[24].Schedule.Faults[0].Placement())
	assert.Equal(t, "tool/effect/after_commit/repeated/ledger_readback", m.Rows[24].Keys[0].String())
	assert.Equal(t, "tool.commit(inventory.confirm)#1", m.Rows[26].Schedule.Faults[0].Placement())
	assert.Equal(t, "tool/effect/after_commit/repeated/ledger_readback", m.Rows[26].Keys[0].String())
	assert.Equal(t, "subject_swap", m.Rows[0].Kind)
	assert.Equal(t, model.RunVerdict("contained_failure"), m.Rows[0].Verdict)
	modified := 0
	for _, r := range m.Rows {
		assert.NotEqual(t, model.Unrecoverable, r.Verdict, "%s at %s", r.Kind, r.Schedule.Faults[0].Placement())
		if r.Schedule.Faults[0].Correlation != "" {
			modified++
		}
	}
	assert.Equal(t, 12, modified)
}

// TestFaultMatrixFindsThePlantedBug: the planted variant's confirm retry
// builds a new request key. Its matrix places tool_timeout at confirm's
// first call, whose run breaks confirmed_once: of the runs adding the key
// tool/tool_call/before_commit/isolated/ledger_readback at confirm, the
// cover keeps that one (row 13), the only unrecoverable row; the same
// fault at reserve, the first tool, recovers.
func TestFaultMatrixFindsThePlantedBug(t *testing.T) {
	m, err := coverage.FaultMatrix(inventory.Definition(), "", model.Config{System: json.RawMessage(`{"variant":"planted"}`)}, nil)
	require.NoError(t, err)
	assert.Equal(t, 56, m.Candidates)
	require.Len(t, m.Rows, 36)
	var broke []string
	for _, r := range m.Rows {
		if r.Verdict == model.Unrecoverable {
			broke = append(broke, r.Kind+" at "+r.Schedule.Faults[0].Placement())
		}
	}
	assert.Equal(t, []string{"tool_timeout at tool.commit(inventory.confirm)#1"}, broke)
	assert.Equal(t, "tool_timeout", m.Rows[13].Kind)
	assert.Equal(t, "tool/tool_call/before_commit/isolated/ledger_readback", m.Rows[13].Keys[0].String())
	res, err := inventory.Definition().Replay(m.Rows[13].Schedule)
	require.NoError(t, err)
	var violated []string
	for _, inv := range res.Invariants {
		if !inv.Held {
			violated = append(violated, inv.Invariant)
		}
	}
	assert.Equal(t, []string{"recorded_agrees_with_ledger", "confirmed_once"}, violated)
}

// reachedAll: no key of the agent's universe (rows "key status") is one it
// cannot reach. The fault matrix (single faults, and again under repeated
// and persistent) visits 21 of the 23; sliding_grant_cache, a kind
// outside the catalogue, fires at the authority check when named, and
// lagging_readback at the readback a timeout after the commit leads to.
func reachedAll(t *testing.T, universe []string) {
	t.Helper()
	m, err := coverage.FaultMatrix(inventory.Definition(), "", model.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reached := map[string]bool{}
	for _, k := range m.Visited {
		reached[k.String()] = true
	}
	for _, faults := range [][]model.FaultEntry{
		{{Event: model.EvAuthorityCheck, Ordinal: 1, Kind: "sliding_grant_cache"}},
		{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}, {Event: model.EvLedgerReadback, Ordinal: 1, Kind: "lagging_readback"}},
	} {
		res, err := inventory.Definition().Replay(&model.Schedule{Version: model.ScheduleVersion, Seed: "reach", Faults: faults})
		if err != nil {
			t.Fatal(err)
		}
		if f := res.Faults[len(faults)-1]; !f.Reached || f.Fired == 0 {
			t.Errorf("%s: reached %t, fired %d", f.Kind, f.Reached, f.Fired)
		}
		k, _ := coverage.Default().KindKey(faults[len(faults)-1].Kind)
		reached[k.String()] = true
	}
	for _, u := range universe {
		if key := strings.Fields(u)[0]; !reached[key] {
			t.Errorf("%s is in the universe, and no run reaches it", key)
		}
	}
}
