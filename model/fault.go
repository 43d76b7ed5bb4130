package model

import (
	"fmt"
	"slices"
	"strings"
)

// FaultSpec is the typed specification of a fault kind: domain, mode,
// target, timing, intensity, scope, expected recoverability. It describes
// the fault and decides nothing: the disturbance is code that changes the
// World or a call at Event, and the oracle decides every outcome.
// Threatens is a declared prediction that tests check against the oracle;
// which defence interrupts a kind is the system's (Definition.Defences).
type FaultSpec struct {
	Kind        string      `json:"kind"`
	Domain      Domain      `json:"domain"`
	Mode        string      `json:"mode"`
	Target      string      `json:"target"`
	Event       EventName   `json:"event"`
	Boundary    Boundary    `json:"boundary"`
	Phase       Phase       `json:"phase"`
	Correlation Correlation `json:"correlation"`
	// Correlations are the other correlations a fault entry may give the
	// kind (FaultEntry.Correlation), each a coverage key of its own; none
	// for most kinds.
	Correlations []Correlation `json:"correlations,omitempty"`
	Signal       Signal        `json:"withheld_signal"`
	Manner       Manner        `json:"manner,omitempty"`
	Oracle       OracleName    `json:"oracle"`
	// Intensity is the disturbance's strength as a rate in [0,1]; every
	// catalogue fault applies fully (1) at its event.
	Intensity   float64  `json:"intensity"`
	Scope       string   `json:"scope"`
	Recoverable bool     `json:"recoverable"`
	Threatens   []string `json:"threatens"`
	// Ordinal is the occurrence of Event a single-fault trial attaches to
	// (see SingleFault): 1 for most kinds; 2 for checkpoint_rollback, whose
	// disturbance needs an older checkpoint to roll back to (the reference
	// workflow's second checkpoint is the first written after the effect).
	Ordinal int `json:"ordinal"`
	// Paper is true for the ten modes of the paper's artefact.
	Paper bool `json:"paper"`
	// World is true for a world event (see WorldEvents): it may be
	// attached to any event, and Event and Ordinal are only its default
	// placement.
	World bool `json:"world,omitempty"`
	// WorkerScoped is true for a kind whose disturbance persists in a
	// worker across tasks: it shows only where one worker runs several
	// tasks in sequence (Concurrency.Workers below the fixture's task
	// count); on a one-task workload it is reached and never fires.
	WorkerScoped bool `json:"worker_scoped,omitempty"`
	// Fleet is true for a kind outside the catalogue whose harm is a
	// fleet's load (a retry storm): coverage counts no key of it, and the
	// default search draws it, unnamed, on a fleet fixture (Fixture.Fleet)
	// only, but do_not_retry, drawn at every tool.commit (one agent that
	// retries it breaks retry_paced). False, a kind is drawn where it can
	// act: server_error and network_error at every tool.commit, the others
	// where their workload is (WorkerScoped, the fixture's declarations)
	// or, sliding_grant_cache, only when named.
	Fleet bool `json:"fleet,omitempty"`
	// LastsMs, above zero, makes the kind lasting: once fired, it hits
	// every later crossing of its event, of every task and worker, sent
	// less than LastsMs logical ms after the first (an outage).
	LastsMs Millis `json:"lasts_ms,omitempty"`
	// Needs names the fixture declaration a kind outside the catalogue
	// needs for the default search to draw it: "at_least_once"
	// (Fixture.AtLeastOnce), "granted_sources" (Fixture.GrantedSources),
	// "readback_proxy" (Fixture.ReadbackProxy), "max_policy_age"
	// (Fixture.MaxPolicyAge above 0), "shared_credential"
	// (Fleet.SharedCredential) or "versioned_contracts"
	// (Fixture.VersionedContracts); "" for a kind drawn otherwise.
	Needs string `json:"needs,omitempty"`
	Doc   string `json:"doc"`
}

// faultKind pairs a spec with its disturbance: a value implementing exactly
// one of the hook interfaces below.
type faultKind struct {
	spec FaultSpec
	impl any
}

// Hook interfaces: a disturbance implements the one for its event. The
// methods are unexported, so the catalogue is closed: every kind is defined
// here, with its spec.
type (
	proposalHook interface{ onProposal(r *run, a *Action) bool }
	grantHook    interface {
		onGrant(r *run, c *Capability) bool
	}
	policyHook      interface{ onPolicy(r *run, p *Policy) bool }
	eligibilityHook interface {
		onEligibility(r *run, e *Eligibility) bool
	}
	subjectHook interface{ onSubject(r *run, o *Subject) bool }
	commitHook  interface {
		onCommit(r *run, call ToolCall, provider func(ToolCall) ToolResult) (ToolResult, bool)
	}
	evidenceHook interface {
		onEvidence(r *run, rec EvidenceRecord) (EvidenceAck, bool)
	}
	checkpointWriteHook interface {
		onCheckpointWrite(r *run, cp Checkpoint) (error, bool)
	}
	memoryHook interface {
		onMemoryRead(r *run, target string) bool
	}
	branchHook interface {
		onBranch(r *run, name, target string) (BranchStatus, bool)
	}
	readbackHook interface {
		onReadback(r *run, q ReadbackQuery, entries []LedgerEntry) ([]LedgerEntry, bool)
	}
	stateReadHook interface {
		onStateRead(r *run, subject string, version *int64) bool
	}
	checkHook interface {
		onCheck(r *run, f *armed, c *Capability) bool
	}
	workerHook interface {
		onWorkerStart(r *run, w *workerScope, amb *Ambient) bool
	}
)

// hookFits reports whether impl can be injected at event e.
func hookFits(impl any, e EventName) bool {
	if _, ok := impl.(worldHook); ok {
		return eventIndex(e) >= 0
	}
	switch e {
	case EvProposal:
		_, ok := impl.(proposalHook)
		return ok
	case EvAuthorityGrant:
		_, ok := impl.(grantHook)
		return ok
	case EvContextPolicy:
		_, ok := impl.(policyHook)
		return ok
	case EvContextEligibility:
		_, ok := impl.(eligibilityHook)
		return ok
	case EvContextSubject:
		_, ok := impl.(subjectHook)
		return ok
	case EvToolCommit:
		_, ok := impl.(commitHook)
		return ok
	case EvEvidenceReceipt, EvEvidenceDecision, EvEvidenceReadback, EvEvidenceDenial:
		_, ok := impl.(evidenceHook)
		return ok
	case EvCheckpointWrite:
		_, ok := impl.(checkpointWriteHook)
		return ok
	case EvMemoryRead:
		_, ok := impl.(memoryHook)
		return ok
	case EvBranchRun:
		_, ok := impl.(branchHook)
		return ok
	case EvLedgerReadback:
		_, ok := impl.(readbackHook)
		return ok
	case EvStateRead:
		_, ok := impl.(stateReadHook)
		return ok
	case EvAuthorityCheck:
		_, ok := impl.(checkHook)
		return ok
	case EvWorkerStart:
		_, ok := impl.(workerHook)
		return ok
	case EvNoticeReceive:
		_, ok := impl.(noticeHook)
		return ok
	}
	return false
}

// --- identity ---

type subjectSwap struct{}

