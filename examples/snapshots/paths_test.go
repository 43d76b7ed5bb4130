package snapshots_test

// Measurements of the paths of snapshots_test.go on the unmodified
// janitor: with the bug planted, one run under each single fault, the
// exploration (properties.Check), the fuzz target
// (fuzz.For) and the coverage report each find it, and the
// replay command the exploration prints reproduces it; with it off, the
// single faults and the exploration find nothing. The explorations that
// must fail run as subprocesses of this test binary (Check
// fails the *testing.T it is given), the replay as the printed command
// with the compiled test binary in place of go test.

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/examples/snapshots"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// Environment of the subprocesses: SNAPSHOTS_PLANTED plants the bug in
// TestPlanted and FuzzSnapshots, SNAPSHOTS_FAILDIR is where TestPlanted
// writes its counterexample.
const (
	plantedEnv = "SNAPSHOTS_PLANTED"
	failDirEnv = "SNAPSHOTS_FAILDIR"
)

// TestPlanted explores the janitor with its bug planted. It runs only as
// the subprocess of TestCheckFindsBug, or under FAULTLINE_REPLAY: the
// replay command its counterexample prints.
func TestPlanted(t *testing.T) {
	if os.Getenv(plantedEnv) == "" && os.Getenv(properties.ReplayEnv) == "" {
		t.Skip("runs as TestCheckFindsBug's subprocess, or under FAULTLINE_REPLAY")
	}
	opts := []properties.Option{properties.WithConfig(snapshots.Config(true)), properties.WithKinds(kinds...), properties.WithCoverage(tracker)}
	if dir := os.Getenv(failDirEnv); dir != "" {
		opts = append(opts, properties.WithFailDir(dir))
	}
	if os.Getenv(plantedEnv) != "" {
		opts = append(opts, properties.WithMaxSchedules(0)) // TestCheckFindsBug pins the random checks' count
	}
	properties.Check(t, definition(t), opts...)
}

// fuzzed is FuzzSnapshots's config and fail directory: the bug planted
// under SNAPSHOTS_PLANTED, failures written to SNAPSHOTS_FAILDIR.
func fuzzed() []fuzz.Option {
	opts := []fuzz.Option{fuzz.WithConfig(snapshots.Config(os.Getenv(plantedEnv) != ""))}
	if dir := os.Getenv(failDirEnv); dir != "" {
		opts = append(opts, fuzz.WithFailDir(dir))
	}
	return opts
}

// TestAppImportsNoFaultline: the janitor under test imports no package of
// this module (go list -deps lists the standard library, the MCP SDK and
// its dependencies, and the app itself).
func TestAppImportsNoFaultline(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("runs go list in one goroutine; go test ./... runs it")
	}
	out, err := exec.Command("go", "list", "-deps", "./app").Output()
	if err != nil {
		t.Fatalf("go list -deps ./app: %v", err)
	}
	var ours []string
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/faultline/faultline") {
			ours = append(ours, p)
		}
	}
	if want := []string{"github.com/faultline/faultline/examples/snapshots/app"}; !slices.Equal(ours, want) {
		t.Fatalf("the app depends on %q, want only itself", ours)
	}
	if !strings.Contains(string(out), "\ngithub.com/modelcontextprotocol/go-sdk/mcp\n") {
		t.Fatalf("the app does not use the MCP SDK:\n%s", out)
	}
}

// single runs every kind once at its place on the janitor's clean run
// (model.SingleFaults), each run in a synctest bubble, and returns each
// kind's error (nil: every invariant held, every fault fired).
func single(t *testing.T, bug bool) map[string]error {
	t.Helper()
	def := definition(t)
	var p *model.Placements
	var err error
	synctest.Test(t, func(*testing.T) { p, err = model.SingleFaults(def, "", snapshots.Config(bug), kinds...) })
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Uncrossed) > 0 || len(p.Schedules) != len(kinds) {
		t.Fatalf("%d schedules, uncrossed %q", len(p.Schedules), p.Uncrossed)
	}
	out := map[string]error{}
	for _, s := range p.Schedules {
		var res *model.Result
		synctest.Test(t, func(*testing.T) { res, err = def.Run(s, model.Options{}) })
		if err != nil {
			t.Fatalf("%s: %v", s.Seed, err)
		}
		out[s.Seed] = res.Err()
	}
	return out
}

// finders are the kinds whose single fault finds the bug: each loses or
// spoils the answer to a deletion the service made, and the janitor
// retries under a new key.
var finders = []string{"timeout_after_commit", "tool_timeout", "partial_success_response", "malformed_response", "output_drift"}

