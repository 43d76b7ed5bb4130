package model

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
)

// taskEnv is the harness's Env implementation: every method is one boundary
// crossing routed through the injector, recorded, and followed by an
// invariant check.
type taskEnv struct {
	r   *run
	env Env
	set bool
}

// Env returns the Env value handed to systems (built once per harness).
func (e *taskEnv) Env() Env {
	if !e.set {
		e.env = Env{Context: e, Proposer: e, Authority: e, State: e, Tool: e, Ledger: e,
			Evidence: e, Store: e, Memory: (*memoryEnv)(e), Branches: (*branchEnv)(e), Signals: e, Calls: (*calls)(e),
			Now: e.now, Sleep: e.sleep, NewRequestID: e.newRequestID, Rand: e.draw, RetryToken: e.retryToken}
		e.set = true
	}
	if e.r.notices() {
		env := e.env
		env.Notices = e
		return env
	}
	return e.env
}

func (e *taskEnv) now() Millis { return e.r.world.Clock }

func (e *taskEnv) newRequestID() string { return e.r.nextID() }

func running(r *run) string {
	if r.state == stateRecovering || r.state == stateResumed {
		return r.state
	}
	return stateRunning
}

// crossing is one Env call in flight: its event and ordinal, the faults
// armed for it and the id of the last one that fired. Every Env method
// takes the same steps: cross (a crashed worker's call ends there),
// notFound for a reader that finds nothing, disturb (or each) to run the
// armed faults' hooks, and done to record the crossing, which checks the
// invariants after it.
type crossing struct {
	r    *run
	ev   EventName
	ord  int
	hits []*armed
	fid  string
}

// cross enters a crossing of ev that takes cost logical ms (for a
// tool.commit, of tool); ok is false when the worker has crashed.
func (r *run) cross(ev EventName, cost Millis, tool string) (c crossing, ok bool) {
	c.r, c.ev = r, ev
	c.ord, c.hits, ok = r.enterTool(ev, cost, tool)
	return c, ok
}

// notFound records a crossing that found nothing (outcome and detail) and
// returns ErrNotFound.
func (c *crossing) notFound(outcome, text string) error {
	c.r.record(c.ev, c.ord, "", outcome, text, running(c.r))
	return ErrNotFound
}

// done records the crossing with outcome and detail d; the workflow state
// after it is after, or the running state when after is empty.
func (c *crossing) done(outcome string, d detail, after string) {
	if after == "" {
		after = running(c.r)
	}
	c.r.recordD(c.ev, c.ord, c.fid, outcome, d, after)
}

// each calls apply for every armed fault whose disturbance implements the
// hook H, in schedule order, and fires those apply reports as fired. It
// reports whether any armed fault had the hook.
func each[H any](c *crossing, apply func(h H, f *armed) bool) (hooked bool) {
	for _, f := range c.hits {
		if h, ok := f.kind.impl.(H); ok {
			hooked = true
			if apply(h, f) {
				c.fid = c.r.fire(f)
			}
		}
	}
	return hooked
}

// disturb runs v through the value hooks H of the armed faults, in
// schedule order, and returns the disturbed value. Only a hit takes the
// value's address, so a crossing without faults does not allocate.
func disturb[H any, V any](c *crossing, v V, apply func(H, *run, *V) bool) V {
	for _, f := range c.hits {
		if h, ok := f.kind.impl.(H); ok {
			x := v
			if apply(h, c.r, &x) {
				c.fid = c.r.fire(f)
			}
			v = x
		}
	}
	return v
}

// ReadSubject implements ContextReader (event context.subject).
func (e *taskEnv) ReadSubject(ctx context.Context, id string) (Subject, error) {
	c, ok := e.r.cross(EvContextSubject, costRead, "")
	if !ok {
		return Subject{}, ErrWorkerCrashed
	}
	o, found := c.r.world.Subject(id)
	if !found {
		return Subject{}, c.notFound("not_found", "")
	}
	out := disturb(&c, o.clone(), subjectHook.onSubject)
	c.done("ok", detail{kind: dVersion, n1: out.Version}, "")
	return out, nil
}

