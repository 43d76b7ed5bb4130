package properties

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/bubble"
	"github.com/faultline/faultline/model"
)

// bubbleEpoch is the time every testing/synctest bubble starts at.
var bubbleEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// BubbleClock is the clock of production code run inside a
// testing/synctest bubble: the milliseconds since the bubble started
// (every bubble starts at midnight UTC, 1 January 2000, and its time moves
// only when every goroutine in it is durably blocked). Set it as a
// production system's model.Definition.Clock; the timeline then records
// each crossing at the bubble's time. Outside a bubble it reads the wall
// clock, and a run is not deterministic: CheckProduction always runs
// inside one.
func BubbleClock() model.Millis { return model.Millis(time.Since(bubbleEpoch).Milliseconds()) }

// CheckProduction is Check for production code: a system whose calls go
// through the adapters over real clients (model.Env.Calls) and whose
// provider ledger is its own store (model.Observed). It checks def as
// Check(t, def.Factory, WithDefinition(def), opts...) does, with three
// differences:
//
//   - each run (the system built from the schedule's config and the
//     harness's run of it) happens inside its own testing/synctest
//     bubble, so production code that sleeps, backs off or sets
//     deadlines runs on the bubble's fake clock (def.Clock, normally
//     BubbleClock, is the run's clock); rapid's engine and the shrinking
//     stay outside the bubble;
//   - a run that breaks an invariant is run a second time, and when its
//     crossings differ (the same schedule, a different crossing sequence)
//     t fails with a nondeterministic replay, naming the first crossing
//     that differs, instead of shrinking noise;
//   - a campaign whose clean run reports no crossing at all through
//     Env.Calls or the Env (the clients were not wrapped) fails with an
//     error that says so.
//
// A production system must follow the rule of the production page of
// the documentation for its replay to be deterministic: every wait goes
// through the time package inside the bubble, no real socket (an
// in-process transport), no goroutine outlives the run, and the clients
// (the sql.DB, the MCP session) are opened and closed inside each run.
// The replay command of its counterexamples is a go test line (see
// Check).
func CheckProduction(t *testing.T, def *model.Definition, opts ...Option) {
	t.Helper()
	if err := def.Validate(); err != nil {
		t.Fatalf("properties: %v (a harness or option error, not a verdict on the system)", err)
		return
	}
	all := append([]Option{WithDefinition(def), withBubble(t)}, opts...)
	e, err := resolve(def.Factory, all)
	if err != nil {
		t.Fatalf("%v (a harness or option error, not a verdict on the system)", err)
		return
	}
	if err := e.preflight(def.Name); err != nil {
		if be := (*BlockedError)(nil); errors.As(err, &be) {
			t.Fatalf("properties: the clean run of %s: %v (the system failed: exit 1)", def.Name, be)
			return
		}
		t.Fatalf("%v (a harness or option error, not a verdict on the system)", err)
		return
	}
	Check(t, def.Factory, all...)
}

// preflight runs the clean run of a production system and returns an
// error when it crossed nothing but its start and claim.
func (e *explorer) preflight(name string) error {
	clean, err := e.run(&model.Schedule{Version: model.ScheduleVersion, Seed: "clean", Config: e.set.config, Faults: []model.FaultEntry{}})
	if err != nil {
		return err
	}
	if len(model.Crossings(clean)) == 0 {
		return fmt.Errorf("properties: system %s reported no crossing in its clean run: no call went through Env.Calls or the Env, so no fault can be injected (are the clients wrapped with the adapters, over the env.Calls the run was given?)", name)
	}
	return nil
}

// withBubble makes every run of an exploration run inside a
// testing/synctest bubble of t, one at a time, and checks that a run
// which breaks an invariant replays to the same crossings.
func withBubble(t *testing.T) Option {
	var mu sync.Mutex
	return optionFunc(func(s *settings) error {
		s.bubble = func(run func()) (err error) {
			mu.Lock()
			defer mu.Unlock()
			err = bubble.Run(t, run)
			if b := (*bubble.Blocked)(nil); errors.As(err, &b) {
				return &BlockedError{Bubble: b.Msg}
			}
			return err
		}
		return nil
	})
}

// BlockedError is a run of production code that never ended: inside its
// testing/synctest bubble every goroutine, System.Run's own among them,
// was blocked on something no crossing and no timer of the bubble
// releases (a context the harness never cancels, a channel nothing
// sends on). It is the system's failure, as a panic is (exit code 1 of
// the table); Schedule is the schedule whose run hung, nil until the
// exploration names it.
type BlockedError struct {
	Schedule *model.Schedule
	// Bubble is synctest's own message
	Bubble string
}

// Error says the run never ended, with synctest's message.
func (e *BlockedError) Error() string {
	return (&bubble.Blocked{Msg: e.Bubble}).Error()
}

// within runs f inside the exploration's bubble, or directly; the error
// is the bubble's own (a goroutine that outlived the run, or a
// *BlockedError).
func (e *explorer) within(f func()) error {
	if e.set.bubble == nil {
		f()
		return nil
	}
	return e.set.bubble(f)
}

// harnessRun runs s on h inside the exploration's bubble. In a bubble, a
// run that breaks an invariant runs again and must cross the same events
// with the same outcomes at the same times; otherwise the error names
// the first crossing that differs.
func (e *explorer) harnessRun(h *model.Harness, f model.Factory, s *model.Schedule) (*model.Result, error) {
	if e.set.bubble == nil {
		return h.Run(f, s)
	}
	var res *model.Result
	var err error
	if werr := e.within(func() { res, err = h.Run(f, s) }); werr != nil {
		if be := (*BlockedError)(nil); errors.As(werr, &be) {
			be.Schedule = s
		}
		return nil, werr
	}
	if err != nil || res.Held() {
		return res, err
	}
	var again *model.Result
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
		return nil, err
	}
	if why := sameCrossings(res.Timeline.Events(), again.Timeline.Events(), true); why != "" {
		var fs []string
		for _, f := range s.Faults {
			fs = append(fs, f.Kind+" at "+f.Placement())
		}
		return nil, fmt.Errorf("nondeterministic replay: the same schedule (seed %q, faults: %s) crossed different events in two runs: %s; production code must take every wait from the time package inside the bubble, use in-process transports, keep no state across runs and start no goroutine that outlives the run", s.Seed, strings.Join(fs, ", "), why)
	}
	return res, nil
}

// sameCrossings returns "" when a and b cross the same events (event,
// ordinal, tool, task, fault, outcome and, when timed, time), or the
// first difference.
func sameCrossings(a, b []model.Event, timed bool) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if x.Event != y.Event || x.Ordinal != y.Ordinal || x.Tool != y.Tool || x.Task != y.Task ||
			x.FaultID != y.FaultID || x.Outcome != y.Outcome || timed && x.At != y.At {
			if !timed {
				return fmt.Sprintf("crossing %d was %s#%d (%s), then %s#%d (%s)", i+1, x.Event, x.Ordinal, x.Outcome, y.Event, y.Ordinal, y.Outcome)
			}
			return fmt.Sprintf("crossing %d was %s#%d (%s) at %d ms, then %s#%d (%s) at %d ms",
				i+1, x.Event, x.Ordinal, x.Outcome, x.At, y.Event, y.Ordinal, y.Outcome, y.At)
		}
	}
	if len(a) != len(b) {
		return fmt.Sprintf("%d crossings, then %d", len(a), len(b))
	}
	return ""
}
