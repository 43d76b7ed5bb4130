package fuzz

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/internal/bubble"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/internal/rerun"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// WithReplayTest names a test of the same package that calls
// properties.Check on the system under the same config: a failure's shrunk
// schedule, and its counterexample file beside it (corpus.Format), are
// written to that test's fail folder (properties.FailFolder, or
// WithFailDir's), which its next run replays first, and the replay
// line is that test's go test line unless the Definition has a
// ReplayCommand. Without it, a failure writes no file and says how to
// replay it.
func WithReplayTest(test string) Option {
	return optionFunc(func(o *options) error { o.replayTest = test; return nil })
}

// WithFailDir sets the folder a failure's files are written to
// (default: the fail folder of WithReplayTest's test). Tests that expect
// a failure, such as a planted bug's, give it t.TempDir().
func WithFailDir(dir string) Option {
	return optionFunc(func(o *options) error { o.failDir = dir; return nil })
}

// Failure is the error a target returns when an input broke an invariant:
// the violation as found, and its schedule shrunk to a smallest one that
// breaks the same invariants, with the command that replays it.
type Failure struct {
	// Violation is the run of the decoded input.
	Violation *Violation
	// Schedule and Result are the shrunk schedule and its run.
	Schedule *model.Schedule
	Result   *model.Result
	// Invariant is the invariant of the shrunk run that became false
	// first, Detail the oracle's reason.
	Invariant, Detail string
	// File is the shrunk schedule's file ("" when none was written) and
	// Replay the command that replays it.
	File, Replay string
	// steps says what the shrinking ran (shrunk.String)
	steps string
}

// Error gives the violated invariant, the input's violation (its
// invariants, its schedule in canonical form), the shrunk schedule and
// the one command that replays it (the input's own replay route, which
// Violation.Error gives, is left out: the shrunk schedule replays the
// same violation).
func (f *Failure) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s violated: %s\n", f.Invariant, f.Detail)
	b.WriteString(f.Violation.summary())
	canon, _ := canonical(f.Violation.Schedule)
	b.WriteString("input's schedule (canonical form):\n")
	b.Write(canon)
	fmt.Fprintf(&b, "shrunk to %d of its %d faults (%s):\n", len(f.Schedule.Faults), len(f.Violation.Schedule.Faults), f.steps)
	b.Write(model.Format(f.Schedule))
	if f.File != "" {
		fmt.Fprintf(&b, "written to %s\n", f.File)
	}
	fmt.Fprintf(&b, "replay the shrunk schedule: %s\n", f.Replay)
	return b.String()
}

// Verify runs s against the decoder's system and returns nil when every
// invariant in scope held. When one broke, it shrinks s and returns a
// *Failure (written to the fail folder when the decoder has one, see
// WithReplayTest). Any other error is a harness or I/O error. It is what
// a target does with each input.
func (d *Decoder) Verify(s *model.Schedule) error {
	res, err := d.Check(s)
	var v *Violation
	if !errors.As(err, &v) {
		return err
	}
	sh, err := d.shrink(s, res)
	if err != nil {
		return fmt.Errorf("fuzz: shrinking a violation: %w\n%s", err, v.Error())
	}
	f := &Failure{Violation: v, Schedule: sh.schedule, Result: sh.result, steps: sh.String()}
	if f.Invariant, f.Detail = firstViolated(sh.result); f.Invariant == "" {
		f.Invariant, f.Detail = firstViolated(res)
	}
	// the shrunk schedule keeps the seed its runs had: the seed string
	// seeds every worker's Env.Rand stream, so a new one redraws them
	if err := d.store(f); err != nil {
		return err
	}
	return f
}

// firstViolated returns the invariant of res that became false first and
// its reason, redacted as the run record has it.
func firstViolated(res *model.Result) (string, string) {
	var first *model.InvariantResult
	for i := range res.Invariants {
		if r := &res.Invariants[i]; !r.Held && (first == nil || r.FirstSeq < first.FirstSeq) {
			first = r
		}
	}
	if first == nil {
		return "", ""
	}
	return first.Invariant, redactedDetails(res)[first.Invariant]
}

// redactedDetails maps each violated invariant of res to its detail with
// the fixture's identifiers redacted, as model.RunRecord (and every file
// of a run) has it.
func redactedDetails(res *model.Result) map[string]string {
	m := map[string]string{}
	for _, v := range res.Record().Violations {
		m[v.Invariant] = v.Detail
	}
	return m
}

