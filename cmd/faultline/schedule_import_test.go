package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScheduleImport: "schedule import" prints the versioned schedule the
// practice's example converts to (corpus's golden file), which replays
// with every fault reached and fired (exit 0); unknown names are bad
// input (exit 2) naming every one of them.
func TestScheduleImport(t *testing.T) {
	example := filepath.Join("..", "..", "corpus", "testdata", "harness-practice-example.json")
	want, err := os.ReadFile(filepath.Join("..", "..", "corpus", "testdata", "harness-practice-example.schedule.json"))
	require.NoError(t, err)
	code, out, stderr := runCLI(t, "schedule", "import", example,
		"--harness", `{"fixture": "copperfin-batch", "retry_budget": 1, "deadline_ms": 2000, "join": "all_required"}`,
		"--config", `{"profile": "typed"}`, "--tool", "search=payments.refund")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, string(want), out)
	file := filepath.Join(t.TempDir(), "imported.json")
	require.NoError(t, os.WriteFile(file, []byte(out), 0o600))
	code, out, stderr = runCLI(t, "replay", file)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "Run verdict: contained_failure")

	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"seed": "s", "faults": [{"event": "tool.call", "ordinal": 1, "kind": "crash", "lane": "a"}]}`), 0o600))
	code, _, stderr = runCLI(t, "schedule", "import", bad, "--config", `{"profile": "typed"}`)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `unknown faults[0] field "lane", faults[0] kind "crash"`)
	code, _, stderr = runCLI(t, "schedule", "import", example, "--tool", "search")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `--tool: "search" is not FROM=TO`)
}
