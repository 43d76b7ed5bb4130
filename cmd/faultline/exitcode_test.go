package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
	"github.com/faultline/faultline/reference/paper"
)

// failWriter fails every write as a full disk does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// runTo runs args with stdout going to w.
func runTo(w interface{ Write([]byte) (int, error) }, args ...string) (int, string) {
	var errb bytes.Buffer
	return run(args, w, &errb), errb.String()
}

// TestExitCodeTable runs every command on inputs that give each code of
// the table it can give: 0 ok, 1 violated or gate failed, 2 bad input,
// 3 inconclusive, 4 I/O or internal error. (assay and audit cannot give 1:
// their assessments are output; their 3 needs a system whose faults are
// never reached, which the reference system is not, so it is tested on
// the exit functions below. explore cannot give 3 on the reference system
// either: it places every fault on an event the run it sits in crosses,
// so the first is always reached; properties'
// TestCheckFailsWhenNoFaultIsReached holds the message to it.)
func TestExitCodeTable(t *testing.T) {
	if raceDetector {
		t.Skip("renders and checks the audit's and the dossier's results in one goroutine: the assay package's race tests cover their goroutines; go test ./... runs this test in full")
	}
	dir := t.TempDir()
	put := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sched := func(profile string, ordinal string) string {
		return `{"version":1,"seed":"s","config":{"profile":"` + profile + `"},"faults":[{"event":"tool.commit","ordinal":` + ordinal + `,"kind":"timeout_after_commit"}]}`
	}
	held := put("held.json", sched("typed", "1"))
	violated := put("violated.json", sched("baseline", "1"))
	unreached := put("unreached.json", sched("typed", "3"))
	clean := put("clean.json", `{"version":1,"seed":"s","config":{"profile":"typed"},"faults":[]}`)
	malformed := put("malformed.json", `{"version":1,`)
	notDir := put("plain-file", "x")

	// coverage files: most keys (a broad assay), a few keys (one domain),
	// and one that records runs whose faults were never reached
	full, partial := filepath.Join(dir, "full.json"), filepath.Join(dir, "partial.json")
	if code, _, stderr := runCLI(t, "assay", "--trials", "400", "--coverage", full); code != 0 {
		t.Fatalf("assay --coverage: exit %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "assay", "--fault", "tool", "--trials", "20", "--coverage", partial); code != 0 {
		t.Fatalf("assay --coverage: exit %d %s", code, stderr)
	}
	nothing := filepath.Join(dir, "nothing.json")
	s, err := model.ParseSchedule([]byte(sched("typed", "3")))
	if err != nil {
		t.Fatal(err)
	}
	res, err := copperfin.Definition().Replay(s)
	if err != nil {
		t.Fatal(err)
	}
	tr := newTracker(nil)
	if err := tr.Record(res); err != nil {
		t.Fatal(err)
	}
	if err := coverage.WriteFile(nothing, tr.Data()); err != nil {
		t.Fatal(err)
	}
	dossierDir := filepath.Join(dir, "dossier")

	for _, c := range []struct {
		name   string
		args   []string
		fail   bool // stdout fails every write
		code   int
		stderr string
	}{
		{"replay held", []string{"replay", held}, false, 0, ""},
		{"replay clean schedule", []string{"replay", clean}, false, 0, ""},
		{"replay violated", []string{"replay", violated}, false, 1, ""},
		{"replay malformed", []string{"replay", malformed}, false, 2, "truncated JSON"},
		{"replay missing", []string{"replay", filepath.Join(dir, "nope.json")}, false, 2, "no such file"},
		{"replay a directory", []string{"replay", dir}, false, 2, "is a directory"},
		{"replay unreached", []string{"replay", unreached}, false, 3, "inconclusive: f1 timeout_after_commit at tool.commit#3 was not reached"},
		{"replay full disk", []string{"replay", held}, true, 4, "no space left on device"},
		{"replay --json full disk", []string{"replay", held, "--json"}, true, 4, "no space left on device"},

		{"explore none found", []string{"explore", "--seed", "1", "--checks", "5"}, false, 0, ""},
		{"explore counterexample", []string{"explore", "--seed", "1", "--checks", "50", "--profile", "baseline", "--kinds", "timeout_after_commit"}, false, 1, ""},
		{"explore bad checks", []string{"explore", "--checks", "0"}, false, 2, "--checks must be between 1 and 100000000"},
		{"explore empty kinds", []string{"explore", "--kinds", ""}, false, 2, "--kinds is empty"},
		{"explore full disk", []string{"explore", "--seed", "1", "--checks", "5"}, true, 4, "no space left on device"},
		{"explore --list-mutants full disk", []string{"explore", "--list-mutants"}, true, 4, "no space left on device"},
		{"explore --concurrent 3 of copperfin-batch", []string{"explore", "--concurrent", "3", "--fixture", "copperfin-batch", "--seed", "1", "--checks", "20"}, false, 0, ""},
		{"explore --concurrent over the tasks", []string{"explore", "--concurrent", "4", "--fixture", "copperfin-batch", "--seed", "1", "--checks", "2"}, false, 2, "fixture copperfin-batch has 3 task(s)"},
		{"explore --exhaustive --concurrent", []string{"explore", "--concurrent", "3", "--fixture", "copperfin-batch", "--exhaustive", "--max-faults", "1", "--kinds", "timeout_after_commit", "--no-world"}, false, 0, ""},
		{"explore --max-switches without --concurrent", []string{"explore", "--exhaustive", "--max-faults", "1", "--max-switches", "2"}, false, 2, "--max-switches needs --concurrent"},
		{"explore --max-switches out of range", []string{"explore", "--concurrent", "3", "--fixture", "copperfin-batch", "--exhaustive", "--max-faults", "1", "--max-switches", "5"}, false, 2, "--max-switches must be between 0 and 4, got 5"},
		{"explore --max-switches without --exhaustive", []string{"explore", "--concurrent", "3", "--fixture", "copperfin-batch", "--max-switches", "2"}, false, 2, "--max-switches needs --exhaustive"},
		{"explore none found, --out not writable", []string{"explore", "--seed", "1", "--checks", "5", "--out", filepath.Join(notDir, "cx")}, false, 4, "--out: " + filepath.Join(notDir, "cx")},
		{"explore --otel not writable", []string{"explore", "--seed", "1", "--checks", "5", "--otel", filepath.Join(notDir, "tr")}, false, 4, "--otel: " + filepath.Join(notDir, "tr")},
		{"explore --out a file", []string{"explore", "--seed", "1", "--checks", "5", "--out", notDir}, false, 2, "--out: " + notDir + " is not a directory (a regular file)"},
		{"replay --otel under a file", []string{"replay", violated, "--otel", filepath.Join(notDir, "t.json")}, false, 4, "--otel: " + notDir + ": not a directory"},
		{"replay --otel not writable", []string{"replay", violated, "--otel", filepath.Join(notDir, "sub", "t.json")}, false, 4, "--otel: " + filepath.Join(notDir, "sub")},
		{"explore --out not a directory", []string{"explore", "--seed", "1", "--checks", "50", "--profile", "baseline", "--kinds", "timeout_after_commit", "--out", filepath.Join(notDir, "cx")}, false, 4, "not a directory"},

		{"assay", []string{"assay", "--trials", "50"}, false, 0, ""},
		{"assay bad trials", []string{"assay", "--trials", "100000001"}, false, 2, "--trials must be between 1 and 100000000, got 100000001"},
		{"assay full disk", []string{"assay", "--trials", "50"}, true, 4, "no space left on device"},
		{"assay --coverage not writable", []string{"assay", "--trials", "50", "--coverage", filepath.Join(notDir, "cov.json")}, false, 4, "not a directory"},

		{"audit bad format", []string{"audit", "--format", "xml"}, false, 2, `unknown format "xml"`},
		{"audit empty format", []string{"audit", "--format", ""}, false, 2, "--format is empty"},
		{"audit full disk", []string{"audit", "--compat", "paper188"}, true, 4, "no space left on device"},

		{"coverage gate met", []string{"coverage", "gate", full, "--min-ratio", "0.5"}, false, 0, ""},
		{"coverage gate failed", []string{"coverage", "gate", partial, "--min-ratio", "1"}, false, 1, ""},
		{"coverage gate missing file", []string{"coverage", "gate", filepath.Join(dir, "nope.json"), "--min-ratio", "1"}, false, 2, "no such file"},
		{"coverage gate malformed file", []string{"coverage", "gate", malformed, "--min-ratio", "1"}, false, 2, ""},
		{"coverage gate empty require", []string{"coverage", "gate", full, "--require", ""}, false, 2, "--require is empty"},
		{"coverage gate nothing reached", []string{"coverage", "gate", nothing, "--min-ratio", "0"}, false, 3,
			"records 1 runs and no scheduled fault that was reached and fired (1 scheduled but not reached, 0 reached but not fired)"},
		{"coverage gate full disk", []string{"coverage", "gate", full, "--min-ratio", "0.5"}, true, 4, "no space left on device"},
		{"coverage gate --require a device", []string{"coverage", "gate", full, "--require", "/dev/zero"}, false, 2, "/dev/zero: is a device, not a regular file"},
		{"coverage merge into a device", []string{"coverage", "merge", "/dev/null", full}, false, 2, "locking /dev/null: not a regular file (a device)"},
		{"assay --coverage a device", []string{"assay", "--trials", "5", "--coverage", "/dev/null"}, false, 2, "not a regular file (a device)"},
		{"coverage report", []string{"coverage", "report", full}, false, 0, ""},
		{"coverage report missing", []string{"coverage", "report", filepath.Join(dir, "nope.json")}, false, 2, "no such file"},
		{"coverage report full disk", []string{"coverage", "report", full}, true, 4, "no space left on device"},
		{"coverage merge", []string{"coverage", "merge", filepath.Join(dir, "merged.json"), full, partial}, false, 0, ""},
		{"coverage merge missing input", []string{"coverage", "merge", filepath.Join(dir, "merged2.json"), filepath.Join(dir, "nope.json")}, false, 2, "no such file"},
		{"coverage merge unwritable out", []string{"coverage", "merge", filepath.Join(notDir, "out.json"), full}, false, 4, "not a directory"},
		{"coverage alone", []string{"coverage"}, false, 0, ""},
		{"coverage unknown subcommand", []string{"coverage", "nope"}, false, 2, `unknown command "nope" for "faultline coverage"`},

		{"dossier --full", []string{"dossier", "--profile", "typed", "--compat", "paper188", "--out", dossierDir, "--full"}, false, 0, ""},
		{"dossier without --out", []string{"dossier"}, false, 2, "--out DIR is required"},
		{"dossier unwritable --out", []string{"dossier", "--profile", "typed", "--compat", "paper188", "--out", filepath.Join(notDir, "d")}, false, 4, "not a directory"},
		{"dossier diff same", []string{"dossier", "diff", dossierDir, dossierDir}, false, 0, ""},
		{"dossier diff missing", []string{"dossier", "diff", dossierDir, filepath.Join(dir, "nope")}, false, 2, "no such file"},
		{"dossier diff full disk", []string{"dossier", "diff", dossierDir, dossierDir}, true, 4, "no space left on device"},

		{"lab bad address", []string{"lab", "--addr", "nowhere"}, false, 2, "--addr"},
		{"unknown command", []string{"frobnicate"}, false, 2, "unknown command"},
		{"help", []string{"help", "replay"}, false, 0, ""},
		{"help unknown topic", []string{"help", "nosuch"}, false, 2, `help: unknown command "nosuch"`},
		{"help full disk", []string{"help"}, true, 4, "writing the output"},
	} {
		var out bytes.Buffer
		var code int
		var stderr string
		if c.fail {
			code, stderr = runTo(failWriter{}, c.args...)
		} else {
			code, stderr = runTo(&out, c.args...)
		}
		if code != c.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", c.name, code, c.code, stderr)
		}
		if !strings.Contains(stderr, c.stderr) {
			t.Errorf("%s: stderr %q lacks %q", c.name, stderr, c.stderr)
		}
		if c.name == "coverage gate nothing reached" && strings.Contains(out.String(), "passed") {
			t.Errorf("an inconclusive gate printed a pass:\n%s", out.String())
		}
		if c.name == "dossier --full" && !strings.Contains(out.String(), "\n# ") {
			t.Errorf("dossier --full did not print dossier.md:\n%s", out.String())
		}
	}
}

