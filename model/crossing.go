package model

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
)

// Calls is the one way in for production code: an adapter over a real
// client (an MCP client, an http.Client, a database/sql connector, any
// call) reports each call it carries as a boundary crossing of the run
// and asks which typed fault the schedule arms there. The crossing then
// feeds the same timeline, fault reports, invariants (checked after it),
// verdicts, shrinking, replay and coverage as a call through the model's
// Env. The harness hands it to every System as Env.Calls; it is valid
// only during the Run call that received it, from that call's goroutine
// or one the call waits for.
type Calls interface {
	// Commit crosses tool.commit for one consequential call: the faults
	// armed there act on it as in the model, in schedule order, calling send
	// (the real call) or not. Committed.Result is what the system must see and
	// Committed.Fired the kinds the adapter renders in its own protocol. It
	// returns ErrWorkerCrashed when the run stopped the worker. The kinds'
	// actions: docs/vocabulary.md, "Calls.Commit".
	Commit(ctx context.Context, call ToolCall, send func(context.Context, ToolCall) ToolResult) (Committed, error)
	// CommitOnly is Commit for an adapter that renders only some kinds:
	// an armed fault whose kind enacts reports false does not act on the
	// call (it is reached, stays unfired, and the run is inconclusive,
	// never green), so a campaign over more kinds than the adapter
	// renders goes on instead of ending in an error. A kind that changes
	// the provider's answer is asked about once the answer arrived, so an
	// adapter decides on the answer it got. A nil enacts enacts every kind.
	CommitOnly(ctx context.Context, call ToolCall, enacts func(kind string) bool, send func(context.Context, ToolCall) ToolResult) (Committed, error)
	// Enter starts a crossing of any event but tool.commit
	// (ledger.readback, state.read, checkpoint.write, checkpoint.load,
	// context.subject, ...): the returned Step names the faults armed at
	// it, in schedule order; the adapter enacts those it can, marks each
	// with Step.Fire, and ends the crossing with Step.Done. A fault the
	// adapter cannot enact stays unfired, and the run is inconclusive, not
	// green. It returns an error for tool.commit (use Commit), an unknown
	// event, or a stopped worker (ErrWorkerCrashed).
	Enter(ctx context.Context, ev EventName) (*Step, error)
	// Fail ends the run with err as its error, not a verdict: an adapter
	// calls it for bad input it cannot carry (an extractor that finds no
	// idempotency key, a non-loopback address), so that a system which
	// swallows the adapter's error still cannot pass. The first error
	// wins; nil is ignored.
	Fail(err error)
	// Err returns ErrWorkerCrashed once the harness crashed the worker
	// holding these Calls, nil while it runs. An adapter calls it before
	// each call that crosses nothing (a read, a statement of another
	// table), so that a crashed instance, its defers included, writes no
	// durable state. Safe from any goroutine of the run.
	Err() error
}

// Committed is the answer of a Calls.Commit: the result the system
// must be given, whether the request was sent to the provider (false when
// a fault withheld it), and the kinds of the faults that fired on it, in
// schedule order.
type Committed struct {
	Result ToolResult
	Sent   bool
	Fired  []string
}

// Step is a crossing in progress, from Calls.Enter to Done.
type Step struct {
	r       *run
	ev      EventName
	ordinal int
	armed   []*armed
	fired   string
	done    bool
	// restart is the checkpoint kind fired here, which crashes the
	// worker at Done
	restart string
	// Tokens is what the crossing's model reply cost, as the reply's own
	// usage fields state it (input plus output tokens), set by the
	// adapter before Done: Done adds it to the task's spend, which the
	// budget invariant checks against Task.TokenBudget.
	Tokens int
}

// Ordinal is the crossing's occurrence of its event in the run (1-based).
func (s *Step) Ordinal() int { return s.ordinal }

// Faults returns the kinds armed at this crossing, in schedule order;
// none for a crossing no fault is placed at.
func (s *Step) Faults() []string {
	out := make([]string, len(s.armed))
	for i, f := range s.armed {
		out[i] = f.entry.Kind
	}
	return out
}

// Fire records that the adapter enacted the armed fault of kind at this
// crossing. It returns an error for a kind not armed here or a step
// already done. A checkpoint kind (stale_checkpoint, missing_checkpoint,
// checkpoint_rollback, ...) crashes the worker at Done, as on the model
// path.
func (s *Step) Fire(kind string) error {
	if s.done {
		return fmt.Errorf("crossing %s#%d: Fire(%q) after Done", s.ev, s.ordinal, kind)
	}
	for _, f := range s.armed {
		if f.entry.Kind == kind {
			s.fired = s.r.fire(f)
			if _, ok := f.kind.impl.(checkpointWriteHook); ok {
				s.restart = kind
			}
			return nil
		}
	}
	return fmt.Errorf("crossing %s#%d: no %q fault is armed here (armed: %v)", s.ev, s.ordinal, kind, s.Faults())
}

