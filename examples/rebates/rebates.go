// Package rebates is an example system of another domain than the
// reference one: an agent that pays an energy utility's insulation
// rebates through a payments provider that versions its API. It shows
// specification drift on a user's own system (spec_drift): the provider
// moves from version 1 (amounts in cents) to version 2 (amounts in whole
// units) between the agent's plan and its call, and a call made under the
// old contract pays 100 times the approved rebate.
//
// Entry points: [Agent] (the system, with its defence [Agent.Pinned]),
// [Fixture] (two rebates of one utility) and [Definition].
package rebates

import (
	"context"

	"github.com/faultline/faultline/model"
)

// Tool is the name of the rebate-payment tool.
const Tool = "rebates.pay"

// Agent pays the task's rebate, in cents as the provider's contract of
// version 1 reads them, under a guard of the rebate's state version. By
// default it sends the call without naming the contract it was built
// under, so the provider reads it under whatever version it runs now.
type Agent struct {
	// Pinned names the contract version the call was built under
	// (model.ToolCall.Contract = 1): a provider that moved refuses it and
	// pays nothing, and the agent denies the rebate.
	Pinned bool
}

// Run implements model.System.
func (g Agent) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	deny := func(reason string) (model.Claim, error) {
		return model.Claim{Verdict: model.ClaimDeny, Reason: reason}, nil
	}
	rebate, err := env.Context.ReadSubject(ctx, t.Subject)
	if err != nil {
		return model.Claim{}, err
	}
	if rebate.Status != "approved" || rebate.Amount < t.Amount {
		env.Signals.Warn("not_approved", t.Subject)
		return deny("the rebate is not approved for this amount")
	}
	a := model.Action{Actor: t.Actor, Subject: rebate.ID, Tenant: rebate.Tenant, Purpose: t.Purpose, Amount: t.Amount,
		ExpectedVersion: rebate.Version, IdempotencyKey: t.Subject + ":rebate", TraceID: t.Trace}
	call := model.ToolCall{Tool: Tool, RequestKey: a.IdempotencyKey, Action: a, Guard: model.GuardState}
	if g.Pinned {
		call.Contract = 1
	}
	res, err := env.Tool.Commit(ctx, call)
	if err != nil {
		return model.Claim{}, err
	}
	switch {
	case res.Outcome == model.OutcomeRejected:
		// a moved contract, a changed rebate, any refusal: nothing paid
		env.Signals.Warn("payment_refused", res.Reason)
		return deny("the payment was refused: " + res.Reason)
	case res.Outcome != model.OutcomeCommitted || res.Receipt == nil || res.Receipt.Key != a.IdempotencyKey:
		return model.Claim{Verdict: model.ClaimHold, Reason: "payment not confirmed: " + res.Reason}, nil
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "rebate paid"}, nil
}

// Fixture is two approved insulation rebates of one utility, in cents,
// paid through a provider that versions its contract
// (model.Fixture.VersionedContracts).
func Fixture() model.Fixture {
	return model.Fixture{Name: "rebates",
		Subjects: []model.Subject{
			{ID: "RB-2207", Tenant: "northgrid", Status: "approved", Amount: 45000, Version: 2},
			{ID: "RB-2231", Tenant: "northgrid", Status: "approved", Amount: 12500, Version: 5},
		},
		Tasks: []model.Task{
			{ID: "pay-RB-2207", Actor: "rebates-agent", Subject: "RB-2207", Tenant: "northgrid", Purpose: "pay_rebate", Amount: 45000},
			{ID: "pay-RB-2231", Actor: "rebates-agent", Subject: "RB-2231", Tenant: "northgrid", Purpose: "pay_rebate", Amount: 12500},
		},
		VersionedContracts: true,
	}
}

// Definition describes the agent g for every door: its fixture and the
// built-in invariants a payment can break (the right rebate, a current
// entitlement, one payment a rebate).
func Definition(g Agent) *model.Definition {
	d := model.Define("rebates", Fixture(), func() model.System { return g })
	d.Builtin = []string{model.InvRightSubject, model.InvCurrentEntitlement, model.InvEffectAtMostOnce}
	return d
}