// TestFullDisk writes a command's output to /dev/full, where the machine
// has one: the write fails with ENOSPC and the command exits 4.
func TestFullDisk(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer f.Close()
	p := writeFile(t, `{"version":1,"seed":"s","config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit"}]}`)
	if code, stderr := runTo(f, "replay", p); code != 4 || !strings.Contains(stderr, "no space left on device") {
		t.Fatalf("replay > /dev/full: exit %d, stderr %q", code, stderr)
	}
}

// TestCampaignExitFunctions: a campaign whose faults were all left
// untested is inconclusive (3); one that tested some counts the rest.
func TestCampaignExitFunctions(t *testing.T) {
	var ee *exitError
	var b bytes.Buffer
	err := (&reach{trials: 10, untested: 10, kinds: []string{"memory_loss (10 trials)"}}).exit(&b)
	if !errors.As(err, &ee) || ee.Code != 3 || err.Error() != "inconclusive: none of the 10 trials' faults was reached and fired (memory_loss (10 trials)): the assay tested no fault" {
		t.Errorf("all untested: %v", err)
	}
	err = (&reach{trials: 10, untested: 4, kinds: []string{"memory_loss (4 trials)"}}).exit(&b)
	if err != nil || b.String() != "faults not reached or not fired in 4 of 10 trials: memory_loss (4 trials)\n" {
		t.Errorf("some untested: %v %q", err, b.String())
	}
	if err := (&reach{trials: 10}).exit(failWriter{}); err != nil {
		t.Errorf("none untested: %v", err)
	}
	rows := []paper.KindRow{{Kind: "subject_swap"}, {Kind: "memory_loss"}}
	err = auditExit([]paper.ProfileAudit{{Profile: "typed", Rows: rows}})
	if !errors.As(err, &ee) || ee.Code != 3 || !strings.Contains(err.Error(), "none of the audit's 2 single-fault runs reached its fault") {
		t.Errorf("audit with nothing reached: %v", err)
	}
	rows[1].Reached = true
	if err := auditExit([]paper.ProfileAudit{{Profile: "typed", Rows: rows}}); err != nil {
		t.Errorf("audit with one reached: %v", err)
	}
}
