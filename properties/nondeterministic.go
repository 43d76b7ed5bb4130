package properties

import (
	"errors"
	"fmt"
	"path/filepath"

	"pgregory.net/rapid"

	"github.com/faultline/faultline/internal/rerun"
	"github.com/faultline/faultline/model"
)

// ErrNondeterministic is wrapped by the error of an exploration whose
// system under test gave two results for one schedule: a check that
// broke an invariant held when run again, or a run made again to confirm
// a counterexample crossed other events or judged otherwise than the
// first run of its schedule (a clock, global randomness or state shared
// across runs reached the system). Match it with errors.Is.
var ErrNondeterministic = errors.New("the system under test is not deterministic")

// confirmClean runs the clean schedule survey ran first again and
// returns an ErrNondeterministic error when it crosses other events than
// that first run (rerun.Diff, times aside) or breaks another invariant
// (or none, or one where the first broke none): state kept across runs (a
// process-global cache) that made a later run fail would otherwise be
// blamed on the counterexample's faults. It does nothing when survey kept
// no clean run.
func (e *explorer) confirmClean() error {
	if e.cleanSchedule == nil {
		return nil
	}
	res, err := e.run(cloneSchedule(e.cleanSchedule))
	if err != nil {
		return err
	}
	if why := rerun.Diff(e.cleanTimeline, res.Timeline.Events(), false); why != nil {
		return fmt.Errorf("properties: the clean run (no faults), run again to confirm the counterexample, crossed other events than its first run: %s%s (state kept across runs, a clock or global randomness): %w",
			why, runNote(e, res), ErrNondeterministic)
	}
	broke := ""
	if ir, bad := e.violation(res); bad {
		broke = ir.Invariant
	}
	if broke != e.cleanBroke {
		first := "held every invariant"
		if e.cleanBroke != "" {
			first = "broke " + e.cleanBroke
		}
		return fmt.Errorf("properties: the clean run (no faults), run again to confirm the counterexample, crossed the same events as its first run, which %s, but was judged otherwise%s (state kept across runs, a clock or global randomness): %w",
			first, runNote(e, res), ErrNondeterministic)
	}
	return nil
}

// runNote says what res, a run made again, found: "; it broke NAME after
// seq N (EVENT)", or "; every invariant held".
func runNote(e *explorer, res *model.Result) string {
	if ir, bad := e.violation(res); bad {
		return fmt.Sprintf("; it broke %s after seq %d (%s)", ir.Invariant, ir.FirstSeq, ir.Event)
	}
	return "; every invariant held"
}

// nondetError is an ErrNondeterministic error of a schedule that broke an
// invariant once and not alike when run again to confirm it: Check prints
// the schedule, stores it under the fail folder's nondeterministic/ (which
// no later run replays on its own) with a replay line, exit 4.
type nondetError struct {
	msg      string
	schedule *model.Schedule
}

func (n *nondetError) Error() string { return n.msg + ": " + ErrNondeterministic.Error() }
func (n *nondetError) Unwrap() error { return ErrNondeterministic }

// hides is what a nondeterminism message says of a violation its rerun
// did not confirm.
const hides = "an invariant was broken once and not on the rerun, so the system's nondeterminism (global randomness such as math/rand's global source, a clock, state kept across runs) hides a real violation"

// brokeOnce is the error of s, which broke inv when what ran it ("the
// walk's schedule 3"; where: " after seq 9 (tool.commit)", or "" when not
// known) and held it when run again to confirm it.
func brokeOnce(what string, s *model.Schedule, inv, where string) error {
	return &nondetError{schedule: cloneSchedule(s), msg: fmt.Sprintf("properties: %s (%s) broke %s%s, then held it when run again to confirm it: %s",
		what, rerun.Describe(s), inv, where, hides)}
}

// reportNondet fails t with err when it wraps ErrNondeterministic (exit
// 4, a verdict on the system, not a harness error), with the schedule it
// names, stored under the fail folder's nondeterministic/ with a replay
// line, and reports whether it did.
func reportNondet(t rapid.TB, ff failFiles, err error) bool {
	t.Helper()
	if !errors.Is(err, ErrNondeterministic) {
		return false
	}
	const verdict = "(exit 4: a verdict on the system, not a harness error: make it draw its randomness from Env.Rand, take its waits from the time package in the bubble and keep no state across runs)"
	var s *model.Schedule
	if ne := (*nondetError)(nil); errors.As(err, &ne) {
		s = ne.schedule
	}
	if s == nil {
		t.Errorf("%v %s", err, verdict)
		return true
	}
	replay := "(an I/O error: the schedule was not stored: %v)"
	if path, werr := writeSchedule(filepath.Join(ff.dir, "nondeterministic"), "nondeterministic", s); werr == nil {
		replay = "replay (it may hold or break, run to run): " + ff.command(path)
	} else {
		replay = fmt.Sprintf(replay, werr)
	}
	t.Errorf("%v, under the schedule\n%s%s\n%s", err, model.Format(s), verdict, replay)
	return true
}
