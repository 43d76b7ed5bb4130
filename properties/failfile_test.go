package properties_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// checkout is a user's system of another domain than the reference one:
// the inventory example's checkout agent (through its exported API), with
// its planted bug (a confirm retried under a fresh key after a lost reply)
// while *fixed is false. *builds counts the systems built, one a run.
func checkout(fixed *bool, builds *int) *model.Definition {
	return define(func(model.Config) (model.Factory, error) {
		*builds++
		if *fixed {
			return inventory.Factory(inventory.Defended, inventory.Fixed), nil
		}
		return inventory.Factory(inventory.Defended, inventory.Planted), nil
	}, inventory.Fixture())
}

// checkoutOptions explore the checkout agent's tool timeouts, one a
// schedule, under its own fixture and invariants.
func checkoutOptions(extra ...properties.Option) []properties.Option {
	return append([]properties.Option{
		properties.WithHarnessOptions(inventory.HarnessOptions()),
		properties.WithKinds("tool_timeout"),
		properties.WithMaxFaults(1),
	}, extra...)
}

// cxText is what a counterexample message says after its kind: the
// counterexample itself (invariant, crossing, schedule, replay command).
func cxText(t *testing.T, msg string) string {
	t.Helper()
	const sep = "(an invariant violated, exit 1): "
	i := strings.Index(msg, sep)
	if i < 0 {
		t.Fatalf("not a counterexample message: %q", msg)
	}
	return msg[i+len(sep):]
}

// replayLine is the command a counterexample message names.
func replayLine(t *testing.T, msg string) string {
	t.Helper()
	for _, line := range strings.Split(msg, "\n") {
		if cmd, ok := strings.CutPrefix(line, "replay: "); ok {
			return cmd
		}
	}
	t.Fatalf("no replay line in %q", msg)
	return ""
}

// plantedSchedule is the checkout's counterexample schedule file: the
// confirm's reply lost (the second tool.commit times out after the
// warehouse committed it), under the default config and the checkout's
// fixture.
const plantedSchedule = `{
  "version": 2,
  "seed": "exhaustive",
  "config": {
    "harness": {
      "fixture": "inventory"
    },
    "system": {}
  },
  "faults": [
    {
      "event": "tool.commit",
      "ordinal": 2,
      "kind": "tool_timeout"
    }
  ]
}
`

