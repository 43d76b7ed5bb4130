package model

import "fmt"

// Invariant names. Each is a machine-checkable predicate over the World and
// the timeline, checked by the harness after every boundary crossing.
const (
	// InvRightSubject: every effect is for the task's bound actor, subject,
	// tenant and purpose (the paper: "no wrong-subject effect").
	InvRightSubject = "right_subject"
	// InvCurrentEntitlement: when the system declares capabilities, at
	// effect time the task's capability is live and covers the amount;
	// when it declares policies, the tenant's
	// current policy allows the action and its amount; when it declares
	// subject records, the subject's record is not under a hold
	// (Fixture.Holds) and its state version equals the action's expected
	// version; no eligibility item the decision relies on has been
	// withdrawn (deauthorised_evidence); and, once the provider's contract
	// moved (spec_drift), no effect exceeds the task's approved amount.
	InvCurrentEntitlement = "current_entitlement"
	// InvEffectAtMostOnce: at most one ledger effect per logical action
	// (with provable_outcome, a release is exactly once): per tool of a
	// task, whatever the keys (a fresh-key or keyless retry is the same
	// action again), and, when the fixture declares OncePerSubject, per
	// subject of one tenant for one purpose across the tasks of a run (a
	// repeated request for an order already refunded must not refund it
	// again).
	InvEffectAtMostOnce = "effect_at_most_once"
	// InvProvableOutcome: no release without a correlated receipt or an
	// independent readback whose trace lineage joins the task's decision
	// to exactly the ledger effect (the paper: "no release without proof").
	// A receipt record is correlated by the effect's request key and the
	// provider's receipt id; the trace lineage is checked when the effect
	// carries a trace (Action.TraceID), and a system that propagates no
	// trace is joined to its decision by the task, the key and the receipt.
	InvProvableOutcome = "provable_outcome"
	// InvResumeFromCheckpoint: a worker resumes only from the newest valid
	// checkpoint the store holds; after the store serves a stale, future,
	// corrupt or missing checkpoint, no tool call and no release follow
	// until a valid load (the harness practice: "Reload the newest valid checkpoint and
	// reject a future-version or corrupted checkpoint instead of guessing").
	InvResumeFromCheckpoint = "resume_from_checkpoint"
	// InvNoInventedProgress: no release while the ledger holds no effect of
	// the task, no checkpoint recording a completed effect the ledger does
	// not hold, and, when the system declares capabilities, no effect
	// under a capability the authority never approved for the task (the
	// harness practice: "never invent progress"; "check that
	// the agent does not fabricate missing user intent, tool output, or
	// approval").
	InvNoInventedProgress = "no_invented_progress"
	// InvBudget: a task's tool-call attempts never exceed one plus its retry
	// budget and no tool call ends after its deadline, counted across
	// restarts; a restarted worker may re-send the crashed worker's unrecorded
	// last request once; with a Task.TokenBudget, the model tokens its
	// crossings reported never exceed it (docs/vocabulary.md, "budget").
	InvBudget = "budget"
	// InvJoinPreserved: every join record keeps every branch with the
	// state it really had, and the claim obeys the declared join policy
	// (the harness practice: "Never let a successful sibling erase a failed branch").
	InvJoinPreserved = "join_preserved"
)