// store writes f's schedule to the decoder's fail folder, when it has one,
// and sets f's replay command: the Definition's ReplayCommand, else the
// go test line of WithReplayTest's test, else a hint naming the file.
func (d *Decoder) store(f *Failure) error {
	dir := d.failDir
	if dir == "" && d.replayTest != "" {
		dir = properties.FailFolder(d.replayTest)
	}
	canon := model.Format(f.Schedule)
	if dir == "" {
		// no fail folder: the one route saves the shrunk schedule itself
		_, compact := canonical(f.Schedule)
		file := "/tmp/faultline-" + f.Result.RunID + ".json"
		if d.def.ReplayCommand != "" {
			f.Replay = fmt.Sprintf("echo %s > %s && %s", shellQuote(compact), file, fmt.Sprintf(d.def.ReplayCommand, file))
		} else {
			f.Replay = fmt.Sprintf("echo %s > %s, then %s=%s go test -run '^TEST$' ./PKG, TEST a test that calls properties.Check on %s under this config (fuzz.WithReplayTest names it, and writes the file into its fail folder)", shellQuote(compact), file, properties.ReplayEnv, file, d.def.Name)
		}
		return nil
	}
	// named by the schedule without its seed label: inputs whose bytes
	// differ only where Decode folds them (0x08 and 0x32 on one site) give
	// one failure, one file, not one a label
	unlabelled := *f.Schedule
	unlabelled.Seed = ""
	sum := sha256.Sum256(model.Format(&unlabelled))
	name := "fuzz-" + hex.EncodeToString(sum[:6])
	path := filepath.Join(dir, name+".json")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("fuzz: writing the counterexample: %w", err)
	}
	f.File = path
	switch {
	case d.def.ReplayCommand != "":
		f.Replay = fmt.Sprintf(d.def.ReplayCommand, path)
	case d.replayTest != "":
		f.Replay = properties.ReplayCommand(d.replayTest, path)
	default:
		f.Replay = fmt.Sprintf("%s=%s go test -run '^TEST$' ./PKG, TEST a test that calls properties.Check on %s under this config", properties.ReplayEnv, path, d.def.Name)
	}
	// the counterexample file beside the schedule, as the exploration
	// writes one: the shrunk run as the oracle judged it
	ce := corpus.NewViolation(f.Result, corpus.FoundBy{Target: "fuzz", System: d.def.Name, Scope: d.scope.String()},
		"fuzz counterexample: "+f.Invariant, f.Replay)
	ce.Schedule, ce.ScheduleFile, ce.Jitter = f.Schedule, name+".json", rerun.Note(f.Violation.jitter)
	// both staged before either is renamed, the record first: a failure
	// leaves neither half, a kill between the renames never a schedule
	// without its record
	if err := fileio.WriteFiles(fileio.File{Path: filepath.Join(dir, name+".counterexample.json"), Data: corpus.Format(ce)},
		fileio.File{Path: path, Data: canon}); err != nil {
		return fmt.Errorf("fuzz: writing the counterexample: %w", err)
	}
	return nil
}

// Target is the body of a native fuzz target for one system and the gate
// of its campaign (Done): For's body with the error up front. Production
// code (def.Clock set) runs each run in a testing/synctest bubble of the
// input's t, one input at a time; its clean run happens at the first
// input. It is safe for concurrent use.
type Target struct {
	d     *Decoder
	prod  bool
	start reachCounts
	// production code: mu orders the inputs; cur is the input's t, whose
	// bubbles the runs use; started and err are the clean run's
	mu      sync.Mutex
	cur     *testing.T
	started bool
	err     error
	role    role
	// rec is a worker's record (nil outside a worker, or when tallyEnv
	// names no coordinator), tally the coordinator's (nil outside one)
	rec   *workerRecord
	tally *coordinatorTally
	// site is the user's line that built the target ("fuzz_test.go:42"),
	// which a failure names: f.Fuzz calls the body through reflect, so
	// the test's own line is not on the stack
	site string
}

