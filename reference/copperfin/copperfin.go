// Package copperfin is faultline's reference system: the paper's Copperfin
// refund workflow (the paper), built only on the public model.Env, with no
// private hook into the harness, and run as a durable workflow in the
// manner of the harness practice.
//
// The workflow resumes from the newest valid checkpoint or starts fresh:
// it reads the action-bearing context, drafts an action contract, has the
// proposer (the model) turn it into a proposal, gets it approved, keeps the
// approval in its ephemeral memory, fans out two branches (search and
// summarize) and joins them under the task's join policy, checkpoints
// ("authorized"), runs the pre-effect checks its controls enable, writes a
// checkpoint ahead of every tool-call attempt ("committing", with the
// remaining retry and deadline budgets), commits the refund, records the
// receipt, checkpoints ("effected"), verifies and claims.
//
// Entry points:
//
//   - [New] and [Factory] build the system for a control set;
//   - [NewFactory] builds it with a seeded defect, one of [Mutants];
//   - [Definition] describes it for the paths that need more than a
//     factory (replay, fuzzing, the command line, the run record), and
//     [Configured] builds it from a schedule's config;
//   - [Settings], [ParseSettings], [ConfigOfProfile], [ConfigOfControls]
//     and [WithMutant]: its own part of a schedule's config (a profile or
//     a control set, and a seeded defect);
//   - [Control], [Controls], [ParseControls], [Profile] and
//     [ProfileControls]: its seven controls, deny_on_warning and the
//     profiles baseline, typed and fail_closed;
//   - [Copperfin], [CopperfinBatch], [CopperfinTenants], [CopperfinFleet]
//     and [FixtureNamed]: its fixtures, and [StormSchedule], the paper's
//     retry storm on a fleet;
//   - [Defences]: which controls and seeded defect defend against each
//     fault kind (the paper's nominations).
//
// What each control does here:
//
//   - bind_identity: the proposal's actor, subject, tenant and purpose must
//     equal the task's binding and the capability's, outside the model text,
//     and the commit's guard asks the provider to find them equal to the
//     capability record's (model.GuardBinding);
//   - pre_effect_authority: the capability is re-read at effect time and must
//     be live and cover the amount (the paper's re-check of authority, the
//     defence of a revoked capability); it does not check the binding, so a
//     swapped subject under a live grant for another order passes it, as in
//     the paper's artefact, where only bind_identity stops a subject swap;
//   - refresh_context: before the effect the policy and the eligibility are
//     re-read, the latter with source precedence (the authoritative record);
//     a newer policy version, a policy that no longer allows the refund or an
//     ineligible record denies; a policy copy older than MaxPolicyAge
//     (model.Policy.AsOf) is fetched again until a fetch succeeds, or
//     denied when the deadline is near;
//   - state_precondition: the authoritative state version must equal the
//     proposal's expected version;
//   - idempotency: every attempt reuses the logical idempotency key; without
//     it each send gets a fresh request identity (a blind retry);
//   - effect_readback: an unknown outcome and every resume before the effect
//     are resolved by reading the provider's ledger, and every effect is
//     verified by a readback recorded as evidence; a replayed commit with no
//     receipt is attributed by a readback, and one the readback does not
//     show (a lagging read) holds;
//   - evidence_gate: no release unless the evidence ledger holds a receipt or
//     readback whose effect trace joins the decision's trace; each task
//     starts its own trace, never the span its worker's ambient context
//     carries (the worker_span_adopted defect adopts it);
//   - deny_on_warning (the fail_closed profile): any warning denies;
//   - jittered_backoff and shared_retry_budget (the typed_fleet profile,
//     with the seven): a rate-limited agent's wait, and the retry of an
//     unknown outcome, get a random jitter from Env.Rand, and an agent asks the fleet's shared retry budget
//     (Env.RetryToken) before it retries, holding when refused.
//
// What it always does, in every profile (the harness practice's recovery rules):
// typed tool outcomes (a denial or rejection stops with its reason, a rate
// limit waits its retry-after, a timeout or undecodable reply is an
// unknown outcome), a present receipt is validated against the request,
// retries stay within the task's retry budget and deadline (persisted, never
// reset by a restart), a missing, stale, future-version or corrupt
// checkpoint stops the task with a hold, an approval absent from memory is
// rebuilt from the checkpoint or the task holds, and the join record keeps
// every branch. The deadline runs from the worker's start; a worker
// resumed into a reserved attempt makes that attempt and no other (it
// cannot vouch for the budget its checkpoint carries); a provider replay
// or readback showing the refund made under another decision's trace is
// denied as already refunded. The checks of bind_identity,
// pre_effect_authority, state_precondition and refresh_context also travel
// with the commit as a guard the provider evaluates atomically
// (model.Guard).
package copperfin

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/faultline/faultline/model"
)

// Tool is the name of the refund tool.
const Tool = "payments.refund"

// WorkflowVersion is the version written into every checkpoint.
const WorkflowVersion = 1

// refundKeySuffix follows the subject in a refund's idempotency key.
var refundKeySuffix = ":refund:v" + strconv.Itoa(WorkflowVersion)

// Branch names of the fan-out.
const (
	BranchSearch    = "search"
	BranchSummarize = "summarize"
)

// Checkpoint states of the workflow.
const (
	stageAuthorized = "authorized" // approved and joined, before the effect
	stageCommitting = "committing" // an attempt is reserved, written ahead of its send
	stageEffected   = "effected"   // effect committed (or found), before verification
	stageSettled    = "settled"    // verified, with the settlement the provider's notices report
	stageFailed     = "refund_failed"
)

// minAttemptTime is the deadline, in logical milliseconds, an attempt needs
// left to be started.
const minAttemptTime model.Millis = 100

// memApproval is the ephemeral-memory key of the approval.
const memApproval = "approval"

