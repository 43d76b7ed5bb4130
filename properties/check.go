package properties

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/otelrun"
)

// Check explores ordered compositions of typed faults and world events
// against the system def describes: every schedule of at most two faults
// within a budget of schedules (WithMaxSchedules), then random draws. It
// fails t with the minimal counterexample when a schedule breaks an
// invariant in scope, with the command that replays it; as inconclusive
// when no scheduled fault was reached or fired; with Fatalf for a bad
// Definition, options or a harness error. Production code (def.Clock set)
// runs each run in a testing/synctest bubble of t. Counterexamples are kept
// in the test's fail folder and replayed first (FAULTLINE_REPLAY=FILE
// replays one file instead). See docs/exploration.md.
func Check(t *testing.T, def *model.Definition, opts ...Option) {
	t.Helper()
	check(t, t, def, opts)
}

// check is Check on any rapid.TB: bt is the test production code's
// bubbles belong to (nil: runs are not bubbled).
func check(t rapid.TB, bt *testing.T, def *model.Definition, opts []Option) {
	t.Helper()
	e, err := open(bt, def, opts)
	if be := (*blockedError)(nil); errors.As(err, &be) {
		t.Fatalf("properties: the clean run of %s: %v (the system failed: exit 1)", def.Name, be)
		return
	}
	if err != nil {
		t.Fatalf("%v (a harness or option error, not a verdict on the system)", err)
		return
	}
	if note := droppedBuiltins(def, e.set); note != "" {
		t.Logf("properties: %s", note)
	}
	ff := newFailFiles(t.Name(), e.set.failDir)
	ff.replay = def.ReplayCommand
	e.set.failDir = "" // Check writes its counterexamples itself, with its replay line
	if path := os.Getenv(ReplayEnv); path != "" {
		if strings.TrimSpace(path) == "" {
			t.Fatalf("properties: %s=%q names no file: give the path of a counterexample or schedule file, or unset it (bad input, exit 2)", ReplayEnv, path)
			return
		}
		replayOnly(t, e, ff, path, def.Name)
		return
	}
	paths, err := ff.stored()
	if err != nil {
		t.Fatalf("%v (an I/O error, not a verdict on the system)", err)
		return
	}
	for _, path := range paths {
		st, err := e.replayStored(ff, path, false)
		if sp := (*model.SystemPanic)(nil); errors.As(err, &sp) {
			t.Errorf("properties: replaying the counterexample stored in %s: %v (the system failed: exit 1; keep the file)\n%s", path, sp, sp.Stack)
			return
		}
		if be := (*blockedError)(nil); errors.As(err, &be) {
			t.Errorf("properties: replaying the schedule stored in %s: %v (the system failed: exit 1; keep the file)", path, be)
			return
		}
		if err != nil {
			t.Fatalf("%v (a stored counterexample that cannot be replayed, not a verdict on the system: fix or delete the file)", err)
			return
		}
		if st.cx != nil {
			if st.testConfig {
				// the run that failed is the file's faults under the test's
				// config: stored as a counterexample of its own, so that the
				// replay line reproduces this failure, not the file's
				if werr := writeCounterexample(ff.dir, st.cx, nil, ff.command); werr != nil {
					t.Errorf("properties: counterexample stored by an earlier run in %s, replayed before any exploration%s (an invariant violated, exit 1): %s\n(%v: the run under the test's config was not stored; FAULTLINE_REPLAY of the file replays it under its own config)", path, st.note, st.cx, werr)
					return
				}
				st.note += "; the run under the test's config is stored in " + st.cx.File
			}
			t.Errorf("properties: counterexample stored by an earlier run in %s, replayed before any exploration%s (an invariant violated, exit 1): %s", path, st.note, st.cx)
			reportCoverageErr(t, e.coverageErr())
			return
		}
		if why := st.inconclusive(); why != "" {
			t.Errorf("properties: the counterexample stored in %s is inconclusive now, not fixed: %s (exit 3; the file is kept: move its faults to events the system crosses now, or delete it)%s", path, why, st.note)
			continue
		}
		t.Logf("properties: the counterexample stored in %s holds now: fixed (%d of %d faults reached, %d fired%s); delete the file, or keep it to replay on every run", path, st.reached(), len(st.res.Faults), st.fired(), st.note)
	}
	var rep *Report
	var walk *ExhaustiveReport
	if !e.set.exh.on {
		walk, err = e.walkPhase()
		if walk != nil && !walk.Found { // a counterexample's message says where the walk found it
			t.Logf("properties: %s", walk.WalkLine())
		}
	}
	switch {
	case err != nil:
	case e.set.exh.on:
		rep, err = e.exhaustive()
	case walk != nil && walk.Found:
		rep = campaignReport(walk)
	default:
		if err := e.survey(); reportBlocked(t, ff, err) {
			return
		} else if errors.Is(err, errNoSite) {
			t.Errorf("properties: %s (exit 3: the campaign is inconclusive, not a pass; widen the scope with WithKinds, WithDomains or WithFixture so the faults meet events the workload crosses)", e.noSite().InconclusiveMessage())
			return
		} else if reportNondet(t, ff, err) || reportHarness(t, ff, err) {
			return
		} else if err != nil {
			t.Fatalf("%v (a harness or option error, not a verdict on the system)", err)
			return
		}
		rep, err = e.explore(t)
		if rep != nil {
			rep.Walk = walk
		}
	}
	rep, err = e.withCoverageErr(rep, err)
	if pe := (*panicError)(nil); errors.As(err, &pe) {
		// stored as a counterexample is, so the next run replays it first
		path, werr := writeSchedule(ff.dir, "panic", pe.Schedule)
		replay := "(an I/O error: the schedule was not stored: " + fmt.Sprint(werr) + ")"
		if werr == nil {
			replay = "replay: " + ff.command(path)
		}
		t.Errorf("%v\n(the system failed: exit 1) %s\n%s", pe, replay, pe.Panic.Stack)
		return
	}
	if reportBlocked(t, ff, err) || reportNondet(t, ff, err) || reportHarness(t, ff, err) {
		return
	}
	if err != nil {
		t.Fatalf("%v (a harness or option error, not a verdict on the system)", err)
		return
	}
	if rep.Inconclusive() {
		t.Errorf("properties: %s (exit 3: the campaign is inconclusive, not a pass; widen the scope with WithKinds, WithDomains or WithFixture so the faults meet events the workload crosses)", rep.InconclusiveMessage())
		return
	}
	if w := rep.Exhaustive; w != nil && !rep.Found {
		t.Logf("properties: %s", w.Summary())
		logRuns(t, e)
		return
	}
	if !rep.Found {
		t.Logf("properties: no counterexample in %d checks; %d of %d scheduled faults reached (%d not reached), %d fired", rep.Checks, rep.Reached, rep.Faults, rep.unreached(), rep.Fired)
		logRuns(t, e)
		return
	}
	werr := writeCounterexample(ff.dir, rep.Counterexample, rep, ff.command)
	where := fmt.Sprintf("after %d checks", rep.ChecksToFailure)
	if rep.Exhaustive == nil && rep.Checks > 0 {
		t.Logf("rapid's own report of the failing check, before faultline's reduction (the minimal counterexample is the error below). %s:\n%s", countsNote(rep), rep.rapidOutput)
	}
	switch {
	case rep.Exhaustive != nil:
		where = fmt.Sprintf("at schedule %d of the exhaustive walk", rep.Exhaustive.Index)
	case rep.Walk != nil && rep.Walk.Found:
		where = fmt.Sprintf("at schedule %d of the walk over the schedules of at most %s", rep.Walk.Index, faultsText(rep.Walk.MaxFaults))
	case rep.Shards > 0:
		where = fmt.Sprintf("at check %d of the run (shard %d/%d: the run's counterexample is the shards' of the least check)", rep.ChecksToFailure, rep.Shard, rep.Shards)
	}
	t.Errorf("properties: counterexample %s (an invariant violated, exit 1): %s", where, rep.Counterexample)
	reportCoverageErr(t, rep.CoverageErr)
	if werr != nil {
		t.Fatalf("%v (an I/O error: the counterexample above was not stored)", werr)
	}
	if dir := os.Getenv(OtelEnv); dir != "" {
		res, err := e.run(rep.Counterexample.Schedule)
		if err == nil && res.Held() {
			err = fmt.Errorf("the counterexample's schedule held every invariant when run again (run %s): the system is not deterministic", res.RunID)
		}
		writeTrace(t, dir, res, err)
	}
}

