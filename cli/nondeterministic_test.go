package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
)

// TestExploreOfANondeterministicSystem: the inventory agent with an
// invariant that breaks on the first three runs only (state shared across
// runs) gives two results for one schedule: explore exits 4 (an internal
// error of the system under test, not bad input) and says what differed.
func TestExploreOfANondeterministicSystem(t *testing.T) {
	d := inventory.Definition()
	// the first check's draws and its run are the first three runs; rapid's
	// run of that check is a later one
	runs, limit := 0, 3
	configure := d.Configure
	d.Configure = func(system json.RawMessage) (model.Factory, error) {
		runs++
		return configure(system)
	}
	d.Invariants = append(d.Invariants, model.UserInvariant{
		Name: "early_runs_only", Owner: "inventory", Oracle: model.OracleLedgerReadback, Doc: "breaks once",
		Check: func(v model.View) string {
			if runs > limit {
				return ""
			}
			return "broke on an early run"
		},
	})
	code, out, stderr := runIn(t, program(d), "explore", "--domains", "tool", "--no-world", "--seed", "1", "--checks", "5")
	assert.Equal(t, 4, code, "%s%s", out, stderr)
	assert.Contains(t, stderr, "broke early_runs_only (after seq 1, at worker.start) when first run")
	assert.Contains(t, stderr, "and held every invariant when rapid ran it again: the system under test is not deterministic\n")
	assert.False(t, strings.Contains(stderr, "()"), "empty parentheses: %q", stderr)
}