// Invariants lists every built-in invariant the oracle checks, in report
// order: its name, owner, oracle and what it asserts. Their Check is nil:
// the oracle checks them itself.
var Invariants = []UserInvariant{
	{Name: InvRightSubject, Owner: "authority kernel", Oracle: oracleCapabilityRecord, Doc: "every effect is for the task's bound actor, subject, tenant and purpose"},
	{Name: InvCurrentEntitlement, Owner: "authority kernel", Oracle: oracleStateVersion, Doc: "at effect time the capability is live, the current policy allows the effect, and the record is eligible at the expected state version"},
	{Name: InvEffectAtMostOnce, Owner: "effects", Oracle: oracleLedgerReadback, Doc: "at most one ledger effect per logical action"},
	{Name: InvProvableOutcome, Owner: "evidence", Oracle: oracleTraceLineage, Doc: "no release without a correlated receipt or independent readback joined to the decision by trace lineage"},
	{Name: InvResumeFromCheckpoint, Owner: "workflow runtime", Oracle: oracleCheckpointStore, Doc: "resume only from the newest valid checkpoint; nothing consequential after an invalid one is served"},
	{Name: InvNoInventedProgress, Owner: "workflow runtime", Oracle: oracleLedgerReadback, Doc: "no release without an effect, no checkpoint recording an effect the ledger lacks, and no effect under an unapproved capability"},
	{Name: InvBudget, Owner: "workflow runtime", Oracle: oracleBudgetCounter, Doc: "attempts within one plus the retry budget and no tool call after the deadline, across restarts; model tokens within a stated token budget"},
	{Name: InvJoinPreserved, Owner: "orchestration", Oracle: oracleJoinRecord, Doc: "every join record keeps every branch's true state and the claim obeys the join policy"},
}

const numInvariants = 8

func invIndex(name string) int {
	for i, inv := range Invariants {
		if inv.Name == name {
			return i
		}
	}
	return -1
}

// oracleState is the oracle's incremental view of one run. It reads the
// World by its own path (ledger, capability records, policies, orders,
// evidence) and never the system's memory.
type oracleState struct {
	ledgerSeen int
	violated   [numInvariants]bool
	firstSeq   [numInvariants]int
	event      [numInvariants]EventName
	fault      [numInvariants]string
	detail     [numInvariants]string
	badEntry   []bool // per ledger entry: broke right_subject or current_entitlement
	dupEntry   []bool // per ledger entry: repeated a logical action already in the ledger
	warnings   []int  // seqs of system warnings
	facts      []taskFacts
	user       []userFinding // per user invariant
	// actions indexes the ledger entries seen (Ledger[:ledgerSeen]) by
	// logical action (actionKey): the last entry's task, and whether
	// entries of more than one task share the action.
	actions actionIndex
}

// actionIndex maps logical actions to what the oracle has seen of them:
// a scan of a few pairs, and a map past smallIndex actions (a run's
// ledger holds a few entries, which cost less to scan than to hash).
type actionIndex struct {
	small []actionPair
	big   map[actionKey]actionSeen // when small is full
}

type actionPair struct {
	k actionKey
	a actionSeen
}

func (x *actionIndex) reset() {
	clear(x.small)
	x.small = x.small[:0]
	clear(x.big)
}

func (x *actionIndex) get(k actionKey) (actionSeen, bool) {
	for i := range x.small {
		if x.small[i].k == k {
			return x.small[i].a, true
		}
	}
	a, ok := x.big[k]
	return a, ok
}

func (x *actionIndex) put(k actionKey, a actionSeen) {
	for i := range x.small {
		if x.small[i].k == k {
			x.small[i].a = a
			return
		}
	}
	if len(x.small) < smallIndex {
		if _, ok := x.big[k]; !ok {
			x.small = append(x.small, actionPair{k, a})
			return
		}
	}
	if x.big == nil {
		x.big = map[actionKey]actionSeen{}
	}
	x.big[k] = a
}

// actionKey is a logical action under Fixture.OncePerSubject: an effect on
// one subject of one tenant for one purpose.
type actionKey struct{ tenant, subject, purpose string }

// actionSeen is what the oracle has seen of one logical action.
type actionSeen struct {
	lastTask string
	mixed    bool // entries of two tasks or more
}

// sameAction reports whether ledger entries x and e of one task are the
// same logical action: made through the same tool. The keys are not
// compared: a retry under a fresh idempotency key (and a fresh
// Action.IdempotencyKey) is the same action again, and an effect sent
// with no key is judged the same way. A task acts once per tool (a
// cancel, then a refund); a ledger that names no tool counts per task.
func sameAction(x, e *LedgerEntry) bool { return x.Tool == e.Tool }

