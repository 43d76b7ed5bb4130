package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// billingFile is a coverage file a user's own test wrote for a billing
// agent (testdata/billing-coverage.json): two runs, its own invariant
// charged_once broken under the commit key, no checkpoint event crossed
// (the reference system's checkpoint placement scheduled but never
// reached), memory and branch join declared not applicable, and its go
// test replay template.
const billingFile = "testdata/billing-coverage.json"

// TestCoverageOfAUserSystem: the file reads back through coverage report
// and coverage merge (before, both exited 2 on "unknown invariant
// \"charged_once\""), with the never-crossed and not-applicable keys
// reported as such and the replay commands the system's own.
func TestCoverageOfAUserSystem(t *testing.T) {
	oneGoroutine(t)
	code, out, stderr := runCLI(t, "coverage", "report", billingFile)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	for _, line := range []string{
		"Coverage: 1 of 29 keys the systems can reach visited (3.4%; 40 reachable by the catalogue, 11 left out, each with why)",
		"  visited keys: 1 violated an invariant, 0 held; unvisited reachable keys: 0 scheduled but not reached, 28 never tried",
		"  left out of the systems' universe and of the ratio: 9 never crossed, 2 not applicable (declared), 0 not enacted by their path, 0 exploration does not draw (a modifier, or a kind on that workload)",
		"  systems: billing (2 runs, 8 events crossed; no branch_join, memory)",
		"    charged_once violated in 1 run: first false after seq 8 (tool.commit): second charge for account A-1",
		"    replay: FAULTLINE_REPLAY=timeout_after_commit-206235ed.json go test -run '^TestReplay$' ./billing",
		"Keys never crossed by this system (9):",
		"  state/state/after_checkpoint/isolated/ledger_readback  never_crossed: never crossed by this system (billing, 2 runs): no recorded run crossed checkpoint.write, where checkpoint_rollback enters; scheduled 1 time, never reached (checkpoint_rollback)",
		"  state/checkpoint_store/after_checkpoint/isolated/checkpoint_store  never_crossed: never crossed by this system (billing, 2 runs): no recorded run crossed checkpoint.write, where missing_checkpoint or stale_checkpoint or future_version_checkpoint or corrupt_checkpoint enter",
		"Keys not applicable to this system (2):",
		"  context/memory/before_commit/isolated/checkpoint_store  not_applicable: not applicable: billing declares it has no memory boundary",
		"  state/branch_join/before_commit/isolated/join_record  not_applicable: not applicable: billing declares it has no branch_join boundary",
	} {
		if !strings.Contains("\n"+out, "\n"+line+"\n") {
			t.Errorf("report lacks the line %q", line)
		}
	}
	for _, format := range []string{"json", "markdown", "html"} {
		code, out, stderr := runCLI(t, "coverage", "report", billingFile, "--format", format)
		if code != 0 || !strings.Contains(out, "charged_once") || !strings.Contains(out, "never crossed") && !strings.Contains(out, "never_crossed") {
			t.Errorf("%s: exit %d, %s", format, code, stderr)
		}
	}
	// --schedules writes the file the system's replay command names
	dir := filepath.Join(t.TempDir(), "cx")
	code, out, _ = runCLI(t, "coverage", "report", billingFile, "--schedules", dir)
	if code != 0 || !strings.Contains(out, "    replay: FAULTLINE_REPLAY="+dir+"/timeout_after_commit-206235ed.json go test -run '^TestReplay$' ./billing\n") {
		t.Fatalf("--schedules: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "timeout_after_commit-206235ed.json")); err != nil {
		t.Fatal(err)
	}
	// a relative folder is named by its absolute path: the system's go
	// test command runs in its package's folder, not here
	abs, err := filepath.Abs(billingFile)
	if err != nil {
		t.Fatal(err)
	}
	here := t.TempDir()
	t.Chdir(here)
	code, out, _ = runCLI(t, "coverage", "report", abs, "--schedules", "rel")
	if code != 0 || !strings.Contains(out, "    replay: FAULTLINE_REPLAY="+filepath.Join(here, "rel", "timeout_after_commit-206235ed.json")+" go test -run '^TestReplay$' ./billing\n") {
		t.Fatalf("relative --schedules: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(here, "rel", "timeout_after_commit-206235ed.json")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Dir(filepath.Dir(abs)))

	merged := filepath.Join(t.TempDir(), "merged.json")
	code, out, stderr = runCLI(t, "coverage", "merge", merged, billingFile, billingFile)
	if code != 0 || out != "merged 2 files into "+merged+": 4 runs, 1 of 29 keys the systems can reach visited (of 40 reachable: 9 never crossed, 2 not applicable)\n" {
		t.Fatalf("merge: exit %d: %q %s", code, out, stderr)
	}
	code, out, _ = runCLI(t, "coverage", "report", merged)
	for _, line := range []string{
		"  runs 4 (0 not adjudicated); fault visits 2, scheduled not reached 2, reached not fired 0; counterexamples 1",
		"    charged_once violated in 2 runs: first false after seq 8 (tool.commit): second charge for account A-1",
		"  systems: billing (4 runs, 8 events crossed; no branch_join, memory)",
	} {
		if code != 0 || !strings.Contains("\n"+out, "\n"+line+"\n") {
			t.Errorf("merged report: exit %d, lacks %q", code, line)
		}
	}
	// the merged file is the input, every count doubled: merging it with
	// the input twice more gives the same counts as four inputs
	again := filepath.Join(t.TempDir(), "again.json")
	if code, out, _ := runCLI(t, "coverage", "merge", again, billingFile, merged, billingFile); code != 0 || !strings.Contains(out, ": 8 runs, ") {
		t.Fatalf("merge again: exit %d %q", code, out)
	}
	if d := readCov(t, again); d.Systems["billing"].Runs != 8 || d.Systems["billing"].Traced != 8 {
		t.Fatalf("systems %+v", d.Systems["billing"])
	}
}

// TestCoverageFlushFailureExitsFour: a command asked to record coverage
// into a path it cannot write fails with exit 4 (an I/O error) and says
// so, for explore and assay alike.
func TestCoverageFlushFailureExitsFour(t *testing.T) {
	file := writeFile(t, "")
	p := filepath.Join(file, "cov.json") // under a regular file: not a directory
	for _, args := range [][]string{
		{"explore", "--checks", "3", "--seed", "1", "--coverage", p},
		{"assay", "--profile", "baseline", "--fault", "tool", "--trials", "2", "--coverage", p},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 4 || !strings.Contains(stderr, "recording coverage into "+p) || !strings.Contains(stderr, "not a directory") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	// a coverage file that does not read is bad input (2), and left alone
	bad := writeFile(t, `{"version": 2, "runs": 0}`)
	code, _, stderr := runCLI(t, "assay", "--profile", "baseline", "--fault", "tool", "--trials", "2", "--coverage", bad)
	if code != 2 || !strings.Contains(stderr, "recording coverage into "+bad) {
		t.Errorf("unreadable file: exit %d, stderr %q", code, stderr)
	}
	if b, _ := os.ReadFile(bad); string(b) != `{"version": 2, "runs": 0}` {
		t.Errorf("file changed: %s", b)
	}
}

// TestCoverageMergeRefusesTwoDeclarations: merging two files that declare
// one system two ways is bad input, and OUT is left alone.
func TestCoverageMergeRefusesTwoDeclarations(t *testing.T) {
	b, err := os.ReadFile(billingFile)
	if err != nil {
		t.Fatal(err)
	}
	other := writeFile(t, strings.Replace(string(b), `"not_applicable": [
        "branch_join",
        "memory"
      ]`, `"not_applicable": []`, 1))
	out := filepath.Join(t.TempDir(), "out.json")
	code, _, stderr := runCLI(t, "coverage", "merge", out, billingFile, other)
	if code != 2 || !strings.Contains(stderr, `merging `+other+`: systems["billing"]: not-applicable boundaries differ: [branch_join, memory] and []`) {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a refused merge wrote OUT")
	}
}

// TestCoverageReportOfAForeignSystem: a file a user's test recorded for
// its own system without a replay command reports no "faultline replay"
// line, which cannot replay a system faultline does not register, but
// says how to replay the schedule with the user's program or test.
func TestCoverageReportOfAForeignSystem(t *testing.T) {
	b, err := os.ReadFile(billingFile)
	if err != nil {
		t.Fatal(err)
	}
	noReplay := strings.Replace(string(b), `,
      "replay": "FAULTLINE_REPLAY=%s go test -run '^TestReplay$' ./billing"`, "", 1)
	if noReplay == string(b) {
		t.Fatal("the file's replay field moved")
	}
	code, out, stderr := runCLI(t, "coverage", "report", writeFile(t, noReplay))
	want := "    replay: (billing is not a system of faultline: replay timeout_after_commit-206235ed.json with the program that registers it (cli.Main: PROG replay FILE) or its test (FAULTLINE_REPLAY=FILE go test -run TEST); its Definition.ReplayCommand puts that line here)\n"
	if code != 0 || !strings.Contains(out, want) || strings.Contains(out, "faultline replay") {
		t.Fatalf("exit %d %s\n%s", code, stderr, out)
	}
}
