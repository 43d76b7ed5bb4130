package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
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
	// seed 5's 20 trials over the tool kinds visit seven keys: under
	// baseline the commit timeouts and the answer faults duplicate the
	// refund (leaving a record that names one) or release without proof;
	// the refusals hold
	d := readCov(t, p)
	if d.Runs != 20 || len(d.Keys) != 7 {
		t.Fatalf("runs %d, keys %d", d.Runs, len(d.Keys))
	}
	want := map[string]string{
		"tool/effect/before_commit/isolated/ledger_readback":      "1",
		"tool/effect/after_commit/isolated/ledger_readback":       "3 effect_at_most_once×3 recorded_agrees_with_ledger×3",
		"tool/effect/after_commit/isolated/receipt":               "5 effect_at_most_once×3 provable_outcome×2 recorded_agrees_with_ledger×3",
		"tool/sandbox/before_validation/isolated/ledger_readback": "3",
		"tool/tool_call/before_commit/isolated/ledger_readback":   "2 effect_at_most_once×1 recorded_agrees_with_ledger×1",
		"tool/tool_call/before_commit/isolated/budget_counter":    "2",
		"tool/tool_call/before_commit/persistent/budget_counter":  "4",
	}
	for k, e := range d.Keys {
		got := strconv.Itoa(e.Visits)
		for _, c := range e.Counterexamples {
			got += " " + c.Invariant + "×" + strconv.Itoa(c.Count)
		}
		if got != want[k.String()] {
			t.Errorf("%s: %s, want %s", k, got, want[k.String()])
		}
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

// TestAuditPrintsCoverage: the audit prints the coverage summary, each
// key's status under each profile (which broke under baseline, which held
// under typed, which under fail_closed), the unvisited keys and the counterexamples beside their
// keys and profiles, and records its 189 runs (105 single-fault, 84
// correlated).
func TestAuditPrintsCoverage(t *testing.T) {
	if raceDetector {
		t.Skip("renders the audit's coverage in one goroutine: go test ./... runs it in full")
	}
	p := filepath.Join(t.TempDir(), "cov.json")
	code, out, _ := runCLI(t, "audit", "--full", "--coverage", p)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"== coverage of the runs above (105 single-fault runs: 35 fault kinds under 3 profiles; and 84 correlated runs: 23 modifiers and 5 kinds outside the catalogue under 3 profiles)\n" +
			"Coverage: 40 of 40 reachable keys visited (100.0%)\n",
		"visited keys: 31 violated an invariant, 9 held",
		// fail_closed denies refunds the provider made; baseline breaks one
		// more key under the five new kinds at the proposal (29 -> 30
		// violated), and one more under server_error after the commit (31);
		// fail_closed two more under server_error and network_error (16 ->
		// 18); 35 single-fault runs and 28 correlated a profile (was 26)
		"  baseline     38 of 40 reachable keys visited: 31 violated, 7 held (63 runs)\n" +
			"  typed        40 of 40 reachable keys visited: 0 violated, 40 held (63 runs)\n" +
			"  fail_closed  40 of 40 reachable keys visited: 18 violated, 22 held (63 runs)\n",
		"  tool/effect/after_commit/isolated/ledger_readback                  violated (effect_at_most_once, recorded_agrees_with_ledger)                    held   violated (recorded_agrees_with_ledger)  timeout_after_commit\n",
		"  tool/sandbox/before_validation/isolated/ledger_readback            held                                                                           held   held                                    sandbox_denial\n",
		"Unvisited reachable keys:\n  none\n",
		"  tool/effect/after_commit/isolated/ledger_readback under baseline\n    effect_at_most_once violated in 1 run: first false after seq 19 (tool.commit): second ledger effect for task refund-O-731\n",
		"Unreachable keys (12335), grouped by reason:\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("audit output lacks %q", want)
		}
	}
	if i, j := strings.Index(out, "== profile fail_closed"), strings.Index(out, "== coverage"); i < 0 || j < i {
		t.Error("the coverage does not follow the outcome tables")
	}
	if d := readCov(t, p); d.Runs != 189 || len(d.Keys) != 40 { // 105 single-fault and 84 correlated
		t.Fatalf("runs %d, keys %d", d.Runs, len(d.Keys))
	}
}

