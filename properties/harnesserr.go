package properties

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/faultline/faultline/model"
)

// harnessError is a harness error met on the run of a schedule: Check
// prints the schedule and stores it (under the counterexample folder's
// harness/, which no later run replays on its own) with a replay line.
// found, when set, is a violation rapid found before its shrinking met
// the error: Check reports it, unreduced, instead of losing it.
type harnessError struct {
	err      error
	schedule *model.Schedule
	found    *model.Schedule
	foundMsg string
}

func (h *harnessError) Error() string { return h.err.Error() }
func (h *harnessError) Unwrap() error { return h.err }

// onSchedule wraps err, a harness error of the run of s, as a
// *harnessError naming s (a harnessError already naming one is kept).
func onSchedule(err error, s *model.Schedule) error {
	if he := (*harnessError)(nil); errors.As(err, &he) && he.schedule != nil {
		return err
	}
	return &harnessError{err: err, schedule: cloneSchedule(s)}
}

// keepFound attaches the violation found before a harness error of the
// search (shrinking's, or the reduction's) to err.
func (e *explorer) keepFound(err error) error {
	he := (*harnessError)(nil)
	if e.firstFail == 0 || e.last == nil || !errors.As(err, &he) || he.found != nil {
		return err
	}
	he.found, he.foundMsg = cloneSchedule(e.last), e.lastMsg
	return err
}

// reportHarness fails t with a harness error that names its schedule,
// after the violation found before it, if any, and reports whether it did.
func reportHarness(t interface {
	Helper()
	Errorf(string, ...any)
}, ff failFiles, err error) bool {
	t.Helper()
	he := (*harnessError)(nil)
	if !errors.As(err, &he) || he.schedule == nil {
		return false
	}
	if he.found != nil {
		replay := "(an I/O error: the schedule was not stored: %v)"
		path, werr := writeSchedule(ff.dir, "cx-unreduced", he.found)
		if werr == nil {
			replay = "replay: " + ff.command(path)
		} else {
			replay = fmt.Sprintf(replay, werr)
		}
		t.Errorf("properties: counterexample (an invariant violated, exit 1): %s\nschedule as found, not reduced: shrinking stopped at the harness error below, on another schedule\n%s%s", he.foundMsg, model.Format(he.found), replay)
	}
	replay := "(an I/O error: the schedule was not stored: %v)"
	path, werr := writeSchedule(filepath.Join(ff.dir, "harness"), "harness", he.schedule)
	if werr == nil {
		replay = "replay: " + ff.command(path)
	} else {
		replay = fmt.Sprintf(replay, werr)
	}
	t.Errorf("%v (a harness error, not a verdict on the system), under the schedule\n%s%s", he, model.Format(he.schedule), replay)
	return true
}