// onProposal swaps the proposal's subject for another subject of the same
// tenant, as if newer retrieved text rewrote it after the proposal.
func (subjectSwap) onProposal(r *run, a *Action) bool {
	for _, o := range r.world.Subjects {
		if o.ID != a.Subject && o.Tenant == a.Tenant {
			a.Subject = o.ID
			a.ExpectedVersion = o.Version
			return true
		}
	}
	return false
}

// --- the model's reply ---

type duplicateToolCall struct{}

// onProposal repeats the proposal's call in the model's reply: the same
// tool call, with the same arguments, once more (Action.Duplicates).
func (duplicateToolCall) onProposal(r *run, a *Action) bool {
	a.Duplicates++
	return true
}

type modelRefusal struct{}

// onProposal replaces the proposal with the zero Action: the model refuses
// (or answers with no tool call), so nothing is proposed. A proposal that
// is already empty has nothing to refuse (the kind does not fire).
func (modelRefusal) onProposal(r *run, a *Action) bool {
	if *a == (Action{}) {
		return false
	}
	*a = Action{}
	return true
}

// --- the model's arguments and the context its reply relies on ---

// swapValue is the first value other than own that of yields, or, when
// the world holds none, a value of no record, as an injected instruction
// names it: own marked "injected-".
func swapValue(own string, of func(yield func(string) bool)) string {
	for v := range of {
		if v != "" && v != own {
			return v
		}
	}
	return "injected-" + own
}

type tenantSwap struct{}

// onProposal swaps the tool call's tenant for another tenant the World
// holds (a subject's, a policy's or a capability's), or one it has no
// record of: an instruction injected through a retrieved document.
func (tenantSwap) onProposal(r *run, a *Action) bool {
	if a.Tenant == "" {
		return false
	}
	a.Tenant = swapValue(a.Tenant, func(yield func(string) bool) {
		for _, o := range r.world.Subjects {
			if !yield(o.Tenant) {
				return
			}
		}
		for _, p := range r.world.Policies {
			if !yield(p.Tenant) {
				return
			}
		}
		for _, c := range r.world.Capabilities {
			if !yield(c.Tenant) {
				return
			}
		}
	})
	return true
}

type purposeSwap struct{}

// onProposal swaps the tool call's purpose for another purpose a
// capability of the World grants, or one none grants.
func (purposeSwap) onProposal(r *run, a *Action) bool {
	if a.Purpose == "" {
		return false
	}
	a.Purpose = swapValue(a.Purpose, func(yield func(string) bool) {
		for _, c := range r.world.Capabilities {
			if !yield(c.Purpose) {
				return
			}
		}
	})
	return true
}

type staleContext struct{}

// onProposal has the World's record of the proposal's subject move on a
// state version while the reply relies on the record as its context gave
// it (the proposal keeps its expected version).
func (staleContext) onProposal(r *run, a *Action) bool {
	return advanceVersion(r, a.Subject)
}

type omittedContext struct{}

// onProposal drops from the reply the context items its call relies on:
// the subject's state version and the policy version (both zero).
func (omittedContext) onProposal(r *run, a *Action) bool {
	if a.ExpectedVersion == 0 && a.PolicyVersion == 0 {
		return false
	}
	a.ExpectedVersion, a.PolicyVersion = 0, 0
	return true
}

type malformedToolCall struct{}

// malformedArguments is the parse error of a tool call's cut arguments.
const malformedArguments = "unexpected end of JSON input"

// onProposal cuts the tool call's arguments in the middle: they do not
// parse (Action.Malformed), and the arguments after the cut (purpose,
// amount) decode empty for a reader that ignores the error.
func (malformedToolCall) onProposal(r *run, a *Action) bool {
	if *a == (Action{}) || a.Malformed != "" {
		return false
	}
	a.Malformed, a.Purpose, a.Amount = malformedArguments, "", 0
	return true
}

type revokedCapability struct{}

// onGrant revokes the approved capability in the World right after the
// approval is returned: the system holds a grant that is no longer live.
func (revokedCapability) onGrant(r *run, c *Capability) bool {
	w, ok := r.world.Capability(c.ID)
	if !ok {
		return false
	}
	w.Revoked = true
	return true
}

// --- context ---

type stalePolicy struct{}

// onPolicy publishes a newer policy version that excludes the action while
// the reader serves the version it had cached: the served policy is stale.
func (stalePolicy) onPolicy(r *run, p *Policy) bool {
	next := *p
	next.Version = p.Version + 1
	next.Allows = false
	next.AsOf = 0
	r.world.Policies = append(r.world.Policies, next)
	return true
}

type crossSourceConflict struct{}

// onEligibility places a hold (the fixture's first, Fixture.Holds) on the
// subject's authoritative record (a new state version) while the
// secondary source keeps asserting eligibility.
func (crossSourceConflict) onEligibility(r *run, e *Eligibility) bool {
	o, ok := r.world.Subject(e.Subject)
	if !ok || e.Source == r.world.rules.authoritative {
		return false
	}
	o.Status = r.world.hold()
	o.Version++
	e.Eligible = true
	return true
}

// --- tool ---

// commitFault is the one shape of the tool.commit disturbances. A kind
// either answers in the provider's place (reply: the request never
// reaches the provider; refused: the provider saw it and refused it, so
// its notice says failed; held: the provider holds it and commits it late,
// just before it processes the next commit request), or sends a changed
// call (retrace: under a trace that does not join the decision's), or
// lets the provider commit and changes its answer (after; receipt: only
// an answer that carries a receipt). An answer the provider did not
// commit passes through untouched: the kind has nothing to act on.
type commitFault struct {
	reply   *ToolResult
	refused bool
	held    bool
	retrace bool
	receipt bool
	after   func(ToolResult) ToolResult
}

func (k commitFault) onCommit(r *run, call ToolCall, provider func(ToolCall) ToolResult) (ToolResult, bool) {
	switch {
	case k.reply != nil:
		if k.refused {
			r.notifyResult(call, *k.reply)
		}
		if k.held {
			r.inflight = append(r.inflight, call)
			if r.live.send != nil {
				r.live.holders = append(r.live.holders, holder{r.worker, r.live.send})
			}
		}
		return *k.reply, true
	case k.retrace:
		call.Action.TraceID = "orphan-" + r.nextID()
		return provider(call), true
	}
	res := provider(call)
	if res.Outcome != OutcomeCommitted || k.receipt && res.Receipt == nil {
		return res, false
	}
	return k.after(res), true
}

