// Package copperfin is faultline's reference system: the paper's Copperfin
// refund workflow (seed 000), built only on the public model.Env, with no
// private hook into the harness.
//
// The workflow reads the action-bearing context, drafts an action contract,
// has the proposer (the model) turn it into a proposal, gets it approved,
// checkpoints, runs the pre-effect checks its controls enable, commits the
// refund through the tool, records the receipt, checkpoints again, verifies
// and claims. Entry points:
//
//   - [New] and [Factory] build the system for a control set;
//
// What each control does here:
//
//   - bind_identity: the proposal's actor, subject, tenant and purpose must
//     equal the task's binding and the capability's, outside the model text;
//   - pre_effect_authority: the capability is re-read at effect time and must
//     be live and cover the amount;
//   - refresh_context: before the effect the policy and the eligibility are
//     re-read, the latter with source precedence (the authoritative record);
//     a newer policy version, a policy that no longer allows the refund or an
//     ineligible record denies;
//   - state_precondition: the authoritative state version must equal the
//     proposal's expected version;
//   - idempotency: every attempt reuses the logical idempotency key; without
//     it each attempt gets a fresh request identity (a blind retry);
//   - effect_readback: an unknown outcome and every resume before the effect
//     are resolved by reading the provider's ledger, and every effect is
//     verified by a readback recorded as evidence;
//   - evidence_gate: no release unless the evidence ledger holds a receipt or
//     readback whose effect trace joins the decision's trace;
//   - deny_on_warning (the fail_closed profile): any warning denies.
package copperfin

import (
	"context"
	"errors"
	"strconv"

	"github.com/faultline/faultline/model"
)

// Tool is the name of the refund tool.
const Tool = "payments.refund"

// WorkflowVersion is the version written into every checkpoint.
const WorkflowVersion = 1

// Checkpoint states of the workflow.
const (
	stageAuthorized = "authorized" // approved, before the effect
	stageEffected   = "effected"   // effect committed (or found), before verification
)

// System is the Copperfin refund workflow under a control set.
type System struct {
	cs model.Controls
}

// New returns the reference system with controls cs.
func New(cs model.Controls) *System { return &System{cs: cs} }

// Factory returns a factory of fresh reference systems with controls cs.
func Factory(cs model.Controls) model.Factory {
	return func() model.System { return &System{cs: cs} }
}

func (s *System) on(c model.Control) bool { return s.cs.Has(c) }

// flow carries one run's in-memory state; nothing of it survives a restart.
type flow struct {
	s    *System
	ctx  context.Context
	env  model.Env
	task model.Task
}

var errDenied = errors.New("denied")

// warn reports a warning and reports whether the fail-closed policy now
// requires a denial.
func (f *flow) warn(code, detail string) bool {
	f.env.Signals.Warn(code, detail)
	return f.s.on(model.DenyOnWarning)
}

func (f *flow) deny(reason string) (model.Claim, error) {
	if _, err := f.env.Evidence.Append(f.ctx, model.EvidenceRecord{Kind: model.EvidenceDenial, Trace: f.task.Trace, Detail: reason}); err != nil {
		return model.Claim{}, err
	}
	return model.Claim{Verdict: model.ClaimDeny, Reason: reason}, nil
}

func hold(reason string) (model.Claim, error) {
	return model.Claim{Verdict: model.ClaimHold, Reason: reason}, nil
}

// Run performs the refund task. It returns model.ErrWorkerCrashed (wrapped
// or not) when the harness crashed it.
func (s *System) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	f := &flow{s: s, ctx: ctx, env: env, task: task}
	cp, resumed, err := env.Store.Load(ctx, task.ID)
	if err != nil {
		return model.Claim{}, err
	}
	var a model.Action
	var capSubject string
	stage := stageAuthorized
	if resumed {
		a, stage, capSubject = cp.Action, cp.State, cp.Grant.Subject
	} else {
		var denial string
		a, capSubject, denial, err = f.propose()
		if err != nil {
			return model.Claim{}, err
		}
		if denial != "" {
			return f.deny(denial)
		}
		if err := env.Store.Save(ctx, model.Checkpoint{Seq: 1, WorkflowVersion: WorkflowVersion, State: stageAuthorized,
			Action: a, Grant: model.Capability{ID: a.CapabilityID, Subject: capSubject, Expiry: a.CapabilityExpiry}}); err != nil {
			return model.Claim{}, err
		}
	}
	var effectKey string
	if stage == stageAuthorized {
		if reason, err := f.preEffect(a, capSubject); err != nil || reason != "" {
			if err != nil {
				return model.Claim{}, err
			}
			return f.deny(reason)
		}
		var c model.Claim
		var done bool
		effectKey, c, done, err = f.effect(a, resumed)
		if err != nil || done {
			return c, err
		}
		next := 2
		if resumed {
			next = cp.Seq + 1
		}
		if err := env.Store.Save(ctx, model.Checkpoint{Seq: next, WorkflowVersion: WorkflowVersion, State: stageEffected,
			Action: a, CompletedEffects: []string{effectKey}, Grant: model.Capability{ID: a.CapabilityID, Subject: capSubject, Expiry: a.CapabilityExpiry}}); err != nil {
			return model.Claim{}, err
		}
	} else if len(cp.CompletedEffects) > 0 {
		effectKey = cp.CompletedEffects[0]
	}
	return f.verify(a, effectKey)
}

