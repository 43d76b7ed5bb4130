//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKilledRunLeftoversGoAtTheNextRun: what a killed explore left in its
// --out and --otel folders (a trace's and a schedule's temporary files,
// killed before their rename, and a writability probe) is gone after the
// next explore into them; the user's own files stay.
func TestKilledRunLeftoversGoAtTheNextRun(t *testing.T) {
	out, otel := t.TempDir(), t.TempDir()
	left := []string{filepath.Join(otel, ".run-c076e5b2f72660b0.otlp.json.tmp-3141"), filepath.Join(out, ".faultline-probe.tmp-99"),
		filepath.Join(out, ".cx-effect_at_most_once-0badf00d.json.tmp-12")}
	own := filepath.Join(out, "notes.txt")
	for _, p := range append(left, own) {
		require.NoError(t, os.WriteFile(p, []byte("partial"), 0o600))
	}
	code, _, stderr := run(t, append(exploreArgs, "--out", out, "--otel", otel)...)
	require.Contains(t, []int{0, 1}, code, stderr)
	for _, p := range left {
		assert.NoFileExists(t, p, "a killed run's leftover")
	}
	assert.FileExists(t, own, "the user's file")
}

// TestOversizedCoverageRefusedBeforeRead: a 3 GiB (sparse) coverage file
// given to explore --coverage is refused as bad input (exit 2) without
// being read: the process allocates a small fraction of its size.
// coverage merge replaces such an OUT without reading it.
func TestOversizedCoverageRefusedBeforeRead(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(3<<30))
	require.NoError(t, f.Close())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, _, stderr := run(t, "explore", "--max-schedules", "0", "--checks", "1", "--seed", "1", "--coverage", big)
	runtime.ReadMemStats(&after)
	require.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, big+": larger than the limit of 256 MiB for this kind of file")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(256<<20), "bytes allocated by the refused run")

	small := filepath.Join(dir, "small.json")
	code, _, stderr = run(t, "explore", "--max-schedules", "0", "--checks", "1", "--seed", "1", "--coverage", small)
	require.Contains(t, []int{0, 1}, code, stderr)
	code, _, stderr = run(t, "coverage", "merge", big, small)
	require.Equal(t, 0, code, stderr)
	fi, err := os.Stat(big)
	require.NoError(t, err)
	assert.Less(t, fi.Size(), int64(1<<20), "OUT after the merge")
}