// System is the Copperfin refund workflow under a control set, optionally
// with a seeded defect.
type System struct {
	cs     Controls
	mutant Mutant
	// cache is the process-wide policy cache the policy_cached mutant
	// shares between the instances of one factory.
	cache *policyCache
	// effects and branches are storage for a checkpoint's completed
	// effect and a join's branches, which the harness copies, so that
	// passing them does not allocate
	effects  [1]string
	branches [2]model.BranchOutcome
}

// New returns the reference system with controls cs.
func New(cs Controls) *System { return &System{cs: cs} }

// Factory returns a factory of fresh reference systems with controls cs.
func Factory(cs Controls) model.Factory {
	return func() model.System { return &System{cs: cs} }
}

// NewFactory returns a factory of fresh reference systems with controls cs
// and the seeded defect named mutant ("" for none). It returns an error
// naming an unknown mutant and the valid names.
func NewFactory(cs Controls, mutant string) (model.Factory, error) {
	m, err := ParseMutant(mutant)
	if err != nil {
		return nil, err
	}
	var cache *policyCache
	if m == PolicyCached {
		cache = &policyCache{}
	}
	return func() model.System { return &System{cs: cs, mutant: m, cache: cache} }, nil
}

// effect returns key as a checkpoint's one completed effect, in storage
// the next call reuses (the store copies it).
func (s *System) effect(key string) []string {
	s.effects[0] = key
	return s.effects[:]
}

// on reports whether the control of bit b is enabled.
func (s *System) on(b Controls) bool { return s.cs&b != 0 }

// flow carries one worker's in-memory state; nothing of it survives a
// restart except through the checkpoint store.
type flow struct {
	s          *System
	ctx        context.Context
	env        model.Env
	task       model.Task
	a          model.Action
	grant      model.Capability
	retryLeft  int
	deadlineAt model.Millis
	attempt    int
	degraded   bool
	seq        int
	// trace is the trace the flow writes and looks up evidence under: the
	// task's decision trace.
	trace string
	// replied is set when a commit was answered committed (a "200").
	replied bool
	// sent is the worker's local record of the requests it sent.
	sent []model.LedgerEntry
	// unguarded is set when the resume_skips_checks mutant re-sends a
	// saved request without its guard.
	unguarded bool
	// notBefore is the logical time before which the next attempt may not
	// be sent: the back-off a rate-limited reply owes.
	notBefore model.Millis
}

// warn reports a warning and reports whether the fail-closed policy now
// requires a denial.
func (f *flow) warn(code, detail string) bool {
	f.env.Signals.Warn(code, detail)
	return f.s.on(bitDenyOnWarning)
}

func (f *flow) deny(reason string) (model.Claim, error) {
	if _, err := f.env.Evidence.Append(f.ctx, model.EvidenceRecord{Kind: "denial", Trace: f.trace, Detail: reason}); err != nil {
		return model.Claim{}, err
	}
	return model.Claim{Verdict: model.ClaimDeny, Reason: reason}, nil
}

// stop ends the task with a hold, or a denial under deny_on_warning.
// A stop on the deadline (deadline_exhausted) is a timed-out claim.
func (f *flow) stop(code, reason string) (model.Claim, error) {
	timedOut := code == "deadline_exhausted"
	if f.warn(code, reason) {
		c, err := f.deny("warning: " + reason)
		c.TimedOut = timedOut && err == nil
		return c, err
	}
	return model.Claim{Verdict: model.ClaimHold, Reason: reason, TimedOut: timedOut}, nil
}

func (f *flow) save(state string, effects []string) error {
	f.seq++
	return f.env.Store.Save(f.ctx, model.Checkpoint{Seq: f.seq, WorkflowVersion: WorkflowVersion, State: state,
		CompletedEffects: effects, Attempt: f.attempt, RetryRemaining: f.retryLeft, DeadlineRemaining: f.deadlineAt - f.env.Now(),
		Action: f.a, Grant: f.grant, Data: f.data()})
}

func (f *flow) data() map[string]string {
	owed := f.notBefore > f.env.Now() && !f.s.mutant.is(RestartForgetsBackoff)
	if !f.degraded && !owed {
		return nil
	}
	d := map[string]string{}
	if f.degraded {
		d["degraded"] = "true"
	}
	if owed {
		d[dataNotBefore] = strconv.FormatInt(int64(f.notBefore), 10)
	}
	return d
}

// dataNotBefore is the checkpoint's record of the logical time before
// which the next attempt may not be sent (the back-off owed).
const dataNotBefore = "retry_not_before"

// paced waits, before an attempt is sent, until the back-off owed has
// passed: the rate-limited reply's retry-after (and its jitter), kept
// across restarts by the checkpoint that reserved the attempt.
func (f *flow) paced() error {
	if wait := f.notBefore - f.env.Now(); wait > 0 {
		return f.env.Sleep(f.ctx, wait)
	}
	return nil
}