// propose assembles context, drafts the action, has it proposed and
// approved, and records the decision. A non-empty denial ends the task.
func (f *flow) propose() (a model.Action, capSubject, denial string, err error) {
	env, ctx, t := f.env, f.ctx, f.task
	el, err := env.Context.ReadEligibility(ctx, t.Subject, model.SourceSecondary)
	if err != nil {
		return a, "", "", err
	}
	ord, err := env.Context.ReadOrder(ctx, t.Subject)
	if err != nil {
		return a, "", "", err
	}
	pol, err := env.Context.ReadPolicy(ctx, t.Tenant)
	if err != nil {
		return a, "", "", err
	}
	if !el.Eligible || !pol.AllowsRefund || t.Amount > pol.MaxAmount || t.Amount > ord.Amount {
		return a, "", "not eligible under the assembled context", nil
	}
	draft := model.Action{Actor: t.Actor, Subject: ord.Subject, Tenant: ord.Tenant, Purpose: t.Purpose, Amount: t.Amount,
		ExpectedVersion: ord.Version, PolicyVersion: pol.Version,
		IdempotencyKey: t.Subject + ":refund:v" + strconv.Itoa(WorkflowVersion), TraceID: t.Trace}
	a, err = env.Proposer.Propose(ctx, draft)
	if err != nil {
		return a, "", "", err
	}
	c, err := env.Authority.Approve(ctx, t, a)
	if errors.Is(err, model.ErrNotFound) {
		return a, "", "no authority for the action", nil
	} else if err != nil {
		return a, "", "", err
	}
	a.CapabilityID, a.CapabilityExpiry = c.ID, c.Expiry
	if _, err := env.Evidence.Append(ctx, model.EvidenceRecord{Kind: model.EvidenceDecision, Trace: t.Trace, Detail: c.ID}); err != nil {
		return a, "", "", err
	}
	return a, c.Subject, "", nil
}

// preEffect runs the enabled pre-effect checks and returns a denial reason,
// or "" to proceed.
func (f *flow) preEffect(a model.Action, capSubject string) (string, error) {
	env, ctx, t := f.env, f.ctx, f.task
	if f.s.on(model.BindIdentity) {
		if a.Actor != t.Actor || a.Subject != t.Subject || a.Tenant != t.Tenant || a.Purpose != t.Purpose || a.Subject != capSubject {
			f.warn("subject_mismatch", "proposal subject "+a.Subject+" is not the bound "+t.Subject)
			return "proposal does not match the bound identity", nil
		}
	}
	if f.s.on(model.PreEffectAuthority) {
		c, err := env.Authority.Check(ctx, a.CapabilityID)
		if err != nil && !errors.Is(err, model.ErrNotFound) {
			return "", err
		}
		if err != nil || !c.Live(env.Now()) || a.Amount > c.Amount {
			f.warn("capability_not_live", "capability "+a.CapabilityID)
			return "capability is not live at effect time", nil
		}
	}
	if f.s.on(model.RefreshContext) {
		p, err := env.Context.ReadPolicy(ctx, a.Tenant)
		if err != nil {
			return "", err
		}
		el, err := env.Context.ReadEligibility(ctx, a.Subject, model.SourceAuthoritative)
		if err != nil {
			return "", err
		}
		if p.Version != a.PolicyVersion || !p.AllowsRefund || !el.Eligible {
			f.warn("stale_context", "policy version "+strconv.FormatInt(p.Version, 10))
			return "context changed: refresh context and request new authority", nil
		}
	}
	if f.s.on(model.StatePrecondition) {
		v, err := env.State.ReadVersion(ctx, a.Subject)
		if err != nil {
			return "", err
		}
		if v != a.ExpectedVersion {
			f.warn("version_conflict", "state version "+strconv.FormatInt(v, 10))
			return "state version changed since the proposal", nil
		}
	}
	return "", nil
}

// readback returns the provider-ledger entries of the action.
func (f *flow) readback(a model.Action) ([]model.LedgerEntry, error) {
	return f.env.Ledger.Readback(f.ctx, model.ReadbackQuery{ActionRef: a.IdempotencyKey})
}