// otherOf returns the task other than task whose ledger entry made the
// subject action k last among the entries seen (a is k's record), or ""
// when only task made it.
func (o *oracleState) otherOf(w *world, k actionKey, a actionSeen, task string) string {
	if a.lastTask != task {
		return a.lastTask
	}
	if !a.mixed {
		return ""
	}
	for i := o.ledgerSeen - 1; i >= 0; i-- {
		if x := &w.Ledger[i]; x.Task != task && x.Tenant == k.tenant && x.Subject == k.subject && x.Purpose == k.purpose {
			return x.Task
		}
	}
	return ""
}

// otherTask reports whether a ledger entry of a task other than task made
// the logical action k, among the entries the oracle has seen and the
// entries of w's ledger past them.
func (o *oracleState) otherTask(w *world, k actionKey, task string) bool {
	if a, ok := o.actions.get(k); ok && (a.mixed || a.lastTask != task) {
		return true
	}
	for _, e := range w.Ledger[min(o.ledgerSeen, len(w.Ledger)):] {
		if e.Task != task && e.Tenant == k.tenant && e.Subject == k.subject && e.Purpose == k.purpose {
			return true
		}
	}
	return false
}

// taskFacts are the oracle's findings for one task, fixed at its claim.
type taskFacts struct {
	entitled     bool
	proven       bool
	effects      int
	wrong        bool
	dup          bool
	detected     bool
	budgetHeld   bool
	deadlineHeld bool
	// harnessHeld: resume_from_checkpoint, no_invented_progress, budget
	// and join_preserved held up to the claim.
	harnessHeld bool
	// held: under a narrowed scope, every invariant in scope held up to
	// the claim.
	held  bool
	claim ClaimVerdict
	// startEntitled: the task's own request was entitled in the World
	// when the task started, before any of its crossings.
	startEntitled bool
}

func (o *oracleState) reset(users int) {
	o.ledgerSeen = 0
	o.violated = [numInvariants]bool{}
	o.firstSeq = [numInvariants]int{}
	o.event = [numInvariants]EventName{}
	o.fault = [numInvariants]string{}
	o.detail = [numInvariants]string{}
	o.badEntry = o.badEntry[:0]
	o.dupEntry = o.dupEntry[:0]
	o.warnings = o.warnings[:0]
	o.facts = o.facts[:0]
	o.actions.reset()
	if users > 0 || len(o.user) > 0 {
		o.user = append(o.user[:0], make([]userFinding, users)...)
	}
}

func (o *oracleState) warned(r *run, seq int) { o.warnings = append(o.warnings, seq) }

// violate records the first violation of invariant i at seq.
// An invariant out of the harness's scope is never violated.
func (o *oracleState) violate(r *run, i, seq int, detail string) {
	if o.violated[i] || r.h.scope.off[i] {
		return
	}
	o.violated[i] = true
	o.firstSeq[i] = seq
	o.event[i] = r.evs[seq-1]
	o.detail[i] = detail
	o.fault[i] = faultAt(r, seq)
}

// faultAt returns the fault that reached a violation at seq: the latest
// one fired at or before seq ("" for none).
func faultAt(r *run, seq int) string {
	best, id := 0, ""
	for _, f := range r.faults {
		if f.firedAt > 0 && f.firedAt <= seq && f.firedAt >= best {
			best = f.firedAt
			id = f.id
		}
	}
	return id
}