// Run performs the refund task. It returns model.ErrWorkerCrashed (wrapped
// or not) when the harness crashed it.
func (s *System) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	if amb, ok := model.AmbientOf(ctx); ok && !s.on(bitPerTaskIdentity) {
		// the worker acts as the principal its ambient context carries;
		// under evidence_gate, whose proof joins a decision's trace, each
		// task starts its own trace instead of a span left running in the
		// worker (the worker_span_adopted defect adopts it)
		task.Actor, task.Tenant = amb.Actor, amb.Tenant
		if !s.on(bitEvidenceGate) || s.mutant.is(WorkerSpanAdopted) {
			task.Trace = amb.Trace
		}
	}
	f := &flow{s: s, ctx: ctx, env: env, task: task, trace: task.Trace}
	// a task's deadline runs from its first worker's start, for a worker
	// that starts fresh after a crash as for the first
	f.deadlineAt = task.Started + task.Deadline
	cp, resumed, err := env.Store.Load(ctx, task.ID)
	if err != nil {
		return model.Claim{}, err
	}
	if !s.mutant.is(StaleCheckpointAccepted) {
		if !resumed && cp.Head > 0 {
			return f.stop("checkpoint_missing", "checkpoint "+strconv.Itoa(cp.Head)+" was acknowledged but the store serves none")
		}
		if resumed {
			switch {
			case cp.WorkflowVersion != WorkflowVersion:
				return f.stop("checkpoint_version", "checkpoint of workflow version "+strconv.Itoa(cp.WorkflowVersion)+" cannot be resumed")
			case model.Checksum(cp) != cp.Checksum:
				return f.stop("checkpoint_corrupt", "checkpoint "+strconv.Itoa(cp.Seq)+" fails its checksum")
			case cp.Seq < cp.Head:
				return f.stop("checkpoint_stale", "checkpoint "+strconv.Itoa(cp.Seq)+" is older than the acknowledged "+strconv.Itoa(cp.Head))
			}
		}
	}
	stage := stageAuthorized
	if resumed {
		f.resume(cp)
		stage = cp.State
	} else {
		if c, done, err := f.start(); done || err != nil {
			return c, err
		}
	}
	var effectKey string
	switch stage {
	case stageAuthorized, stageCommitting:
		if resumed && stage == stageCommitting && s.mutant.is(ResumeSkipsChecks) {
			f.unguarded = true // the defect: the checks passed before the crash are trusted
		} else if reason, err := f.preEffect(); err != nil || reason != "" {
			if err != nil {
				return model.Claim{}, err
			}
			if held, err := f.heldOnResume(resumed); err != nil || !held {
				if err != nil {
					return model.Claim{}, err
				}
				return f.deny(reason)
			}
			// the predecessor made the effect while it was entitled: what
			// changed since is no reason to deny it; verify it instead
		}
		var c model.Claim
		var done bool
		effectKey, c, done, err = f.effect(resumed, stage == stageCommitting)
		if err != nil || done {
			return c, err
		}
		if err := f.duplicates(); err != nil {
			return model.Claim{}, err
		}
		if !f.s.mutant.is(CheckpointBeforeEffect) {
			if err := f.save(stageEffected, f.s.effect(effectKey)); err != nil {
				return model.Claim{}, err
			}
		}
	default:
		if len(cp.CompletedEffects) > 0 {
			effectKey = cp.CompletedEffects[0]
		}
	}
	return f.verify(effectKey)
}

// noProposal is the denial of a model reply that proposes nothing (a
// refusal, or an answer without a tool call).
const noProposal = "the model proposed no action"

// duplicates carries out, under the duplicate_call_executed defect, each
// copy of the call the model's reply repeated (under the action's key
// with idempotency; under the copy's own call id without, which the
// first attempt's fresh request id is not). Without the defect a repeated
// call is the one action, already made.
func (f *flow) duplicates() error {
	if !f.s.mutant.is(DuplicateCallExecuted) {
		return nil
	}
	key := f.a.IdempotencyKey
	if !f.s.on(bitIdempotency) {
		key += ":copy"
	}
	for range f.a.Duplicates {
		if _, err := f.env.Tool.Commit(f.ctx, model.ToolCall{Tool: Tool, RequestKey: key, Action: f.a, Guard: f.guard()}); err != nil {
			return err
		}
	}
	return nil
}

// resume restores the flow from a checkpoint.
func (f *flow) resume(cp model.Checkpoint) {
	f.a, f.grant, f.seq = cp.Action, cp.Grant, cp.Seq
	f.retryLeft, f.deadlineAt = cp.RetryRemaining, cp.At+cp.DeadlineRemaining
	if f.s.mutant.is(RetryBudgetReset) {
		f.retryLeft = f.task.RetryBudget
	}
	if f.s.mutant.is(DeadlineFromRestart) {
		f.deadlineAt = f.env.Now() + f.task.Deadline
	}
	f.attempt = cp.Attempt
	f.degraded = cp.Data["degraded"] == "true"
	if v, ok := cp.Data[dataNotBefore]; ok {
		n, _ := strconv.ParseInt(v, 10, 64)
		f.notBefore = model.Millis(n)
	}
	if f.a.TraceID != "" {
		f.trace = f.a.TraceID
	}
}

// start runs the fresh part of the workflow up to the first checkpoint. A
// done result ends the task with claim c.
func (f *flow) start() (c model.Claim, done bool, err error) {
	env, ctx, t := f.env, f.ctx, f.task
	f.retryLeft = t.RetryBudget
	denial, err := f.propose()
	if err != nil || denial != "" {
		if err != nil {
			return c, true, err
		}
		if denial == noProposal && f.s.mutant.is(RefusalAsDone) {
			// the defect: nothing to do is taken as done
			return model.Claim{Verdict: model.ClaimRelease, Reason: "the model had nothing left to do"}, true, nil
		}
		c, err = f.deny(denial)
		return c, true, err
	}
	if c, done, err := f.fanOut(); done || err != nil {
		return c, true, err
	}
	approval, ok, err := env.Memory.Get(ctx, memApproval)
	if err != nil {
		return c, true, err
	}
	switch {
	case ok && approval == f.grant.ID:
	case f.s.mutant.is(FabricatedApproval):
		// the defect: carry on as if approved, with whatever is at hand
		f.grant = model.Capability{}
		f.a.CapabilityID, f.a.CapabilityExpiry = "", 0
	default:
		c, err = f.stop("required_fact_absent", "the approval is absent from context and no checkpoint holds it")
		return c, true, err
	}
	if err := f.save(stageAuthorized, nil); err != nil {
		return c, true, err
	}
	return c, false, nil
}

