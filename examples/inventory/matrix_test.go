package inventory_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
)

// TestFaultMatrix: the reservation service's fault matrix. Of the 23
// catalogue kinds its fault-free run places, greedy set cover keeps 15,
// one per key visited; 25 reachable keys need more than a single fault.
func TestFaultMatrix(t *testing.T) {
	m, err := coverage.FaultMatrix(inventory.Definition(), "", model.Config{}, nil)
	require.NoError(t, err)
	assert.Equal(t, 23, m.Candidates)
	assert.Len(t, m.Rows, 15)
	assert.Len(t, m.Visited, 15)
	assert.Len(t, m.Unvisited, 25)
	assert.Equal(t, "subject_swap", m.Rows[0].Kind)
	assert.Equal(t, model.RunVerdict("contained_failure"), m.Rows[0].Verdict)
}