// check evaluates every invariant after the crossing recorded at seq. Only
// what changed is re-evaluated: new ledger entries and claims.
func (o *oracleState) check(r *run, seq int) {
	w := &r.world
	for ; o.ledgerSeen < len(w.Ledger); o.ledgerSeen++ {
		e := w.Ledger[o.ledgerSeen]
		bad := false
		if t := r.task; e.Subject != t.Subject || e.Tenant != t.Tenant || e.Purpose != t.Purpose || e.Actor != t.Actor {
			if !o.violated[0] {
				o.violate(r, 0, seq, wrongSubject(r, e))
			}
			bad = true
		}
		if why := entitlementGap(w, r.task, e); why != "" {
			o.violate(r, 1, seq, why)
			bad = true
		} else if why := r.reliedGap(e); why != "" {
			o.violate(r, 1, seq, why)
			bad = true
		} else if why := r.driftGap(e); why != "" {
			o.violate(r, 1, seq, why)
			bad = true
		}
		// one effect per logical action (sameAction), and, once per
		// subject, one effect per tenant, subject and purpose whichever
		// task asks for it (the task's own earlier entries lie past
		// r.ledFrom; the other task's is the last earlier entry of the
		// subject made by another task)
		n, other := 0, ""
		for i := range r.taskLedger(e.Task, min(r.ledFrom, o.ledgerSeen)) {
			if i < o.ledgerSeen && sameAction(&w.Ledger[i], &e) {
				n++
			}
		}
		k := actionKey{e.Tenant, e.Subject, e.Purpose}
		a, seen := o.actions.get(k)
		if n == 0 && seen && w.rules.once {
			other = o.otherOf(w, k, a, e.Task)
		}
		switch {
		case !seen:
			o.actions.put(k, actionSeen{lastTask: e.Task})
		case a.lastTask != e.Task:
			o.actions.put(k, actionSeen{lastTask: e.Task, mixed: true})
		}
		dup := n > 0 || other != ""
		keyless := ""
		if r.live.observed != nil && e.Key == "" {
			// the provider's own store holds no key for the effect
			keyless = ", sent without an idempotency key"
		}
		if n > 0 {
			o.violate(r, 2, seq, "second ledger effect for task "+e.Task+keyless)
		} else if other != "" {
			o.violate(r, 2, seq, "second effect for subject "+e.Subject+": task "+other+" already made it"+keyless)
		}
		if e.Task == r.task.ID && len(w.Capabilities) > 0 && !granted(r, e.CapabilityID) {
			o.violate(r, 5, seq, "effect under capability "+quoteID(e.CapabilityID)+" that the authority never approved for the task")
		}
		o.badEntry = append(o.badEntry, bad)
		o.dupEntry = append(o.dupEntry, dup)
	}
	if b := r.task.TokenBudget; b > 0 && r.tokens > b {
		o.violate(r, 6, seq, fmt.Sprintf("%d model tokens exceed the token budget of %d", r.tokens, b))
	}
	switch r.evs[seq-1] {
	case EvToolCommit:
		if r.attempts > 1+r.task.RetryBudget+r.reconciled {
			extra := ""
			if r.reconciled > 0 {
				extra = fmt.Sprintf(" and %d reconciling re-send(s) after a restart", r.reconciled)
			}
			o.violate(r, 6, seq, fmt.Sprintf("attempt %d exceeds one plus the retry budget of %d%s", r.attempts, r.task.RetryBudget, extra))
		}
		// the call's own time counts, not the other workers' while it
		// waited for its turn (commitWait; 0 in a sequential run)
		if at := r.world.Clock - r.commitWait - r.taskStart; at > r.task.Deadline {
			o.violate(r, 6, seq, fmt.Sprintf("tool call at %d ms, after the %d ms deadline", at, r.task.Deadline))
		}
		if r.invalidLoad != "" {
			o.violate(r, 4, seq, r.invalidLoad+", and the worker went on to a tool call")
		}
	case EvClaim:
		if len(o.user) > 0 {
			o.checkUser(r, seq)
		}
		o.settle(r, seq)
		return
	}
	if len(o.user) > 0 {
		o.checkUser(r, seq)
	}
}

// taskOf returns the fixture index of the task whose crossing was
// recorded at seq in a concurrent run, and the current task's in a
// sequential one (whose checks read only the current task's crossings).
func (r *run) taskOf(seq int) int {
	if len(r.seqTask) == 0 || seq < 1 || seq > len(r.seqTask) {
		return r.index
	}
	return int(r.seqTask[seq-1])
}

