package model

import "fmt"

// A run of production code crashed by the harness (worker_crash, a
// checkpoint kind, worker_restart) has its context cancelled, and every
// call it makes from then on fails with ErrWorkerCrashed; it must then
// return. One that makes more than maxCallsAfterCrash calls through its
// Calls after the crash, or one still calling maxMillisAfterCrash logical
// ms after it, never ends: the call that passes the bound ends the run
// as blocked (hang.Blocked), its schedule stored. docs/production.md,
// "Restarts".
const (
	maxCallsAfterCrash  = 100
	maxMillisAfterCrash = 60_000
)

// runaway is the panic that unwinds a crashed instance past its bound,
// carrying the cause; runSystem turns it into the run's error.
type runaway string

// afterCrash counts a call of a crashed instance of production code and
// ends the run when it passes the bounds.
// Calls.Err may call it from any goroutine of the run: it reads the
// live clock, not the World's.
func (r *run) afterCrash() {
	n := r.live.stoppedCalls.Add(1)
	now := r.live.stoppedAt
	if r.h.opts.Clock != nil {
		now = max(now, r.liveClock())
	}
	over := ""
	switch {
	case n > maxCallsAfterCrash:
		over = fmt.Sprintf("made %d calls through its adapters", n)
	case now-r.live.stoppedAt > maxMillisAfterCrash:
		over = fmt.Sprintf("still called its adapters %d logical ms later", now-r.live.stoppedAt)
	default:
		return
	}
	panic(runaway(fmt.Sprintf("worker %d of task %s crashed at %d ms (its context cancelled, every adapter call failing with %q) and %s without returning from System.Run (the bounds: %d calls, %d ms)",
		r.worker, r.task.ID, r.live.stoppedAt, ErrWorkerCrashed.Error(), over, maxCallsAfterCrash, maxMillisAfterCrash)))
}

// survives checks, as a restarted worker of production code starts, that
// its instance reads the provider the crashed one wrote to: a ledger that
// lost entries means the provider's state lived in the crashed instance.
func (r *run) survives() error {
	got, err := r.live.observed.ProviderLedger(r.live.ctx)
	if err != nil {
		return fmt.Errorf("provider ledger: %w", err)
	}
	if n := len(r.world.Ledger); len(got) < n {
		return fmt.Errorf("model: the restarted worker of task %s reads %d provider ledger entries where the crashed one left %d: the provider's state lives in the System instance, which a restart discards; build the provider (its store, the fake service, the database file) in the Definition's Configure and share it between the instances the Factory returns (docs/production.md, \"Restarts\")",
			r.task.ID, len(got), n)
	}
	return nil
}

// keepLiveWorld keeps, of the world events armed at a crossing of
// production code, those the harness enacts there: worker_crash. The
// others (a clock, a policy or a capability the harness does not own)
// stay reached and unfired, and the run is inconclusive.
func (r *run) keepLiveWorld() {
	keep := r.pendingWorld[:0]
	for _, f := range r.pendingWorld {
		if _, ok := f.kind.impl.(workerCrash); ok {
			keep = append(keep, f)
		}
	}
	clear(r.pendingWorld[len(keep):])
	r.pendingWorld = keep
}