// TestSingleFaults: with the bug off, every kind in scope holds at its
// place (tool.commit#1, the deletion of a-1; stale_checkpoint at
// checkpoint.write#3); with it on, exactly the finders break
// effect_at_most_once at the second deletion of a-1 (a purge), exit
// code 1.
func TestSingleFaults(t *testing.T) {
	for kind, err := range single(t, false) {
		if err != nil {
			t.Errorf("correct janitor, %s: %v", kind, err)
		}
	}
	var found []string
	for kind, err := range single(t, true) {
		if err == nil {
			continue
		}
		var re *model.RunError
		if !errors.As(err, &re) || re.Code != 1 || re.Invariant != model.InvEffectAtMostOnce ||
			!strings.HasSuffix(err.Error(), "(tool.commit), reached by f1: second ledger effect for task sweep-vol-a") {
			t.Errorf("planted bug, %s: %v", kind, err)
		}
		found = append(found, kind)
	}
	slices.Sort(found)
	want := slices.Sorted(slices.Values(finders))
	if !slices.Equal(found, want) {
		t.Errorf("the single faults that find the bug: %q, want %q", found, want)
	}
}

// TestSameTimelineTwice: a run of production code is a pure function of
// its schedule: under a fault that makes the janitor wait (a rate limit,
// 100 ms on the bubble's clock, then a lost answer and a 50 ms backoff),
// two runs record the same timeline, times included.
func TestSameTimelineTwice(t *testing.T) {
	def := definition(t)
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "twice", Config: snapshots.Config(false), Faults: []model.FaultEntry{
		{Event: model.EvToolCommit, Ordinal: 1, Kind: "rate_limit"}, {Event: model.EvToolCommit, Ordinal: 2, Kind: "timeout_after_commit"}}}
	var runs [2]*model.Result
	for i := range runs {
		var err error
		synctest.Test(t, func(*testing.T) { runs[i], err = def.Run(s, model.Options{}) })
		if err != nil {
			t.Fatal(err)
		}
		if err := runs[i].Err(); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(runs[0].Timeline.Events(), runs[1].Timeline.Events()) {
		t.Fatalf("two timelines:\n%v\n%v", runs[0].Timeline, runs[1].Timeline)
	}
	var at []model.Millis
	for _, e := range runs[0].Timeline.Events() {
		if e.Event == model.EvToolCommit {
			at = append(at, e.At)
		}
	}
	if want := []model.Millis{0, 100, 150, 150}; !slices.Equal(at, want) {
		t.Fatalf("tool.commit at %v ms, want %v", at, want)
	}
}

// rapidDefaults sets rapid's check count and seed for the test where
// the command line did not (scripts/snapshots-campaign.sh gives
// -rapid.checks and -rapid.seed), and restores them afterwards.
func rapidDefaults(t *testing.T, values map[string]string) {
	t.Helper()
	flag.Visit(func(f *flag.Flag) { delete(values, f.Name) })
	for name, v := range values {
		old := flag.Lookup(name).Value.String()
		if err := flag.Set(name, v); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { flag.Set(name, old) })
	}
}

// TestCheckFindsNothing: the exploration of the correct janitor, 200
// checks of up to three faults from rapid's seed 2 (TestCheck adds 100
// from a random seed), finds no counterexample. The default check's walk
// of every schedule of at most two faults comes first in TestCheck, over
// the same definition and kinds; here it is off (WithMaxSchedules(0)), so
// the walk runs once in go test ./... instead of twice.
func TestCheckFindsNothing(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("an exploration of 200 runs: go test ./... runs it without the race detector")
	}
	rapidDefaults(t, map[string]string{"rapid.checks": "200", "rapid.seed": "2"})
	properties.Check(t, definition(t), properties.WithKinds(kinds...), properties.WithMaxSchedules(0))
}

// self runs this test binary from the package's folder with args and the
// environment without FAULTLINE_ and SNAPSHOTS_ variables plus env, and
// returns its combined output and exit code.
func self(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FAULTLINE_") && !strings.HasPrefix(kv, "SNAPSHOTS_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s %q: %v", os.Args[0], args, err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// replayed runs a printed replay command, "FAULTLINE_REPLAY=FILE go test
// -run 'PATTERN' ./examples/snapshots", with this binary for go test, and
// returns its output; it must exit 1.
func replayed(t *testing.T, command string) string {
	t.Helper()
	m := regexp.MustCompile(`^FAULTLINE_REPLAY=(\S+) go test -run '(\^Test\w+\$)' \./examples/snapshots$`).FindStringSubmatch(command)
	if m == nil {
		t.Fatalf("replay command %q", command)
	}
	out, code := self(t, []string{properties.ReplayEnv + "=" + m[1]}, "-test.run="+m[2])
	if code != 1 || !strings.Contains(out, "properties: counterexample replayed from FAULTLINE_REPLAY="+m[1]) {
		t.Fatalf("%s: exit %d\n%s", command, code, out)
	}
	return out
}

// line returns the first line of out that starts (after spaces) with
// prefix, without the prefix.
func line(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(l), prefix); ok {
			return s
		}
	}
	return ""
}