func granted(r *run, id string) bool {
	for _, g := range r.granted {
		if g == id {
			return true
		}
	}
	return false
}

func quoteID(id string) string {
	if id == "" {
		return "(none)"
	}
	return id
}

// checkCheckpoint checks a checkpoint as written: every completed effect it
// records must be in the provider's ledger for the task
// (no_invented_progress: a checkpoint must not record progress the world
// does not hold). An effect is named as the system saw it: by the request
// key it sent (LedgerEntry.Key) or by the receipt id the provider returned
// (LedgerEntry.ReceiptID).
func (o *oracleState) checkCheckpoint(r *run, seq int, cp *Checkpoint) {
	for _, k := range cp.CompletedEffects {
		found := false
		for i := range r.taskLedger(cp.Task, r.ledFromOf(cp.Task)) {
			if e := &r.world.Ledger[i]; e.Key == k || e.ReceiptID == k {
				found = true
				break
			}
		}
		if !found {
			name := k
			if name == "" { // seen in the message: an empty name
				name = `""`
			}
			o.violate(r, 5, seq, fmt.Sprintf("checkpoint %d records effect %s that the ledger does not hold (neither a request key nor a receipt id of the task's effects)", cp.Seq, name))
		}
	}
}

// checkJoin compares a join record with the branch states the harness saw.
func (o *oracleState) checkJoin(r *run, seq int, rec JoinRecord) {
	if rec.Policy != r.task.Join {
		o.violate(r, 7, seq, fmt.Sprintf("join under policy %q, declared %q", rec.Policy, r.task.Join))
		return
	}
	for _, b := range r.branches {
		found := false
		for _, x := range rec.Branches {
			if x.Name == b.Name {
				found = true
				if x.Status != b.Status {
					o.violate(r, 7, seq, fmt.Sprintf("branch %s recorded as %s, was %s", b.Name, x.Status, b.Status))
				}
			}
		}
		if !found {
			o.violate(r, 7, seq, fmt.Sprintf("branch %s (%s) missing from the join record", b.Name, b.Status))
		}
	}
	for _, x := range rec.Branches {
		ran := false
		for _, b := range r.branches {
			ran = ran || b.Name == x.Name
		}
		if !ran && x.Status != branchNotStarted {
			o.violate(r, 7, seq, fmt.Sprintf("branch %s recorded as %s but never started", x.Name, x.Status))
		}
	}
}

// checkJoinAtClaim applies the declared join policy to the claim.
func (o *oracleState) checkJoinAtClaim(r *run, seq int) {
	if len(r.branches) == 0 {
		return
	}
	joined := false
	for i := range r.taskEvidence(r.task.ID, r.evFrom) {
		if r.world.Evidence[i].Kind == evidenceJoin {
			joined = true
			break
		}
	}
	if !joined {
		o.violate(r, 7, seq, "branches ran but no join record reached the ledger")
		return
	}
	failed := ""
	for _, b := range r.branches {
		if b.Status != branchSuccess {
			failed = b.Name
		}
	}
	if failed == "" {
		return
	}
	rel := r.claim.Verdict == ClaimRelease
	switch r.task.Join {
	case joinAllRequired:
		if rel {
			o.violate(r, 7, seq, "release under all_required although branch "+failed+" failed")
		}
	case joinBestEffort:
		if rel && !r.claim.Degraded {
			o.violate(r, 7, seq, "best_effort release after branch "+failed+" failed carries no degraded marker")
		}
	case joinCompensate:
		if rel || r.compensations == 0 {
			o.violate(r, 7, seq, "compensate policy: branch "+failed+" failed without a compensating action and a stop")
		}
	}
}