// reportCoverageErr fails t with err, an error recording coverage met
// after a counterexample was reported: beside it, never instead of it.
func reportCoverageErr(t rapid.TB, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("%v (recording coverage failed; the verdict above stands, and its exit code: the coverage lacks the run named)", err)
	}
}

// OtelEnv is the environment variable that asks Check for the
// OpenTelemetry trace (OTLP/JSON, see package otelrun) of the run of each
// counterexample it reports: set to a directory (created when missing),
// the counterexample found, or replayed from FAULTLINE_REPLAY, is written
// there as RUN_ID.otlp.json, as "faultline explore --otel DIR" writes it.
// A trace that cannot be written fails the test (an I/O error).
const OtelEnv = "FAULTLINE_OTEL"

// writeTrace writes res's trace into dir for OtelEnv, or fails t with
// err (the run that makes res failed) or the write's error.
func writeTrace(t rapid.TB, dir string, res *model.Result, err error) {
	t.Helper()
	path := ""
	if err == nil {
		path, err = otelrun.WriteInDir(dir, res)
	}
	if err != nil {
		t.Errorf("properties: %s=%s: %v (an I/O or internal error: no trace written)", OtelEnv, dir, err)
		return
	}
	t.Logf("properties: trace of the counterexample's run written to %s (%s)", path, OtelEnv)
}

