package fuzz

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// WithReplayTest names the test through which a failure's replay command
// replays it: a test of the same package that calls properties.Check on
// the system under the decoder's config. A failure's shrunk schedule is
// then written to that test's fail folder (properties.FailFolder, or
// WithFailDir's), where the test's next run replays it first, and its
// replay command is properties.ReplayCommand's. Without it, a failure of
// a system other than the reference one writes no file and says how to
// replay it.
func WithReplayTest(test string) Option { return func(o *options) { o.replayTest = test } }

// WithFailDir sets the folder a failure's schedule file is written to
// (default: the fail folder of WithReplayTest's test). Tests that expect
// a failure, such as a planted bug's, give it t.TempDir().
func WithFailDir(dir string) Option { return func(o *options) { o.failDir = dir } }

// Failure is the error a target's check returns when a run broke an
// invariant: the violation as found, and its schedule shrunk (Shrink) to
// a smallest one that breaks the same invariants, with the command that
// replays it.
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
}

// Error gives the violated invariant, the input's violation (its
// invariants, its schedule in canonical form), the shrunk schedule and
// the replay command.
func (f *Failure) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s violated: %s\n", f.Invariant, f.Detail)
	b.WriteString(f.Violation.Error())
	fmt.Fprintf(&b, "shrunk to %d of its %d faults:\n", len(f.Schedule.Faults), len(f.Violation.Schedule.Faults))
	b.Write(model.Format(f.Schedule))
	if f.File != "" {
		fmt.Fprintf(&b, "written to %s\n", f.File)
	}
	fmt.Fprintf(&b, "replay the shrunk schedule: %s\n", f.Replay)
	return b.String()
}

// Verify runs s against the decoder's system and returns nil when every
// invariant in scope held. When one broke, it shrinks s (Shrink) and
// returns a *Failure: the invariant, the shrunk counterexample and its
// replay command (see WithReplayTest), its file written when the decoder
// has a fail folder. Any other error is a harness or I/O error. It is
// what the targets' bodies call on each input.
func (d *Decoder) Verify(s *model.Schedule) error {
	res, err := d.Check(s)
	var v *Violation
	if !errors.As(err, &v) {
		return err
	}
	shrunk, sres, err := d.Shrink(s)
	if err != nil {
		return fmt.Errorf("fuzz: shrinking a violation: %w\n%s", err, v.Error())
	}
	f := &Failure{Violation: v, Schedule: shrunk, Result: sres}
	if f.Invariant, f.Detail = firstViolated(sres); f.Invariant == "" {
		f.Invariant, f.Detail = firstViolated(res)
	}
	shrunk.Seed = "fuzz counterexample: " + f.Invariant
	if err := d.store(f); err != nil {
		return err
	}
	return f
}

// firstViolated returns the invariant of res that became false first and
// its reason.
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
	return first.Invariant, first.Detail
}

// store writes f's schedule to the decoder's fail folder, when it has one,
// and sets f's replay command.
func (d *Decoder) store(f *Failure) error {
	dir := d.failDir
	if dir == "" && d.replayTest != "" {
		dir = properties.FailFolder(d.replayTest)
	}
	canon := model.Format(f.Schedule)
	if dir == "" {
		if d.system.Name == referenceSystem {
			f.Replay = "save the shrunk schedule as FILE and run: faultline replay FILE"
		} else {
			f.Replay = fmt.Sprintf("save the shrunk schedule as FILE in the package directory and run, from the module root: %s=FILE go test -run '^TEST$' ./PKG, TEST a test that calls properties.Check on %s under this config (fuzz.WithReplayTest names it, and writes the file)", properties.ReplayEnv, d.system.Name)
		}
		return nil
	}
	sum := sha256.Sum256(canon)
	path := filepath.Join(dir, "fuzz-"+hex.EncodeToString(sum[:6])+".json")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("fuzz: writing the counterexample: %w", err)
	}
	if err := os.WriteFile(path, canon, 0o644); err != nil {
		return fmt.Errorf("fuzz: writing the counterexample: %w", err)
	}
	f.File = path
	if d.replayTest != "" {
		f.Replay = properties.ReplayCommand(d.replayTest, path)
	} else {
		f.Replay = fmt.Sprintf("%s=%s go test -run '^TEST$' ./PKG, TEST a test that calls properties.Check on %s under this config", properties.ReplayEnv, path, d.system.Name)
	}
	return nil
}

// Target is the body of a native fuzz target for one system: Check
// decodes an input (Decoder.Decode), runs it, and returns Verify's
// answer. Done says, after a campaign's inputs ran, whether the campaign
// tested anything. It is safe for concurrent use.
type Target struct {
	d     *Decoder
	start ReachCounts
	role  role
	// rec is a worker's record (nil outside a worker, or when TallyEnv
	// names no coordinator), tally the coordinator's (nil outside one)
	rec   *workerRecord
	tally *coordinatorTally
}