// entitlementGap returns why effect e was not entitled at this moment, or
// "" when it was.
func entitlementGap(w *world, t *Task, e LedgerEntry) string {
	c, ok := w.Capability(t.Capability)
	switch {
	case len(w.Capabilities) == 0:
		// a world with no authority: no capability governs the effect
	case !ok:
		return "no capability record"
	case c.Revoked:
		return "capability revoked at effect time"
	case !c.Live(w.Clock):
		return "capability expired at effect time"
	case e.Amount > c.Amount:
		return "amount exceeds capability"
	}
	if len(w.Policies) > 0 {
		if p, ok := w.Policy(e.Tenant); !ok || !p.allowsAmount(e.Amount) {
			return "current policy does not allow the effect"
		}
	}
	if len(w.Subjects) == 0 {
		return ""
	}
	sub, ok := w.Subject(e.Subject)
	switch {
	case !ok:
		return "no record for subject"
	case w.held(sub.Status):
		return "record is " + sub.Status + " at effect time"
	case sub.Version != e.ExpectedVersion:
		return "state version changed before effect"
	}
	return ""
}

// entitled reports whether the action that crossed the proposal boundary
// (or, with no proposal, the task itself) is entitled in the World now.
func entitled(w *world, o *oracleState, t *Task, a Action, proposed bool) bool {
	// a world with no authority binds the task itself
	c := &Capability{Actor: t.Actor, Subject: t.Subject, Tenant: t.Tenant, Purpose: t.Purpose, Amount: t.Amount}
	if len(w.Capabilities) > 0 {
		var ok bool
		c, ok = w.Capability(t.Capability)
		if !ok || !c.Live(w.Clock) || c.Subject != t.Subject || c.Tenant != t.Tenant || c.Actor != t.Actor || c.Purpose != t.Purpose {
			return false
		}
	}
	subject, tenant, amount := t.Subject, t.Tenant, t.Amount
	if proposed {
		if a.Subject != c.Subject || a.Tenant != c.Tenant || a.Purpose != c.Purpose || a.Actor != c.Actor || a.Amount > c.Amount {
			return false
		}
		subject, tenant, amount = a.Subject, a.Tenant, a.Amount
	}
	if len(w.Policies) > 0 {
		if p, ok := w.Policy(tenant); !ok || !p.allowsAmount(amount) {
			return false
		}
	}
	// an effect another task already made is not owed again
	if w.rules.once && o.otherTask(w, actionKey{tenant, subject, c.Purpose}, t.ID) {
		return false
	}
	if len(w.Subjects) == 0 {
		return true
	}
	sub, ok := w.Subject(subject)
	if !ok || w.held(sub.Status) {
		return false
	}
	return !proposed || sub.Version == a.ExpectedVersion
}

// proven reports whether the evidence ledger holds a receipt or readback
// record for task t whose lineage joins t's decision trace to exactly one
// ledger effect of t made under the same trace. An effect made under no
// trace (a system that propagates none) is joined by the task, its key
// and, for a receipt, its receipt id alone, with a record that names no
// trace either.
//
// Only the evidence from r.evFrom and the ledger from r.ledFrom on are
// read: the task's records all lie there (see run.ledFrom).
func proven(r *run, t *Task) bool {
	w := &r.world
	for xi := range r.taskEvidence(t.ID, r.evFrom) {
		x := &w.Evidence[xi]
		if x.Kind != evidenceReceipt && x.Kind != evidenceReadback {
			continue
		}
		for ei := range r.taskLedger(t.ID, r.ledFrom) {
			e := &w.Ledger[ei]
			if e.Key != x.EffectKey || x.EffectTrace != e.Trace {
				continue
			}
			if e.Trace != "" && (e.Trace != t.Trace || x.Trace != t.Trace) || e.Trace == "" && x.Trace != "" && x.Trace != t.Trace {
				continue
			}
			if x.Kind == evidenceReceipt && x.ReceiptID != e.ReceiptID {
				continue
			}
			return true
		}
	}
	return false
}