// effect commits the refund and resolves its outcome. It returns the key of
// the effect, or a terminal claim with done set.
func (f *flow) effect(a model.Action, resumed bool) (key string, c model.Claim, done bool, err error) {
	env, ctx := f.env, f.ctx
	if resumed && f.s.on(model.EffectReadback) {
		entries, err := f.readback(a)
		if err != nil {
			return "", c, true, err
		}
		if len(entries) > 0 {
			if f.warn("effect_already_committed", "found on resume") {
				c, err = f.deny("warning: effect already committed")
				return "", c, true, err
			}
			return entries[0].Key, c, false, nil
		}
	}
	key = a.IdempotencyKey
	if !f.s.on(model.Idempotency) {
		key = env.NewRequestID()
	}
	res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: Tool, RequestKey: key, Action: a})
	if err != nil {
		return "", c, true, err
	}
	for attempts := 1; res.Outcome == model.OutcomeUnknown; attempts++ {
		if f.warn("unknown_outcome", "refund outcome unknown") {
			c, err = f.deny("warning: refund outcome unknown")
			return "", c, true, err
		}
		if f.s.on(model.EffectReadback) {
			entries, err := f.readback(a)
			if err != nil {
				return "", c, true, err
			}
			if len(entries) > 0 {
				return entries[0].Key, c, false, nil
			}
		}
		if attempts > 2 {
			c, err = hold("retry budget exhausted with the outcome unknown")
			return "", c, true, err
		}
		if !f.s.on(model.Idempotency) {
			key = env.NewRequestID()
		}
		if res, err = env.Tool.Commit(ctx, model.ToolCall{Tool: Tool, RequestKey: key, Action: a}); err != nil {
			return "", c, true, err
		}
	}
	if res.Outcome == model.OutcomeRejected {
		c, err = f.deny("provider rejected the refund: " + res.Reason)
		return "", c, true, err
	}
	if res.Replayed && f.warn("duplicate_suppressed", "provider replayed key "+key) {
		c, err = f.deny("warning: duplicate suppressed")
		return "", c, true, err
	}
	if res.Receipt == nil {
		if f.s.on(model.EffectReadback) && f.warn("receipt_missing", "committed without a receipt") {
			c, err = f.deny("warning: receipt missing")
			return "", c, true, err
		}
		return key, c, false, nil
	}
	ack, err := env.Evidence.Append(ctx, model.EvidenceRecord{Kind: model.EvidenceReceipt, Trace: f.task.Trace,
		EffectKey: res.Receipt.Key, EffectTrace: res.Receipt.Trace, ReceiptID: res.Receipt.ID})
	if err != nil {
		return "", c, true, err
	}
	if ack.Outcome != model.OutcomeCommitted && f.s.on(model.EffectReadback) && f.warn("receipt_unrecorded", "evidence write not acknowledged") {
		c, err = f.deny("warning: receipt not recorded")
		return "", c, true, err
	}
	return key, c, false, nil
}

// verify reads the postcondition back (effect_readback), applies the
// evidence gate, and claims.
func (f *flow) verify(a model.Action, key string) (model.Claim, error) {
	env, ctx, t := f.env, f.ctx, f.task
	if f.s.on(model.EffectReadback) {
		entries, err := f.readback(a)
		if err != nil {
			return model.Claim{}, err
		}
		var match []model.LedgerEntry
		for _, e := range entries {
			if e.Key == key && e.Subject == a.Subject && e.Amount == a.Amount {
				match = append(match, e)
			}
		}
		if len(match) != 1 {
			if f.warn("readback_mismatch", strconv.Itoa(len(match))+" matching entries") {
				return f.deny("warning: readback mismatch")
			}
			return hold("readback does not show exactly one matching effect")
		}
		m := match[0]
		if _, err := env.Evidence.Append(ctx, model.EvidenceRecord{Kind: model.EvidenceReadback, Trace: t.Trace,
			EffectKey: m.Key, EffectTrace: m.Trace, ReceiptID: m.ReceiptID}); err != nil {
			return model.Claim{}, err
		}
	}
	if f.s.on(model.EvidenceGate) {
		recs, err := env.Evidence.Lookup(ctx, t.Trace)
		if err != nil {
			return model.Claim{}, err
		}
		ok := false
		for _, r := range recs {
			if (r.Kind == model.EvidenceReceipt || r.Kind == model.EvidenceReadback) && r.EffectTrace == t.Trace {
				ok = true
				break
			}
		}
		if !ok {
			if f.warn("unproved_outcome", "no evidence joins the decision trace") {
				return f.deny("warning: outcome unproved")
			}
			return hold("outcome not proven: no correlated receipt or readback")
		}
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "refund completed"}, nil
}