// NewTarget returns the target of the system def describes: a decoder
// over def with opts (WithConfig, WithFixture, WithScope, WithMaxFaults,
// WithReplayTest, WithFailDir, ...). It returns NewDecoder's errors, and
// under go test -fuzz an error when it cannot make the directory the
// fuzzing workers report to (see TallyEnv and Done).
func NewTarget(def *model.Definition, opts ...Option) (*Target, error) {
	d, err := NewDecoder(append([]Option{WithDefinition(def)}, opts...)...)
	if err != nil {
		return nil, err
	}
	t := d.Target()
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

// Target returns the fuzz target of d, counting from d's reach so far.
// Its Done counts the inputs of this process only: under go test -fuzz,
// where the inputs run in worker processes, use NewTarget's.
func (d *Decoder) Target() *Target { return &Target{d: d, start: d.Reach().Counts()} }

// Decoder returns the target's decoder.
func (t *Target) Decoder() *Decoder { return t.d }

// Check decodes data into a composition and verifies it (Decoder.Verify):
// nil when every invariant in scope held, a *Failure when one broke. Every
// input decodes, so no input is refused. In a fuzzing worker it records
// what the inputs reached when a count first becomes nonzero or an event
// is first crossed (see Done), not at every input.
func (t *Target) Check(data []byte) error {
	err := t.d.Verify(t.d.Decode(data))
	if t.rec != nil {
		t.rec.note(&t.d.reach, t.start)
	}
	return err
}

// Done returns nil when the inputs checked since the target was made
// scheduled a fault that was reached and fired, and otherwise the
// inconclusive error (ReachCounts.Err): no input scheduled a fault (an
// empty seed only), none of the faults scheduled was reached, or none
// reached fired; it names the events the system crossed. Call it after
// the inputs ran, from f.Cleanup:
//
//	f.Cleanup(func() {
//		if err := target.Done(); err != nil {
//			f.Error(err)
//		}
//	})
//
// In a plain go test run (the seeds only) the inputs ran in this process.
// Under go test -fuzz they ran in worker processes: each worker's target
// (NewTarget's) writes its counts to the directory TallyEnv names when
// one first becomes nonzero, when an event is first crossed, and at its
// own Done, which returns nil there (the worker's share is not the
// campaign's verdict); the coordinator's Done adds every worker's record
// of the same definition and options to its own counts and decides on
// the sum, so a campaign passes only when some worker's input reached and
// fired a fault. A worker's record may count fewer inputs than the
// worker ran (a worker stopped by a signal misses its last write), so
// the error's counts are lower bounds then. Done in the coordinator reads the records once and
// removes them; a record that does not parse is an error.
func (t *Target) Done() error {
	c := t.d.Reach().Counts().Since(t.start)
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
			return fmt.Errorf("inconclusive: no input of this target ran in this process and no fuzzing worker left a record of one (in %s, the directory %s names), so no fault was tested", t.tally.dir, TallyEnv)
		}
		if n == 0 {
			break
		}
		if err := c.plus(w).Err(); err != nil {
			return fmt.Errorf("%w (the sum of this process's runs and the records of %d fuzzing worker processes, each written when a count first became nonzero, an event was first crossed, or the worker ended: at least these counts)", err, n)
		}
		return nil
	}
	return c.Err()
}

// For returns the body of a native fuzz target for the system def
// describes, in a few lines of the user's own test:
//
//	func FuzzBilling(f *testing.F) {
//		check := fuzz.For(billing.Definition(), fuzz.WithReplayTest("TestBilling"))
//		f.Add([]byte{0})
//		f.Fuzz(func(t *testing.T, data []byte) {
//			if err := check(data); err != nil {
//				t.Fatal(err)
//			}
//		})
//	}
//
// check(data) decodes data into a composition of faults placed on the
// system's own clean run, runs it, checks the system's invariants, and
// returns nil when they held, or a *Failure carrying the invariant, the
// shrunk counterexample and its replay command. The target file needs
// only the testing import, so ClusterFuzzLite's rewrite of it still
// builds. When the decoder cannot be built (a bad definition or config),
// every call returns that error (a definition whose runs check no
// invariant among them: every input would pass), so the target fails on
// its first input; use NewTarget to see the error up front and to check
// with Target.Done that the campaign reached a fault.
func For(def *model.Definition, opts ...Option) func(data []byte) error {
	d, err := NewDecoder(append([]Option{WithDefinition(def)}, opts...)...)
	if err != nil {
		return func([]byte) error { return err }
	}
	return d.Target().Check
}