// countsNote says how faultline's count of checks and rapid's agree, and
// which seed reproduces what: faultline counts the failing check ("after
// N checks": it is the Nth), rapid the checks that passed before it
// ("failed after N-1 tests", with any draws rapid discarded left out);
// rapid's -rapid.seed is the failing check's own seed, so passing it draws
// that check first, and its -rapid.failfile reruns it.
func countsNote(rep *Report) string {
	n := "its -rapid.failfile or -rapid.seed reruns that check first"
	if rep.Seed != 0 {
		n = fmt.Sprintf("-rapid.seed=%d (the failing check's own seed, which rapid prints) or its -rapid.failfile draws that check first", rep.Seed)
	}
	return fmt.Sprintf("The counts agree: the counterexample came from check %d, and rapid's \"failed after N tests\" counts the checks that passed before it; %s", rep.ChecksToFailure, n)
}

// logRuns logs, for production code, what the exploration ran the
// system for (what a check costs beside a bare run: docs/production.md).
func logRuns(t rapid.TB, e *explorer) {
	t.Helper()
	if e.set.def.Clock != nil {
		t.Logf("properties: %v", &e.runs)
	}
}

// reportBlocked fails t when err is a *blockedError (a run of production
// code that never ended: the system's failure), storing its schedule,
// when it names one, as a panic's is, so that the next run replays it
// first, and reports whether it did.
func reportBlocked(t rapid.TB, ff failFiles, err error) bool {
	t.Helper()
	be := (*blockedError)(nil)
	if !errors.As(err, &be) {
		return false
	}
	if be.Schedule == nil { // a run the exploration does not name (a confirming rerun)
		t.Errorf("properties: %v (the system failed: exit 1)", be)
		return true
	}
	path, werr := writeSchedule(ff.dir, "blocked", be.Schedule)
	replay := "(an I/O error: the schedule was not stored: " + fmt.Sprint(werr) + ")"
	if werr == nil {
		replay = "replay: " + ff.command(path)
	}
	t.Errorf("properties: %v, under the schedule\n%s(the system failed: exit 1) %s", be, model.Format(be.Schedule), replay)
	return true
}

// replayOnly is Check under FAULTLINE_REPLAY=path: one run of the file's
// faults, no exploration.
func replayOnly(t rapid.TB, e *explorer, ff failFiles, path, system string) {
	t.Helper()
	st, err := e.replayStored(ff, path, true)
	defer func() { reportCoverageErr(t, e.coverageErr()) }()
	if sp := (*model.SystemPanic)(nil); errors.As(err, &sp) {
		t.Errorf("properties: replaying %s=%s: %v (the system failed: exit 1)\n%s", ReplayEnv, path, sp, sp.Stack)
		return
	}
	if be := (*blockedError)(nil); errors.As(err, &be) {
		t.Errorf("properties: replaying %s=%s: %v (the system failed: exit 1)", ReplayEnv, path, be)
		return
	}
	if err != nil {
		t.Fatalf("%v (%s=%s cannot be replayed: bad input or an I/O error, not a verdict on the system)", err, ReplayEnv, path)
		return
	}
	switch {
	case st.cx != nil:
		t.Errorf("properties: counterexample replayed from %s=%s%s (an invariant violated, exit 1): %s", ReplayEnv, path, st.note, st.cx)
		if dir := os.Getenv(OtelEnv); dir != "" {
			writeTrace(t, dir, st.res, nil)
		}
	case st.inconclusive() != "":
		t.Errorf("properties: %s=%s: inconclusive: %s (exit 3)%s", ReplayEnv, path, st.inconclusive(), st.note)
	default:
		if len(st.res.Faults) == 0 {
			t.Logf("properties: %s=%s: replayed a clean schedule: the checks of %s were replaced by one fault-free run, and every invariant in scope held (a clean run, exit 0; it tested no fault)%s", ReplayEnv, path, system, st.note)
			return
		}
		t.Logf("properties: %s=%s holds: every invariant in scope held (%d of %d faults reached and fired%s)", ReplayEnv, path, st.reached(), len(st.res.Faults), st.note)
	}
}

// droppedBuiltins says, when the harness options' Builtin is empty but not
// nil (WithHarnessOptions: "none") on a definition that selects built-in
// invariants, that those are not checked and what is: an empty Builtin
// means none, by Options.Builtin's rule, and a run passes on the rest
// alone. "" otherwise.
func droppedBuiltins(def *model.Definition, set settings) string {
	if b := set.harness.Builtin; b == nil || len(b) > 0 {
		return ""
	}
	n := len(def.Builtin)
	if def.Builtin == nil {
		n = len(model.Invariants)
	}
	if n == 0 {
		return ""
	}
	own := *def // over the exploration's fixture, which a test may give outside def.Fixtures
	own.Fixtures = []model.Fixture{set.fixture}
	scope, err := own.Scope(set.config, set.harness)
	if err != nil || len(scope) == 0 {
		return "" // Check refused it: no invariant in scope
	}
	return fmt.Sprintf("WithHarnessOptions' Builtin is empty (not nil), which means none: the %d built-in invariants %s's Definition selects are not checked; the runs check only %s (leave Builtin nil to check them)",
		n, def.Name, strings.Join(scope, ", "))
}
