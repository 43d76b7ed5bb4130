package snapshots_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/examples/snapshots"
)

// inBubble runs one run of the janitor's production code in a
// testing/synctest bubble of t of its own (coverage.FaultMatrixIn).
func inBubble(t *testing.T) func(run func()) error {
	return func(run func()) error {
		synctest.Test(t, func(*testing.T) { run() })
		return nil
	}
}

// TestFaultMatrix: the fault matrix of production code, each run (the
// fault-free one and each of the 28 placements: 21 kinds, 7 again under
// repeated or persistent) in a bubble of its own; FaultMatrix refuses to
// run it outside one. Greedy set cover keeps 15 single faults, 5 of them
// under a modifier, and they visit every key of the janitor's universe
// (janitorUniverse): none is a key it cannot reach.
func TestFaultMatrix(t *testing.T) {
	def := definition(t)
	if _, err := coverage.FaultMatrix(def, "", snapshots.Config(false), nil); err == nil || !strings.Contains(err.Error(), "coverage.FaultMatrixIn") {
		t.Fatalf("FaultMatrix of production code outside a bubble: %v", err)
	}
	m, err := coverage.FaultMatrixIn(inBubble(t), def, "", snapshots.Config(false), nil)
	if err != nil {
		t.Fatal(err)
	}
	modified := 0
	for _, r := range m.Rows {
		if r.Schedule.Faults[0].Correlation != "" {
			modified++
		}
	}
	if m.Candidates != 28 || len(m.Rows) != 15 || modified != 5 || len(m.Visited) != 15 {
		t.Errorf("%d candidates, %d rows (%d under a modifier), %d keys visited", m.Candidates, len(m.Rows), modified, len(m.Visited))
	}
	visited := map[string]bool{}
	for _, k := range m.Visited {
		visited[k.String()] = true
	}
	for _, k := range janitorUniverse {
		if !visited[k] {
			t.Errorf("%s is in the janitor's universe, and no single fault visits it", k)
		}
	}
}