// auditFile writes the coverage file of 4 baseline tool trials (seed 188
// draws timeout_before_send twice, malformed_response and output_drift;
// the last two duplicate the refund) and returns its path.
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
		"text":     "Coverage: 2 of 28 keys the systems can reach visited (7.1%; 40 reachable by the catalogue, 12 left out, each with why)\n",
		"markdown": "### Coverage: 2 of 28 keys the systems can reach visited (7.1%; 40 reachable by the catalogue, 12 left out, each with why)\n",
		"html":     "<title>faultline coverage: 2 of 28 keys the systems can reach visited (7.1%; 40 reachable by the catalogue, 12 left out, each with why)</title>",
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
	// the receipt key's counterexample keeps the smaller of its two schedules: malformed_response's
	replay := r.Keys[12].Counterexamples[0].Schedule.Replay
	if !strings.HasPrefix(replay, "faultline replay "+dir+"/malformed_response-") {
		t.Fatalf("replay command %q", replay)
	}
	code, out, _ = runCLI(t, strings.Fields(replay)[1:]...)
	if code != 1 || !strings.Contains(out, "effect_at_most_once          VIOLATED  first false after seq 19 (tool.commit)") {
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
	if code != 0 || stdout != "merged 2 files into "+out+": 8 runs, 2 of 28 keys the systems can reach visited (of 40 reachable: 12 not drawn)\n" {
		t.Fatalf("exit %d: %q", code, stdout)
	}
	da, dm := readCov(t, a), readCov(t, out)
	for k, e := range da.Keys {
		if dm.Keys[k].Visits != 2*e.Visits {
			t.Fatalf("%s: merged visits %d, want %d", k, dm.Keys[k].Visits, 2*e.Visits)
		}
	}
	before, _ := os.ReadFile(out)
	bad := writeFile(t, `{"version": 4}`)
	code, _, stderr := runCLI(t, "coverage", "merge", out, a, bad)
	if code != 2 || !strings.Contains(stderr, "unsupported version 4 (want 3, 2 or 1)") {
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
		{"ratio met", []string{"--min-ratio", "0.05"}, 0, "coverage gate: passed\n  ratio 0.0714 (2 of 28 keys the systems can reach visited; 40 reachable by the catalogue, the rest left out with why in the report), minimum 0.0500: met\n"},
		{"required met", []string{"--require", keys("*/*/after_commit/isolated/receipt\ntool/tool_call/before_commit/isolated/ledger_readback\n")}, 0, "required keys: 2, unvisited: 0\n"},
		{"ratio not met", []string{"--min-ratio", "0.1"}, 1, "minimum 0.1000: NOT MET"},
		{"required missing", []string{"--require", keys("# commit boundary and state\ntool/effect/after_commit/isolated/ledger_readback\nstate/*/*/*/*\n")}, 1,
			"  required keys: 9, unvisited: 9\n" +
				"  line 2 tool/effect/after_commit/isolated/ledger_readback: unvisited tool/effect/after_commit/isolated/ledger_readback: never_tried: no recorded run scheduled timeout_after_commit\n" +
				"  line 3 state/*/*/*/*: unvisited state/state/before_commit/isolated/state_version: never_tried: no recorded run scheduled concurrent_version_change or stale_state_read\n" +
				"  line 3 state/*/*/*/*: unvisited state/state/after_commit/isolated/ledger_readback: never_tried: no recorded run scheduled lagging_readback\n" +
				"  line 3 state/*/*/*/*: unvisited state/state/after_checkpoint/isolated/ledger_readback: never_tried: no recorded run scheduled checkpoint_rollback\n" +
				"  line 3 state/*/*/*/*: unvisited state/state/after_checkpoint/repeated/ledger_readback: never_tried: no recorded run scheduled checkpoint_rollback under the modifier repeated (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)\n" +
				"  line 3 state/*/*/*/*: unvisited state/state/after_checkpoint/persistent/ledger_readback: never_tried: no recorded run scheduled checkpoint_rollback under the modifier persistent (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)\n" +
				"  line 3 state/*/*/*/*: unvisited state/worker/after_checkpoint/isolated/checkpoint_store: never_tried: no recorded run scheduled worker_restart\n" +
				"  line 3 state/*/*/*/*: unvisited state/checkpoint_store/after_checkpoint/isolated/checkpoint_store: never_tried: no recorded run scheduled missing_checkpoint or stale_checkpoint or future_version_checkpoint or corrupt_checkpoint\n" +
				"  line 3 state/*/*/*/*: unvisited state/branch_join/before_commit/isolated/join_record: never_tried: no recorded run scheduled branch_failure\n"},
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