// For returns the body of a native fuzz target of the system def
// describes, model path or production code alike:
//
//	f.Fuzz(fuzz.For(billing.Definition(), fuzz.WithReplayTest("TestBilling")))
//
// Each input decodes into a composition placed on the system's clean run;
// an input that breaks an invariant fails t with the *Failure, and a
// Definition the entries refuse fails every input with the error. It has
// no campaign gate: Campaign, or NewTarget's Done, adds it
// (docs/fuzzing.md).
func For(def *model.Definition, opts ...Option) func(t *testing.T, data []byte) {
	site := callerSite()
	tg, err := newTarget(def, opts, false)
	if tg != nil {
		tg.site = site
	}
	// no t.Helper: testing calls the body through reflect, so a helper
	// here would make reflect's value.go the failure's position
	return func(t *testing.T, data []byte) {
		if err != nil {
			t.Fatalf("%s: %v", site, err)
		}
		tg.fuzz(t, data)
	}
}

// callerSite is the file base name and line of the first caller outside
// this package's own code ("fuzz_test.go:42": the user's line that built
// the target, through NewTarget or Campaign), "" when unknown.
func callerSite() string {
	pcs := make([]uintptr, 16)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	self := ""
	for {
		fr, more := frames.Next()
		if self == "" {
			// the first frame is callerSite itself: its package prefix
			self = fr.Function[:strings.LastIndex(fr.Function, ".")+1]
		} else if !strings.HasPrefix(fr.Function, self) || strings.HasSuffix(fr.File, "_test.go") {
			return fmt.Sprintf("%s:%d", filepath.Base(fr.File), fr.Line)
		}
		if !more {
			return ""
		}
	}
}

// calledByReflect reports whether the caller of the function that calls
// it is package reflect's (testing's call of a fuzz body).
func calledByReflect() bool {
	pc, _, _, ok := runtime.Caller(2)
	if !ok {
		return false
	}
	f := runtime.FuncForPC(pc)
	return f != nil && strings.HasPrefix(f.Name(), "reflect.")
}

// Campaign is a native fuzz target of the system def describes, model
// path or production code alike, in one call with the campaign rule:
//
//	f.Add([]byte{0}) // the seeds first
//	fuzz.Campaign(f, snapshots.Definition(), fuzz.WithReplayTest("TestCheck"))
//
// It fails f with NewTarget's error, runs f.Fuzz(target.Fuzz), and fails
// f from f.Cleanup with Done's error: a campaign (a go test of the seeds,
// or the workers of go test -fuzz) that reached no fault is inconclusive.
func Campaign(f *testing.F, def *model.Definition, opts ...Option) {
	f.Helper()
	campaign(f, def, opts)
}

// fuzzer is the part of *testing.F that Campaign uses.
type fuzzer interface {
	Helper()
	Fatal(args ...any)
	Error(args ...any)
	Cleanup(func())
	Fuzz(ff any)
}

func campaign(f fuzzer, def *model.Definition, opts []Option) {
	f.Helper()
	tg, err := NewTarget(def, opts...)
	if err != nil {
		f.Fatal(err)
		return
	}
	f.Cleanup(func() {
		if err := tg.Done(); err != nil {
			f.Error(err)
		}
	})
	f.Fuzz(tg.Fuzz)
}

// NewTarget returns the target of the system def describes with opts. It
// returns the errors every entry returns for a Definition it refuses (for
// production code, those of the clean run come at the first input), and
// under go test -fuzz an error when it cannot make the directory the
// fuzzing workers report to (see Done).
func NewTarget(def *model.Definition, opts ...Option) (*Target, error) {
	t, err := newTarget(def, opts, true)
	if t != nil {
		t.site = callerSite()
	}
	return t, err
}

