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