// Check writes the counterexample of a user's planted bug under the test
// package's testdata/faultline/<Test>/ and prints the go test command that
// replays it for that system; the next Check replays the stored file first
// and fails at once (one run, no exploration) with the same
// counterexample; once the bug is fixed the stored file is reported fixed
// and the exploration passes.
func TestCheckStoresAndReplaysFailFiles(t *testing.T) {
	rapidFlags(t, 100, 1)
	// a module of the user's own, with the test's package in properties/
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/shop\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(root, "properties")
	if err := os.Mkdir(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(pkg)
	fixed, builds := false, 0
	sys := checkout(&fixed, &builds)

	first := &recordingTB{name: "TestX"}
	properties.CheckTB(first, nil, sys, checkoutOptions()...)
	if !first.failed || len(first.errors) != 1 || !strings.Contains(first.errors[0], "properties: counterexample at schedule 3 of the walk over the schedules of at most 1 fault ") {
		t.Fatalf("the planted bug was not found: %v", first.errors)
	}
	want := cxText(t, first.errors[0])
	// replayed, the same counterexample is labelled as the file's schedule
	// (a file replayed is not reduced again)
	want = strings.Replace(want, "\nminimal schedule (1 fault):\n", "\nschedule as stored, not reduced (1 fault):\n", 1)
	if !strings.HasPrefix(want, "confirmed_once violated: first false after seq 17 (tool.commit), reached by f1 (tool_timeout)") {
		t.Fatalf("counterexample %q", want)
	}
	dir := filepath.Join("testdata", "faultline", "TestX")
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 2 {
		t.Fatalf("fail folder %s: %v %v", dir, ents, err)
	}
	name := ents[1].Name() // NAME.counterexample.json sorts first
	if !strings.HasPrefix(name, "cx-confirmed_once-") || ents[0].Name() != strings.TrimSuffix(name, ".json")+".counterexample.json" {
		t.Fatalf("fail folder holds %s and %s", ents[0].Name(), name)
	}
	file := "testdata/faultline/TestX/" + name
	if data, err := os.ReadFile(file); err != nil || string(data) != plantedSchedule {
		t.Fatalf("schedule file (%v):\n%s\nwant:\n%s", err, data, plantedSchedule)
	}
	cmd := "FAULTLINE_REPLAY=" + file + " go test -run '^TestX$' ./properties"
	if got := replayLine(t, first.errors[0]); got != cmd {
		t.Fatalf("replay command %q, want %q", got, cmd)
	}
	if rec, _ := os.ReadFile(filepath.Join(dir, ents[0].Name())); !strings.Contains(string(rec), `"replay": "FAULTLINE_REPLAY=`+file+` go test -run '^TestX$' ./properties"`) {
		t.Errorf("the record does not name the command:\n%s", rec)
	}

	builds = 0
	second := &recordingTB{name: "TestX"}
	properties.CheckTB(second, nil, sys, checkoutOptions()...)
	if !second.failed || len(second.errors) != 1 || builds != 1 {
		t.Fatalf("the stored file did not fail the test at once: %d runs, %v", builds, second.errors)
	}
	if msg := second.errors[0]; !strings.HasPrefix(msg, "properties: counterexample stored by an earlier run in "+file+", replayed before any exploration (an invariant violated") || cxText(t, msg) != want {
		t.Fatalf("stored replay says %q\nwant the counterexample %q", msg, want)
	}

	fixed, builds = true, 0
	third := &recordingTB{name: "TestX"}
	properties.CheckTB(third, nil, sys, checkoutOptions()...)
	if third.failed {
		t.Fatalf("the fixed system failed: %v", third.errors)
	}
	if len(third.logs) < 2 || third.logs[0] != "properties: the counterexample stored in "+file+" holds now: fixed (1 of 1 faults reached, 1 fired); delete the file, or keep it to replay on every run" ||
		!strings.HasPrefix(third.logs[len(third.logs)-1], "properties: no counterexample in 100 checks") {
		t.Fatalf("logs %q", third.logs)
	}
	if builds < 100 {
		t.Errorf("%d runs: the exploration did not go on after the fixed file", builds)
	}
}

// With FAULTLINE_REPLAY=FILE, Check runs that file once on the test's own
// system and nothing else: it fails with the same counterexample while the
// bug is there, passes once it is fixed, fails as inconclusive when none of
// the file's faults is reached, and refuses a file it cannot read.
func TestCheckRunsTheReplayFile(t *testing.T) {
	rapidFlags(t, 100, 1)
	fixed, builds := false, 0
	sys := checkout(&fixed, &builds)
	dir := t.TempDir()
	found := &recordingTB{name: "TestY"}
	properties.CheckTB(found, nil, sys, checkoutOptions(properties.WithFailDir(dir))...)
	if !found.failed {
		t.Fatal("the planted bug was not found")
	}
	want := cxText(t, found.errors[0])
	// replayed, the same counterexample is labelled as the file's schedule
	// (a file replayed is not reduced again)
	want = strings.Replace(want, "\nminimal schedule (1 fault):\n", "\nschedule as stored, not reduced (1 fault):\n", 1)
	files, _ := filepath.Glob(filepath.Join(dir, "cx-confirmed_once-????????.json"))
	if len(files) != 1 {
		t.Fatalf("fail files %v", files)
	}
	// a folder outside the package directory is named by its absolute path
	if got, cmd := replayLine(t, found.errors[0]), "FAULTLINE_REPLAY="+files[0]+" go test -run '^TestY$' ./properties"; got != cmd {
		t.Fatalf("replay command %q, want %q", got, cmd)
	}

	t.Setenv(properties.ReplayEnv, files[0])
	builds = 0
	again := &recordingTB{name: "TestY"}
	properties.CheckTB(again, nil, sys, checkoutOptions(properties.WithFailDir(t.TempDir()))...)
	if builds != 1 || len(again.errors) != 1 || !strings.HasPrefix(again.errors[0], "properties: counterexample replayed from FAULTLINE_REPLAY="+files[0]+" (an invariant violated") || cxText(t, again.errors[0]) != want {
		t.Fatalf("%d runs: %q\nwant %q", builds, again.errors, want)
	}

	fixed, builds = true, 0
	ok := &recordingTB{name: "TestY"}
	properties.CheckTB(ok, nil, sys, checkoutOptions()...)
	if ok.failed || builds != 1 || !slices.Equal(ok.logs, []string{"properties: FAULTLINE_REPLAY=" + files[0] + " holds: every invariant in scope held (1 of 1 faults reached and fired)"}) {
		t.Fatalf("%d runs, errors %q, logs %q", builds, ok.errors, ok.logs)
	}

	// the record beside the schedule file replays the same schedule (its
	// command names the record)
	record := strings.TrimSuffix(files[0], ".json") + ".counterexample.json"
	t.Setenv(properties.ReplayEnv, record)
	fixed = false
	rec := &recordingTB{name: "TestY"}
	properties.CheckTB(rec, nil, sys, checkoutOptions()...)
	if len(rec.errors) != 1 || cxText(t, rec.errors[0]) != strings.Replace(want, files[0], record, 1) {
		t.Fatalf("record replay: %q", rec.errors)
	}

	// an explicit replay of a file of another config reproduces the run
	// that failed: it is replayed under the file's own config, and says so
	other := filepath.Join(t.TempDir(), "other.json")
	os.WriteFile(other, []byte(strings.Replace(plantedSchedule, `"system": {}`, `"system": {"stock": "low"}`, 1)), 0o644)
	t.Setenv(properties.ReplayEnv, other)
	note := &recordingTB{name: "TestY"}
	properties.CheckTB(note, nil, sys, checkoutOptions()...)
	if len(note.errors) != 1 || !strings.Contains(note.errors[0], "FAULTLINE_REPLAY="+other+`; replayed under its own config (system {"stock":"low"}), not the test's (system {}) (an invariant violated`) ||
		!strings.Contains(note.errors[0], `"stock": "low"`) {
		t.Fatalf("replay of another config: %q", note.errors)
	}

	unreached := filepath.Join(t.TempDir(), "far.json")
	os.WriteFile(unreached, []byte(strings.Replace(plantedSchedule, `"ordinal": 2`, `"ordinal": 9`, 1)), 0o644)
	t.Setenv(properties.ReplayEnv, unreached)
	none := &recordingTB{name: "TestY"}
	properties.CheckTB(none, nil, sys, checkoutOptions()...)
	if len(none.errors) != 1 || !strings.Contains(none.errors[0], "FAULTLINE_REPLAY="+unreached+": inconclusive: none of its 1 faults was reached") ||
		!strings.Contains(none.errors[0], "exit 3") || !strings.Contains(none.errors[0], "tool.commit") {
		t.Fatalf("unreached replay: %q", none.errors)
	}

	missing := filepath.Join(t.TempDir(), "gone.json")
	t.Setenv(properties.ReplayEnv, missing)
	bad := &recordingTB{name: "TestY"}
	properties.CheckTB(bad, nil, sys, checkoutOptions()...)
	if len(bad.errors) != 1 || !strings.Contains(bad.errors[0], missing+": no such file") || !strings.Contains(bad.errors[0], "not a verdict on the system") {
		t.Fatalf("missing file: %q", bad.errors)
	}

	t.Setenv(properties.ReplayEnv, " ")
	blank := &recordingTB{name: "TestY"}
	properties.CheckTB(blank, nil, sys, checkoutOptions()...)
	if len(blank.errors) != 1 || blank.errors[0] != `properties: FAULTLINE_REPLAY=" " names no file: give the path of a counterexample or schedule file, or unset it (bad input, exit 2)` {
		t.Fatalf("blank path: %q", blank.errors)
	}
}

// A subtest's command anchors each element of its name; a fail folder
// under the package directory is named relative to it; WithFailDir
// applies to Check only.
func TestFailFileCommandForASubtest(t *testing.T) {
	rapidFlags(t, 100, 1)
	t.Chdir(t.TempDir()) // no go.mod above: the package's import path
	fixed, builds := false, 0
	tb := &recordingTB{name: "TestZ/odd name.1"}
	abs, _ := filepath.Abs("fails")
	properties.CheckTB(tb, nil, checkout(&fixed, &builds), checkoutOptions(properties.WithFailDir(abs))...)
	if len(tb.errors) != 1 {
		t.Fatalf("%q", tb.errors)
	}
	files, _ := filepath.Glob(filepath.Join("fails", "cx-confirmed_once-????????.json"))
	if len(files) != 1 {
		t.Fatalf("fail files %v", files)
	}
	if got, want := replayLine(t, tb.errors[0]), "FAULTLINE_REPLAY="+files[0]+` go test -run '^TestZ$/^odd name\.1$' github.com/faultline/faultline/properties`; got != want {
		t.Fatalf("replay command %q, want %q", got, want)
	}
	if rep, err := properties.Explore(checkout(&fixed, &builds), checkoutOptions(properties.WithFailDir("x"))...); err != nil || !rep.Found || filepath.Dir(rep.Counterexample.File) != "x" {
		t.Errorf("Explore with WithFailDir: %v", err)
	}
	empty := &recordingTB{name: "TestZ"}
	properties.CheckTB(empty, nil, checkout(&fixed, &builds), properties.WithFailDir(""))
	if len(empty.errors) != 1 || !strings.Contains(empty.errors[0], "empty fail directory") {
		t.Errorf("empty fail directory: %q", empty.errors)
	}
}

// TestReplayTarget exists for TestPrintedReplayCommandReproduces, which
// runs it through go test with FAULTLINE_REPLAY set; without it, it skips.
func TestReplayTarget(t *testing.T) {
	if os.Getenv(properties.ReplayEnv) == "" {
		t.Skip("runs only under FAULTLINE_REPLAY (see TestPrintedReplayCommandReproduces)")
	}
	fixed, builds := false, 0
	properties.Check(t, checkout(&fixed, &builds), checkoutOptions()...)
}

// The command a counterexample prints, run as printed from the module
// root through go test, fails the test with the same invariant.
func TestPrintedReplayCommandReproduces(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs this package's tests in a go test subprocess")
	}
	if raceDetector {
		t.Skip("the replay runs in a go test subprocess, which the race detector does not see; go test ./... runs this test")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on PATH")
	}
	rapidFlags(t, 100, 1)
	fixed, builds := false, 0
	tb := &recordingTB{name: "TestReplayTarget"}
	properties.CheckTB(tb, nil, checkout(&fixed, &builds), checkoutOptions(properties.WithFailDir(t.TempDir()))...)
	if len(tb.errors) != 1 {
		t.Fatalf("%q", tb.errors)
	}
	cmd := replayLine(t, tb.errors[0])
	if !strings.HasSuffix(cmd, " go test -run '^TestReplayTarget$' ./properties") {
		t.Fatalf("replay command %q", cmd)
	}
	sh := exec.Command("sh", "-c", cmd)
	sh.Dir = ".." // the module root, where ./properties names this package
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FAULTLINE_") {
			sh.Env = append(sh.Env, kv)
		}
	}
	out, err := sh.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("%s: %v, want exit status 1\n%s", cmd, err, out)
	}
	for _, want := range []string{"--- FAIL: TestReplayTarget", "properties: counterexample replayed from FAULTLINE_REPLAY=", "confirmed_once violated: first false after seq 17 (tool.commit), reached by f1 (tool_timeout)"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestStoredFileOfAnotherConfigIsStoredAgain: a stored counterexample of
// another config fails the test under the test's own config; that run is
// stored as a counterexample of its own, and the replay line names it, so
// FAULTLINE_REPLAY of that line reproduces the failure reported, not the
// file's.
func TestStoredFileOfAnotherConfigIsStoredAgain(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "cx-other.json")
	if err := os.WriteFile(other, []byte(strings.Replace(plantedSchedule, `"system": {}`, `"system": {"stock": "low"}`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	fixed, builds := false, 0
	sys := checkout(&fixed, &builds)
	tb := &recordingTB{name: "TestW"}
	properties.CheckTB(tb, nil, sys, checkoutOptions(properties.WithFailDir(dir))...)
	if len(tb.errors) != 1 || !strings.Contains(tb.errors[0], `its config (system {"stock":"low"}) is not the test's (system {}), which it was replayed under; the run under the test's config is stored in `+dir) {
		t.Fatalf("stored file of another config: %q", tb.errors)
	}
	line := replayLine(t, tb.errors[0])
	path, _, _ := strings.Cut(strings.TrimPrefix(line, properties.ReplayEnv+"="), " ")
	if path == other || filepath.Dir(path) != dir {
		t.Fatalf("replay line %q names %q", line, path)
	}
	body, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(body), `"system": {}`) {
		t.Fatalf("the stored run: %v\n%s", err, body)
	}
	t.Setenv(properties.ReplayEnv, path)
	again := &recordingTB{name: "TestW"}
	properties.CheckTB(again, nil, sys, checkoutOptions(properties.WithFailDir(dir))...)
	if len(again.errors) != 1 || cxText(t, again.errors[0]) != cxText(t, tb.errors[0]) ||
		strings.Contains(again.errors[0], "not the test's") {
		t.Fatalf("replay of the stored run: %q\nreported first: %q", again.errors, tb.errors)
	}
}

// TestStoredFileOfAnotherKindIsReplayed: a schedule file in the fail
// folder whose fault's kind (tool_timeout, as a fuzz target with other
// kinds would store it) is outside the kinds the test draws
// (timeout_after_commit) is replayed before any exploration all the same,
// and the message says so: on the checkout agent with its planted bug it
// fails at once (one run) with the file's counterexample; fixed, the file
// is reported fixed with the same words and the exploration goes on.
func TestStoredFileOfAnotherKindIsReplayed(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cx-fuzz.json")
	if err := os.WriteFile(file, []byte(plantedSchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := checkoutOptions(properties.WithKinds("timeout_after_commit"), properties.WithFailDir(dir))
	const note = "; its kind tool_timeout is outside those the test draws (kinds timeout_after_commit): replayed all the same, as every stored file is"
	fixed, builds := false, 0
	sys := checkout(&fixed, &builds)
	tb := &recordingTB{name: "TestK"}
	properties.CheckTB(tb, nil, sys, opts...)
	if len(tb.errors) != 1 || builds != 1 || !strings.HasPrefix(tb.errors[0], "properties: counterexample stored by an earlier run in "+file+", replayed before any exploration"+note+" (an invariant violated, exit 1): confirmed_once violated: first false after seq 17 (tool.commit), reached by f1 (tool_timeout)") {
		t.Fatalf("%d runs: %q", builds, tb.errors)
	}
	fixed, builds = true, 0
	again := &recordingTB{name: "TestK"}
	properties.CheckTB(again, nil, sys, opts...)
	if again.failed || len(again.logs) != 4 || again.logs[0] != "properties: the counterexample stored in "+file+" holds now: fixed (1 of 1 faults reached, 1 fired"+note+"); delete the file, or keep it to replay on every run" ||
		again.logs[3] != "properties: no counterexample in 100 checks; 100 of 100 scheduled faults reached (0 not reached), 100 fired" || builds != 109 {
		t.Fatalf("fixed: %d runs, %q %q", builds, again.errors, again.logs)
	}
}

// A stored counterexample whose faults are no longer reached (the
// system's path changed: here its ordinals moved past the workload's two
// commits) tested nothing: Check reports it inconclusive, never fixed,
// keeps the file and explores on; FAULTLINE_REPLAY of the same file says
// the same by the same rule.
func TestStoredFileNoLongerReachedIsInconclusive(t *testing.T) {
	rapidFlags(t, 5, 1)
	fixed, builds := false, 0
	sys := checkout(&fixed, &builds)
	dir := t.TempDir()
	file := filepath.Join(dir, "cx-confirmed_once-00000000.json")
	far := strings.Replace(plantedSchedule, `"ordinal": 2,
      "kind": "tool_timeout"
    }`, `"ordinal": 9,
      "kind": "tool_timeout"
    },
    {
      "event": "tool.commit",
      "ordinal": 8,
      "kind": "tool_timeout"
    }`, 1)
	if err := os.WriteFile(file, []byte(far), 0o644); err != nil {
		t.Fatal(err)
	}
	why := "none of its 2 faults was reached, so it tested nothing (the system's path changed: the events or ordinals it names are no longer crossed); the events the system crossed: context.subject, proposal, authority.grant, authority.check, tool.commit, checkpoint.write, checkpoint.load, worker.start"
	tb := &recordingTB{name: "TestZ"}
	properties.CheckTB(tb, nil, sys, checkoutOptions(properties.WithFailDir(dir))...)
	if len(tb.errors) != 2 || tb.errors[0] != "properties: the counterexample stored in "+file+" is inconclusive now, not fixed: "+why+" (exit 3; the file is kept: move its faults to events the system crosses now, or delete it)" ||
		!strings.HasPrefix(tb.errors[1], "properties: counterexample at schedule 3 of the walk over the schedules of at most 1 fault (an invariant violated, exit 1): confirmed_once violated") || slices.ContainsFunc(tb.logs, func(l string) bool { return strings.Contains(l, "fixed") }) {
		t.Fatalf("errors %q\nlogs %q", tb.errors, tb.logs)
	}
	if data, err := os.ReadFile(file); err != nil || string(data) != far {
		t.Fatalf("the stored file was not kept: %v", err)
	}
	t.Setenv(properties.ReplayEnv, file)
	one := &recordingTB{name: "TestZ"}
	properties.CheckTB(one, nil, sys, checkoutOptions()...)
	if len(one.errors) != 1 || one.errors[0] != "properties: FAULTLINE_REPLAY="+file+": inconclusive: "+why+" (exit 3)" {
		t.Fatalf("FAULTLINE_REPLAY: %q", one.errors)
	}
}

// TestStoredFileOfUnknownFixtureIsBadInput: a stored file naming a fixture
// the system does not have ("nope") is refused as bad input, in the fail
// folder and under FAULTLINE_REPLAY alike, naming the file, the fixture
// and the system's fixtures; it is never replayed under the test's
// fixture (no run, never "fixed"), and the file is kept.
func TestStoredFileOfUnknownFixtureIsBadInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cx-nope.json")
	nope := strings.Replace(plantedSchedule, `"fixture": "inventory"`, `"fixture": "nope"`, 1)
	if err := os.WriteFile(file, []byte(nope), 0o644); err != nil {
		t.Fatal(err)
	}
	fixed, builds := true, 0
	sys := checkout(&fixed, &builds)
	want := "properties: " + file + ` names fixture "nope", which system test_system does not have (its fixtures: inventory): bad input, exit 2, and the file is kept`
	tb := &recordingTB{name: "TestN"}
	properties.CheckTB(tb, nil, sys, checkoutOptions(properties.WithFailDir(dir))...)
	if len(tb.errors) != 1 || tb.errors[0] != want+" (a stored counterexample that cannot be replayed, not a verdict on the system: fix or delete the file)" || len(tb.logs) != 0 || builds != 0 {
		t.Fatalf("%d runs: errors %q, logs %q", builds, tb.errors, tb.logs)
	}
	t.Setenv(properties.ReplayEnv, file)
	one := &recordingTB{name: "TestN"}
	properties.CheckTB(one, nil, sys, checkoutOptions()...)
	if len(one.errors) != 1 || one.errors[0] != want+" (FAULTLINE_REPLAY="+file+" cannot be replayed: bad input or an I/O error, not a verdict on the system)" || builds != 0 {
		t.Fatalf("FAULTLINE_REPLAY: %d runs: %q", builds, one.errors)
	}
	if data, err := os.ReadFile(file); err != nil || string(data) != nope {
		t.Fatalf("the stored file was not kept: %v", err)
	}
}