// ReadPolicy implements ContextReader (event context.policy).
func (e *taskEnv) ReadPolicy(ctx context.Context, tenant string) (Policy, error) {
	c, ok := e.r.cross(EvContextPolicy, costRead, "")
	if !ok {
		return Policy{}, ErrWorkerCrashed
	}
	p, found := c.r.world.served(tenant)
	if !found {
		return Policy{}, c.notFound("not_found", "")
	}
	out := disturb(&c, p, policyHook.onPolicy)
	c.r.world.fetched(tenant, out)
	d := detail{kind: dVersion, n1: out.Version}
	if out.AsOf != c.r.world.Clock {
		d.b1, d.n2 = true, int64(out.AsOf) // the replica's kept copy
	}
	c.done("ok", d, "")
	return out, nil
}

// ReadEligibility implements ContextReader (event context.eligibility).
func (e *taskEnv) ReadEligibility(ctx context.Context, subject, source string) (Eligibility, error) {
	c, ok := e.r.cross(EvContextEligibility, costRead, "")
	if !ok {
		return Eligibility{}, ErrWorkerCrashed
	}
	r := c.r
	o, found := r.world.Subject(subject)
	if !found {
		return Eligibility{}, c.notFound("not_found", "")
	}
	el := Eligibility{Subject: subject, Eligible: !r.world.held(o.Status), Source: source, AsOf: r.world.Clock}
	if source != r.world.rules.authoritative {
		for _, s := range r.world.Secondary {
			if s.Subject == subject && (s.Source == "" || s.Source == source) {
				el.Eligible = s.Eligible
			}
		}
	}
	r.readEligibility(&el)
	el = disturb(&c, el, eligibilityHook.onEligibility)
	c.done("ok", detail{kind: dEligible, s1: el.Source, b1: el.Eligible}, "")
	return el, nil
}

// Propose implements Proposer (event proposal): the harness's model
// returns the draft unless a fault disturbs it.
func (e *taskEnv) Propose(ctx context.Context, draft Action) (Action, error) {
	c, ok := e.r.cross(EvProposal, costRead, "")
	if !ok {
		return Action{}, ErrWorkerCrashed
	}
	a := disturb(&c, draft, proposalHook.onProposal)
	c.r.proposal = a
	c.r.proposed = true
	c.done("ok", detail{kind: dSubject, s1: a.Subject}, "")
	return a, nil
}

// Approve implements Authority (event authority.grant): it returns the
// task's capability grant as approved.
func (e *taskEnv) Approve(ctx context.Context, task Task, a Action) (Capability, error) {
	x, ok := e.r.cross(EvAuthorityGrant, costRead, "")
	if !ok {
		return Capability{}, ErrWorkerCrashed
	}
	r := x.r
	c, found := r.world.Capability(task.Capability)
	if !found || c.Revoked || !c.Live(r.world.Clock) {
		return Capability{}, x.notFound("rejected", "no live capability")
	}
	r.granted = append(r.granted, c.ID)
	r.grantedAt = r.world.Clock
	granted := disturb(&x, *c, grantHook.onGrant)
	x.done("ok", detail{kind: dCapability, s1: granted.ID}, "")
	return granted, nil
}

// Check implements Authority (event authority.check): the capability's
// current record, read at the check's time (Capability.AsOf), unless a
// cache in front of the record serves it (see sliding_grant_cache).
func (e *taskEnv) Check(ctx context.Context, id string) (Capability, error) {
	x, ok := e.r.cross(EvAuthorityCheck, costRead, "")
	if !ok {
		return Capability{}, ErrWorkerCrashed
	}
	r := x.r
	c, found := r.world.Capability(id)
	if !found {
		return Capability{}, x.notFound("not_found", "")
	}
	ans := *c
	ans.AsOf = r.world.Clock
	if len(x.hits) > 0 {
		ans = r.disturbCheck(&x, ans)
	}
	if x.fid == "" && len(r.grantCache) > 0 {
		if c, f, ok := r.grantCache.serve(id, r.world.Clock); ok {
			ans = c
			x.fid = r.fire(f) // the cache the fault put in front of the record still serves the entry
		}
	}
	out := "live"
	if !ans.Live(r.world.Clock) {
		out = "not_live"
	}
	d := detail{kind: dCapability, s1: id}
	if ans.AsOf != r.world.Clock {
		d.b1, d.n1 = true, int64(ans.AsOf)
	}
	x.done(out, d, "")
	return ans, nil
}

// disturbCheck applies the check hooks of the armed faults to ans (apart
// from Check, so a check without faults does not allocate the answer a
// hook takes the address of).
func (r *run) disturbCheck(x *crossing, ans Capability) Capability {
	each(x, func(h checkHook, f *armed) bool {
		c := ans
		if !h.onCheck(r, f, &c) {
			return false
		}
		ans = c
		return true
	})
	return ans
}

