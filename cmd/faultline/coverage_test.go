package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/coverage"
)

func readCov(t *testing.T, p string) *coverage.Data {
	t.Helper()
	d, err := coverage.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestAssayRecordsCoverage: --coverage and FAULTLINE_COVERAGE merge the
// trials' keys into one file without changing the assay's output.
func TestAssayRecordsCoverage(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cov.json")
	args := []string{"assay", "--profile", "baseline", "--fault", "tool", "--trials", "20", "--seed", "5"}
	code, plain, _ := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	code, out, stderr := runCLI(t, append(args, "--coverage", p)...)
	if code != 0 || out != plain {
		t.Fatalf("exit %d, output with --coverage differs:\n%s\n%s", code, out, stderr)
	}
	d := readCov(t, p)
	if d.Runs != 20 || len(d.Keys) != 2 {
		t.Fatalf("runs %d, keys %d", d.Runs, len(d.Keys))
	}
	visits := 0
	for _, e := range d.Keys {
		visits += e.Visits
		if len(e.Counterexamples) != 1 || e.Counterexamples[0].Count != e.Visits {
			t.Fatalf("baseline tool faults: every visit violates, got %+v", e)
		}
	}
	if visits != 20 {
		t.Fatalf("visits %d, want 20", visits)
	}
	t.Setenv(coverageEnv, p)
	if code, _, _ := runCLI(t, "assay", "--profile", "typed", "--trials", "10"); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if d := readCov(t, p); d.Runs != 30 {
		t.Fatalf("after a second assay through %s: runs %d, want 30", coverageEnv, d.Runs)
	}
	if code, _, stderr := runCLI(t, "assay", "--trials", "3", "--coverage", filepath.Join(p, "x.json")); code == 0 || !strings.Contains(stderr, "recording coverage") {
		t.Fatalf("unwritable coverage file: exit %d, %s", code, stderr)
	}
}

// TestAuditPrintsCoverage: the audit prints the coverage summary, the
// unvisited keys and the counterexamples, and records its 30 runs.
func TestAuditPrintsCoverage(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cov.json")
	code, out, _ := runCLI(t, "audit", "--coverage", p)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"== coverage of the runs above (30 single-fault runs)\nCoverage: 10 of 10 reachable keys visited (100.0%)\n",
		"visited keys: 10 violated an invariant, 0 held",
		"Unvisited reachable keys:\n  none\n",
		"  tool/effect/after_commit/isolated/ledger_readback\n    effect_at_most_once violated in 1 run: first false after seq 12 (tool.commit): second ledger effect for task refund-O-731\n",
		"Unreachable keys (8790), grouped by reason:\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("audit output lacks %q", want)
		}
	}
	if i, j := strings.Index(out, "== profile fail_closed"), strings.Index(out, "== coverage"); i < 0 || j < i {
		t.Error("the coverage does not follow the outcome tables")
	}
	if d := readCov(t, p); d.Runs != 30 || len(d.Keys) != 10 {
		t.Fatalf("runs %d, keys %d", d.Runs, len(d.Keys))
	}
}

// auditFile writes the audit's coverage file and returns its path.
func auditFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "audit.json")
	if code, _, _ := runCLI(t, "assay", "--profile", "baseline", "--fault", "tool", "--trials", "4", "--coverage", p); code != 0 {
		t.Fatal("assay failed")
	}
	return p
}