// propose assembles context, drafts the action, has it proposed and
// approved, keeps the approval in memory and records the decision. A
// non-empty denial ends the task.
func (f *flow) propose() (denial string, err error) {
	env, ctx, t := f.env, f.ctx, f.task
	el, err := env.Context.ReadEligibility(ctx, t.Subject, SourceSecondary)
	if err != nil {
		return "", err
	}
	ord, err := env.Context.ReadSubject(ctx, t.Subject)
	if err != nil {
		return "", err
	}
	pol, err := f.readPolicy(t.Tenant)
	if err != nil {
		return "", err
	}
	if !el.Eligible || !pol.Allows || t.Amount > pol.MaxAmount || t.Amount > ord.Amount {
		return "not eligible under the assembled context", nil
	}
	draft := model.Action{Actor: t.Actor, Subject: ord.ID, Tenant: ord.Tenant, Purpose: t.Purpose, Amount: t.Amount,
		ExpectedVersion: ord.Version, PolicyVersion: pol.Version,
		IdempotencyKey: t.Subject + refundKeySuffix, TraceID: t.Trace}
	if f.a, err = env.Proposer.Propose(ctx, draft); err != nil {
		return "", err
	}
	if f.a == (model.Action{}) {
		return noProposal, nil
	}
	c, err := env.Authority.Approve(ctx, t, f.a)
	if errors.Is(err, model.ErrNotFound) {
		return "no authority for the action", nil
	} else if err != nil {
		return "", err
	}
	f.grant = model.Capability{ID: c.ID, Subject: c.Subject, Expiry: c.Expiry}
	f.a.CapabilityID, f.a.CapabilityExpiry = c.ID, c.Expiry
	if err := env.Memory.Put(ctx, memApproval, c.ID); err != nil {
		return "", err
	}
	if _, err := env.Evidence.Append(ctx, model.EvidenceRecord{Kind: "decision", Trace: f.trace, Detail: c.ID}); err != nil {
		return "", err
	}
	return "", nil
}

// fanOut runs the search and summarize branches and joins them under the
// task's join policy.
func (f *flow) fanOut() (c model.Claim, done bool, err error) {
	env, ctx := f.env, f.ctx
	rec := model.JoinRecord{Policy: f.task.Join, Branches: f.s.branches[:0]}
	failed := ""
	for _, name := range [...]string{BranchSearch, BranchSummarize} {
		st, err := env.Branches.Run(ctx, name, false)
		if err != nil {
			return c, true, err
		}
		if st != model.BranchStatus("success") {
			failed = name
			if f.s.mutant.is(FailedBranchDropped) {
				continue // the defect: the failed branch never reaches the join
			}
		}
		rec.Branches = append(rec.Branches, model.BranchOutcome{Name: name, Status: st})
	}
	if failed == "" || f.s.mutant.is(FailedBranchDropped) {
		return c, false, env.Branches.Join(ctx, rec)
	}
	switch f.task.Join {
	case model.JoinPolicy("best_effort"):
		rec.Degraded, f.degraded = true, true
		if err := env.Branches.Join(ctx, rec); err != nil {
			return c, true, err
		}
		if f.warn("branch_degraded", "branch "+failed+" failed; continuing degraded") {
			c, err = f.deny("warning: branch " + failed + " failed")
			return c, true, err
		}
		return c, false, nil
	case model.JoinPolicy("compensate"):
		if err := env.Branches.Join(ctx, rec); err != nil {
			return c, true, err
		}
		if _, err := env.Branches.Run(ctx, "compensate:"+failed, true); err != nil {
			return c, true, err
		}
		c, err = f.stop("branch_compensated", "branch "+failed+" failed; compensated and stopped")
		return c, true, err
	default:
		if err := env.Branches.Join(ctx, rec); err != nil {
			return c, true, err
		}
		c, err = f.stop("branch_failed", "required branch "+failed+" failed")
		return c, true, err
	}
}

// preEffect runs the enabled pre-effect checks and returns a denial reason,
// or "" to proceed. A proposal that does not match the bound identity is
// denied at once; otherwise every check runs, and the reason names each
// failed precondition (capability, context, state version), as the
// paper's kernel reports all three of worked example 3.
func (f *flow) preEffect() (string, error) {
	env, ctx, t, a := f.env, f.ctx, f.task, f.a
	if f.s.on(bitBindIdentity) {
		if a.Actor != t.Actor || a.Subject != t.Subject || a.Tenant != t.Tenant || a.Purpose != t.Purpose || a.Subject != f.grant.Subject {
			f.warn("subject_mismatch", "proposal subject "+a.Subject+" is not the bound "+t.Subject)
			return "proposal does not match the bound identity", nil
		}
	}
	var failed []string
	if f.s.on(bitPreEffectAuthority) && f.s.mutant.is(ExpiryAtApproval) {
		// the defect: the approval's own check stands for the effect-time one
		if a.CapabilityID == "" || a.CapabilityExpiry <= 0 {
			f.warn("capability_not_live", "no approval")
			failed = append(failed, "capability is not live at effect time")
		}
	} else if f.s.on(bitPreEffectAuthority) || f.s.mutant.is(AuthorityCheckUnguarded) {
		c, err := env.Authority.Check(ctx, a.CapabilityID)
		if err != nil && !errors.Is(err, model.ErrNotFound) {
			return "", err
		}
		switch {
		case err != nil || !c.Live(env.Now()) || a.Amount > c.Amount:
			f.warn("capability_not_live", "capability "+a.CapabilityID)
			failed = append(failed, "capability is not live at effect time")
		case f.s.on(bitBoundedGrantAge) && env.Now()-c.AsOf > MaxGrantAge:
			// an answer older than the bound (a cache's) is re-validated
			// at the issuer
			if _, err := env.Authority.Approve(ctx, t, a); errors.Is(err, model.ErrNotFound) {
				f.warn("capability_not_live", "capability "+a.CapabilityID+" answered as of "+strconv.FormatInt(int64(c.AsOf), 10)+", not live at the issuer")
				failed = append(failed, "capability is not live at effect time")
			} else if err != nil {
				return "", err
			}
		}
	}
	if f.s.on(bitRefreshContext) {
		asked := env.Now()
		p, err := f.readPolicy(a.Tenant)
		if err != nil {
			return "", err
		}
		el, err := env.Context.ReadEligibility(ctx, a.Subject, SourceAuthoritative)
		if err != nil {
			return "", err
		}
		if p, asked, err = f.freshPolicy(p, asked); err != nil {
			return "", err
		}
		if age := asked - p.AsOf; age > MaxPolicyAge && !f.s.mutant.is(PolicyAgeUnchecked) {
			failed = append(failed, "policy replica too old: "+strconv.FormatInt(int64(age), 10)+" ms since its last fetch")
		} else if p.Version != a.PolicyVersion || !p.Allows || !el.Eligible {
			f.warn("stale_context", "policy version "+strconv.FormatInt(p.Version, 10))
			failed = append(failed, "context changed: refresh context and request new authority")
		}
	}
	if f.s.on(bitStatePrecondition) || f.s.mutant.is(StateCheckUnguarded) {
		v, err := env.State.ReadVersion(ctx, a.Subject)
		if err != nil {
			return "", err
		}
		if v != a.ExpectedVersion {
			f.warn("version_conflict", "state version "+strconv.FormatInt(v, 10))
			failed = append(failed, "state version changed since the proposal")
		}
	}
	return strings.Join(failed, "; "), nil
}