// Done ends the crossing: it is recorded in the timeline with outcome
// ("ok", "committed", "error", ...) and detail, and every invariant is
// checked after it. A second Done is an error. A worker_restart armed
// here acts when the outcome is "ok" (the harness enacts it): the
// worker crashes right after, as after a checkpoint kind the adapter
// fired or a worker_crash placed here, and Done returns ErrWorkerCrashed.
func (s *Step) Done(outcome, detail string) error {
	if s.done {
		return fmt.Errorf("crossing %s#%d: Done called twice", s.ev, s.ordinal)
	}
	s.done = true
	r := s.r
	if outcome == "ok" {
		for _, f := range s.armed {
			if _, ok := f.kind.impl.(workerRestart); ok {
				s.fired, s.restart = r.fire(f), f.entry.Kind
			}
		}
	}
	if !r.detailed {
		detail = ""
	}
	if s.Tokens > 0 {
		r.tokens += s.Tokens
	}
	r.record(s.ev, s.ordinal, s.fired, outcome, detail, running(r))
	if s.restart != "" {
		r.crash(fmt.Sprintf("worker restarted after %s#%d (%s)", s.ev, s.ordinal, s.restart))
	}
	if r.crashed {
		return ErrWorkerCrashed
	}
	return nil
}

// Observed is implemented by a System whose provider is real: production
// code whose calls reach a provider (a payment service, an MCP server, a
// database) through adapters. The harness then reads the provider's
// ledger, the oracle's independent source, from ProviderLedger after
// every crossing of the run, never from the system's claim; the model's
// own provider ledger is not used.
type Observed interface {
	// ProviderLedger reads the provider's own store and returns every
	// effect it holds, oldest first: an append-only list, so entry i is
	// the same effect at every read. An entry's Task, Seq and (when zero)
	// At are the harness's: it stamps an entry with the task being run
	// when it first appears. An error ends the run with that error.
	ProviderLedger(ctx context.Context) ([]LedgerEntry, error)
}

// errNotObserved is a Calls crossing of a system without a provider
// readback.
var errNotObserved = errors.New("calls: the system does not implement model.Observed, so the oracle has no provider ledger to read")

// misuse records a violation of the Calls contract: the run ends with it
// as its error (not a verdict), and the adapter gets it too.
func (r *run) misuse(err error) error {
	if r.live.err == nil {
		r.live.err = err
	}
	return err
}

// errLedgerShrank is a readback that lost entries.
var errLedgerShrank = errors.New("provider ledger: fewer entries than an earlier read; ProviderLedger must return every effect, oldest first")

// liveState is a run's production-code side: the current instance's
// provider readback, the live clock, the context and what failed.
type liveState struct {
	observed Observed
	ctx      context.Context
	err      error
	// send is the current Commit's real call; inflight calls that a fault
	// held go through it before the current one
	send  func(context.Context, ToolCall) ToolResult
	sent  bool
	fired []string
	// clockBase is Options.Clock at the run's start: the run's clock is
	// the time since (a bubble shared with earlier runs has moved on)
	clockBase Millis
	// enacts, when set, names the kinds the current Commit's adapter
	// renders (CommitOnly); the others do not act
	enacts func(string) bool
	// cancel cancels the current instance's context; down is set from
	// its crash to the next instance's start (Calls.Err reads it from any
	// goroutine); stoppedAt is the crash's logical time and stoppedCalls
	// the calls the instance made since (see afterCrash)
	cancel       context.CancelFunc
	down         atomic.Bool
	stoppedAt    Millis
	stoppedCalls atomic.Int64
	// held is what Step.Hold left for a later crossing of the task, across
	// a restart (a checkpoint store's stale view)
	held any
	// holders pairs each of the run's inflight requests with the adapter
	// call that held it and its worker: a request held by a crashed
	// instance is delivered through that instance's adapter, not the
	// restarted one's, which never saw it
	holders []holder
}

// holder is the adapter call that held an inflight request, and its worker.
type holder struct {
	worker int
	send   func(context.Context, ToolCall) ToolResult
}

// liveSend is the base provider of a live commit: the adapter's real call
// (after the late delivery of any request a fault held), in place of the
// model's provider. As on the model path, a held request outlives its
// worker's crash (it was sent); it is delivered through the adapter of
// the instance that held it.
func (r *run) liveSend(call ToolCall) ToolResult {
	for len(r.inflight) > 0 {
		late := r.inflight[0]
		r.inflight = r.inflight[1:]
		send := r.live.send
		if len(r.live.holders) > 0 {
			if h := r.live.holders[0]; h.worker != r.worker && h.send != nil {
				send = h.send
			}
			r.live.holders = r.live.holders[1:]
		}
		send(r.live.ctx, late)
	}
	r.live.sent = true
	return r.live.send(r.live.ctx, call)
}

