package model

import (
	"encoding/json"
	"fmt"

	"github.com/faultline/faultline/internal/spare"
)

// RunVerdict is the run-level verdict of the harness practice ("Budgets and Terminal
// Verdicts").
type RunVerdict string

// Run verdicts.
const (
	// Recovered: every invariant held and the workflow completed within
	// budget; in a run of several tasks, a task's correct denial (see
	// TaskVerdict) does not stand in the way when the others recovered.
	Recovered RunVerdict = "recovered"
	// ContainedFailure: the fault was isolated and the workflow stopped
	// safely (a hold or a denial); not autonomous success.
	ContainedFailure RunVerdict = "contained_failure"
	// Unrecoverable: an invariant was violated or a budget exceeded.
	Unrecoverable RunVerdict = "unrecoverable"
	// Inconclusive: the run cannot be judged: a scheduled fault was never
	// reached, no invariant was in scope, no claim was made within the
	// restart limit, or a declared stop condition ended the run.
	Inconclusive RunVerdict = "inconclusive"
)

// FaultReport is what the injector proves about one scheduled fault:
// whether its event occurrence was reached, how many times its disturbance
// fired, and which invariants (by their oracles) observed a consequence.
// A fault that was not reached, or reached but did not fire, was not tested.
type FaultReport struct {
	ID    string    `json:"id"`
	Kind  string    `json:"kind"`
	Event EventName `json:"event"`
	// Tool is the entry's Tool: when set, Ordinal counts that tool's
	// crossings of Event.
	Tool string `json:"tool,omitempty"`
	// Target is the entry's Target, "" when it has none.
	Target string `json:"target,omitempty"`
	// Correlation is the entry's correlation modifier
	// (FaultEntry.Correlation), "" when it has none (the kind's own).
	Correlation Correlation `json:"correlation,omitempty"`
	Ordinal     int         `json:"ordinal"`
	Reached     bool        `json:"reached"`
	Fired       int         `json:"fired"`
	FiredAt     int         `json:"fired_at_seq,omitempty"`
	Oracle      OracleName  `json:"oracle"`
	Observed    []string    `json:"observed_by"`
	Detected    bool        `json:"detected"`
}

// Placement names where the fault was attached, as FaultEntry.Placement
// does: "event#ordinal" or "event(tool)#ordinal", then "[target]".
func (f FaultReport) Placement() string { return placement(f.Event, f.Tool, f.Ordinal, f.Target) }

// Violation is where an invariant was first found false: the invariant,
// the seq and event of the crossing after which it was false, the fault
// that reached it ("" when none had fired: the workload) and the oracle's
// reason. It is the one record of a first violation; InvariantResult and
// the reports and files of other packages embed it.
type Violation struct {
	Invariant string    `json:"invariant"`
	FirstSeq  int       `json:"first_seq"`
	Event     EventName `json:"event"`
	FaultID   string    `json:"fault_id,omitempty"`
	Detail    string    `json:"detail,omitempty"`
}

// InvariantResult is the oracle's finding for one invariant: whether it
// held, and if not, where it was first false (the embedded Violation,
// zero but for Invariant when it held). Its JSON form is
// {"name", "oracle", "held", "first_seq", "event", "fault_id", "detail"}.
type InvariantResult struct {
	Violation
	Oracle OracleName
	Held   bool
}

// invariantJSON is InvariantResult's JSON form.
type invariantJSON struct {
	Name     string     `json:"name"`
	Oracle   OracleName `json:"oracle"`
	Held     bool       `json:"held"`
	FirstSeq int        `json:"first_seq,omitempty"`
	Event    EventName  `json:"event,omitempty"`
	FaultID  string     `json:"fault_id,omitempty"`
	Detail   string     `json:"detail,omitempty"`
}

// MarshalJSON writes the result in its JSON form.
func (r InvariantResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(invariantJSON{r.Invariant, r.Oracle, r.Held, r.FirstSeq, r.Event, r.FaultID, r.Detail})
}

// UnmarshalJSON reads the result from its JSON form.
func (r *InvariantResult) UnmarshalJSON(b []byte) error {
	var j invariantJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = InvariantResult{Violation{j.Name, j.FirstSeq, j.Event, j.FaultID, j.Detail}, j.Oracle, j.Held}
	return nil
}