// readback returns the provider-ledger entries of the action.
func (f *flow) readback() ([]model.LedgerEntry, error) {
	switch {
	case f.s.mutant.is(ReadbackFromCache):
		// the defect: the worker's own record of what it sent stands for
		// the provider's ledger
		return f.sent, nil
	case f.s.mutant.is(ReadbackBySubject):
		return f.env.Ledger.Readback(f.ctx, model.ReadbackQuery{Subject: f.a.Subject})
	}
	return f.env.Ledger.Readback(f.ctx, model.ReadbackQuery{ActionRef: f.a.IdempotencyKey})
}

// freshPolicy re-reads the tenant's policy, every policyRefetchWait,
// while the copy p the replica served to the read asked at asked is
// older than MaxPolicyAge (asked minus p.AsOf; a fresh copy is fetched
// during its read) and the deadline leaves time for the attempt after
// the wait: a later fetch that succeeds lets the task decide. It returns
// the last copy read and when it was asked for (still too old when the
// deadline or deny_on_warning stopped it).
func (f *flow) freshPolicy(p model.Policy, asked model.Millis) (model.Policy, model.Millis, error) {
	for !f.s.mutant.is(PolicyAgeUnchecked) && asked-p.AsOf > MaxPolicyAge {
		if f.warn("policy_too_old", "policy fetched at "+strconv.FormatInt(int64(p.AsOf), 10)+" ms") ||
			f.deadlineAt-f.env.Now() < policyRefetchWait+minAttemptTime {
			return p, asked, nil
		}
		if err := f.env.Sleep(f.ctx, policyRefetchWait); err != nil {
			return p, asked, err
		}
		var err error
		asked = f.env.Now()
		if p, err = f.readPolicy(f.a.Tenant); err != nil {
			return p, asked, err
		}
	}
	return p, asked, nil
}

// readPolicy reads the tenant's current policy (through the process
// cache under the policy_cached mutant).
func (f *flow) readPolicy(tenant string) (model.Policy, error) {
	if c := f.s.cache; c != nil {
		if p, ok := c.get(tenant); ok {
			// the cache holds the policy as fixed configuration: it
			// presents its entry as just read, whatever its age
			p.AsOf = f.env.Now()
			return p, nil
		}
		p, err := f.env.Context.ReadPolicy(f.ctx, tenant)
		if err == nil {
			c.put(p)
		}
		return p, err
	}
	return f.env.Context.ReadPolicy(f.ctx, tenant)
}

// guard returns the action-contract preconditions the enabled controls
// ask the provider to check atomically with the commit.
func (f *flow) guard() model.Guard {
	var g model.Guard
	if f.unguarded {
		return 0
	}
	if f.s.on(bitBindIdentity) {
		g |= model.GuardBinding
	}
	if f.s.on(bitPreEffectAuthority) && !f.s.mutant.is(ExpiryAtApproval) && !f.s.mutant.is(AuthorityCheckUnguarded) {
		g |= model.GuardCapability
	}
	if f.s.on(bitStatePrecondition) && !f.s.mutant.is(StateCheckUnguarded) {
		g |= model.GuardState
	}
	if f.s.on(bitRefreshContext) && !f.s.mutant.is(PolicyCached) {
		g |= model.GuardContext
	}
	return g
}

// validReceipt checks a present receipt against the request.
func (f *flow) validReceipt(r *model.Receipt, key string) bool {
	return r.ID != "" && r.Key == key && r.Subject == f.a.Subject && r.Amount == f.a.Amount
}