// ReadVersion implements StateReader (event state.read).
func (e *taskEnv) ReadVersion(ctx context.Context, subject string) (int64, error) {
	c, ok := e.r.cross(EvStateRead, costRead, "")
	if !ok {
		return 0, ErrWorkerCrashed
	}
	o, found := c.r.world.Subject(subject)
	if !found {
		return 0, c.notFound("not_found", "")
	}
	v := o.Version
	if len(c.hits) > 0 {
		v = c.r.disturbVersion(&c, subject, v)
	}
	c.done("ok", detail{kind: dVersion, n1: v}, "")
	return v, nil
}

// disturbVersion applies the state-read hooks of the armed faults to
// version v of subject (apart from ReadVersion, so a read without faults
// does not allocate the version a hook takes the address of).
func (r *run) disturbVersion(c *crossing, subject string, v int64) int64 {
	each(c, func(h stateReadHook, _ *armed) bool { return h.onStateRead(r, subject, &v) })
	return v
}

// provide is the model's provider: it commits a request unless its key is
// already committed, in which case it replays the original receipt.
func (r *run) provide(call ToolCall) ToolResult {
	if len(r.inflight) > 0 {
		late := r.inflight[0]
		r.inflight = r.inflight[1:]
		r.provide(late)
	}
	if res, ok := r.underContract(&call); !ok {
		r.notifyResult(call, res)
		return res
	}
	// the first entry of the tool under the key, found through the key's
	// entries newest first
	r.ix.syncLedger(r.world.Ledger)
	first := -1
	for i := r.ix.byKey.newest(call.RequestKey); i >= 0; i = r.ix.byKey.prev[i] {
		if e := &r.world.Ledger[i]; e.Tool == call.Tool && e.Key == call.RequestKey {
			first = i
		}
	}
	if first >= 0 {
		e := &r.world.Ledger[first]
		return ToolResult{Outcome: OutcomeCommitted, Replayed: true, Reason: "idempotent replay",
			Receipt: r.receipt(e)}
	}
	a := call.Action
	if _, ok := r.world.Subject(a.Subject); !ok && len(r.world.Subjects) > 0 || a.Amount < 0 || call.RequestKey == "" {
		res := ToolResult{Outcome: OutcomeRejected, Reason: "invalid request"}
		r.notifyResult(call, res)
		return res
	}
	if why := r.guardGap(call); why != "" {
		res := ToolResult{Outcome: OutcomeRejected, Class: classPrecondition, Reason: "precondition failed: " + why}
		r.notifyResult(call, res)
		return res
	}
	n := len(r.world.Ledger) + 1
	e := LedgerEntry{Seq: n, Task: r.task.ID, Tool: call.Tool, Key: call.RequestKey, ActionRef: a.IdempotencyKey,
		Actor: a.Actor, Subject: a.Subject, Tenant: a.Tenant, Purpose: a.Purpose, Amount: a.Amount,
		ExpectedVersion: a.ExpectedVersion, PolicyVersion: a.PolicyVersion, CapabilityID: a.CapabilityID,
		Trace: a.TraceID, ReceiptID: r.rcptNames.name(n), At: r.world.Clock}
	r.world.Ledger = append(r.world.Ledger, e)
	if r.notices() {
		r.notify(call, noticeCommitted, e.ReceiptID, "")
	}
	return ToolResult{Outcome: OutcomeCommitted,
		Receipt: r.receipt(&e)}
}

// receipt returns the receipt of ledger entry e, in storage of its own
// (an arena part).
func (r *run) receipt(e *LedgerEntry) *Receipt {
	p := &r.rcptOut.take(1)[0]
	*p = Receipt{ID: e.ReceiptID, Key: e.Key, Subject: e.Subject, Amount: e.Amount, Trace: e.Trace, At: e.At}
	return p
}