// TaskClaim is one task's claim as the system made it.
type TaskClaim struct {
	Task     string       `json:"task"`
	Verdict  ClaimVerdict `json:"verdict"`
	Reason   string       `json:"reason,omitempty"`
	Degraded bool         `json:"degraded,omitempty"`
	TimedOut bool         `json:"timed_out,omitempty"`
}

// Terminal states of a task (TaskClaim.Terminal), the harness practice's:
// a release completed, a claim made because the deadline ran out
// (Claim.TimedOut) timed_out, any other hold or denial failed.
const (
	terminalCompleted = "completed"
	terminalFailed    = "failed"
	terminalTimedOut  = "timed_out"
)

// Terminal returns the task's terminal state: completed, timed_out or
// failed.
func (c TaskClaim) Terminal() string {
	switch {
	case c.Verdict == ClaimRelease:
		return terminalCompleted
	case c.TimedOut:
		return terminalTimedOut
	}
	return terminalFailed
}

// TaskVerdict is one task's verdicts in a run: its claim as the oracle
// judged it (unsafe when its effects broke right_subject,
// current_entitlement or effect_at_most_once) and its own run verdict
// (unrecoverable, inconclusive, recovered or contained_failure).
// CorrectDenial marks a denial the workload itself calls for. The rules:
// docs/vocabulary.md, "TaskVerdict".
type TaskVerdict struct {
	Task          string       `json:"task"`
	Claim         ClaimVerdict `json:"claim_verdict"`
	RunVerdict    RunVerdict   `json:"run_verdict"`
	CorrectDenial bool         `json:"correct_denial,omitempty"`
}

// Result is the full result of one run.
type Result struct {
	// Provider is the run's provider history: every tool.commit and
	// ledger.readback crossing in the order sent (see ProviderOp). It is
	// not part of any file format.
	Provider []ProviderOp `json:"-"`
	RunID    string       `json:"run_id"`
	Schedule *Schedule    `json:"schedule"`
	// Timeline is the run's timeline (see Timeline: its events are
	// built when first read).
	Timeline   Timeline          `json:"timeline"`
	Faults     []FaultReport     `json:"faults"`
	Invariants []InvariantResult `json:"invariants"`
	Claims     []TaskClaim       `json:"claims"`
	Terms      Terms             `json:"terms"`
	Verdict    ClaimVerdict      `json:"claim_verdict"`
	// RunVerdict is derived from Tasks: unrecoverable when an invariant
	// was violated or a task is unrecoverable; inconclusive when a task
	// is, a stop condition ended the run, or a scheduled fault was never
	// reached or never fired; recovered when every task recovered except
	// correct denials (TaskVerdict.CorrectDenial) and at least one task
	// recovered; contained_failure otherwise. A correct denial does not
	// cap the run: the system refused what the workload asked it to
	// refuse.
	RunVerdict RunVerdict `json:"run_verdict"`
	// Tasks are the per-task verdicts, in task order.
	Tasks []TaskVerdict `json:"tasks"`
	// Stopped is set when a declared stop condition ended the run
	// (Options.Stop); such a run is at best inconclusive.
	Stopped *StopReport `json:"stopped,omitempty"`
	// Interleaving is, for a concurrent run (Config.Concurrency), the
	// task the scheduler picked at each scheduling point, by 1-based
	// fixture position; the schedule's interleaving set to it replays the
	// run. ContextSwitches counts the picks of another task while the one
	// that ran last could have gone on. Both are empty for a sequential
	// run.
	Interleaving    []int `json:"interleaving,omitempty"`
	ContextSwitches int   `json:"context_switches,omitempty"`
	// Unexpected names each task whose terminal state is not the one the
	// schedule expects (Schedule.ExpectTerminal); empty without one.
	Unexpected []string `json:"unexpected_terminal,omitempty"`
	// Fleet is, for a run of a fleet fixture (Fixture.Fleet), the
	// provider's load the harness measured; nil otherwise.
	Fleet *FleetLoad `json:"fleet,omitempty"`

	fixture *Fixture
	def     *Definition
	budget  BudgetUse
	join    JoinPolicy
}

// Held reports whether every invariant held.
func (res *Result) Held() bool {
	for _, i := range res.Invariants {
		if !i.Held {
			return false
		}
	}
	return true
}