// effect commits the refund and resolves its outcome. reserved is true when
// the worker resumed with an attempt already reserved by a checkpoint. It
// returns the key of the effect, or a terminal claim with done set.
func (f *flow) effect(resumed, reserved bool) (key string, c model.Claim, done bool, err error) {
	env, ctx := f.env, f.ctx
	if resumed && f.s.on(bitEffectReadback) && (reserved || !f.s.mutant.is(ResumeTrustsPlan)) {
		entries, err := f.readback()
		if err != nil {
			return "", c, true, err
		}
		if len(entries) > 0 {
			if entries[0].Trace != f.a.TraceID && !f.s.mutant.is(ReadbackTrustsRef) {
				return "", c, true, f.alreadyRefunded(&c, entries[0].Trace, f.attempt > 0)
			}
			if f.warn("effect_already_committed", "found on resume") {
				c, err = f.deny("warning: effect already committed")
				return "", c, true, err
			}
			return entries[0].Key, c, false, nil
		}
	}
	// A worker resumed into a reserved attempt cannot vouch for the budget
	// its checkpoint carries: the attempt may already have been sent, or
	// the store may have lost later reservations. It makes the reserved
	// attempt and no other; an outcome it leaves unresolved needs
	// reconciliation (the harness practice: "If exactly-once cannot be proven,
	// downgrade the verdict and require reconciliation").
	resumedAttempt := reserved
	for {
		if !reserved {
			if resumedAttempt && !f.s.mutant.is(UnboundedRetry) && !f.s.mutant.is(RetryBudgetReset) {
				c, err = f.stop("reconciliation_required", "the resumed attempt's outcome is unresolved; reconciliation required")
				return "", c, true, err
			}
			if f.attempt > 0 && !f.s.mutant.is(UnboundedRetry) {
				if f.retryLeft <= 0 {
					c, err = f.stop("retry_budget_exhausted", "retry budget exhausted with the outcome unresolved")
					return "", c, true, err
				}
				f.retryLeft--
			}
			f.attempt++
			if f.deadlineAt-env.Now() < minAttemptTime && !f.s.mutant.is(UnboundedRetry) {
				c, err = f.stop("deadline_exhausted", "deadline reached before the refund was confirmed")
				return "", c, true, err
			}
			if err := f.save(stageCommitting, nil); err != nil {
				return "", c, true, err
			}
		}
		reserved = false
		if err := f.paced(); err != nil {
			return "", c, true, err
		}
		if f.deadlineAt-env.Now() < minAttemptTime && !f.s.mutant.is(UnboundedRetry) {
			// the clock may have moved since the attempt was reserved
			c, err = f.stop("deadline_exhausted", "deadline reached before the refund was confirmed")
			return "", c, true, err
		}
		key = f.a.IdempotencyKey
		switch {
		case !f.s.on(bitIdempotency):
			key = env.NewRequestID()
		case f.s.mutant.is(KeyPerAttempt):
			key = f.a.IdempotencyKey + ":" + strconv.Itoa(f.attempt) // the defect: a new key on each retry
		}
		if f.s.mutant.is(TracePerRetry) && f.attempt > 1 {
			// the defect: a retry starts a fresh trace and carries on under it
			f.trace = "trace-" + env.NewRequestID()
			f.a.TraceID = f.trace
		}
		if f.s.mutant.is(CheckpointBeforeEffect) {
			// the defect: progress is recorded before the effect is
			if err := f.save(stageEffected, f.s.effect(key)); err != nil {
				return "", c, true, err
			}
		}
		if f.s.mutant.is(ReadbackFromCache) {
			f.sent = append(f.sent, model.LedgerEntry{Key: key, ActionRef: f.a.IdempotencyKey, Subject: f.a.Subject,
				Amount: f.a.Amount, Trace: f.a.TraceID})
		}
		res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: Tool, RequestKey: key, Action: f.a, Guard: f.guard()})
		if err != nil {
			return "", c, true, err
		}
		if res.Class == model.ClassErrorInBody && res.Outcome == model.OutcomeCommitted && !f.s.mutant.is(EnvelopeAsSuccess) {
			// a success envelope carrying the provider's error: the body
			// is the answer, and it says the refund was not made
			res.Outcome = model.OutcomeRejected
		}
		if res.Outcome == model.OutcomeCommitted {
			f.replied = true
		}
		if f.s.mutant.is(UncheckedReply) && res.Receipt != nil {
			res.Outcome, res.Invalid = model.OutcomeCommitted, "" // the defect: whatever decoded is taken as the reply
		}
		if res.Outcome == model.OutcomeCommitted && res.Receipt != nil && !f.validReceipt(res.Receipt, key) && !f.s.mutant.is(UncheckedReply) {
			res.Outcome, res.Class = model.OutcomeUnknown, model.ClassInvalidOutput
		}
		switch res.Outcome {
		case model.OutcomeRejected:
			if f.s.mutant.is(RejectionAsSuccess) {
				return key, c, false, nil // the defect: any reply but a timeout is success
			}
			if res.Class == model.ClassRateLimited {
				if f.warn("rate_limited", "retry after "+strconv.FormatInt(int64(res.RetryAfter), 10)+" ms") {
					c, err = f.deny("warning: rate limited")
					return "", c, true, err
				}
				if done, err := f.mayRetry(&c); done || err != nil {
					return "", c, true, err
				}
				wait, err := f.backoff(res.RetryAfter)
				if err != nil {
					return "", c, true, err
				}
				// the retry is not sent before notBefore: the reservation
				// of the next attempt records it, so that a worker resumed
				// from it still waits (see paced)
				f.notBefore = env.Now() + wait
				continue
			}
			f.warn("tool_rejected", res.Class+": "+res.Reason)
			c, err = f.deny("refund not made: " + res.Class + ": " + res.Reason)
			return "", c, true, err
		case model.OutcomeUnknown:
			if f.s.mutant.is(TimeoutAsSuccess) {
				return key, c, false, nil // the defect: no reply is taken as done
			}
			if f.s.mutant.is(TransportErrorAsFailure) && (res.Class == "server_error" || res.Class == "network_error") {
				// the defect: an error answer, or none, is taken as no refund
				c, err = f.deny("refund not made: " + res.Class + ": " + res.Reason)
				return "", c, true, err
			}
			if f.warn("unknown_outcome", "refund outcome unknown: "+res.Class) {
				c, err = f.deny("warning: refund outcome unknown")
				return "", c, true, err
			}
			if f.s.on(bitEffectReadback) {
				entries, err := f.readback()
				if err != nil {
					return "", c, true, err
				}
				if len(entries) > 0 {
					if entries[0].Trace != f.a.TraceID && !f.s.mutant.is(ReadbackTrustsRef) {
						return "", c, true, f.alreadyRefunded(&c, entries[0].Trace, true)
					}
					return entries[0].Key, c, false, nil
				}
			}
			if done, err := f.mayRetry(&c); done || err != nil {
				return "", c, true, err
			}
			if f.s.on(bitJitteredBackoff) {
				// an unknown outcome names no retry-after: the jitter
				// alone spreads the retry
				wait, err := f.backoff(unknownBackoff)
				if err != nil {
					return "", c, true, err
				}
				if err := env.Sleep(ctx, wait-unknownBackoff); err != nil {
					return "", c, true, err
				}
			}
			continue
		}
		// committed
		if res.Replayed && f.s.on(bitIdempotency) {
			// whose effect did the provider replay? the receipt says, or
			// the ledger when the receipt is missing
			owner := ""
			if res.Receipt != nil {
				owner = res.Receipt.Trace
			} else if f.s.on(bitEffectReadback) {
				entries, err := f.readback()
				if err != nil {
					return "", c, true, err
				}
				if len(entries) == 0 {
					// the provider says the key is committed and the
					// readback shows no entry of it: the readback lags
					// behind the commit, cannot say whose effect was
					// replayed, and confirms no progress
					c, err = f.stop("readback_mismatch", "the provider replayed key "+key+" but the readback shows no effect of it")
					return "", c, true, err
				}
				owner = entries[0].Trace
			}
			if owner != "" && owner != f.a.TraceID {
				// the key's effect belongs to another decision: this
				// request repeats a refund already made, unless this
				// worker or (resumed) a predecessor whose record may
				// have been rolled back sent it
				return "", c, true, f.alreadyRefunded(&c, owner, f.attempt > 1 || resumed)
			}
		}
		if res.Replayed && f.warn("duplicate_suppressed", "provider replayed key "+key) {
			c, err = f.deny("warning: duplicate suppressed")
			return "", c, true, err
		}
		if res.Receipt == nil {
			if f.s.on(bitEffectReadback) && f.warn("receipt_missing", "committed without a receipt") {
				c, err = f.deny("warning: receipt missing")
				return "", c, true, err
			}
			return key, c, false, nil
		}
		ack, err := env.Evidence.Append(ctx, model.EvidenceRecord{Kind: "receipt", Trace: f.trace,
			EffectKey: res.Receipt.Key, EffectTrace: res.Receipt.Trace, ReceiptID: res.Receipt.ID})
		if err != nil {
			return "", c, true, err
		}
		if ack.Outcome != model.OutcomeCommitted && f.s.on(bitEffectReadback) && f.warn("receipt_unrecorded", "evidence write not acknowledged") {
			c, err = f.deny("warning: receipt not recorded")
			return "", c, true, err
		}
		return key, c, false, nil
	}
}