// syncProvider reads the provider's ledger into the World after a live
// crossing ev: new entries are stamped with the current task. An entry
// that appears at a crossing other than a commit was made by a call no
// adapter reported (an unwrapped client, or a rule that did not classify
// the request): a harness error, never a run that tested nothing.
func (r *run) syncProvider(ev EventName) {
	if r.live.err != nil {
		return
	}
	got, err := r.live.observed.ProviderLedger(context.WithoutCancel(r.live.ctx)) // the harness reads on after a crash cancelled the instance's context
	if err != nil {
		r.live.err = fmt.Errorf("provider ledger: %w", err)
		return
	}
	w := &r.world
	if len(got) < len(w.Ledger) {
		r.live.err = fmt.Errorf("%w (%d entries, then %d)", errLedgerShrank, len(w.Ledger), len(got))
		return
	}
	for i := range w.Ledger {
		if got[i].Key != w.Ledger[i].Key || got[i].ReceiptID != w.Ledger[i].ReceiptID {
			r.live.err = fmt.Errorf("provider ledger: entry %d changed between reads (key %q, then %q); ProviderLedger must return every effect, oldest first", i+1, w.Ledger[i].Key, got[i].Key)
			return
		}
	}
	if n := len(got) - len(w.Ledger); n > 0 && ev != EvToolCommit && ev != EvWorkerCrash {
		r.live.err = fmt.Errorf("provider ledger: %d new effect(s) (first key %q) appeared at %s, not at a tool.commit: a call made an effect without crossing an adapter (an unwrapped client, or a request the adapter's rules do not classify as a commit); wrap every client that acts and classify its writes", n, got[len(w.Ledger)].Key, ev)
		return
	}
	for _, e := range got[len(w.Ledger):] {
		e.Seq = len(w.Ledger) + 1
		e.Task = r.task.ID
		if e.At == 0 {
			e.At = w.Clock
		}
		w.Ledger = append(w.Ledger, e)
	}
}

// liveCommit implements Calls.Commit.
func (e *taskEnv) liveCommit(ctx context.Context, call ToolCall, enacts func(string) bool, send func(context.Context, ToolCall) ToolResult) (Committed, error) {
	r := e.r
	if send == nil {
		return Committed{}, r.misuse(errors.New("calls: Commit: nil send"))
	}
	if r.live.observed == nil {
		return Committed{}, r.misuse(errNotObserved)
	}
	r.live.ctx, r.live.send, r.live.sent, r.live.fired, r.live.enacts = ctx, send, false, r.live.fired[:0], enacts
	res, err := e.Commit(ctx, call)
	r.live.send, r.live.enacts = nil, nil
	if err != nil {
		return Committed{}, err
	}
	if r.crashed {
		// a worker_crash right after the crossing: the reply never
		// reaches the instance
		return Committed{}, ErrWorkerCrashed
	}
	return Committed{Result: res, Sent: r.live.sent, Fired: slices.Clone(r.live.fired)}, nil
}

// calls is the Env's Calls.
type calls taskEnv

func (c *calls) Commit(ctx context.Context, call ToolCall, send func(context.Context, ToolCall) ToolResult) (Committed, error) {
	return (*taskEnv)(c).liveCommit(ctx, call, nil, send)
}

func (c *calls) CommitOnly(ctx context.Context, call ToolCall, enacts func(string) bool, send func(context.Context, ToolCall) ToolResult) (Committed, error) {
	return (*taskEnv)(c).liveCommit(ctx, call, enacts, send)
}

func (c *calls) Err() error {
	r := c.r
	if !r.live.down.Load() {
		return nil
	}
	r.afterCrash()
	return ErrWorkerCrashed
}

func (c *calls) Fail(err error) {
	if err != nil {
		c.r.misuse(err)
	}
}

func (c *calls) Enter(ctx context.Context, ev EventName) (*Step, error) {
	r := c.r
	switch {
	case ev == EvToolCommit:
		return nil, r.misuse(errors.New("calls: Enter(tool.commit): a commit crosses through Commit"))
	case ev == EvWorkerStart || ev == EvClaim || ev == EvWorkerCrash || ev == EvWarn || ev == evWorld || eventIndex(ev) < 0:
		return nil, r.misuse(fmt.Errorf("calls: Enter: %q is not an event an adapter crosses", ev))
	case r.live.observed == nil:
		return nil, r.misuse(errNotObserved)
	}
	r.live.ctx = ctx
	x, ok := r.cross(ev, costRead, "")
	if !ok {
		return nil, ErrWorkerCrashed
	}
	return &Step{r: r, ev: ev, ordinal: x.ord, armed: slices.Clone(x.hits)}, nil
}

// Hold keeps v for the later crossings of the task, across a worker's
// restart: what an adapter's store serves a fresh instance (the rows a
// lagging replica still holds) lives in the run, not in the crashed
// instance's adapter, whose memory the restart discards. Hold(nil) drops
// it; every task starts with nothing held.
func (s *Step) Hold(v any) { s.r.live.held = v }

// Held returns what Hold left for the task, nil when nothing.
func (s *Step) Held() any { return s.r.live.held }