// Invariant returns the result for the named invariant.
func (res *Result) Invariant(name string) (InvariantResult, bool) {
	for _, i := range res.Invariants {
		if i.Invariant == name {
			return i, true
		}
	}
	return InvariantResult{}, false
}

func (r *run) result() *Result {
	st := r.store
	r.store = nil
	if st == nil {
		st = &resultStore{}
	}
	r.outcomeInto(st)
	res := &st.res
	res.RunID = r.runID
	res.Timeline.t = &st.tl
	// the timeline's record is the Result's own: the next run starts
	// another
	r.tl.take(res.Timeline.t, r.runID)
	res.Provider = r.prov
	r.provCap = len(r.prov)
	r.prov = nil
	return res
}

// resultStore is a Result with the storage outcome gives it.
type resultStore struct {
	res Result
	tl  timeline
	// invs holds the invariant results of the default scope (the eight
	// built-in ones, recorded_agrees_with_ledger and retry_paced) and one
	// more (a fleet's no_retry_storm, or one of the system's own)
	invs   [11]InvariantResult
	faults [1]FaultReport
	claims [1]TaskClaim
	tasks  [1]TaskVerdict
}

// smallStore is a resultStore with the storage of a small run's record
// (the reference fixture's one refund takes about 30 events and 24
// strings): a detailed run whose last run fitted takes its Result, its
// timeline and its record in one allocation (see newStore).
type smallStore struct {
	resultStore
	recs [smallRecs]evRec
	strs [smallStrs]string
}

// the sizes of a smallStore's record
const (
	smallRecs = 32
	smallStrs = 24
)

// newStore returns the storage of a detailed run's Result and starts its
// record: in one smallStore when the last run's record fitted one, else
// a resultStore and a record sized as the last run's was. The record
// grows past its storage as a run needs.
func (r *run) newStore() *resultStore {
	c := &r.tl
	sp := &r.spare
	if c.recsCap <= smallRecs && c.strsCap <= smallStrs {
		ss := sp.small
		if ss == nil {
			ss = &smallStore{}
		} else {
			*ss = smallStore{}
		}
		sp.small, sp.lastSmall, sp.last = nil, ss, nil
		c.startIn(ss.recs[:0], ss.strs[:0])
		return &ss.resultStore
	}
	st := sp.big
	sp.big, sp.lastSmall = nil, nil
	if st != nil && cap(st.tl.recs) >= c.recsCap && cap(st.tl.strs) >= c.strsCap {
		recs, strs := st.tl.recs[:0], st.tl.strs[:0]
		clear(strs[:cap(strs)])
		*st = resultStore{}
		c.startIn(recs, strs)
	} else {
		st = &resultStore{}
		c.startIn(make([]evRec, 0, c.recsCap), make([]string, 0, c.strsCap))
	}
	sp.last = st
	return st
}

// spareStores is a harness's storage of the Results its caller handed
// back (recycle): the last Result's (lastSmall or last) until then, the
// storage the next detailed run reuses (small or big) after, and the
// fault reports of a run of several faults.
type spareStores struct {
	small, lastSmall *smallStore
	big, last        *resultStore
	faults           []FaultReport
	// the last outcome's storage (LastOutcome) until it is handed back,
	// the next outcome's after
	outcome, lastOutcome *resultStore
}

// recycle takes back the storage of res when it is the last Result h
// returned: its caller reads nothing of it any more.
func (h *Harness) recycle(res *Result) {
	sp := &h.r.spare
	if sp.lastOutcome != nil && res == &sp.lastOutcome.res {
		sp.outcome, sp.lastOutcome = sp.lastOutcome, nil
		return
	}
	switch {
	case sp.lastSmall != nil && res == &sp.lastSmall.res:
		sp.small = sp.lastSmall
	case sp.last != nil && res == &sp.last.res:
		sp.big = sp.last
	default:
		return
	}
	if cap(res.Faults) > 1 {
		sp.faults = res.Faults[:0]
	}
	sp.last, sp.lastSmall = nil, nil
}

func init() {
	spare.Result = func(h, res any) {
		hh, ok := h.(*Harness)
		rr, ok2 := res.(*Result)
		if ok && ok2 && rr != nil {
			hh.recycle(rr)
		}
	}
}

// outcome is the run's result without its run id and timeline.
func (r *run) outcome() *Result {
	sp := &r.spare
	st := sp.outcome
	if st == nil {
		st = &resultStore{}
	} else {
		*st = resultStore{}
	}
	sp.outcome, sp.lastOutcome = nil, st
	r.outcomeInto(st)
	return &st.res
}