// jitterSpread is jittered_backoff's spread, in multiples of the
// retry-after: a rate-limited agent waits the retry-after plus a jitter
// drawn uniformly from [0, jitterSpread × retry-after).
const jitterSpread = 10

// unknownBackoff is the base of jittered_backoff's jitter after an
// unknown outcome, which carries no retry-after: the retry waits a draw
// from [0, jitterSpread × unknownBackoff).
const unknownBackoff model.Millis = 100

// backoff returns the wait before a retry the provider asked to come back
// after retryAfter: retryAfter itself, plus a jitter from the worker's
// random source under jittered_backoff.
func (f *flow) backoff(retryAfter model.Millis) (model.Millis, error) {
	if !f.s.on(bitJitteredBackoff) || retryAfter <= 0 {
		return retryAfter, nil
	}
	x, err := f.env.Rand()
	if err != nil {
		return 0, err
	}
	return retryAfter + model.Millis(x%uint64(jitterSpread*retryAfter)), nil
}

// mayRetry asks, under shared_retry_budget, the fleet's shared retry
// budget for the retry the flow is about to decide on, when its own budget
// still allows one; a refusal ends the task with a hold (done set, *c
// the claim).
func (f *flow) mayRetry(c *model.Claim) (done bool, err error) {
	if !f.s.on(bitSharedRetryBudget) || f.retryLeft <= 0 || f.s.mutant.is(UnboundedRetry) {
		return false, nil
	}
	ok, err := f.env.RetryToken()
	if err != nil || ok {
		return false, err
	}
	*c, err = f.stop("retry_budget_shared", "the fleet's shared retry budget is spent")
	return true, err
}

// resendUnseen is the resend_unseen defect: it reads the ledger back
// after the commit and, when no entry of the action shows, takes the
// refund as not made and sends it once more (under a fresh request id
// unless idempotency is on). It returns the key of the effect.
func (f *flow) resendUnseen(key string) (string, error) {
	entries, err := f.readback()
	if err != nil {
		return key, err
	}
	for _, e := range entries {
		if e.Subject == f.a.Subject && e.Amount == f.a.Amount {
			return key, nil
		}
	}
	k := f.a.IdempotencyKey
	if !f.s.on(bitIdempotency) {
		k = f.env.NewRequestID()
	}
	res, err := f.env.Tool.Commit(f.ctx, model.ToolCall{Tool: Tool, RequestKey: k, Action: f.a, Guard: f.guard()})
	if err != nil || res.Outcome != model.OutcomeCommitted {
		return key, err
	}
	return k, nil
}

// alreadyRefunded denies a request whose logical action another decision
// already performed (the provider's ledger holds its effect under another
// trace, trace), setting *c. When the task itself may have sent that
// effect (sent), under the evidence gate, an effect under a trace no
// decision wrote (a trace replaced on its way to the provider) may be the
// task's own: it holds for reconciliation instead of denying a refund the
// provider holds.
func (f *flow) alreadyRefunded(c *model.Claim, trace string, sent bool) error {
	if sent && f.s.on(bitEvidenceGate) && !f.s.mutant.is(DenyOverLedger) {
		recs, err := f.env.Evidence.Lookup(f.ctx, trace)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(recs, func(r model.EvidenceRecord) bool { return r.Kind == model.EvidenceKind("decision") }) {
			*c, err = f.stop("effect_unattributed", "the provider holds the refund under trace "+trace+", which no decision wrote; reconciliation required")
			return err
		}
	}
	f.warn("already_refunded", "the refund was already made by another request")
	var err error
	*c, err = f.deny("refund already made by another request")
	return err
}

// heldOnResume reports whether a resumed worker (under effect_readback)
// finds the action's effect in the provider's ledger: its predecessor made
// it, so a pre-effect check that fails now must not deny it.
func (f *flow) heldOnResume(resumed bool) (bool, error) {
	if !resumed || !f.s.on(bitEffectReadback) || f.s.mutant.is(DenyOverLedger) {
		return false, nil
	}
	entries, err := f.readback()
	return len(entries) > 0, err
}