// guardGap returns the first guarded precondition of call that the World
// does not satisfy now, or "".
func (r *run) guardGap(call ToolCall) string {
	a := call.Action
	if call.Guard&GuardCapability != 0 {
		c, ok := r.world.Capability(a.CapabilityID)
		if !ok || !c.Live(r.world.Clock) || a.Amount > c.Amount {
			return "capability is not live"
		}
	}
	if call.Guard&GuardBinding != 0 {
		c, ok := r.world.Capability(a.CapabilityID)
		switch {
		case !ok:
			return "no capability " + quoteID(a.CapabilityID) + " binds the action"
		case a.Subject != c.Subject || a.Tenant != c.Tenant || a.Purpose != c.Purpose || a.Actor != c.Actor:
			return "capability " + c.ID + " is bound to " + c.Subject + ", not " + a.Subject
		}
	}
	if call.Guard&GuardState != 0 {
		if o, ok := r.world.Subject(a.Subject); len(r.world.Subjects) > 0 && (!ok || o.Version != a.ExpectedVersion) {
			return "state version changed"
		}
	}
	if call.Guard&GuardContext != 0 {
		if p, ok := r.world.Policy(a.Tenant); len(r.world.Policies) > 0 && (!ok || p.Version != a.PolicyVersion || !p.allowsAmount(a.Amount)) {
			return "policy changed"
		}
		if o, ok := r.world.Subject(a.Subject); len(r.world.Subjects) > 0 && (!ok || r.world.held(o.Status)) {
			return "record no longer eligible"
		}
		if r.reliedGap(LedgerEntry{Subject: a.Subject}) != "" {
			return "evidence item withdrawn"
		}
	}
	return ""
}

// Commit implements ToolClient (event tool.commit).
func (e *taskEnv) Commit(ctx context.Context, call ToolCall) (ToolResult, error) {
	r := e.r
	if r.live.observed != nil && r.live.send == nil {
		// a production system's provider is real: the model's has no
		// ledger the oracle reads
		return ToolResult{}, r.misuse(errors.New("env.Tool.Commit: a system that implements model.Observed commits through an adapter (env.Calls.Commit), whose send reaches its real provider"))
	}
	c, ok := r.cross(EvToolCommit, costCommit, call.Tool)
	if !ok {
		return ToolResult{}, ErrWorkerCrashed
	}
	// A restarted worker's send that replays, under the same idempotency
	// key, the crashed worker's last send when the crashed worker never
	// recorded its outcome (no checkpoint after it) is a reconciliation:
	// whatever the provider answered, the durable workflow never learned
	// it. The budget allows one such re-send per restart on top of the
	// retry budget (the harness practice: "If exactly-once cannot be proven, downgrade
	// the verdict and require reconciliation"; a key that is safe to replay
	// may be replayed).
	if r.lastSendWorker > 0 && r.lastSendWorker != r.worker && r.lastSendUnrecorded && call.RequestKey != "" && call.RequestKey == r.lastSendKey {
		r.reconciled++
	}
	r.attempts++
	if r.live.observed != nil && r.h.opts.Clock != nil {
		r.paced(r.world.Clock) // production code's crossing takes no logical cost
	} else {
		r.paced(r.world.Clock - costCommit)
	}
	switch {
	case slices.ContainsFunc(c.hits, frontDoor):
		// the provider is down: its front door refuses the send at once,
		// and it is not load the provider serves
		if r.fleet.on {
			r.fleet.load.OutageRefused++
		}
	case unsent(c.hits):
		// the request never leaves the client: no load on the provider
	default:
		r.fleet.send(r.world.Clock-costCommit, r.attempts > 1)
	}
	r.state = stateWaitingForTool
	op := r.sendOp(call)
	if r.conc != nil {
		// the call is out: other workers may cross before its reply, and
		// their time is not the call's (commitWait)
		before := r.world.Clock
		r.yieldAt(0)
		r.commitWait += r.world.Clock - before
	}
	var res ToolResult
	switch {
	case len(c.hits) > 0:
		res, c.fid = r.disturbCommit(call, c.hits)
	case r.live.observed != nil:
		res = r.liveSend(call)
	default:
		res = r.provide(call)
	}
	d := detail{kind: dCommit, s1: call.Tool, s2: call.RequestKey, b1: res.Replayed, b2: res.Receipt != nil}
	r.lastSendWorker, r.lastSendKey, r.lastSendUnrecorded = r.worker, call.RequestKey, true
	r.commitTool = call.Tool
	r.asked(res)
	r.replyOp(op, res)
	out := res.Outcome.String()
	if res.failedInBody() {
		out = OutcomeRejected.String() // what the provider answered, inside its success envelope
	}
	c.done(out, d, stateRunning)
	return res, nil
}