// The tool.commit disturbances (see the catalogue for each kind's spec).
var (
	// timeout_after_commit: the provider commits and the reply is lost.
	timeoutAfterCommit = commitFault{after: func(ToolResult) ToolResult {
		return ToolResult{Outcome: OutcomeUnknown, Class: ClassTimeout, Reason: "timeout: no reply"}
	}}
	// partial_success_response: a 200 with a partial body (only an
	// answer with a receipt has one to lose).
	partialSuccessResponse = commitFault{receipt: true, after: func(res ToolResult) ToolResult {
		res.Receipt = nil
		res.Reason = "partial response: receipt missing"
		return res
	}}
	// break_trace_lineage: the trace context propagated into the call is
	// replaced.
	breakTraceLineage = commitFault{retrace: true}
	// sandbox_denial: the sandbox refuses to start the tool.
	sandboxDenial = commitFault{reply: &ToolResult{Outcome: OutcomeRejected, Class: classSandboxDenial, Reason: "sandbox policy denied the tool start"}}
	// timeout_before_send: the call times out before the request leaves.
	timeoutBeforeSend = commitFault{reply: &ToolResult{Outcome: OutcomeUnknown, Class: ClassTimeout, Reason: "timeout: request never left"}}
	// reject_before_commit: the provider rejects the request before any
	// durable write.
	rejectBeforeCommit = commitFault{refused: true, reply: &ToolResult{Outcome: OutcomeRejected, Class: ClassRejected, Reason: "provider rejected the request before commit"}}
	// malformed_response: the reply body is truncated; the outcome is
	// unknown and only a fragment of the receipt decodes.
	malformedResponse = commitFault{receipt: true, after: func(res ToolResult) ToolResult {
		frag := *res.Receipt
		frag.ID = frag.ID[:len(frag.ID)/2]
		return ToolResult{Outcome: OutcomeUnknown, Class: ClassInvalidOutput, Receipt: &frag,
			Invalid: "malformed body: unexpected end of JSON input"}
	}}
	// output_drift: the receipt id field is renamed and the amount
	// retyped, so they decode empty while the decoder reports no error.
	outputDrift = commitFault{receipt: true, after: func(res ToolResult) ToolResult {
		d := *res.Receipt
		d.ID, d.Amount = "", 0
		res.Receipt = &d
		return res
	}}
	// rate_limit: a rate limit with a retry-after of 100 logical ms; the
	// provider refuses the request.
	rateLimit = commitFault{refused: true, reply: &ToolResult{Outcome: OutcomeRejected, Class: ClassRateLimited, RetryAfter: 100, Reason: "rate limited"}}
	// do_not_retry: the provider rejects the request permanently and its
	// answer says not to retry it; nothing is committed.
	doNotRetry = commitFault{refused: true, reply: &ToolResult{Outcome: OutcomeRejected, Class: classDoNotRetry, Reason: "rejected permanently: do not retry"}}
	// provider_outage: the provider is down (a 503 without a retry-after);
	// nothing is committed. Lasting (FaultSpec.LastsMs): every send of
	// every worker during the outage gets the same answer.
	providerOutage = commitFault{refused: true, reply: &ToolResult{Outcome: OutcomeRejected, Class: classUnavailable, Reason: "provider unavailable (503): outage"}}
	// credential_expired: the fleet's shared credential has expired (a
	// 401); nothing is committed. Lasting: every send that crosses with
	// the first, each carrying the same token, gets the same answer.
	credentialExpired = commitFault{refused: true, reply: &ToolResult{Outcome: OutcomeRejected, Class: classUnauthorized, Reason: "unauthorized (401): credential expired"}}
	// tool_timeout: the client times out while the provider holds the
	// request, which it commits late.
	toolTimeout = commitFault{held: true, reply: &ToolResult{Outcome: OutcomeUnknown, Class: ClassTimeout, Reason: "timeout: no reply yet"}}
	// budget_exhaustion: the provider is unreachable from this call on
	// (persistent): every attempt times out before it is sent.
	budgetExhaustion = commitFault{reply: &ToolResult{Outcome: OutcomeUnknown, Class: ClassTimeout, Reason: "timeout: provider unreachable"}}
)

// transportFault is server_error and network_error: the client sees an
// error that does not say whether the provider committed (OutcomeUnknown,
// class server_error or network_error). Where it strikes is the fault's
// target: "" before any durable write (the provider never commits), or
// targetAfterCommit after the provider has processed the request, so
// whether anything was committed is whatever the provider and the World
// made of it (its guards, its idempotency replay, its ledger).
type transportFault struct {
	class, before, after string
}

// targetAfterCommit is the target of a transport fault that strikes after
// the provider processed the request.
const targetAfterCommit = "after_commit"

func (k transportFault) onCommit(r *run, call ToolCall, provider func(ToolCall) ToolResult) (ToolResult, bool) {
	res := ToolResult{Outcome: OutcomeUnknown, Class: k.class, Reason: k.before}
	if r.commitTarget != targetAfterCommit {
		if k.class == classServerError {
			// the provider saw the request and failed it before any
			// durable write: its notice says failed
			r.notify(call, noticeFailed, "", k.before)
		}
		return res, true
	}
	provider(call) // the provider commits if the World lets it; its answer is lost
	res.Reason = k.after
	return res, true
}

func (transportFault) targetDoc() string { return `"after_commit"` }

func (transportFault) checkTarget(target string) error {
	if target != "" && target != targetAfterCommit {
		return fmt.Errorf("target %q must be empty (before commit) or %q", target, targetAfterCommit)
	}
	return nil
}

type falseSuccess struct{}

// onCommit answers in the provider's place with a success envelope that
// carries the provider's error: the provider saw the request and failed
// it (its notice says failed), nothing was committed, and the envelope
// alone reads as success (ClassErrorInBody; no receipt).
func (falseSuccess) onCommit(r *run, call ToolCall, _ func(ToolCall) ToolResult) (ToolResult, bool) {
	res := ToolResult{Outcome: OutcomeCommitted, Class: ClassErrorInBody,
		Reason: "success envelope carrying an error: the provider failed the request; nothing committed"}
	r.notify(call, noticeFailed, "", res.Reason)
	return res, true
}

// --- state ---

type checkpointRollback struct{}

// onCheckpointWrite stores the checkpoint, then the store rolls back to its
// previous checkpoint for the task and the worker crashes: the restarted
// worker resumes from the older cut while the world has moved on.
func (checkpointRollback) onCheckpointWrite(r *run, cp Checkpoint) (error, bool) {
	r.storeCheckpoint(&cp)
	if r.cpRolledBack {
		return ErrWorkerCrashed, false // the write of this crossing is already undone
	}
	n := 0
	for _, c := range r.world.Checkpoints {
		if c.Task == cp.Task {
			n++
		}
	}
	if n < 2 {
		return nil, false
	}
	// the store restores its previous state: the newest checkpoint of the
	// task and the head that named it are gone
	for i := len(r.world.Checkpoints) - 1; i >= 0; i-- {
		if r.world.Checkpoints[i].Task == cp.Task {
			r.world.Checkpoints = append(r.world.Checkpoints[:i], r.world.Checkpoints[i+1:]...)
			r.ix.cpByTask.reset() // the positions past i moved
			break
		}
	}
	if j := r.newestCheckpoint(cp.Task); j >= 0 {
		r.world.setHead(cp.Task, r.world.Checkpoints[j].Seq)
	}
	r.cpRolledBack = true
	r.pendingCrash = "checkpoint store rolled back; worker restarted"
	return ErrWorkerCrashed, true
}

type concurrentVersionChange struct{}

// onSubject lets the read return, then a concurrent writer advances the
// subject's state version (eligibility unchanged).
func (concurrentVersionChange) onSubject(r *run, o *Subject) bool {
	return advanceVersion(r, o.ID)
}

// advanceVersion has a concurrent writer advance subject's state version
// in the World (eligibility unchanged); false when the World holds no
// such subject.
func advanceVersion(r *run, subject string) bool {
	w, ok := r.world.Subject(subject)
	if !ok {
		return false
	}
	w.Version++
	return true
}

// --- evidence ---

type dropEffectReceipt struct{}

// onEvidence loses the receipt record on its way to the evidence ledger; the
// writer's acknowledgement is lost with it.
func (dropEffectReceipt) onEvidence(r *run, rec EvidenceRecord) (EvidenceAck, bool) {
	return EvidenceAck{Outcome: OutcomeUnknown}, true
}