// newTarget is the path every entry but NewDecoder shares: prepare, then
// the clean run (at once on the model path, at the first input for
// production code), then, with tally, the campaign's records.
func newTarget(def *model.Definition, opts []Option, tally bool) (*Target, error) {
	d, err := prepare(def, opts)
	if err != nil {
		return nil, err
	}
	t := &Target{d: d, prod: def.Clock != nil}
	if t.prod {
		d.bubble = t.inBubble
	} else if err := d.start(); err != nil {
		return nil, err
	}
	if !tally {
		return t, nil
	}
	switch t.role = processRole(); t.role {
	case worker:
		t.rec = newWorkerRecord(d.tallyKey())
	case coordinator:
		if t.tally, err = newCoordinatorTally(d.tallyKey()); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// target returns a target of d, counting from d's reach so far, with no
// campaign records: its Done counts this process's inputs only.
func (d *Decoder) target() *Target { return &Target{d: d, start: d.reach.Counts()} }

// inBubble runs one run of production code in a bubble of the current
// input's t; a run that never ends fails that input.
func (t *Target) inBubble(run func()) {
	err := bubble.Run(t.cur, run)
	if b := (*bubble.Blocked)(nil); errors.As(err, &b) {
		t.cur.Fatalf("fuzz: %v (the system failed: exit 1)", b)
	}
	if err != nil {
		t.cur.Fatalf("fuzz: %v", err)
	}
}

// Fuzz is the target's body for f.Fuzz: it checks data (Check) and fails
// t with the *Failure or error. Production code runs here only.
func (t *Target) Fuzz(tt *testing.T, data []byte) {
	if !calledByReflect() { // f.Fuzz(target.Fuzz): see For
		tt.Helper()
	}
	t.fuzz(tt, data)
}

// fuzz is Fuzz's body: a failure names the line that built the target.
func (t *Target) fuzz(tt *testing.T, data []byte) {
	tt.Helper()
	var err error
	if t.prod {
		err = t.checkProduction(tt, data)
	} else {
		err = t.check(data)
	}
	if err != nil && t.site != "" {
		tt.Fatalf("%s: %v", t.site, err)
	}
	if err != nil {
		tt.Fatal(err)
	}
}

// Check decodes data into a composition and verifies it (Decoder.Verify):
// nil when every invariant held, a *Failure when one broke. It needs no
// *testing.T, for a fuzz farm's rewrite of the target file; production
// code, whose runs need the input's t, is refused (use Fuzz).
func (t *Target) Check(data []byte) error {
	if t.prod {
		return fmt.Errorf("fuzz: %s is production code: its inputs run in testing/synctest bubbles of their t, through Target.Fuzz", t.d.def.Name)
	}
	return t.check(data)
}

// check verifies one input and, in a fuzzing worker, records what the
// inputs reached when a count first becomes nonzero or an event is first
// crossed (see Done).
func (t *Target) check(data []byte) error {
	err := t.d.Verify(t.d.Decode(data))
	if t.rec != nil {
		t.rec.note(&t.d.reach, t.start)
	}
	return err
}

// errCutShort is a production target's state while its clean run runs:
// what it keeps when that run fails the input's t and never returns.
var errCutShort = errors.New("fuzz: the clean run, at the first input, did not end (see that input's failure)")

// checkProduction is check for production code: one input at a time, in
// bubbles of tt, the clean run at the first.
func (t *Target) checkProduction(tt *testing.T, data []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cur = tt
	if !t.started {
		t.started, t.err = true, errCutShort
		t.err = t.d.start()
	}
	if t.err != nil {
		return t.err
	}
	return t.check(data)
}

// Done returns nil when the inputs checked since the target was made
// reached and fired a fault, and otherwise the inconclusive error, which
// names the events the system crossed (or the error that refused the
// Definition). Call it from f.Cleanup. Under go test -fuzz the workers'
// records are summed in the coordinator, and a worker's Done returns nil
// (docs/fuzzing.md).
func (t *Target) Done() error {
	t.mu.Lock()
	failed := t.err
	t.mu.Unlock()
	c := t.d.reach.Counts().Since(t.start)
	switch t.role {
	case worker:
		if t.rec != nil {
			t.rec.write(c, true)
		}
		return nil
	case coordinator:
		if t.tally == nil {
			break
		}
		w, n, err := t.tally.collect()
		if err != nil {
			return err
		}
		if n == 0 && c.Runs == 0 {
			return fmt.Errorf("inconclusive: no input of this target ran in this process and no fuzzing worker left a record of one (in %s, the directory %s names), so no fault was tested", t.tally.dir, tallyEnv)
		}
		if n == 0 {
			break
		}
		if err := c.plus(w).errOn(t.d.def); err != nil {
			return fmt.Errorf("%w (the sum of this process's runs and the records of %d fuzzing worker processes, each written when a count first became nonzero, an event was first crossed, or the worker ended: at least these counts)", err, n)
		}
		return nil
	}
	if failed != nil {
		return failed
	}
	return c.errOn(t.d.def)
}