// disturbCommit runs a commit through the faults armed for it; they compose
// in schedule order, the first wrapping the rest. It returns the result and
// the id of the last fault that fired.
func (r *run) disturbCommit(call ToolCall, hits []*armed) (ToolResult, string) {
	c := &r.commits
	if c.owner != r {
		// new, or a copy of another run's: its functions are that run's
		*c = commitChain{owner: r}
	}
	c.hits, c.fid = c.hits[:0], ""
	for _, f := range hits {
		// an answer fault's adapter is asked once the answer arrived
		// (commitLevel): it may render the kind on one answer, not another
		if h, ok := f.kind.impl.(commitHook); ok && (r.live.enacts == nil || answerFault(h) || r.live.enacts(f.entry.Kind)) {
			c.hits = append(c.hits, f)
			c.hooks = append(c.hooks[:len(c.hits)-1], h)
		}
	}
	res := r.commitLevel(0)(call)
	clear(c.hooks)
	c.hits = c.hits[:0]
	return res, c.fid
}

// answerLevel runs the answer fault hooks[j] of a live commit around the
// levels after it, and asks the adapter (CommitOnly's enacts) whether it
// renders the kind on the answer it got: if not, the fault does not fire
// and the answer passes untouched.
func (r *run) answerLevel(j int, call ToolCall) (ToolResult, bool) {
	var answered ToolResult
	next := r.commitLevel(j + 1)
	res, fired := r.commits.hooks[j].onCommit(r, call, func(call ToolCall) ToolResult { answered = next(call); return answered })
	if fired && !r.live.enacts(r.commits.hits[j].entry.Kind) {
		return answered, false
	}
	return res, fired
}

// answerFault reports whether h lets the provider answer and changes
// the answer (timeout_after_commit, partial_success_response,
// malformed_response, output_drift).
func answerFault(h commitHook) bool {
	k, ok := h.(commitFault)
	return ok && k.after != nil
}

// commitChain is the state of disturbCommit's composition of commit
// hooks, kept by the run so that composing them does not allocate: hooks
// and hits are the hooks that apply and their faults, in schedule order;
// levels[i] runs hooks[i] around levels[i+1], the last level around the
// provider; fid is the id of the last fault that fired; owner is the run
// the functions are bound to.
type commitChain struct {
	owner  *run
	hits   []*armed
	hooks  []commitHook
	levels []func(ToolCall) ToolResult
	send   func(ToolCall) ToolResult // the provider (r.provide or r.liveSend)
	live   func(ToolCall) ToolResult
	fid    string
}

// commitLevel returns the function that runs the commit hooks from i on
// around the provider, made once per run struct and kept.
func (r *run) commitLevel(i int) func(ToolCall) ToolResult {
	c := &r.commits
	if i == len(c.hits) {
		if r.live.observed != nil {
			if c.live == nil {
				c.live = r.liveSend
			}
			return c.live
		}
		if c.send == nil {
			c.send = r.provide
		}
		return c.send
	}
	for len(c.levels) <= i {
		j := len(c.levels)
		c.levels = append(c.levels, func(call ToolCall) ToolResult {
			r.commitTarget = r.commits.hits[j].entry.Target
			var res ToolResult
			var fired bool
			if h := r.commits.hooks[j]; r.live.enacts != nil && answerFault(h) {
				res, fired = r.answerLevel(j, call)
			} else {
				res, fired = h.onCommit(r, call, r.commitLevel(j+1))
			}
			if fired {
				f := r.commits.hits[j]
				r.commits.fid = r.fire(f)
				if _, ok := r.commits.hooks[j].(spanCarrier); ok {
					// the worker keeps the span the disturbance opened
					f.scope = &workerScope{slot: r.slot(), ambient: Ambient{Trace: r.openSpan}}
				}
			}
			return res
		})
	}
	return c.levels[i]
}