// --- worker and checkpoint faults of the harness practice ---

type workerRestart struct{}

// onCheckpointWrite stores the checkpoint, then crashes the worker: a fresh
// instance must resume from the store.
func (workerRestart) onCheckpointWrite(r *run, cp Checkpoint) (error, bool) {
	r.storeCheckpoint(&cp)
	r.pendingCrash = "worker restarted after checkpoint write"
	return ErrWorkerCrashed, true
}

// checkpointTamper stores the checkpoint, crashes the worker, and has the
// store serve a damaged view on the restarted worker's load.
type checkpointTamper struct {
	kind tamperKind
	what string
}

func (c checkpointTamper) onCheckpointWrite(r *run, cp Checkpoint) (error, bool) {
	r.storeCheckpoint(&cp)
	if c.kind == tamperStale {
		n := 0
		for _, x := range r.world.Checkpoints {
			if x.Task == cp.Task {
				n++
			}
		}
		if n < 2 {
			return nil, false
		}
	}
	r.tamper = c.kind
	r.pendingCrash = "worker restarted; on resume the store serves " + c.what
	return ErrWorkerCrashed, true
}

// --- memory and branches ---

type memoryLoss struct{ anyTarget }

// onMemoryRead clears the named key of the worker's ephemeral context (all
// keys when target is empty) before the read.
func (memoryLoss) onMemoryRead(r *run, target string) bool {
	n := len(r.memory)
	keep := r.memory[:0]
	for _, x := range r.memory {
		if target != "" && x.k != target {
			keep = append(keep, x)
		}
	}
	r.memory = keep
	return len(r.memory) < n
}

type branchFailure struct{ anyTarget }

// onBranch fails the branch (the named one when target is set).
func (branchFailure) onBranch(r *run, name, target string) (BranchStatus, bool) {
	if target != "" && target != name {
		return "", false
	}
	return branchFail, true
}

// --- reads that lag ---

type laggingReadback struct{}

// onReadback serves the readback from a replica that does not yet hold the
// newest committed entry of the query: the entries but the newest. A
// query with no entry has nothing to lag behind (the kind does not fire).
func (laggingReadback) onReadback(r *run, q ReadbackQuery, entries []LedgerEntry) ([]LedgerEntry, bool) {
	if len(entries) == 0 {
		return entries, false
	}
	newest := 0
	for i := range entries {
		if entries[i].Seq > entries[newest].Seq {
			newest = i
		}
	}
	out := make([]LedgerEntry, 0, len(entries)-1)
	out = append(out, entries[:newest]...)
	return append(out, entries[newest+1:]...), true
}

type staleStateRead struct{}

// onStateRead has a concurrent writer commit a write that advances the
// subject's state version on the primary while the read is served by a
// replica that does not yet hold it: the read returns the version before
// the write.
func (staleStateRead) onStateRead(r *run, subject string, version *int64) bool {
	w, ok := r.world.Subject(subject)
	if !ok {
		return false
	}
	*version = w.Version
	w.Version++
	return true
}

// --- authority served by a sliding cache ---

// grantCacheTTL is the lifetime, in logical milliseconds, of an entry of
// the cache a sliding_grant_cache fault puts in front of the capability
// records: an entry expires grantCacheTTL after its last read, so every
// read within that time slides its expiry and an entry read often never
// expires.
const grantCacheTTL Millis = 30000

// grantCache holds the entries of the sliding cache in front of the
// capability records.
type grantCache []grantEntry

// grantEntry is one cached answer: the capability as the entry was
// filled (its AsOf the fill time), the fault that put the cache there,
// and the entry's sliding expiry.
type grantEntry struct {
	c       Capability
	f       *armed
	expires Millis
}

// serve answers a check of capability id at now from the cache when it
// holds an unexpired entry for it, sliding the entry's expiry; it returns
// the cached answer and the fault whose cache served.
func (gc grantCache) serve(id string, now Millis) (Capability, *armed, bool) {
	for i := range gc {
		if e := &gc[i]; e.c.ID == id && now < e.expires {
			e.expires = now + grantCacheTTL
			return e.c, e.f, true
		}
	}
	return Capability{}, nil, false
}

type slidingGrantCache struct{}

// onCheck puts a cache with a sliding lifetime in front of the capability
// records and revokes the capability on its record: the cache holds the
// entry it filled when the task's grant was approved (before the
// revocation) and answers this check and every later check of the
// capability while reads keep sliding its expiry. A capability the
// record already shows revoked or expired has no live answer to keep
// (the kind does not fire).
func (slidingGrantCache) onCheck(r *run, f *armed, c *Capability) bool {
	if f.fired > 0 {
		return false // the cache is in place: it serves what it holds (grantCache.serve)
	}
	w, ok := r.world.Capability(c.ID)
	if !ok || !w.Live(r.world.Clock) {
		return false
	}
	filled := r.grantedAt
	if filled == 0 {
		filled = r.taskStart
	}
	cached := *w
	cached.AsOf = filled
	r.grantCache = append(r.grantCache, grantEntry{c: cached, f: f, expires: r.world.Clock + grantCacheTTL})
	w.Revoked = true
	*c = cached
	return true
}

// --- worker-scoped faults ---

type ambientIdentityLeak struct{}

// onWorkerStart hands a later task of the worker the ambient identity the
// worker captured when it started (its first task's actor, tenant and
// trace): a context stored at the worker's start and reused for every
// task it runs. A task whose own identity equals the captured one has
// nothing leaked into it (the kind does not fire).
func (ambientIdentityLeak) onWorkerStart(r *run, w *workerScope, amb *Ambient) bool {
	if *amb == w.ambient {
		return false
	}
	*amb = w.ambient
	return true
}

type spanCarryOver struct{}

// onCommit acts on a retry (an attempt after the task's first): the
// client's retry layer opens a root span of its own for the attempt and
// installs it as the worker's running span without restoring the task's.
// The retried call goes out under it, so its trace no longer joins the
// decision's, and the worker keeps it (carry). A first attempt has no
// retry to open a span (the kind does not fire).
func (spanCarryOver) onCommit(r *run, call ToolCall, provider func(ToolCall) ToolResult) (ToolResult, bool) {
	if r.attempts < 2 {
		return provider(call), false
	}
	r.openSpan = "retry-span-" + r.nextID()
	call.Action.TraceID = r.openSpan
	return provider(call), true
}

// carry hands a later task the worker starts the span a retry left
// running (w.ambient.Trace) in place of the task's own trace; its actor
// and tenant stay its own.
func (spanCarryOver) carry(r *run, w *workerScope, amb *Ambient) bool {
	if amb.Trace == w.ambient.Trace {
		return false
	}
	amb.Trace = w.ambient.Trace
	return true
}

// spanCarrier is a commit disturbance whose effect persists in its
// worker: the span it opened (run.openSpan) is kept for the worker and
// handed to every later task the worker starts (run.workerStart).
type spanCarrier interface {
	carry(r *run, w *workerScope, amb *Ambient) bool
}

