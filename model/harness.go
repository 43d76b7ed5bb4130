package model

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
)

// Options are the harness's run options. The zero value takes the defaults
// documented on each field.
type Options struct {
	// MaxRestarts bounds worker restarts per task (default 3). A task that
	// crashes more often ends with a hold and an inconclusive run verdict.
	MaxRestarts int
	// RetryBudget is the number of tool-call attempts a task may make after
	// its first (default 2). Restarts never reset it.
	RetryBudget int
	// Deadline is the task's deadline in logical milliseconds from its
	// first worker start (default 2000). Restarts never reset it.
	Deadline Millis
	// Stop declares stop conditions (see Stop); the zero value declares
	// none. Run and Terms return an error for an invalid Stop.
	Stop Stop
}

func (o Options) withDefaults() Options {
	if o.MaxRestarts == 0 {
		o.MaxRestarts = 3
	}
	if o.RetryBudget == 0 {
		o.RetryBudget = 2
	}
	if o.Deadline == 0 {
		o.Deadline = 2000
	}
	return o
}

// Logical costs of calls, in milliseconds: every crossing advances the
// clock, so expiries and deadlines are reachable without a wall clock.
const (
	costRead   Millis = 10
	costCommit Millis = 40
)

// Harness runs a System on a Fixture under a Schedule. It reuses its
// storage between runs, so it is not safe for concurrent use: give each
// goroutine its own Harness. A run is a pure function of the fixture, the
// schedule, the options and the system.
type Harness struct {
	fixture Fixture
	opts    Options
	traces  []string // per task: the trace id the harness assigns
	r       run
	// stopOn is true when opts.Stop declares a condition; stopErr is its
	// validation error.
	stopOn  bool
	stopErr error
}

// NewHarness returns a harness over fixture f.
func NewHarness(f Fixture, opts Options) *Harness {
	h := &Harness{fixture: f, opts: opts.withDefaults()}
	h.stopOn, h.stopErr = opts.Stop.Set(), opts.Stop.Validate()
	for _, t := range f.Tasks {
		h.traces = append(h.traces, "trace-"+t.ID)
	}
	h.r.h = h
	h.r.env = &taskEnv{r: &h.r}
	return h
}

// armed is one scheduled fault in a run, with what the injector saw.
type armed struct {
	id      string
	entry   FaultEntry
	kind    *faultKind
	event   int
	reached bool
	fired   int
	firedAt int // seq of the first firing, 0 if none
}

// run is the mutable state of one run.
type run struct {
	h        *Harness
	env      *taskEnv
	world    World
	sched    *Schedule
	controls Controls
	faults   []armed
	counts   [32]int
	tl       []Event
	ids      int
	// detailed is false on the Terms path: timeline details are not
	// formatted.
	detailed bool
	hitBuf   [4]*armed
	taskBuf  []Task
	runID    string

	// per task
	task    *Task
	worker  int
	crashed bool
	// pendingCrash, when set by a disturbance, crashes the worker right
	// after the current crossing is recorded.
	pendingCrash string
	state        string
	attempts     int
	ckSeq        int
	taskStart    Millis
	proposal     Action
	proposed     bool
	claim        Claim
	claimed      bool
	restarts     int
	tasks        []taskRecord
	// stopped is set when a stop condition was met.
	stopped *StopReport

	oracle oracleState
}

// taskRecord keeps what the oracle needs of each finished task.
type taskRecord struct {
	task     Task
	proposal Action
	proposed bool
	claim    Claim
	claimAt  Millis
	restarts int
	attempts int
	started  Millis
	firstSeq int
	lastSeq  int
}

func (r *run) nextID() string {
	r.ids++
	return "req-" + strconv.Itoa(r.ids)
}

func (r *run) crash(detail string) {
	r.crashed = true
	r.record(EvWorkerCrash, 0, "", "", detail, StateFailed)
}

// Run runs factory's system over every task of the fixture under s and
// returns the full result: timeline, fault reports, invariant results and
// outcome terms. It returns an error only for a harness problem (an invalid
// schedule); faults and errors of the system are data in the result.
func (h *Harness) Run(factory Factory, s *Schedule) (*Result, error) {
	h.r.detailed = true
	if err := h.execute(factory, s); err != nil {
		return nil, err
	}
	return h.r.result(), nil
}

// Terms runs like Run and returns only the outcome terms, without copying
// the timeline: the assay's hot path through the same model.
func (h *Harness) Terms(factory Factory, s *Schedule) (Terms, error) {
	h.r.detailed = false
	if err := h.execute(factory, s); err != nil {
		return Terms{}, err
	}
	return h.r.terms(), nil
}