// Readback implements LedgerReader (event ledger.readback).
func (e *taskEnv) Readback(ctx context.Context, q ReadbackQuery) ([]LedgerEntry, error) {
	x, ok := e.r.cross(EvLedgerReadback, costRead, "")
	if !ok {
		return nil, ErrWorkerCrashed
	}
	r := x.r
	match := func(le *LedgerEntry) bool {
		return (q.ActionRef == "" || le.ActionRef == q.ActionRef) && (q.Subject == "" || le.Subject == q.Subject)
	}
	// the entries of the reference, or of the subject, newest first
	// (every entry when the query names neither)
	r.ix.syncLedger(r.world.Ledger)
	var c *chain
	key := ""
	switch {
	case q.ActionRef != "":
		c, key = &r.ix.byRef, q.ActionRef
	case q.Subject != "":
		c, key = &r.ix.bySubject, q.Subject
	}
	n := 0
	if c == nil {
		for i := range r.world.Ledger {
			if match(&r.world.Ledger[i]) {
				n++
			}
		}
	} else {
		for i := c.newest(key); i >= 0; i = c.prev[i] {
			if match(&r.world.Ledger[i]) {
				n++
			}
		}
	}
	var out []LedgerEntry
	if n > 0 {
		out = r.ledOut.take(n)
		if c == nil {
			j := 0
			for i := range r.world.Ledger {
				if match(&r.world.Ledger[i]) {
					out[j] = r.world.Ledger[i]
					j++
				}
			}
		} else {
			j := n
			for i := c.newest(key); i >= 0; i = c.prev[i] {
				if match(&r.world.Ledger[i]) {
					j--
					out[j] = r.world.Ledger[i]
				}
			}
		}
	}
	if r.corruptPath && len(out) == 0 {
		out = r.corruptedAnswer(q) // corrupted_readback: the path stays corrupted
	}
	each(&x, func(h readbackHook, _ *armed) (fired bool) {
		out, fired = h.onReadback(r, q, out)
		return fired
	})
	r.readOp(q, out)
	x.done("ok", detail{kind: dEntries, n1: int64(len(out))}, "")
	return out, nil
}

func evidenceEvent(k EvidenceKind) EventName {
	switch k {
	case evidenceDecision:
		return EvEvidenceDecision
	case evidenceReceipt:
		return EvEvidenceReceipt
	case evidenceReadback:
		return EvEvidenceReadback
	case evidenceJoin:
		return evEvidenceJoin
	}
	return EvEvidenceDenial
}

// Append implements EvidenceLedger (event evidence.<kind>).
func (e *taskEnv) Append(ctx context.Context, rec EvidenceRecord) (EvidenceAck, error) {
	c, ok := e.r.cross(evidenceEvent(rec.Kind), costRead, "")
	if !ok {
		return EvidenceAck{}, ErrWorkerCrashed
	}
	var ack EvidenceAck
	if !each(&c, func(h evidenceHook, _ *armed) (fired bool) {
		ack, fired = h.onEvidence(c.r, rec)
		return fired
	}) {
		ack = c.r.storeEvidence(rec)
	}
	c.done(ack.Outcome.String(), detailStr(string(rec.Kind)), "")
	c.r.setEvidenceRef(ack.Ref)
	return ack, nil
}

// Lookup implements EvidenceLedger (event evidence.lookup).
func (e *taskEnv) Lookup(ctx context.Context, trace string) ([]EvidenceRecord, error) {
	c, ok := e.r.cross(EvEvidenceLookup, costRead, "")
	if !ok {
		return nil, ErrWorkerCrashed
	}
	r := c.r
	// the trace's records, newest first through the index
	r.ix.syncEvidence(r.world.Evidence)
	t := &r.ix.byTrace
	n := 0
	for i := t.newest(trace); i >= 0; i = t.prev[i] {
		n++
	}
	var out []EvidenceRecord
	if n > 0 {
		out = r.evOut.take(n)
		j := n
		for i := t.newest(trace); i >= 0; i = t.prev[i] {
			j--
			out[j] = r.world.Evidence[i]
		}
	}
	c.done("ok", detail{kind: dRecords, n1: int64(len(out))}, "")
	return out, nil
}

// storeEvidence appends x to the evidence ledger and acknowledges it.
func (r *run) storeEvidence(x EvidenceRecord) EvidenceAck {
	x.Ref = r.evNames.name(len(r.world.Evidence) + 1)
	x.Task = r.task.ID
	x.At = r.world.Clock
	r.world.Evidence = append(r.world.Evidence, x)
	return EvidenceAck{Ref: x.Ref, Outcome: OutcomeCommitted}
}

// storeCheckpoint makes c durable and advances the task's head. It stores
// once per checkpoint.write crossing, however many disturbances there
// compose.
func (r *run) storeCheckpoint(c *Checkpoint) {
	if r.cpStored {
		return
	}
	r.cpStored = true
	r.world.Checkpoints = append(r.world.Checkpoints, *c)
	r.ckSeq = c.Seq
	r.world.setHead(c.Task, max(r.world.Head(c.Task), c.Seq))
}

// newestCheckpoint returns the index of the newest stored checkpoint of
// task, or -1.
func (r *run) newestCheckpoint(task string) int {
	return r.olderCheckpoint(task, len(r.world.Checkpoints))
}

