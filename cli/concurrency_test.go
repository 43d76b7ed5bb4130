package cli_test

import (
	"strings"
	"testing"
)

// Replay of a concurrent schedule names the task of each crossing and
// prints the interleaving; the sequential table has neither.
func TestReplayConcurrentSchedule(t *testing.T) {
	file := func(harness string) string {
		return write(t, "s.json", `{"version": 2, "seed": "s", "config": {"harness": {`+harness+`}, "system": {}}, "faults": []}`)
	}
	code, out, stderr := run(t, "replay", file(`"concurrency": {"workers": 1}`))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "  seq  t_ms  task ") || !strings.Contains(out, "\nInterleaving (0 context switches; the task picked at each scheduling point, by fixture position): 1x") {
		t.Errorf("concurrent replay:\n%s", out)
	}
	code, out, _ = run(t, "replay", file(""))
	if code != 0 || strings.Contains(out, "Interleaving") || !strings.Contains(out, "  seq  t_ms  worker ") {
		t.Errorf("sequential replay (exit %d):\n%s", code, out)
	}
}

// explore --concurrent on the inventory's one-task fixture has nothing to
// interleave: bad input naming the fixture and its task count, as is a
// count out of range.
func TestExploreConcurrent(t *testing.T) {
	code, _, stderr := run(t, "explore", "--concurrent", "2", "--domains", "tool", "--no-world", "--seed", "1", "--checks", "20")
	if code != 2 || !strings.Contains(stderr, "--concurrent 2: fixture inventory has 1 task(s), so 2 concurrent workers have nothing to interleave") {
		t.Errorf("one task: exit %d: %s", code, stderr)
	}
	code, _, stderr = run(t, "explore", "--concurrent", "0", "--seed", "1")
	if code != 2 || !strings.Contains(stderr, "--concurrent must be between 1 and 1000, got 0") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