func (h *Harness) execute(factory Factory, s *Schedule) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if h.stopErr != nil {
		return h.stopErr
	}
	cs, err := s.Config.Resolve()
	if err != nil {
		return err
	}
	r := &h.r
	r.world.reset(&h.fixture)
	r.sched = s
	r.controls = cs
	r.faults = r.faults[:0]
	for i, f := range s.Faults {
		k, _ := lookupKind(f.Kind)
		r.faults = append(r.faults, armed{id: s.faultID(i), entry: f, kind: k, event: eventIndex(f.Event)})
	}
	r.counts = [32]int{}
	r.tl = r.tl[:0]
	r.ids = 0
	r.tasks = r.tasks[:0]
	r.runID = ""
	r.stopped = nil
	r.oracle.reset()
	ctx := context.Background()
	for ti := range h.fixture.Tasks {
		r.taskBuf = append(r.taskBuf[:0], h.fixture.Tasks[ti])
		r.task = &r.taskBuf[0]
		r.task.Trace = h.traces[ti]
		task := *r.task
		r.worker = 0
		r.state = StateCreated
		r.attempts = 0
		r.ckSeq = 0
		r.taskStart = r.world.Clock
		r.proposed = false
		r.claimed = false
		r.restarts = 0
		first := len(r.tl) + 1
		for {
			r.worker++
			r.crashed = false
			before := r.state
			after := StateRunning
			if r.worker > 1 {
				after = StateRecovering
			}
			r.world.Clock += costRead
			r.counts[eventIndex(EvWorkerStart)]++
			r.state = before
			r.record(EvWorkerStart, r.counts[eventIndex(EvWorkerStart)], "", "", "", after)
			claim, err := factory().Run(ctx, r.env.Env(), task)
			if r.stopped != nil {
				if !r.claimed {
					r.finishClaim(Claim{Verdict: ClaimHold, Reason: "stopped by a stop condition"}, "stopped: "+r.stopped.Condition)
				}
				break
			}
			if r.crashed {
				if r.restarts >= h.opts.MaxRestarts {
					r.finishClaim(Claim{Verdict: ClaimHold, Reason: "restart limit reached"}, "restart limit reached")
					break
				}
				r.restarts++
				continue
			}
			if err != nil {
				r.finishClaim(Claim{Verdict: ClaimHold, Reason: "system error"}, "system error: "+err.Error())
				break
			}
			if claim.Verdict != ClaimRelease && claim.Verdict != ClaimHold && claim.Verdict != ClaimDeny {
				r.finishClaim(Claim{Verdict: ClaimHold, Reason: "invalid claim"}, fmt.Sprintf("system returned invalid claim verdict %q", claim.Verdict))
				break
			}
			r.finishClaim(claim, claim.Reason)
			break
		}
		r.tasks = append(r.tasks, taskRecord{task: task, proposal: r.proposal, proposed: r.proposed,
			claim: r.claim, claimAt: r.world.Clock, restarts: r.restarts, attempts: r.attempts,
			started: r.taskStart, firstSeq: first, lastSeq: len(r.tl)})
		if r.stopped != nil {
			break
		}
	}
	return nil
}

func (r *run) finishClaim(c Claim, detail string) {
	r.claim = c
	r.claimed = true
	after := StateCompleted
	if c.Verdict != ClaimRelease {
		after = StateFailed
	}
	r.world.Clock += costRead
	r.record(EvClaim, 0, "", string(c.Verdict), detail, after)
}

// enter starts a crossing of event ev: it fails when the worker has
// crashed, advances the clock and the event's ordinal, and returns the
// faults armed for this occurrence.
func (r *run) enter(ev EventName, cost Millis) (ordinal int, hits []*armed, ok bool) {
	if r.crashed {
		return 0, nil, false
	}
	r.world.Clock += cost
	i := eventIndex(ev)
	r.counts[i]++
	ordinal = r.counts[i]
	hits = r.hitBuf[:0]
	for j := range r.faults {
		f := &r.faults[j]
		if f.event == i && f.entry.Ordinal == ordinal {
			f.reached = true
			hits = append(hits, f)
		}
	}
	return ordinal, hits, true
}

// fire marks f as having fired at the next timeline seq.
func (r *run) fire(f *armed) string {
	f.fired++
	if f.firedAt == 0 {
		f.firedAt = len(r.tl) + 1
	}
	return f.id
}

// record appends a timeline event and checks every invariant after it.
func (r *run) record(ev EventName, ordinal int, faultID, outcome, detail, stateAfter string) {
	seq := len(r.tl) + 1
	remaining := r.h.opts.RetryBudget - max(r.attempts-1, 0)
	deadline := r.h.opts.Deadline - (r.world.Clock - r.taskStart)
	r.tl = append(r.tl, Event{
		Seq: seq, At: r.world.Clock, StateBefore: r.state, StateAfter: stateAfter,
		Actor: r.actor(ev), Event: ev, Ordinal: ordinal, Task: r.task.ID, Worker: r.worker,
		FaultID: faultID, Attempt: r.attempts, CheckpointSeq: r.ckSeq,
		RetryRemaining: remaining, DeadlineRemainingMs: deadline, Outcome: outcome, Detail: detail,
	})
	r.state = stateAfter
	r.oracle.check(r, seq)
	if r.h.stopOn && r.stopped == nil {
		r.checkStop(seq)
	}
}

func (r *run) actor(ev EventName) string {
	switch ev {
	case EvWorkerStart, EvWorkerCrash, EvStop:
		return "harness"
	case EvClaim, EvWarn:
		return "system"
	case EvToolCommit:
		return "provider"
	}
	return "env"
}

// runIDOf derives a stable run id from the fixture and schedule.
func runIDOf(f *Fixture, s *Schedule) string {
	h := fnv.New64a()
	h.Write([]byte(f.Name))
	h.Write(Format(s))
	return fmt.Sprintf("run-%016x", h.Sum64())
}
