package properties

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/bubble"
	"github.com/faultline/faultline/internal/rerun"
	"github.com/faultline/faultline/model"
)

// bubbleEpoch is the time every testing/synctest bubble starts at.
var bubbleEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// BubbleClock is the clock of production code in a testing/synctest
// bubble: the milliseconds since the bubble started (every bubble starts
// at midnight UTC, 1 January 2000). Set it as a production system's
// model.Definition.Clock; Check then runs each run in a bubble of its
// own. Outside a bubble it reads the wall clock.
func BubbleClock() model.Millis { return model.Millis(time.Since(bubbleEpoch).Milliseconds()) }

// preflight runs the clean run of production code and returns an error
// when it crossed nothing but its start and claim: the clients were not
// wrapped, so no fault can be injected.
func (e *explorer) preflight() error {
	e.runs.preflight.Add(1)
	clean, err := e.run(&model.Schedule{Version: model.ScheduleVersion, Seed: "clean", Config: e.set.config, Faults: []model.FaultEntry{}})
	if err != nil {
		return err
	}
	if len(model.Crossings(clean)) == 0 {
		return fmt.Errorf("properties: system %s reported no crossing in its clean run: no call went through Env.Calls or the Env, so no fault can be injected (are the clients wrapped with the adapters, over the env.Calls the run was given?)", e.set.def.Name)
	}
	return nil
}

// systemRuns counts an exploration's runs of the system by what they
// are for: the clean runs of preflight and survey, the prefix runs a
// draw places a later fault in, the confirming reruns of production
// code, and all of them (total; the rest are the schedules checked and
// the shrinking's).
type systemRuns struct {
	preflight, survey, prefix, confirming, total atomic.Int64
}

// String is the runs as Check logs them for production code.
func (r *systemRuns) String() string {
	p, s, x, c, n := r.preflight.Load(), r.survey.Load(), r.prefix.Load(), r.confirming.Load(), r.total.Load()
	return fmt.Sprintf("%d runs of the system: %d schedules checked or shrunk, %d preflight, %d survey, %d prefix, %d confirming", n, n-p-s-x-c, p, s, x, c)
}

// bubbler returns the function that runs one run in a testing/synctest
// bubble of t, one at a time.
func bubbler(t *testing.T) func(func()) error {
	var mu sync.Mutex
	return func(run func()) (err error) {
		mu.Lock()
		defer mu.Unlock()
		err = bubble.Run(t, run)
		if b := (*bubble.Blocked)(nil); errors.As(err, &b) {
			return &blockedError{Bubble: b.Msg}
		}
		return err
	}
}

// blockedError is a run of production code that never ended: inside its
// testing/synctest bubble every goroutine, System.Run's own among them,
// was blocked on something no crossing and no timer of the bubble
// releases (a context the harness never cancels, a channel nothing
// sends on). It is the system's failure, as a panic is (exit 1);
// Schedule is the schedule whose run hung, nil until the
// exploration names it.
type blockedError struct {
	Schedule *model.Schedule
	// Bubble is synctest's own message
	Bubble string
	// cause is the harness's account of a run that went on after its
	// worker crashed (its context cancelled), "" for a deadlock
	cause string
}

// Error says the run never ended, with synctest's message or the cause.
func (e *blockedError) Error() string {
	return (&bubble.Blocked{Msg: e.Bubble, Cause: e.cause}).Error()
}

// asBlocked returns err as a *blockedError of s when the harness ended
// the run as one that never ended (a crashed instance that kept calling).
func asBlocked(err error, s *model.Schedule) error {
	if b := (*bubble.Blocked)(nil); errors.As(err, &b) {
		return &blockedError{Schedule: s, Bubble: b.Msg, cause: b.Cause}
	}
	return err
}

// within runs f inside the exploration's bubble, or directly; the error
// is the bubble's own (a goroutine that outlived the run, or a
// *blockedError).
func (e *explorer) within(f func()) error {
	if e.set.bubble == nil {
		f()
		return nil
	}
	return e.set.bubble(f)
}

// harnessRun runs s on h inside the exploration's bubble. In a bubble, a
// run that breaks an invariant runs again and must cross the same events
// with the same outcomes and reach the same verdict (rerun.Production);
// otherwise the error names what differs. Logical times may differ: the
// largest difference is kept for the counterexample's note.
func (e *explorer) harnessRun(h *model.Harness, f model.Factory, s *model.Schedule) (*model.Result, error) {
	e.runs.total.Add(1)
	if e.set.bubble == nil {
		return h.Run(f, s)
	}
	var res *model.Result
	var err error
	if werr := e.within(func() { res, err = h.Run(f, s) }); werr != nil {
		if be := (*blockedError)(nil); errors.As(werr, &be) {
			be.Schedule = s
		}
		return nil, werr
	}
	if err != nil || res.Held() {
		return res, asBlocked(err, s)
	}
	var again *model.Result
	e.runs.total.Add(1)
	e.runs.confirming.Add(1)
	werr := e.within(func() {
		var g model.Factory
		if g, err = e.sys(s.Config); err == nil {
			again, err = h.Run(g, s)
		}
	})
	if werr != nil {
		return nil, werr
	}
	if err != nil {
		return nil, asBlocked(err, s)
	}
	spread, err := rerun.Production(s, res, again)
	if err != nil {
		return nil, &nondetError{schedule: cloneSchedule(s), msg: err.Error() + rerun.Hidden(res)}
	}
	e.spread.observe(spread)
	return res, nil
}

// spread is the largest difference of one crossing's logical time (ms)
// between a violating run of production code and its confirming rerun,
// over an exploration: global randomness (a jittered back-off) moves
// times without changing the run. It is safe for concurrent use.
type spread struct{ ms atomic.Int64 }

// observe keeps ms when it is the largest yet.
func (s *spread) observe(ms model.Millis) {
	for cur := s.ms.Load(); int64(ms) > cur && !s.ms.CompareAndSwap(cur, int64(ms)); cur = s.ms.Load() {
	}
}

// get is the largest difference observed (0: none).
func (s *spread) get() model.Millis { return model.Millis(s.ms.Load()) }
