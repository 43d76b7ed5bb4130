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

// explore --concurrent draws interleavings: on the inventory's one-task
// fixture there is nothing to interleave, and the checks run as without
// it; a count out of range is bad input naming the flag.
func TestExploreConcurrent(t *testing.T) {
	code, out, stderr := run(t, "explore", "--concurrent", "2", "--domains", "tool", "--no-world", "--seed", "1", "--checks", "20")
	if code != 0 || !strings.Contains(out, "concurrency: 2 workers") {
		t.Errorf("exit %d: %s%s", code, out, stderr)
	}
	code, _, stderr = run(t, "explore", "--concurrent", "0", "--seed", "1")
	if code != 2 || !strings.Contains(stderr, "--concurrent must be between 1 and 1000, got 0") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
