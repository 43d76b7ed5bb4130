package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestGateAsJSON: coverage gate --format json prints the finding as one
// object, the same bytes as --json, with the exit code of the text
// finding: 1 when a required key or the ratio is not met, 0 when met.
func TestGateAsJSON(t *testing.T) {
	keys := filepath.Join(t.TempDir(), "keys.txt")
	if err := os.WriteFile(keys, []byte("tool/*/*/*/*\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "coverage", "gate", billingFile, "--min-ratio", "0.9", "--require", keys, "--format", "json")
	if code != 1 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if code2, alias, _ := runCLI(t, "coverage", "gate", billingFile, "--min-ratio", "0.9", "--require", keys, "--json"); code2 != 1 || alias != out {
		t.Fatalf("--json: exit %d, differs:\n%s", code2, alias)
	}
	var g struct {
		Version                        int
		Passed                         bool
		Visited, Reachable, Applicable int
		MinRatio                       *float64 `json:"min_ratio"`
		Required                       int
		Missing                        []struct{ Line int }
		Faults                         struct {
			ReachedAndFired int `json:"reached_and_fired"`
		}
	}
	if err := json.Unmarshal([]byte(out), &g); err != nil {
		t.Fatal(err)
	}
	// version 2: the 28 unvisited keys of the ratio not met (line 0), then
	// the 17 required keys missing
	if g.Version != 2 || g.Passed || g.Visited != 1 || g.Reachable != 40 || g.Applicable != 29 || g.MinRatio == nil || *g.MinRatio != 0.9 ||
		g.Required != 18 || len(g.Missing) != 28+17 || g.Missing[27].Line != 0 || g.Missing[28].Line != 1 || g.Faults.ReachedAndFired != 1 {
		t.Fatalf("finding %+v\n%s", g, out)
	}
	code, out, _ = runCLI(t, "coverage", "gate", billingFile, "--min-ratio", "0", "--json")
	if code != 0 || json.Unmarshal([]byte(out), &g) != nil || !g.Passed || len(g.Missing) != 0 {
		t.Fatalf("met gate: exit %d\n%s", code, out)
	}
}