// settle fixes the oracle's facts for the current task at its claim.
func (o *oracleState) settle(r *run, seq int) {
	w := &r.world
	t := r.task
	f := taskFacts{claim: r.claim.Verdict, startEntitled: r.startEntitled}
	first := r.taskFirst
	for i := range r.taskLedger(t.ID, r.ledFrom) {
		f.effects++
		if i < len(o.badEntry) && o.badEntry[i] {
			f.wrong = true
		}
		if i < len(o.dupEntry) && o.dupEntry[i] {
			f.dup = true
		}
	}
	f.entitled = entitled(w, o, t, r.proposal, r.proposed)
	f.proven = proven(r, t)
	// the first disturbance in the task's crossings, and a warning of
	// the task after it (in a concurrent run other tasks' crossings lie
	// between the task's, and are not its own)
	fired := 0
	for _, a := range r.faults {
		if a.firedAt >= first && r.taskOf(a.firedAt) == r.index && (fired == 0 || a.firedAt < fired) {
			fired = a.firedAt
		}
	}
	if fired > 0 {
		for _, s := range o.warnings {
			if s >= fired && r.taskOf(s) == r.index {
				f.detected = true
				break
			}
		}
	}
	f.budgetHeld = r.attempts-1 <= t.RetryBudget+r.reconciled && (t.TokenBudget == 0 || r.tokens <= t.TokenBudget)
	f.deadlineHeld = w.Clock-r.taskStart <= t.Deadline
	if f.claim == ClaimRelease && !f.proven {
		o.violate(r, 3, seq, "release without correlated proof")
	}
	if f.claim == ClaimRelease && f.effects == 0 {
		o.violate(r, 5, seq, "release although the ledger holds no effect of the task")
	}
	if f.claim == ClaimRelease && r.invalidLoad != "" {
		o.violate(r, 4, seq, r.invalidLoad+", and the worker released")
	}
	o.checkJoinAtClaim(r, seq)
	f.harnessHeld = !o.violated[4] && !o.violated[5] && !o.violated[6] && !o.violated[7]
	if r.h.scope.narrowed {
		f.held = !o.violatedIn(r)
	}
	o.facts = r.forkFacts(append(o.facts, f))
}

// Terms are the outcome terms of a run, computed by the oracle from the
// World and the timeline: the nine terms of the paper's artefact, the
// effect count and the claim verdict. For several tasks a good term holds
// when it holds for every task, a bad term when it holds for any; under a
// narrowed Options.Builtin they come from the invariants in scope
// (docs/vocabulary.md, "Terms").
type Terms struct {
	Detected            bool         `json:"detected"`
	Contained           bool         `json:"contained"`
	Recovered           bool         `json:"recovered"`
	Verified            bool         `json:"verified"`
	UsefulService       bool         `json:"useful_service"`
	UnsafeEscape        bool         `json:"unsafe_escape"`
	DuplicateEffect     bool         `json:"duplicate_effect"`
	UnverifiableRelease bool         `json:"unverifiable_release"`
	ServiceLoss         bool         `json:"service_loss"`
	Effects             int          `json:"effects"`
	Verdict             ClaimVerdict `json:"verdict"`
}

// termsOf derives one task's terms from the oracle's facts: an unsafe
// escape (a duplicate, or an effect that broke right_subject or
// current_entitlement; contained is its negation); verified (a proven
// safe release, one effect per logical action, or a denial the ledger
// confirms); recovered (a correct terminal within the retry budget with
// the recovery invariants held); useful service (a correct terminal
// within the deadline); an unverifiable release; service loss (an
// entitled action held or denied); detected (a warning after a fault
// fired). docs/vocabulary.md defines each term.
func termsOf(f taskFacts) Terms {
	dup := f.dup
	unsafe := dup || f.wrong
	rel := f.claim == ClaimRelease
	deny := f.claim == ClaimDeny
	verified := (rel && f.proven && f.effects > 0 && !unsafe) || (deny && f.effects == 0)
	correct := (rel && f.entitled && f.proven && f.effects > 0 && !unsafe) || (deny && !f.entitled && f.effects == 0)
	verdict := f.claim
	if unsafe {
		verdict = ClaimUnsafe
	}
	return Terms{
		Detected:            f.detected,
		Contained:           !unsafe,
		Recovered:           correct && f.budgetHeld && f.harnessHeld,
		Verified:            verified,
		UsefulService:       correct && f.deadlineHeld,
		UnsafeEscape:        unsafe,
		DuplicateEffect:     dup,
		UnverifiableRelease: rel && !f.proven,
		ServiceLoss:         f.entitled && (f.claim == ClaimHold || deny),
		Effects:             f.effects,
		Verdict:             verdict,
	}
}