// outcomeInto writes the run's result without its run id and timeline
// into st, which is zero: the Result, its timeline's header and, for one
// task, one fault and the invariants of the default scope, its lists in
// st's storage. All of it is this Result's own.
func (r *run) outcomeInto(st *resultStore) {
	st.res = Result{
		Schedule: r.sched,
		def:      r.h.opts.System,
		fixture:  r.h.shared,
		Terms:    r.terms(),
	}
	res := &st.res
	o := &r.oracle
	sc := &r.h.scope
	// the list in the store when it fits, else one allocation of the
	// exact size
	n := len(r.users)
	for i := range Invariants {
		if !sc.off[i] {
			n++
		}
	}
	// (none, as before, when a list stays empty: it encodes as null)
	switch {
	case n > 0 && n <= len(st.invs):
		res.Invariants = st.invs[:0:n]
	case n > 0:
		res.Invariants = make([]InvariantResult, 0, n)
	}
	switch n := len(r.faults); {
	case n == 1:
		res.Faults = st.faults[:0:1]
	case n > 0 && cap(r.spare.faults) >= n:
		res.Faults = r.spare.faults[:0:n]
		clear(res.Faults[:n])
		r.spare.faults = nil
	case n > 0:
		res.Faults = make([]FaultReport, 0, n)
	}
	switch n := len(r.tasks); {
	case n == 1:
		res.Claims, res.Tasks = st.claims[:0:1], st.tasks[:0:1]
	case n > 0:
		res.Claims = make([]TaskClaim, 0, n)
		res.Tasks = make([]TaskVerdict, 0, n)
	}
	for i, inv := range Invariants {
		if sc.off[i] {
			continue
		}
		// written in place, field by field: the list is zeroed storage of
		// its final length
		k := len(res.Invariants)
		res.Invariants = res.Invariants[:k+1]
		ir := &res.Invariants[k]
		ir.Invariant, ir.Oracle, ir.Held = inv.Name, inv.Oracle, !o.violated[i]
		if o.violated[i] {
			ir.FirstSeq, ir.Event, ir.FaultID, ir.Detail = o.firstSeq[i], o.event[i], o.fault[i], o.detail[i]
		}
	}
	for i, u := range r.users {
		f := o.user[i]
		ir := InvariantResult{Violation: Violation{Invariant: u.Name}, Oracle: u.Oracle, Held: !f.violated}
		if f.violated {
			ir.FirstSeq, ir.Event, ir.FaultID, ir.Detail = f.firstSeq, f.event, f.fault, f.detail
		}
		res.Invariants = append(res.Invariants, ir)
	}
	allReached := true
	for _, f := range r.faults {
		fr := FaultReport{ID: f.id, Kind: f.entry.Kind, Event: f.entry.Event, Tool: f.entry.Tool, Target: f.entry.Target, Correlation: f.entry.Correlation, Ordinal: f.entry.Ordinal,
			Reached: f.reached, Fired: f.fired, FiredAt: f.firedAt, Oracle: f.kind.spec.Oracle, Observed: []string{}}
		for i := range Invariants {
			if o.violated[i] && o.fault[i] == f.id {
				fr.Observed = append(fr.Observed, Invariants[i].Name)
			}
		}
		for i, u := range o.user {
			if u.violated && u.fault == f.id {
				fr.Observed = append(fr.Observed, r.users[i].Name)
			}
		}
		if f.firedAt > 0 {
			for _, s := range o.warnings {
				if s >= f.firedAt {
					fr.Detected = true
					break
				}
			}
		}
		if !f.reached || f.fired == 0 {
			allReached = false
		}
		res.Faults = append(res.Faults, fr)
	}
	res.Verdict = res.Terms.Verdict
	if len(r.picks) > 0 {
		res.Interleaving = append([]int(nil), r.picks...)
		res.Fleet = r.fleet.result()
		res.ContextSwitches = r.switches
	}
	if r.stopped != nil {
		st := *r.stopped
		res.Stopped = &st
	}
	limit := r.stopped != nil
	broken, recovered, capped := false, false, false
	for i, t := range r.tasks {
		if i == 0 {
			res.join = t.task.Join
			res.budget = BudgetUse{Attempts: t.attempts, RetryBudget: t.task.RetryBudget, ElapsedMs: t.claimAt - t.started,
				DeadlineMs: t.task.Deadline, DeadlineRemainingMs: t.task.Deadline - (t.claimAt - t.started), Restarts: t.restarts,
				Reconciled: t.reconciled}
			if t.task.TokenBudget > 0 {
				res.budget.Tokens, res.budget.TokenBudget = t.tokens, t.task.TokenBudget
			}
		}
		res.Claims = append(res.Claims, TaskClaim{Task: t.task.ID, Verdict: t.claim.Verdict, Reason: t.claim.Reason, Degraded: t.claim.Degraded,
			TimedOut: t.claim.TimedOut})
		tv := r.taskVerdict(i, res.Invariants, res.Terms)
		res.Tasks = append(res.Tasks, tv)
		switch {
		case tv.RunVerdict == Unrecoverable:
			broken = true
		case tv.RunVerdict == Inconclusive:
			limit = true
		case tv.RunVerdict == Recovered:
			recovered = true
		case !tv.CorrectDenial:
			capped = true
		}
	}
	switch {
	case !res.Held() || broken:
		res.RunVerdict = Unrecoverable
	case limit || !allReached || len(res.Invariants) == 0:
		// no invariant in scope: the run checked nothing, so it cannot
		// be judged recovered (Err says inconclusive too)
		res.RunVerdict = Inconclusive
	case recovered && !capped:
		res.RunVerdict = Recovered
	default:
		res.RunVerdict = ContainedFailure
	}
	res.checkTerminal()
}

