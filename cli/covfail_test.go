package cli_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/model"
)

// TestExploreCoverageNeverHidesACounterexample: explore --coverage of a
// kind outside the catalogue (server_error) records its runs and prints
// the counterexample the walk found (exit 1); when the coverage file
// cannot take them (recorded under another declaration of the system),
// the counterexample is still printed and the exit code is still 1, with
// the recording error beside it on stderr. Without a counterexample the
// same failure is bad input (exit 2).
func TestExploreCoverageNeverHidesACounterexample(t *testing.T) {
	p := &cli.Program{Name: "billing", Systems: []*model.Definition{billing.Definition()}}
	cov := filepath.Join(t.TempDir(), "cov.json")
	args := []string{"explore", "--kinds", "server_error", "--seed", "1", "--checks", "3", "--coverage", cov}
	bug := append(slices.Clone(args), "--config", `{"bugs":["fresh_key_per_retry"]}`)
	code, out, stderr := runIn(t, p, bug...)
	require.Equal(t, 1, code, stderr)
	assert.Equal(t, "", stderr)
	assert.True(t, strings.HasPrefix(out, "counterexample at schedule 3 of the walk"), out)
	d, err := coverage.ReadFile(cov)
	require.NoError(t, err)
	key := coverage.Key{Domain: "tool", Boundary: "effect", Phase: "before_commit", Correlation: "isolated", Oracle: "ledger_readback"}
	// the walk's three schedules, and the three runs that confirm and
	// reduce its counterexample
	assert.Equal(t, 6, d.Runs)
	assert.Equal(t, 4, d.Keys[key].Visits)

	// the file declares billing another way: the merge fails after the run
	data, err := os.ReadFile(cov)
	require.NoError(t, err)
	other := strings.Replace(string(data), `"not_applicable": [
        "branch_join",
        "memory"
      ]`, `"not_applicable": [
        "memory"
      ]`, 1)
	require.NotEqual(t, string(data), other)
	require.NoError(t, os.WriteFile(cov, []byte(other), 0o644))
	code, out2, stderr := runIn(t, p, bug...)
	assert.Equal(t, 1, code, stderr)
	assert.Equal(t, out, out2)
	assert.Equal(t, "billing: recording coverage into "+cov+": merging into "+cov+`: systems["billing"]: not-applicable boundaries differ: [memory] and [branch_join, memory] (recording coverage failed; the counterexample above stands, exit 1)`+"\n", stderr)
	code, _, stderr = runIn(t, p, args...)
	assert.Equal(t, 2, code, stderr)
	assert.Equal(t, "billing: recording coverage into "+cov+": merging into "+cov+`: systems["billing"]: not-applicable boundaries differ: [memory] and [branch_join, memory]`+"\n", stderr)
}