func TestCoverageReport(t *testing.T) {
	p := auditFile(t)
	for format, want := range map[string]string{
		"text":     "Coverage: 2 of 10 reachable keys visited (20.0%)\n",
		"markdown": "### Coverage: 2 of 10 reachable keys visited (20.0%)\n",
		"html":     "<title>faultline coverage: 2 of 10 reachable keys visited</title>",
		"json":     `"visited": 2,`,
	} {
		code, out, stderr := runCLI(t, "coverage", "report", p, "--format", format)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d, output lacks %q (%s)", format, code, want, stderr)
		}
	}
	// --schedules writes the files the replay commands name, and they replay
	dir := filepath.Join(t.TempDir(), "cx")
	code, out, _ := runCLI(t, "coverage", "report", p, "--format", "json", "--schedules", dir)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var r struct {
		Keys []struct {
			Counterexamples []struct {
				Schedule struct {
					Replay string `json:"replay"`
				} `json:"schedule"`
			} `json:"counterexamples"`
		} `json:"keys"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	replay := r.Keys[4].Counterexamples[0].Schedule.Replay
	if !strings.HasPrefix(replay, "faultline replay "+dir+"/timeout_after_commit-") {
		t.Fatalf("replay command %q", replay)
	}
	code, out, _ = runCLI(t, strings.Fields(replay)[1:]...)
	if code != 1 || !strings.Contains(out, "effect_at_most_once  VIOLATED") {
		t.Fatalf("%s: exit %d\n%s", replay, code, out)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("%d schedule files, want 2", len(ents))
	}
}

func TestCoverageMerge(t *testing.T) {
	a := auditFile(t)
	out := filepath.Join(t.TempDir(), "merged.json")
	code, stdout, _ := runCLI(t, "coverage", "merge", out, a, a)
	if code != 0 || stdout != "merged 2 files into "+out+": 8 runs, 2 of 10 reachable keys visited\n" {
		t.Fatalf("exit %d: %q", code, stdout)
	}
	da, dm := readCov(t, a), readCov(t, out)
	for k, e := range da.Keys {
		if dm.Keys[k].Visits != 2*e.Visits {
			t.Fatalf("%s: merged visits %d, want %d", k, dm.Keys[k].Visits, 2*e.Visits)
		}
	}
	before, _ := os.ReadFile(out)
	bad := writeFile(t, `{"version": 2}`)
	code, _, stderr := runCLI(t, "coverage", "merge", out, a, bad)
	if code != 2 || !strings.Contains(stderr, "unsupported version 2 (want 1)") {
		t.Fatalf("bad input: exit %d, %s", code, stderr)
	}
	if after, _ := os.ReadFile(out); string(after) != string(before) {
		t.Fatal("a failed merge changed OUT")
	}
}

func TestCoverageGateExitCodes(t *testing.T) {
	p := auditFile(t)
	keys := func(s string) string { return writeFile(t, s) }
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"ratio met", []string{"--min-ratio", "0.2"}, 0, "coverage gate: passed\n  ratio 0.2000 (2 of 10 reachable keys visited), minimum 0.2000: met\n"},
		{"required met", []string{"--require", keys("tool/*/*/*/*\n")}, 0, "required keys: 2, unvisited: 0"},
		{"ratio not met", []string{"--min-ratio", "0.9"}, 1, "minimum 0.9000: NOT MET"},
		{"required missing", []string{"--require", keys("# commit boundary and state\ntool/effect/after_commit/isolated/ledger_readback\nstate/*/*/*/*\n")}, 1,
			"  line 3 state/*/*/*/*: unvisited state/state/before_commit/isolated/state_version: never_tried: no recorded run scheduled concurrent_version_change\n" +
				"  line 3 state/*/*/*/*: unvisited state/state/after_checkpoint/isolated/ledger_readback: never_tried: no recorded run scheduled checkpoint_rollback\n"},
		{"no flag", nil, 2, "give --min-ratio R, --require KEYS_FILE, or both"},
		{"ratio above 1", []string{"--min-ratio", "1.5"}, 2, `--min-ratio: "1.5" is not a number in [0,1]`},
		{"ratio not a number", []string{"--min-ratio", "most"}, 2, `--min-ratio: "most" is not a number in [0,1]`},
		{"bad keys file", []string{"--require", keys("tool/effect/after_commit/isolated\n")}, 2, "keys file line 1"},
		{"missing keys file", []string{"--require", "/nonexistent/keys.txt"}, 2, "no such file"},
	}
	for _, c := range cases {
		code, out, stderr := runCLI(t, append([]string{"coverage", "gate", p}, c.args...)...)
		if code != c.code || !strings.Contains(out+stderr, c.want) {
			t.Errorf("%s: exit %d (want %d), output lacks %q:\n%s%s", c.name, code, c.code, c.want, out, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "coverage", "gate", writeFile(t, `{"version":1,"runs":0,"not_adjudicated":0,"keys":{},"extra":1}`), "--min-ratio", "0"); code != 2 || !strings.Contains(stderr, `unknown field "extra"`) {
		t.Errorf("invalid coverage file: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "coverage", "report", p, "--format", "pdf"); code != 2 || !strings.Contains(stderr, `unknown format "pdf"`) {
		t.Errorf("bad format: exit %d, %s", code, stderr)
	}
	if code, _, _ := runCLI(t, "coverage", "merge", p); code != 2 {
		t.Errorf("merge with one argument: exit %d", code)
	}
}