// cx is the counterexample the planted bug's exploration reports (after
// its prefix): one timeout after the first deletion's commit. Its 4
// checks and rapid's shrinking run 34 runs (with swarm draws, the
// default before, one partial answer there in 64; 322 before
// false_success joined the catalogue; before sequential draws had
// modifiers, whose draw comes last, one lost answer in 50). The task
// sweep-vol-a shows as its reference, as in every output of a run.
const cx = "effect_at_most_once violated: first false after seq 6 (tool.commit), reached by f1 (timeout_after_commit): second ledger effect for task ref-5d2281fd"

// TestCheckFindsBug: the exploration of the planted bug (rapid's seed 1)
// fails with a one-fault counterexample, and the replay command it
// prints reproduces it; the coverage file of its runs reports it beside
// its key, with the command that replays it.
func TestCheckFindsBug(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("an exploration and its replay in subprocesses: go test ./... runs them without the race detector")
	}
	dir := t.TempDir()
	cov := filepath.Join(dir, "coverage.json")
	out, code := self(t, []string{plantedEnv + "=1", failDirEnv + "=" + dir, "FAULTLINE_COVERAGE=" + cov},
		"-test.run=^TestPlanted$", "-rapid.seed=1", "-rapid.checks=100", "-rapid.nofailfile")
	if code != 1 || !strings.Contains(out, "minimal schedule (1 fault):") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if want := "properties: counterexample after 4 checks (an invariant violated, exit 1): " + cx; !strings.Contains(out, want) {
		t.Errorf("the exploration's output lacks %q:\n%s", want, out)
	}
	command := line(out, "replay: ")
	if !strings.HasSuffix(command, " go test -run '^TestPlanted$' ./examples/snapshots") {
		t.Fatalf("replay command %q", command)
	}
	if got := replayed(t, command); !strings.Contains(got, cx) {
		t.Errorf("the replay lacks %q:\n%s", cx, got)
	}

	d, err := coverage.ReadFile(cov)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := coverage.NewReport(coverage.Default(), d, coverage.ReportOptions{}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	report := b.String()
	lines := map[string]bool{}
	for _, l := range strings.Split(report, "\n") {
		lines[strings.TrimSpace(l)] = true
	}
	for _, want := range []string{
		"systems: snapshots (37 runs, 7 events crossed; no authority, branch_join, memory, proof, proposal; its path enacts 18 kinds)",
		"effect_at_most_once violated in 15 runs: first false after seq 6 (tool.commit): second ledger effect for task sweep-vol-a",
		"only_expired_deleted violated in 15 runs: first false after seq 6 (tool.commit): purged a-1 from the recycle bin (deletion del-2 under key janitor:delete:a-1+retry2)",
		"replay: FAULTLINE_REPLAY=timeout_after_commit-50a9ebc0.json go test -run '^TestCheck$' ./examples/snapshots",
	} {
		if !lines[want] {
			t.Errorf("the coverage report lacks the line %q:\n%s", want, report)
		}
	}
	// the janitor's universe: the keys of the kinds its adapters enact at
	// the boundaries it crosses, with the modifiers its sequential
	// exploration draws (repeated, persistent); every other reachable key
	// is left out with why (13 not applicable, 6 not enacted, 1 never
	// crossed, 6 not drawn; provider_outage, which mcpfault renders, adds
	// the persistent budget key); worker_restart, which the harness enacts on
	// every path, is in it, never tried by TestCheck's kinds; the fault
	// matrix visits every other key of it (TestFaultMatrix)
	r := coverage.NewReport(coverage.Default(), d, coverage.ReportOptions{})
	var universe, status []string
	for _, k := range r.Keys {
		switch k.Status {
		case coverage.StatusHeld, coverage.StatusViolated, coverage.StatusNeverTried, coverage.StatusNotReached:
			universe = append(universe, k.Key)
			status = append(status, k.Status)
		}
	}
	if !slices.Equal(universe, janitorUniverse) {
		t.Errorf("the universe %q, want %q", universe, janitorUniverse)
	}
	if want := []string{"never_tried", "violated", "violated", "never_tried", "never_tried", "never_tried", "never_tried",
		"violated", "never_tried", "never_tried", "held", "never_tried", "held", "held"}; !slices.Equal(status, want) {
		t.Errorf("the universe's statuses %q, want %q", status, want)
	}
	if s := r.Summary; s.Applicable != 14 || s.Visited != 6 || s.NotApplicable != 13 || s.NotEnacted != 6 || s.NeverCrossed != 1 || s.NotDrawn != 6 {
		t.Errorf("summary %+v", s)
	}
}