// stamped returns a copy of a stored checkpoint with the checksum of what
// was written.
func stamped(c Checkpoint) Checkpoint {
	cp := copyCheckpoint(c)
	cp.Checksum = Checksum(c)
	return cp
}

func copyCheckpoint(cp Checkpoint) Checkpoint {
	if cp.CompletedEffects != nil {
		cp.CompletedEffects = append([]string(nil), cp.CompletedEffects...)
	}
	if cp.Data != nil {
		cp.Data = maps.Clone(cp.Data)
	}
	return cp
}

// Save implements CheckpointStore (event checkpoint.write). The store keeps
// a deep copy: nothing the worker holds in memory aliases it.
func (e *taskEnv) Save(ctx context.Context, cp Checkpoint) error {
	c, ok := e.r.cross(EvCheckpointWrite, costRead, "")
	if !ok {
		return ErrWorkerCrashed
	}
	r := c.r
	r.cpStored, r.cpRolledBack = false, false
	// the checkpoint's own copies of its slice and map (the effects in
	// an arena part)
	if len(cp.CompletedEffects) > 0 {
		cp.CompletedEffects = append(r.effOut.take(len(cp.CompletedEffects))[:0], cp.CompletedEffects...)
	} else {
		cp.CompletedEffects = nil
	}
	if cp.Data != nil {
		cp.Data = maps.Clone(cp.Data)
	}
	cp.Task = r.task.ID
	cp.At = r.world.Clock - costRead // the time the write was issued
	cp.Head = 0
	// the checksum is stamped when the checkpoint is served (see Load):
	// stored checkpoints are immutable, so it is the checksum of what was
	// written, and the hot path does not hash checkpoints nobody reads
	var err error
	if !each(&c, func(h checkpointWriteHook, _ *armed) (fired bool) {
		err, fired = h.onCheckpointWrite(r, cp)
		return fired
	}) {
		r.storeCheckpoint(&cp)
	}
	seq := len(r.evs) + 1
	// a checkpoint written after a send records that the worker saw its
	// outcome: a crash from here on leaves nothing to reconcile
	if r.lastSendWorker == r.worker {
		r.lastSendUnrecorded = false
	}
	c.done("ok", detail{kind: dCheckpointWrite, n1: int64(cp.Seq), s1: cp.State}, stateCheckpointed)
	r.oracle.checkCheckpoint(r, seq, &cp)
	if r.pendingCrash != "" {
		r.crash(r.pendingCrash)
		r.pendingCrash = ""
	}
	return err
}

// Load implements CheckpointStore (event checkpoint.load). A pending
// checkpoint disturbance decides what the store serves; the oracle compares
// it with the newest checkpoint the store truly holds.
func (e *taskEnv) Load(ctx context.Context, task string) (Checkpoint, bool, error) {
	c, ok := e.r.cross(EvCheckpointLoad, costRead, "")
	if !ok {
		return Checkpoint{}, false, ErrWorkerCrashed
	}
	r := c.r
	if r.fork.loading {
		if cp, ok := r.forkLoad(task); ok {
			c.done("ok", detail{kind: dCheckpointLoad, n1: int64(cp.Seq), n2: int64(cp.Head), s1: cp.State}, stateResumed)
			return cp, true, nil
		}
	}
	head := r.world.Head(task)
	newest := r.newestCheckpoint(task)
	tamper := r.tamper
	r.tamper = tamperNone
	if newest < 0 || tamper == tamperMissing {
		r.invalidLoad = ""
		if newest >= 0 {
			r.invalidLoad = "the store served no checkpoint although it holds one"
		}
		r.pace = pacing{} // the back-off owed is lost with the store's record
		c.done("none", detail{kind: dHead, n1: int64(head)}, "")
		return Checkpoint{Head: head}, false, nil
	}
	cp, served := stamped(r.world.Checkpoints[newest]), newest
	switch tamper {
	case tamperStale:
		// a lagging replica: the previous checkpoint of the task (when the
		// store holds none older, the replica has caught up)
		r.invalidLoad = ""
		if i := r.olderCheckpoint(task, newest); i >= 0 {
			cp, served = stamped(r.world.Checkpoints[i]), i
			r.invalidLoad = "the store served a stale checkpoint"
		}
	case tamperFuture:
		cp.WorkflowVersion++
		cp.State = "settled_v" + strconv.Itoa(cp.WorkflowVersion)
		cp.Checksum = Checksum(cp)
		r.invalidLoad = "the store served a checkpoint of a future workflow version"
	case tamperCorrupt:
		cp.State = "effectef" // a flipped byte; the stamped checksum no longer matches
		cp.CompletedEffects = nil
		r.invalidLoad = "the store served a corrupt checkpoint"
	default:
		r.invalidLoad = ""
	}
	if served < r.pace.cps {
		r.pace = pacing{} // served a record written before the reply that asked
	}
	cp.Head = head
	r.ckSeq = cp.Seq
	c.done("ok", detail{kind: dCheckpointLoad, n1: int64(cp.Seq), n2: int64(head), s1: cp.State}, stateResumed)
	return cp, true, nil
}