// catalogue is the closed fault catalogue, in a fixed order: by domain,
// then the paper's order within the domain.
var catalogue = []faultKind{
	{FaultSpec{Kind: "subject_swap", Domain: domainIdentity, Target: "action contract", Event: EvProposal,
		Boundary: boundaryProposal, Phase: phaseBeforeValidation, Signal: signalNone, Manner: mannerContradictory,
		Oracle: oracleCapabilityRecord, Threatens: []string{InvRightSubject},
		Doc: "after proposal, before authority check: the proposal's subject is swapped for another subject of the tenant"}, subjectSwap{}},
	{FaultSpec{Kind: "revoked_capability", Domain: domainIdentity, Target: "capability grant", Event: EvAuthorityGrant,
		Boundary: boundaryAuthority, Phase: phaseBeforeCommit, Signal: signalStateUpdate, Manner: mannerLate,
		Oracle: oracleCapabilityRecord, Threatens: []string{InvCurrentEntitlement},
		Doc: "after approval, before effect: the capability is revoked"}, revokedCapability{}},
	{FaultSpec{Kind: "stale_policy", Domain: domainContext, Target: "policy assertion", Event: EvContextPolicy,
		Boundary: boundaryProposal, Phase: phaseBeforeValidation, Signal: signalStateUpdate, Manner: mannerLate,
		Correlations: []Correlation{correlationSynchronized, correlationShared},
		Oracle:       oraclePolicyRecord, Threatens: []string{InvCurrentEntitlement},
		Doc: "after retrieval, before effect: a newer policy version no longer allows the action while the reader serves the old version"}, stalePolicy{}},
	{FaultSpec{Kind: "cross_source_conflict", Domain: domainContext, Target: "eligibility assertion", Event: EvContextEligibility,
		Boundary: boundaryProposal, Phase: phaseBeforeValidation, Signal: signalStateUpdate, Manner: mannerContradictory,
		Oracle: oracleStateVersion, Threatens: []string{InvCurrentEntitlement},
		Doc: "during context assembly: the authoritative record holds the subject while the secondary source asserts eligibility"}, crossSourceConflict{}},
	{FaultSpec{Kind: "timeout_after_commit", Domain: domainTool, Target: "tool API", Event: EvToolCommit,
		Boundary: boundaryEffect, Phase: phaseAfterCommit, Signal: signalAcknowledgement, Manner: mannerAbsent,
		Correlations: []Correlation{correlationRepeated, correlationPersistent, correlationSynchronized, correlationShared},
		Oracle:       oracleLedgerReadback, Threatens: []string{InvEffectAtMostOnce},
		Doc: "after commit, before response: the provider commits and the reply is lost"}, timeoutAfterCommit},
	{FaultSpec{Kind: "partial_success_response", Domain: domainTool, Target: "tool response", Event: EvToolCommit,
		Boundary: boundaryEffect, Phase: phaseAfterCommit, Signal: signalReceipt, Manner: mannerAbsent,
		Correlations: []Correlation{correlationSynchronized, correlationShared},
		Oracle:       oracleReceipt, Threatens: []string{InvProvableOutcome},
		Doc: "after effect: the provider commits and the response carries no receipt"}, partialSuccessResponse},
	{FaultSpec{Kind: "checkpoint_rollback", Domain: domainState, Target: "workflow checkpoint", Event: EvCheckpointWrite,
		Boundary: boundaryState, Phase: phaseAfterCheckpoint, Signal: signalStateUpdate, Manner: mannerAbsent, Ordinal: 3,
		Correlations: []Correlation{correlationRepeated, correlationPersistent},
		Oracle:       oracleLedgerReadback, Threatens: []string{InvEffectAtMostOnce},
		Doc: "after effect, before resume: the store rolls back to an older checkpoint and the worker restarts"}, checkpointRollback{}},
	{FaultSpec{Kind: "concurrent_version_change", Domain: domainState, Target: "subject state", Event: EvContextSubject,
		Boundary: boundaryState, Phase: phaseBeforeCommit, Signal: signalStateUpdate, Manner: mannerLate,
		Oracle: oracleStateVersion, Threatens: []string{InvCurrentEntitlement},
		Doc: "after read, before write: a concurrent writer advances the subject's state version"}, concurrentVersionChange{}},
	{FaultSpec{Kind: "drop_effect_receipt", Domain: domainEvidence, Target: "evidence ledger", Event: EvEvidenceReceipt,
		Boundary: boundaryProof, Phase: phaseAfterReceipt, Signal: signalReceipt, Manner: mannerAbsent,
		Correlations: []Correlation{correlationSynchronized, correlationShared},
		Oracle:       oracleReceipt, Threatens: []string{InvProvableOutcome},
		Doc: "after effect: the receipt record is lost on its way to the evidence ledger"}, dropEffectReceipt{}},
	{FaultSpec{Kind: "break_trace_lineage", Domain: domainEvidence, Target: "trace context", Event: EvToolCommit,
		Boundary: boundaryEffect, Phase: phaseBeforeCommit, Signal: signalTraceLink, Manner: mannerContradictory,
		Oracle: oracleTraceLineage, Threatens: []string{InvProvableOutcome},
		Doc: "between authority and tool: the trace context propagated into the call is replaced"}, breakTraceLineage},
	// the harness practice's fault matrix and harness boundaries
	{FaultSpec{Kind: "sandbox_denial", Domain: domainTool, Target: "tool sandbox", Event: EvToolCommit,
		Boundary: boundarySandbox, Phase: phaseBeforeValidation, Signal: signalNone,
		Oracle: oracleLedgerReadback, Threatens: []string{InvNoInventedProgress},
		Doc: "before a tool starts: the sandbox denies the call; no request reaches the provider"}, sandboxDenial},
	{FaultSpec{Kind: "timeout_before_send", Domain: domainTool, Target: "tool transport", Event: EvToolCommit,
		Boundary: boundaryToolCall, Phase: phaseBeforeCommit, Signal: signalAcknowledgement, Manner: mannerAbsent,
		Oracle: oracleLedgerReadback, Threatens: []string{InvNoInventedProgress},
		Doc: "the request never leaves; the client sees a timeout"}, timeoutBeforeSend},
	{FaultSpec{Kind: "reject_before_commit", Domain: domainTool, Target: "tool API", Event: EvToolCommit,
		Boundary: boundaryEffect, Phase: phaseBeforeCommit, Signal: signalNone,
		Oracle: oracleLedgerReadback, Threatens: []string{InvNoInventedProgress},
		Doc: "the provider receives the request and rejects it before any durable write"}, rejectBeforeCommit},
	{FaultSpec{Kind: "malformed_response", Domain: domainTool, Target: "tool response", Event: EvToolCommit,
		Boundary: boundaryEffect, Phase: phaseAfterCommit, Signal: signalReceipt, Manner: mannerContradictory,
		Correlations: []Correlation{correlationRepeated, correlationPersistent, correlationSynchronized, correlationShared},
		Oracle:       oracleReceipt, Threatens: []string{InvEffectAtMostOnce},
		Doc: "after commit: the reply body is truncated; the outcome is unknown and only a fragment of the receipt decodes"}, malformedResponse},
	{FaultSpec{Kind: "output_drift", Domain: domainTool, Target: "tool response schema", Event: EvToolCommit,
		Boundary: boundaryEffect, Phase: phaseAfterCommit, Signal: signalReceipt, Manner: mannerContradictory,
		Correlations: []Correlation{correlationRepeated, correlationPersistent, correlationSynchronized, correlationShared},
		Oracle:       oracleReceipt, Threatens: []string{InvEffectAtMostOnce},
		Doc: "after commit: the receipt id field is renamed and the amount retyped; they decode empty without an error"}, outputDrift},
	{FaultSpec{Kind: "rate_limit", Domain: domainTool, Target: "tool API quota", Event: EvToolCommit,
		Boundary: boundaryToolCall, Phase: phaseBeforeCommit, Signal: signalAcknowledgement, Manner: mannerLate,
		Oracle: oracleBudgetCounter, Threatens: []string{InvNoInventedProgress},
		Doc: "the provider answers with a rate limit and a retry-after of 100 ms without processing the request"}, rateLimit},
	{FaultSpec{Kind: "tool_timeout", Domain: domainTool, Target: "tool call", Event: EvToolCommit,
		Boundary: boundaryToolCall, Phase: phaseBeforeCommit, Signal: signalAcknowledgement, Manner: mannerLate,
		Correlations: []Correlation{correlationRepeated, correlationSynchronized, correlationShared},
		Oracle:       oracleLedgerReadback, Threatens: []string{InvEffectAtMostOnce},
		Doc: "after the request id is assigned: the client times out while the provider holds the request and commits it late"}, toolTimeout},
	{FaultSpec{Kind: "budget_exhaustion", Domain: domainTool, Target: "retry budget", Event: EvToolCommit,
		Boundary: boundaryToolCall, Phase: phaseBeforeCommit, Correlation: correlationPersistent, Signal: signalAcknowledgement, Manner: mannerAbsent,
		Oracle: oracleBudgetCounter, Threatens: []string{InvBudget},
		Doc: "from this call on the provider is unreachable: every attempt, the final one included, times out before it is sent"}, budgetExhaustion},
	{FaultSpec{Kind: "worker_restart", Domain: domainState, Target: "worker", Event: EvCheckpointWrite, Ordinal: 3,
		Boundary: boundaryWorker, Phase: phaseAfterCheckpoint, Signal: signalNone,
		Oracle: oracleCheckpointStore, Threatens: []string{InvNoInventedProgress},
		Doc: "after a checkpoint write (by default the one after the effect) the worker crashes and a fresh one resumes"}, workerRestart{}},
	{FaultSpec{Kind: "missing_checkpoint", Domain: domainState, Target: "checkpoint store", Event: EvCheckpointWrite, Ordinal: 3,
		Boundary: boundaryCheckpointStore, Phase: phaseAfterCheckpoint, Signal: signalStateUpdate, Manner: mannerAbsent,
		Oracle: oracleCheckpointStore, Threatens: []string{InvResumeFromCheckpoint, InvRecordedAgreesWithLedger},
		Doc: "before resume: the worker restarts and the store serves no checkpoint though it acknowledged some"}, checkpointTamper{tamperMissing, "no checkpoint"}},
	{FaultSpec{Kind: "stale_checkpoint", Domain: domainState, Target: "checkpoint store", Event: EvCheckpointWrite, Ordinal: 3,
		Boundary: boundaryCheckpointStore, Phase: phaseAfterCheckpoint, Signal: signalStateUpdate, Manner: mannerLate,
		Oracle: oracleCheckpointStore, Threatens: []string{InvResumeFromCheckpoint},
		Doc: "before resume: the worker restarts and a lagging replica serves the previous checkpoint while the head names the newest"}, checkpointTamper{tamperStale, "a stale checkpoint"}},
	{FaultSpec{Kind: "future_version_checkpoint", Domain: domainState, Target: "checkpoint store", Event: EvCheckpointWrite, Ordinal: 3,
		Boundary: boundaryCheckpointStore, Phase: phaseAfterCheckpoint, Signal: signalStateUpdate, Manner: mannerContradictory,
		Oracle: oracleCheckpointStore, Threatens: []string{InvResumeFromCheckpoint},
		Doc: "before resume: the worker restarts and the store serves a checkpoint written by a newer workflow version"}, checkpointTamper{tamperFuture, "a future-version checkpoint"}},
	{FaultSpec{Kind: "corrupt_checkpoint", Domain: domainState, Target: "checkpoint store", Event: EvCheckpointWrite, Ordinal: 3,
		Boundary: boundaryCheckpointStore, Phase: phaseAfterCheckpoint, Signal: signalStateUpdate, Manner: mannerContradictory,
		Oracle: oracleCheckpointStore, Threatens: []string{InvResumeFromCheckpoint},
		Doc: "before resume: the worker restarts and the store serves the newest checkpoint with a flipped byte"}, checkpointTamper{tamperCorrupt, "a corrupt checkpoint"}},
	{FaultSpec{Kind: "memory_loss", Domain: domainContext, Target: "ephemeral context", Event: EvMemoryRead,
		Boundary: boundaryMemory, Phase: phaseBeforeCommit, Signal: signalStateUpdate, Manner: mannerAbsent,
		Oracle: oracleCheckpointStore, Threatens: []string{InvNoInventedProgress},
		Doc: "the ephemeral context named by the schedule's target (all of it when empty) is cleared before a read"}, memoryLoss{"a memory key"}},
	{FaultSpec{Kind: "branch_failure", Domain: domainState, Target: "parallel branch", Event: EvBranchRun,
		Boundary: boundaryBranchJoin, Phase: phaseBeforeCommit, Signal: signalStateUpdate, Manner: mannerAbsent,
		Oracle: oracleJoinRecord, Threatens: []string{InvJoinPreserved},
		Doc: "one branch of the fan-out fails (the schedule's target names which; any when empty)"}, branchFailure{"a branch"}},
	// reads that lag: a view not yet holding a committed write (a lagging
	// replica or cache); see laggingKinds
	{FaultSpec{Kind: "lagging_readback", Domain: domainState, Target: "provider ledger replica", Event: EvLedgerReadback,
		Boundary: boundaryState, Phase: phaseAfterCommit, Signal: signalStateUpdate, Manner: mannerLate,
		Oracle: oracleLedgerReadback, Threatens: []string{InvEffectAtMostOnce},
		Doc: "after commit: the readback is served by a lagging replica that does not yet hold the action's newest committed entry"}, laggingReadback{}},
	{FaultSpec{Kind: "stale_state_read", Domain: domainState, Target: "subject state replica", Event: EvStateRead,
		Boundary: boundaryState, Phase: phaseBeforeCommit, Signal: signalStateUpdate, Manner: mannerLate,
		Oracle: oracleStateVersion, Threatens: []string{InvCurrentEntitlement},
		Doc: "before commit: a concurrent write advances the subject's state version and the read is served by a replica that does not yet hold it"}, staleStateRead{}},
	// the incidents' mechanisms
	{FaultSpec{Kind: "false_success", Domain: domainTool, Target: "tool response envelope", Event: EvToolCommit,
		Boundary: boundaryEffect, Phase: phaseBeforeCommit, Signal: signalAcknowledgement, Manner: mannerContradictory,
		Oracle: oracleLedgerReadback, Threatens: []string{InvNoInventedProgress},
		Doc: "the provider fails the request and answers with a success envelope carrying the error; nothing is committed"}, falseSuccess{}},
	// the model's reply (an agent's proposal through an LLM SDK)
	{FaultSpec{Kind: "duplicate_tool_call", Domain: domainContext, Target: "model reply tool calls", Event: EvProposal,
		Boundary: boundaryProposal, Phase: phaseBeforeValidation, Signal: signalNone, Manner: mannerContradictory,
		Oracle: oracleLedgerReadback, Threatens: []string{InvEffectAtMostOnce},
		Doc: "after proposal: the model's reply carries the same tool call twice (two call ids, one logical action)"}, duplicateToolCall{}},
	{FaultSpec{Kind: "model_refusal", Domain: domainContext, Target: "model reply", Event: EvProposal,
		Boundary: boundaryProposal, Phase: phaseBeforeValidation, Signal: signalNone, Manner: mannerAbsent,
		Oracle: oracleLedgerReadback, Threatens: []string{InvNoInventedProgress},
		Doc: "after proposal: the model refuses (stop reason refusal) or answers without a tool call; nothing is proposed"}, modelRefusal{}},
	{FaultSpec{Kind: "tenant_swap", Domain: domainIdentity, Target: "model reply tool call arguments", Event: EvProposal,
		Boundary: boundaryProposal, Phase: phaseBeforeValidation, Signal: signalNone, Manner: mannerContradictory,
		Oracle: oracleCapabilityRecord, Threatens: []string{InvRightSubject, InvCurrentEntitlement},
		Doc: "after proposal: the tool call's tenant is swapped for another tenant (the World's, else one of no record)"}, tenantSwap{}},
	{FaultSpec{Kind: "purpose_swap", Domain: domainIdentity, Target: "model reply tool call arguments", Event: EvProposal,
		Boundary: boundaryProposal, Phase: phaseBeforeValidation, Signal: signalNone, Manner: mannerContradictory,
		Oracle: oracleCapabilityRecord, Threatens: []string{InvRightSubject},
		Doc: "after proposal: the tool call's purpose is swapped for another purpose (a capability's, else one none grants)"}, purposeSwap{}},
	{FaultSpec{Kind: "stale_context", Domain: domainContext, Target: "model context item", Event: EvProposal,
		Boundary: boundaryProposal, Phase: phaseBeforeValidation, Signal: signalStateUpdate, Manner: mannerLate,
		Oracle: oracleStateVersion, Threatens: []string{InvCurrentEntitlement},
		Doc: "after proposal: the subject's record moves on a state version while the reply relies on the version its context gave"}, staleContext{}},
	{FaultSpec{Kind: "omitted_context", Domain: domainContext, Target: "model context item", Event: EvProposal,
		Boundary: boundaryProposal, Phase: phaseBeforeValidation, Signal: signalStateUpdate, Manner: mannerAbsent,
		Oracle: oracleStateVersion, Threatens: []string{InvCurrentEntitlement},
		Doc: "after proposal: the reply omits the context items its call relies on (the state and policy versions)"}, omittedContext{}},
	{FaultSpec{Kind: "malformed_tool_call", Domain: domainContext, Target: "model reply tool call arguments", Event: EvProposal,
		Boundary: boundaryProposal, Phase: phaseBeforeValidation, Signal: signalNone, Manner: mannerContradictory,
		Oracle: oracleLedgerReadback, Threatens: []string{InvRightSubject},
		Doc: "after proposal: the tool call's arguments are cut and do not parse; those after the cut (purpose, amount) decode empty"}, malformedToolCall{}},
}

