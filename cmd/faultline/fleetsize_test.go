package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFleetOfAnySize: --fixture takes copperfin-fleet-N for N from 1 to
// model.MaxWorkers, as copperfin.FixtureNamed does, and refuses any other
// N (exit 2) naming the family. Explore of the ten-agent fleet under typed
// (no jitter) finds the storm (exit 1), with and without --concurrent, and
// a schedule naming the fleet replays (exit 1 without jittered_backoff,
// exit 0 under its own typed_fleet).
func TestFleetOfAnySize(t *testing.T) {
	oneGoroutine(t)
	for _, args := range [][]string{
		{"--kinds", "tool_timeout", "--no-world", "--seed", "3"},
		{"--concurrent", "10", "--kinds", "tool_timeout", "--seed", "7"},
	} {
		code, out, stderr := runCLI(t, append([]string{"explore", "--fixture", "copperfin-fleet-10"}, args...)...)
		if code != 1 || !strings.Contains(out, "no_retry_storm violated") || !strings.Contains(out, `"fixture": "copperfin-fleet-10"`) {
			t.Errorf("explore %v: exit %d, want 1 and no_retry_storm on copperfin-fleet-10: %s\n%.1500s", args, code, stderr, out)
		}
	}
	for _, n := range []string{"0", "1001", "010", "-1", "x"} {
		code, _, stderr := runCLI(t, "explore", "--fixture", "copperfin-fleet-"+n, "--kinds", "tool_timeout", "--checks", "1")
		if code != 2 || !strings.Contains(stderr, `unknown fixture "copperfin-fleet-`+n+`"`) || !strings.Contains(stderr, "copperfin-fleet-N for N from 1 to 1000") {
			t.Errorf("--fixture copperfin-fleet-%s: exit %d, want 2 naming the family: %s", n, code, stderr)
		}
	}
	storm, err := os.ReadFile(filepath.Join("..", "..", "reference", "corpus", "retry-storm.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"10", "1", "100"} {
		path := writeFile(t, strings.Replace(string(storm), `"copperfin-fleet"`, `"copperfin-fleet-`+n+`"`, 1))
		want := 1
		if n == "1" {
			want = 0 // one agent retries alone: no storm
		}
		for _, c := range []struct {
			args []string
			code int
		}{{nil, 0}, {[]string{"--without", "jittered_backoff"}, want}} {
			code, out, stderr := runCLI(t, append([]string{"replay", path}, c.args...)...)
			if code != c.code {
				t.Errorf("replay of the storm on copperfin-fleet-%s %v: exit %d, want %d: %s", n, c.args, code, c.code, stderr)
			}
			if c.code == 1 && !strings.Contains(out, "Failed invariants: no_retry_storm after seq") {
				t.Errorf("replay on copperfin-fleet-%s %v: no_retry_storm not named:\n%.2000s", n, c.args, out)
			}
		}
	}
}
