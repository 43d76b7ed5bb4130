package inventory_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
)

// TestFaultMatrix: the reservation service's fault matrix. Of the 21
// catalogue kinds its fault-free run places, and the 9 placements again
// under repeated or persistent, greedy set cover keeps 21, one per key
// visited (7 of them under a modifier); 18 reachable keys need more than
// a single fault of the catalogue on its fault-free run.
func TestFaultMatrix(t *testing.T) {
	m, err := coverage.FaultMatrix(inventory.Definition(), "", model.Config{}, nil)
	require.NoError(t, err)
	assert.Equal(t, 30, m.Candidates)
	assert.Len(t, m.Rows, 21)
	assert.Len(t, m.Visited, 21)
	assert.Len(t, m.Unvisited, 18)
	assert.Equal(t, model.Correlation("repeated"), m.Rows[14].Schedule.Faults[0].Correlation)
	assert.Equal(t, "tool/effect/after_commit/repeated/ledger_readback", m.Rows[14].Keys[0].String())
	assert.Equal(t, "subject_swap", m.Rows[0].Kind)
	assert.Equal(t, model.RunVerdict("contained_failure"), m.Rows[0].Verdict)
}