// laggingKindNames are the kinds of reads that lag.
var laggingKindNames = []string{"lagging_readback", "stale_state_read"}

// laggingKinds returns the specs of the kinds of reads that lag (a view
// not yet holding a committed write): lagging_readback and
// stale_state_read, in catalogue order.
func laggingKinds() []FaultSpec {
	out := make([]FaultSpec, 0, len(laggingKindNames))
	for _, k := range catalogue {
		if slices.Contains(laggingKindNames, k.spec.Kind) {
			out = append(out, k.spec)
		}
	}
	return out
}

// cacheWorkerKinds are revoked authority kept alive by a cache with a
// sliding lifetime and the worker-scoped disturbances. They are defined,
// named in schedules, replayed and given coverage keys like every kind
// (Spec, SingleFault, ParseSchedule, the coverage universe), and kept out
// of Catalogue(), so the figures taken over the whole catalogue (the
// assay's study, its pairs and coefficients, the fuzz decoder's sites,
// exploration) are unchanged: a worker-scoped kind is reached and never
// fires on the assay's one-task workload, so its trials there would test
// nothing.
var cacheWorkerKinds = []faultKind{
	{FaultSpec{Kind: "sliding_grant_cache", Domain: domainIdentity, Target: "capability cache", Event: EvAuthorityCheck,
		Boundary: boundaryAuthority, Phase: phaseBeforeCommit, Correlation: correlationPersistent, Signal: signalStateUpdate, Manner: mannerLate,
		Oracle: oracleCapabilityRecord, Threatens: []string{InvCurrentEntitlement},
		Doc: "before effect: the capability is revoked while the authority check is served by a cache whose entry, filled at approval, slides its lifetime on every read"}, slidingGrantCache{}},
	{FaultSpec{Kind: "ambient_identity_leak", Domain: domainIdentity, Target: "worker ambient context", Event: EvWorkerStart,
		Boundary: boundaryWorker, Phase: phaseBeforeValidation, Correlation: correlationPersistent, Signal: signalNone, Manner: mannerContradictory,
		Oracle: oracleCapabilityRecord, Threatens: []string{InvRightSubject}, WorkerScoped: true,
		Doc: "at a worker's start: the worker captures its task's actor, tenant and trace and hands them to every later task it runs"}, ambientIdentityLeak{}},
	{FaultSpec{Kind: "span_carry_over", Domain: domainEvidence, Target: "worker running span", Event: EvToolCommit, Ordinal: 2,
		Boundary: boundaryEffect, Phase: phaseBeforeCommit, Signal: signalTraceLink, Manner: mannerContradictory,
		Oracle: oracleTraceLineage, Threatens: []string{InvProvableOutcome}, WorkerScoped: true,
		Doc: "at a retry: the retry layer opens a span of its own and leaves it as the worker's running span; the retried call and every later task of the worker carry it"}, spanCarryOver{}},
}