// sleep implements Env.Sleep (event clock.sleep).
func (e *taskEnv) sleep(ctx context.Context, d Millis) error {
	c, ok := e.r.cross(EvClockSleep, max(d, 0), "")
	if !ok {
		return ErrWorkerCrashed
	}
	c.done("ok", detailStr(""), "")
	return nil
}

// memoryEnv implements Memory over the current worker's ephemeral context.
type memoryEnv taskEnv

// Put implements Memory (event memory.write).
func (m *memoryEnv) Put(ctx context.Context, key, value string) error {
	c, ok := m.r.cross(EvMemoryWrite, 1, "")
	if !ok {
		return ErrWorkerCrashed
	}
	r := c.r
	found := false
	for i := range r.memory {
		if r.memory[i].k == key {
			r.memory[i].v, r.memory[i].at, found = value, r.world.Clock, true
		}
	}
	if !found {
		r.memory = append(r.memory, kv{key, value, r.world.Clock})
	}
	c.done("ok", detailStr(key), "")
	return nil
}

// Get implements Memory (event memory.read).
func (m *memoryEnv) Get(ctx context.Context, key string) (string, bool, error) {
	c, ok := m.r.cross(EvMemoryRead, 1, "")
	if !ok {
		return "", false, ErrWorkerCrashed
	}
	r := c.r
	each(&c, func(h memoryHook, f *armed) bool { return h.onMemoryRead(r, f.entry.Target) })
	cut := r.h.opts.ContextCutoff
	for _, x := range r.memory {
		if x.k == key && (cut <= 0 || r.world.Clock-x.at <= cut) {
			c.done("hit", detailStr(key), "")
			return x.v, true, nil
		}
	}
	c.done("miss", detailStr(key), "")
	return "", false, nil
}

// branchEnv implements Branches: each branch is a synthetic child attempt
// that succeeds unless a fault fails it.
type branchEnv taskEnv

// Run implements Branches (event branch.run).
func (b *branchEnv) Run(ctx context.Context, name string, compensate bool) (BranchStatus, error) {
	c, ok := b.r.cross(EvBranchRun, costRead, "")
	if !ok {
		return "", ErrWorkerCrashed
	}
	r := c.r
	status := branchSuccess
	each(&c, func(h branchHook, f *armed) bool {
		st, fired := h.onBranch(r, name, f.entry.Target)
		if fired {
			status = st
		}
		return fired
	})
	if compensate {
		r.compensations++
	} else {
		r.branches = append(r.branches, BranchOutcome{Name: name, Status: status})
	}
	c.done(string(status), detailStr(name), "")
	return status, nil
}

// Join implements Branches (event branch.join): the record is kept in the
// World and appended to the evidence ledger.
func (b *branchEnv) Join(ctx context.Context, rec JoinRecord) error {
	c, ok := b.r.cross(EvBranchJoin, costRead, "")
	if !ok {
		return ErrWorkerCrashed
	}
	r := c.r
	if len(rec.Branches) > 0 {
		rec.Branches = append(r.joinOut.take(len(rec.Branches))[:0], rec.Branches...)
	} else {
		rec.Branches = nil
	}
	r.world.Joins = append(r.world.Joins, rec)
	ack := r.storeEvidence(EvidenceRecord{Kind: evidenceJoin, Trace: r.task.Trace, Detail: string(rec.Policy)})
	c.done("ok", detailStr(string(rec.Policy)), "")
	r.setEvidenceRef(ack.Ref)
	r.oracle.checkJoin(r, len(r.evs), rec)
	return nil
}

// Warn implements Signals (event system.warn).
func (e *taskEnv) Warn(code, detail string) {
	r := e.r
	if r.crashed {
		return
	}
	r.record(EvWarn, 0, "", code, detail, r.state)
	r.oracle.warned(r, len(r.evs))
}