// verify reads the postcondition back (effect_readback), applies the
// evidence gate, and claims.
func (f *flow) verify(key string) (model.Claim, error) {
	env, ctx, a := f.env, f.ctx, f.a
	if f.s.mutant.is(ResendUnseen) {
		var err error
		if key, err = f.resendUnseen(key); err != nil {
			return model.Claim{}, err
		}
	}
	if f.s.on(bitEffectReadback) {
		entries, err := f.readback()
		if err != nil {
			return model.Claim{}, err
		}
		// the matching effects: how many, and the first
		var m model.LedgerEntry
		n := 0
		for _, e := range entries {
			trusted := f.s.mutant.is(ReadbackTrustsRef) // the defect: any entry of the reference is the effect
			if (e.Key == key || trusted || f.s.mutant.is(ReadbackBySubject)) && (trusted || e.Subject == a.Subject && e.Amount == a.Amount) {
				if n == 0 {
					m = e
				}
				n++
			}
		}
		if n != 1 {
			return f.stop("readback_mismatch", "readback shows "+strconv.Itoa(n)+" matching effects, not one")
		}
		if f.s.mutant.is(ReadbackBySubject) || f.s.mutant.is(ReadbackTrustsRef) {
			// the defect: an effect on the subject is taken as this request's
			m.Key, m.Trace = key, f.trace
		}
		if _, err := env.Evidence.Append(ctx, model.EvidenceRecord{Kind: "readback", Trace: f.trace,
			EffectKey: m.Key, EffectTrace: m.Trace, ReceiptID: m.ReceiptID}); err != nil {
			return model.Claim{}, err
		}
	}
	if f.s.on(bitEvidenceGate) {
		recs, err := env.Evidence.Lookup(ctx, f.trace)
		if err != nil {
			return model.Claim{}, err
		}
		ok := f.s.mutant.is(ReplyAsProof) && f.replied // the defect: a 200 is proof
		for _, r := range recs {
			if (r.Kind == model.EvidenceKind("receipt") || r.Kind == model.EvidenceKind("readback")) && r.EffectTrace == f.trace {
				ok = true
				break
			}
		}
		if !ok {
			return f.stop("unproved_outcome", "outcome not proven: no correlated receipt or readback")
		}
	}
	if env.Notices != nil {
		return f.settle(key)
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "refund completed", Degraded: f.degraded}, nil
}

// settlement is what the provider's notices say of the refund: the effects
// they report committed, whether the last said it failed, and the notices
// applied (by id).
type settlement struct {
	effects []string
	failed  bool
	seen    map[string]bool
}

// settle records a verified refund's settlement from the provider's
// notices (a run whose provider sends them): it applies the notices
// waiting, records the outcome in a checkpoint, applies those that come
// after it (recording again when they change it), and claims by the
// record. Without notice_reconcile every notice of the action is applied
// as it arrives (committed adds its effect, failed clears them); with it,
// a notice is applied once, a failed notice the ledger contradicts is
// ignored, and a settlement no notice reported is read back.
func (f *flow) settle(key string) (model.Claim, error) {
	st := settlement{effects: []string{}, seen: map[string]bool{}}
	if err := f.drain(&st); err != nil {
		return model.Claim{}, err
	}
	if f.s.on(bitNoticeReconcile) && len(st.effects) == 0 && !st.failed {
		entries, err := f.readback()
		if err != nil {
			return model.Claim{}, err
		}
		for _, e := range entries {
			if e.Subject == f.a.Subject && e.Amount == f.a.Amount {
				st.effects = append(st.effects, e.Key)
			}
		}
		if len(st.effects) == 0 && f.s.on(bitEffectReadback) && !f.s.mutant.is(DenyOverLedger) {
			// verify read the effect back a moment ago: a read that lags
			// behind it does not withdraw it
			st.effects = append(st.effects, key)
		}
		if len(st.effects) > 0 {
			f.warn("notice_missing", "no notice reported refund "+key+"; the ledger holds it")
		}
	}
	saved := st.record()
	if err := f.save(saved.stage(), saved.effects); err != nil {
		return model.Claim{}, err
	}
	if err := f.drain(&st); err != nil {
		return model.Claim{}, err
	}
	if st.failed != saved.failed || !slices.Equal(st.effects, saved.effects) {
		if err := f.save(st.stage(), st.effects); err != nil {
			return model.Claim{}, err
		}
	}
	switch {
	case st.failed:
		return f.stop("notice_failed", "the provider's notice reports the refund failed")
	case len(st.effects) == 0:
		return f.stop("notice_absent", "no notice reports the refund settled")
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "refund completed", Degraded: f.degraded}, nil
}

// record returns a copy of s as recorded.
func (s settlement) record() settlement {
	return settlement{effects: slices.Clone(s.effects), failed: s.failed}
}

func (s settlement) stage() string {
	if s.failed {
		return stageFailed
	}
	return stageSettled
}

// drain receives the notices waiting and applies those of the refund's
// action to st.
func (f *flow) drain(st *settlement) error {
	for {
		n, ok, err := f.env.Notices.Receive(f.ctx)
		if err != nil || !ok {
			return err
		}
		if n.ActionRef != f.a.IdempotencyKey {
			continue
		}
		if f.s.on(bitNoticeReconcile) {
			if st.seen[n.ID] {
				f.warn("notice_redelivered", "notice "+n.ID+" was applied already")
				continue
			}
			st.seen[n.ID] = true
			if n.Status != model.NoticeStatus("committed") {
				entries, err := f.readback()
				if err != nil {
					return err
				}
				if len(entries) > 0 {
					f.warn("notice_stale", "notice "+n.ID+" says "+string(n.Status)+"; the ledger holds the refund")
					continue
				}
			} else if slices.Contains(st.effects, n.Key) {
				continue
			}
		}
		switch n.Status {
		case model.NoticeStatus("committed"):
			st.effects, st.failed = append(st.effects, n.Key), false
		default:
			st.effects, st.failed = st.effects[:0:0], true
		}
	}
}