// fleetKinds are the provider's answers whose harm is a fleet's load
// (FaultSpec.Fleet): an error a fleet must not retry, an outage that
// lasts several attempts of every worker. Like cacheWorkerKinds they are
// defined, named in schedules and replayed, and kept out of Catalogue(),
// so the catalogue-wide figures are unchanged; the default search draws
// provider_outage on fleet fixtures (package properties), where a retry
// is load, and do_not_retry on every fixture, since a single agent that
// retries a permanent refusal breaks retry_paced.
var fleetKinds = []faultKind{
	{FaultSpec{Kind: "do_not_retry", Domain: domainTool, Target: "tool API error class", Event: EvToolCommit,
		Boundary: boundaryToolCall, Phase: phaseBeforeCommit, Signal: signalAcknowledgement, Manner: mannerContradictory,
		Correlations: []Correlation{correlationSynchronized},
		Oracle:       oracleBudgetCounter, Threatens: []string{invRetryPaced, InvNoRetryStorm}, Fleet: true,
		Doc: "the provider rejects the request permanently, a 4xx-class answer that says not to retry; nothing is committed and any retry of the task is early"}, doNotRetry},
	{FaultSpec{Kind: "provider_outage", Domain: domainTool, Target: "tool API availability", Event: EvToolCommit,
		Boundary: boundaryToolCall, Phase: phaseBeforeCommit, Correlation: correlationPersistent, Signal: signalAcknowledgement, Manner: mannerLate,
		Oracle: oracleBudgetCounter, Threatens: []string{InvNoRetryStorm}, Fleet: true, LastsMs: outageMs,
		Doc: "the provider is down for 1,000 logical ms from the first failed send: every send of every worker in that time gets a 503 without a retry-after and commits nothing"}, providerOutage},
}

