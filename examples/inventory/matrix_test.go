package inventory_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
)

// TestFaultMatrix: the reservation service's fault matrix. Of the 23
// catalogue kinds its fault-free run places, and the 9 placements again
// under repeated or persistent, greedy set cover keeps 22, one per key
// visited (7 of them under a modifier); 18 reachable keys need more than
// a single fault of the catalogue on its fault-free run.
func TestFaultMatrix(t *testing.T) {
	m, err := coverage.FaultMatrix(inventory.Definition(), "", model.Config{}, nil)
	require.NoError(t, err)
	assert.Equal(t, 32, m.Candidates)
	assert.Len(t, m.Rows, 22)
	assert.Len(t, m.Visited, 22)
	assert.Len(t, m.Unvisited, 18)
	assert.Equal(t, model.Correlation("repeated"), m.Rows[15].Schedule.Faults[0].Correlation)
	assert.Equal(t, "tool/effect/after_commit/repeated/ledger_readback", m.Rows[15].Keys[0].String())
	assert.Equal(t, "subject_swap", m.Rows[0].Kind)
	assert.Equal(t, model.RunVerdict("contained_failure"), m.Rows[0].Verdict)
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