// checkTerminal compares each task's terminal state with the one the
// schedule expects (Schedule.ExpectTerminal), records every difference in
// Unexpected, and makes a recovered or contained run inconclusive when
// there is one: the run did not end as its contract says.
func (res *Result) checkTerminal() {
	if res.Schedule == nil || len(res.Schedule.ExpectTerminal) == 0 {
		return
	}
	want := res.Schedule.ExpectTerminal
	if len(want) != len(res.Claims) {
		res.Unexpected = append(res.Unexpected, fmt.Sprintf("the schedule expects %d terminal states, the run has %d tasks", len(want), len(res.Claims)))
	}
	for i, c := range res.Claims {
		if i < len(want) && c.Terminal() != want[i] {
			res.Unexpected = append(res.Unexpected, fmt.Sprintf("task %s ended %s, the schedule expects %s", c.Task, c.Terminal(), want[i]))
		}
	}
	if len(res.Unexpected) > 0 && (res.RunVerdict == Recovered || res.RunVerdict == ContainedFailure) {
		res.RunVerdict = Inconclusive
	}
}

// taskVerdict judges the i-th task (see TaskVerdict); invs are the run's
// invariant results and whole the run's terms (the task's own when the
// run has one).
func (r *run) taskVerdict(i int, invs []InvariantResult, whole Terms) TaskVerdict {
	t := &r.tasks[i]
	tv := TaskVerdict{Task: t.task.ID, Claim: t.claim.Verdict}
	if i >= len(r.oracle.facts) {
		tv.RunVerdict = Inconclusive
		return tv
	}
	x := whole
	if len(r.oracle.facts) > 1 {
		x = r.taskTerms(i)
	}
	tv.Claim = x.Verdict
	broke := false
	for _, inv := range invs {
		if len(r.seqTask) > 0 {
			// a concurrent run's tasks overlap: the violation is the
			// task's when the crossing it first followed was
			broke = broke || !inv.Held && inv.FirstSeq >= 1 && inv.FirstSeq <= len(r.seqTask) && int(r.seqTask[inv.FirstSeq-1]) == t.index
			continue
		}
		broke = broke || !inv.Held && inv.FirstSeq >= t.firstSeq && inv.FirstSeq <= t.lastSeq
	}
	switch {
	case broke || x.Verdict == ClaimUnsafe || x.Verdict == ClaimRelease && !x.Recovered:
		tv.RunVerdict = Unrecoverable
	case t.inconclusive || t.stopped:
		tv.RunVerdict = Inconclusive
	case x.Verdict == ClaimRelease:
		tv.RunVerdict = Recovered
	default:
		tv.RunVerdict = ContainedFailure
		tv.CorrectDenial = r.correctDenial(i, x)
	}
	return tv
}