// outageMs is provider_outage's duration: ten windows of a fleet's
// default 100 ms, several attempts of any back-off below a second.
const outageMs Millis = 1000

// credentialKinds is the expiry of a credential a fleet's workers share.
// Like policyKinds it is kept out of Catalogue() and CacheAndWorkerKinds(),
// so no walk moves; the default search draws it on a fleet that declares
// the credential shared (Fleet.SharedCredential). Its 401s, unlike an
// outage's 503s, are load: the provider's auth layer serves each one.
var credentialKinds = []faultKind{
	{FaultSpec{Kind: kindCredentialExpired, Domain: domainTool, Target: "tool API credential", Event: EvToolCommit,
		Boundary: boundaryToolCall, Phase: phaseBeforeCommit, Correlation: correlationPersistent, Signal: signalAcknowledgement, Manner: mannerContradictory,
		Oracle: oracleBudgetCounter, Threatens: []string{InvNoRetryStorm}, Fleet: true, LastsMs: 1, Needs: needSharedCredential,
		Doc: "the fleet's shared credential expires: every send that crosses with the first failed one gets a 401 (class unauthorized) and commits nothing; each sender must re-authenticate"}, credentialExpired},
}

// kindCredentialExpired is the kind of credentialKinds.
const kindCredentialExpired = "credential_expired"

// transportKinds are the provider's server error and the connection's
// failure at tool.commit (the paper's "500 before execution" and the
// network errors of its cited reliability profiles). Kept out of
// Catalogue(), so the catalogue-wide figures and the paper's
// compat are unchanged; not fleet kinds (FaultSpec.Fleet false), the default
// search draws them on every fixture whose runs cross tool.commit, since
// any system that acts can read a 5xx or a reset as success.
var transportKinds = []faultKind{
	{FaultSpec{Kind: "server_error", Domain: domainTool, Target: "tool API server", Event: EvToolCommit,
		Boundary: boundaryEffect, Phase: phaseBeforeCommit, Signal: signalAcknowledgement, Manner: mannerContradictory,
		Oracle: oracleLedgerReadback, Threatens: []string{InvEffectAtMostOnce, InvRecordedAgreesWithLedger},
		Doc: "the provider answers a server error (5xx class): before any durable write, or (target after_commit) after it processed the request, committed if the World let it"},
		transportFault{class: classServerError, before: "server error: failed before commit", after: "server error: failed after processing"}},
	{FaultSpec{Kind: "network_error", Domain: domainTool, Target: "tool transport", Event: EvToolCommit,
		Boundary: boundaryToolCall, Phase: phaseBeforeCommit, Signal: signalAcknowledgement, Manner: mannerAbsent,
		Oracle: oracleLedgerReadback, Threatens: []string{InvEffectAtMostOnce, InvRecordedAgreesWithLedger},
		Doc: "the connection fails: refused before the request leaves, or (target after_commit) reset after the provider processed it, committed if the World let it"},
		transportFault{class: classNetworkError, before: "connection refused", after: "connection reset by peer"}},
}

// CacheAndWorkerKinds returns the kinds outside the catalogue that a
// default search draws where they can act: sliding_grant_cache (revoked
// authority kept alive by a cache with a sliding lifetime), the
// worker-scoped kinds ambient_identity_leak and span_carry_over (see
// cacheWorkerKinds), the fleet kinds (FaultSpec.Fleet: do_not_retry,
// drawn at every tool.commit, and provider_outage, drawn on fleets; see
// fleetKinds), then server_error and network_error, drawn at every
// tool.commit (transportKinds).
func CacheAndWorkerKinds() []FaultSpec {
	out := make([]FaultSpec, 0, len(cacheWorkerKinds)+len(fleetKinds)+len(transportKinds))
	for _, k := range append(append(append([]faultKind{}, cacheWorkerKinds...), fleetKinds...), transportKinds...) {
		out = append(out, k.spec)
	}
	return out
}

// paperKinds is the number of the paper's modes at the head of the
// catalogue.
const paperKinds = 10

// kindTables are the tables of kinds, in the order a name is looked up:
// the catalogue, the world events, then the kinds outside the catalogue.
var kindTables = [][]faultKind{catalogue, worldKinds, noticeKinds, cacheWorkerKinds, fleetKinds, transportKinds,
	familyKinds, policyKinds, credentialKinds}

func init() {
	for i := range catalogue {
		setDefaults(&catalogue[i], i < paperKinds)
	}
	// the world events set their own (worldevents.go)
	for _, table := range kindTables[2:] {
		for i := range table {
			setDefaults(&table[i], false)
		}
	}
}

// The fixture declarations a kind may need (FaultSpec.Needs).
const (
	needAtLeastOnce        = "at_least_once"
	needGrantedSources     = "granted_sources"
	needReadbackProxy      = "readback_proxy"
	needMaxPolicyAge       = "max_policy_age"
	needSharedCredential   = "shared_credential"
	needVersionedContracts = "versioned_contracts"
)

// setDefaults fills the spec fields every kind shares and checks that the
// kind's disturbance fits its own event and that it needs a declaration
// there is.
func setDefaults(k *faultKind, paper bool) {
	s := &k.spec
	switch s.Needs {
	case "", needAtLeastOnce, needGrantedSources, needReadbackProxy, needMaxPolicyAge, needSharedCredential, needVersionedContracts:
	default:
		panic(fmt.Sprintf("model: fault kind %s needs %q, no fixture declaration", s.Kind, s.Needs))
	}
	{
		s.Mode = s.Kind
		if s.Ordinal == 0 {
			s.Ordinal = 1
		}
		if s.Correlation == "" {
			s.Correlation = correlationIsolated
		}
		s.Intensity = 1
		s.Scope = "one synthetic subject"
		s.Recoverable = true
		s.Paper = paper
		if !hookFits(k.impl, s.Event) {
			panic(fmt.Sprintf("model: fault kind %s cannot be injected at its own event %s", s.Kind, s.Event))
		}
	}
}

// Catalogue returns the typed specs of every fault kind, in catalogue order
// (by domain, then the paper's order).
func Catalogue() []FaultSpec {
	out := make([]FaultSpec, len(catalogue))
	for i, k := range catalogue {
		out[i] = k.spec
	}
	return out
}

// kindsByName indexes the kinds of the tables by name (the first
// table's when two name one kind).
var kindsByName = func() map[string]*faultKind {
	m := map[string]*faultKind{}
	for _, table := range kindTables {
		for i := range table {
			if _, ok := m[table[i].spec.Kind]; !ok {
				m[table[i].spec.Kind] = &table[i]
			}
		}
	}
	return m
}()

func lookupKind(name string) (*faultKind, error) {
	if k, ok := kindsByName[name]; ok {
		return k, nil
	}
	var names []string
	for _, table := range kindTables {
		for _, k := range table {
			names = append(names, k.spec.Kind)
		}
	}
	return nil, fmt.Errorf("unknown fault kind %q (valid: %s)", name, strings.Join(names, ", "))
}

// Spec returns the spec of the fault kind or world event named kind, or an
// error naming it.
func Spec(kind string) (FaultSpec, error) {
	k, err := lookupKind(kind)
	if err != nil {
		return FaultSpec{}, err
	}
	return k.spec, nil
}