// janitorUniverse is the janitor's universe, in report order.
var janitorUniverse = []string{
	"tool/effect/before_commit/isolated/ledger_readback",
	"tool/effect/after_commit/isolated/ledger_readback",
	"tool/effect/after_commit/isolated/receipt",
	"tool/effect/after_commit/repeated/ledger_readback",
	"tool/effect/after_commit/repeated/receipt",
	"tool/effect/after_commit/persistent/ledger_readback",
	"tool/effect/after_commit/persistent/receipt",
	"tool/tool_call/before_commit/isolated/ledger_readback",
	"tool/tool_call/before_commit/isolated/budget_counter",
	"tool/tool_call/before_commit/repeated/ledger_readback",
	"tool/tool_call/before_commit/persistent/budget_counter",
	"state/worker/after_checkpoint/isolated/checkpoint_store",
	"state/checkpoint_store/after_checkpoint/isolated/checkpoint_store",
	"evidence/effect/before_commit/isolated/trace_lineage",
}

// TestFuzzFindsBug: the fuzz target's 16 seed inputs, with the bug
// planted, fail exactly at the finders' single faults, each with
// effect_at_most_once at the purge of a-1; the replay command of a
// failure (through TestCheck) reproduces it under the file's config. With
// the bug off they pass (go test runs FuzzSnapshots's seeds).
func TestFuzzFindsBug(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("the fuzz seeds and a replay in subprocesses: go test ./... runs them without the race detector")
	}
	out, code := self(t, []string{plantedEnv + "=1", failDirEnv + "=" + t.TempDir()}, "-test.run=^FuzzSnapshots$")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	var found []string
	for _, m := range regexp.MustCompile(`"kind": "(\w+)"`).FindAllStringSubmatch(out, -1) {
		found = append(found, m[1])
	}
	slices.Sort(found)
	found = slices.Compact(found) // each failure names its input's schedule and the shrunk one
	if want := slices.Sorted(slices.Values(finders)); !slices.Equal(found, want) {
		t.Errorf("the failing seed inputs were %q, want %q", found, want)
	}
	fails := strings.Count(out, "--- FAIL: FuzzSnapshots/seed#")
	// each failure points at the line of this package that built the
	// target (snapshots_test.go's f.Fuzz), not at reflect's value.go
	n := len(regexp.MustCompile(`target\.go:\d+: snapshots_test\.go:\d+: effect_at_most_once violated: second ledger effect for task ref-5d2281fd\n`).FindAllString(out, -1))
	if fails != len(finders) || n != fails || strings.Contains(out, "value.go") {
		t.Errorf("%d seed inputs failed, %d of them on the purge, want %d:\n%s", fails, n, len(finders), out)
	}
	command := line(out, "replay the shrunk schedule: ")
	if got := replayed(t, command); !strings.Contains(got, "replayed under its own config (bug fresh_key_on_retry), not the test's (bug none)") ||
		!strings.Contains(got, "second ledger effect for task ref-5d2281fd") {
		t.Errorf("the replay of %q:\n%s", command, got)
	}
}

// glueLines counts the lines of a Go file after its import block that are
// neither blank nor comment (a line with code and a trailing comment
// counts): the glue a user writes, without the package clause and the
// imports.
func glueLines(t *testing.T, path, until string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(data), "\n)\n") // the end of the import block
	if !ok {
		t.Fatalf("%s: no import block", path)
	}
	if until != "" {
		if body, _, ok = strings.Cut(body, until); !ok {
			t.Fatalf("%s: no %q", path, until)
		}
	}
	n, block := 0, false
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case block:
			block = !strings.Contains(l, "*/")
		case l == "", strings.HasPrefix(l, "//"):
		case strings.HasPrefix(l, "/*"):
			block = !strings.Contains(l, "*/")
		default:
			n++
		}
	}
	return n
}

// TestGlueLines: the glue (the System over the three adapters, sweeper in
// readme_test.go; snapshots_test.go: the definition, the exploration, the
// fuzz target and the coverage file) is under 40 lines of code after its
// imports, and
// docs/production.md gives the count.
func TestGlueLines(t *testing.T) {
	// snapshots_test.go, and its System: readme_test.go's sweeper (the
	// front page's quick start), up to that file's own test
	n := glueLines(t, "snapshots_test.go", "") + glueLines(t, "readme_test.go", "func TestSweep")
	doc, err := os.ReadFile("../../docs/production.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d lines of code after their imports", n); n >= 40 || !strings.Contains(string(doc), want) {
		t.Errorf("the glue is %d lines; docs/production.md must say %q", n, want)
	}
}