// taskTerms returns the terms of the i-th task that reached its claim.
func (r *run) taskTerms(i int) Terms {
	if r.h.scope.narrowed {
		return narrowTerms(r.oracle.facts[i], &r.h.scope)
	}
	return termsOf(r.oracle.facts[i])
}

// correctDenial reports whether the oracle confirms the i-th task's
// denial as the workload's correct outcome (see TaskVerdict).
func (r *run) correctDenial(i int, x Terms) bool {
	f := r.oracle.facts[i]
	return !r.h.scope.narrowed && f.claim == ClaimDeny && x.Recovered && !f.startEntitled
}

func (r *run) terms() Terms {
	var t Terms
	for i := range r.oracle.facts {
		x := r.taskTerms(i)
		if i == 0 {
			t = x
			continue
		}
		t.Detected = t.Detected || x.Detected
		t.Contained = t.Contained && x.Contained
		t.Recovered = t.Recovered && x.Recovered
		t.Verified = t.Verified && x.Verified
		t.UsefulService = t.UsefulService && x.UsefulService
		t.UnsafeEscape = t.UnsafeEscape || x.UnsafeEscape
		t.DuplicateEffect = t.DuplicateEffect || x.DuplicateEffect
		t.UnverifiableRelease = t.UnverifiableRelease || x.UnverifiableRelease
		t.ServiceLoss = t.ServiceLoss || x.ServiceLoss
		t.Effects += x.Effects
		t.Verdict = worseVerdict(t.Verdict, x.Verdict)
	}
	return t
}

func worseVerdict(a, b ClaimVerdict) ClaimVerdict {
	rank := func(v ClaimVerdict) int {
		switch v {
		case ClaimUnsafe:
			return 3
		case ClaimHold:
			return 2
		case ClaimDeny:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// wrongSubject is right_subject's detail for ledger entry e of the current
// task: the effect's subject and the task's, then each other field of the
// effect (actor, tenant, purpose, trace) that is not the task's, with the
// task it came from when another task of the fixture has it.
func wrongSubject(r *run, e LedgerEntry) string {
	t := r.task
	d := "effect on " + e.Subject + " for task " + t.ID + " of " + t.Subject
	from := func(field, v, own string, of func(i int) string) {
		if v == own || v == "" && field == "trace" {
			return
		}
		if v == "" {
			d += ", " + field + " empty (the task's is " + quoteID(own) + ")"
			return
		}
		where := "the task's is " + quoteID(own)
		for i, u := range r.h.fixture.Tasks {
			if u.ID != t.ID && of(i) == v {
				where = "task " + u.ID + "'s; the task's is " + quoteID(own)
				break
			}
		}
		d += ", " + field + " " + v + " (" + where + ")"
	}
	tasks := r.h.fixture.Tasks
	from("actor", e.Actor, t.Actor, func(i int) string { return tasks[i].Actor })
	from("tenant", e.Tenant, t.Tenant, func(i int) string { return tasks[i].Tenant })
	from("purpose", e.Purpose, t.Purpose, func(i int) string { return tasks[i].Purpose })
	from("trace", e.Trace, t.Trace, func(i int) string { return r.h.traces[i] })
	return d
}
