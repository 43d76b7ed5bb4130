package properties

import (
	"errors"
	"fmt"

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
