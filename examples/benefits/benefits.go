// Package benefits is an example system of another domain than the
// reference one: an agent that pays travel-insurance benefits on a
// clinic's report shared with the insurer under the policyholder's
// consent. It shows a de-authorised evidence item on a user's own system
// (deauthorised_evidence): the report was valid when read, and the
// policyholder withdraws the consent to use it before the payment.
//
// Entry points: [Payer] (the system, with its defence [Payer.Guarded]),
// [Fixture] (two claims, their sources read under consent) and
// [Definition].
package benefits

import (
	"context"

	"github.com/faultline/faultline/model"
)

// Tool is the name of the benefit-payment tool, and the two sources of a
// claim's eligibility: the insurer's own claim file (authoritative) and
// the clinic's report shared under consent.
const (
	Tool         = "benefits.pay"
	ClaimFile    = "claim_file"
	ClinicReport = "clinic_report"
)

// Payer pays the task's benefit. It assembles the claim's evidence from
// both sources and pays only when both hold it eligible (a conflict
// between them is refused), and it pays under a guard of the claim
// file's state version, so a claim changed since the read is not paid.
// By default it acts on the evidence as it read it.
type Payer struct {
	// Guarded also asks the payment service to check, atomically with the
	// payment, that the decision's context is still current: the claim
	// file eligible and the evidence item it relies on still consented to
	// (model.GuardContext).
	Guarded bool
}

// Run implements model.System.
func (p Payer) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	deny := func(reason string) (model.Claim, error) {
		return model.Claim{Verdict: model.ClaimDeny, Reason: reason}, nil
	}
	report, err := env.Context.ReadEligibility(ctx, t.Subject, ClinicReport)
	if err != nil {
		return model.Claim{}, err
	}
	file, err := env.Context.ReadEligibility(ctx, t.Subject, ClaimFile)
	if err != nil {
		return model.Claim{}, err
	}
	if !report.Eligible || !file.Eligible {
		env.Signals.Warn("not_eligible", t.Subject)
		return deny("the claim's evidence does not hold it eligible")
	}
	claim, err := env.Context.ReadSubject(ctx, t.Subject)
	if err != nil {
		return model.Claim{}, err
	}
	a := model.Action{Actor: t.Actor, Subject: claim.ID, Tenant: claim.Tenant, Purpose: t.Purpose, Amount: t.Amount,
		ExpectedVersion: claim.Version, IdempotencyKey: t.Subject + ":benefit", TraceID: t.Trace}
	guard := model.GuardState
	if p.Guarded {
		guard |= model.GuardContext
	}
	res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: Tool, RequestKey: a.IdempotencyKey, Action: a, Guard: guard})
	if err != nil {
		return model.Claim{}, err
	}
	switch {
	case res.Outcome == model.OutcomeRejected:
		// a guard the service found broken, or any refusal: nothing paid
		env.Signals.Warn("payment_refused", res.Reason)
		return deny("the payment was refused: " + res.Reason)
	case res.Outcome != model.OutcomeCommitted || res.Receipt == nil || res.Receipt.Key != a.IdempotencyKey:
		return model.Claim{Verdict: model.ClaimHold, Reason: "payment not confirmed: " + res.Reason}, nil
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "benefit paid"}, nil
}

// Fixture is two travel claims of one insurer, each with a clinic's
// report shared under the policyholder's consent
// (model.Fixture.GrantedSources).
func Fixture() model.Fixture {
	return model.Fixture{Name: "benefits",
		Subjects: []model.Subject{
			{ID: "TC-5501", Tenant: "atlas-travel", Status: "assessed", Amount: 1200, Version: 4},
			{ID: "TC-5560", Tenant: "atlas-travel", Status: "assessed", Amount: 300, Version: 9},
		},
		Secondary: []model.Eligibility{
			{Subject: "TC-5501", Eligible: true, Source: ClinicReport},
			{Subject: "TC-5560", Eligible: true, Source: ClinicReport},
		},
		Authoritative: ClaimFile,
		Tasks: []model.Task{
			{ID: "pay-TC-5501", Actor: "claims-agent", Subject: "TC-5501", Tenant: "atlas-travel", Purpose: "pay_benefit", Amount: 1200},
			{ID: "pay-TC-5560", Actor: "claims-agent", Subject: "TC-5560", Tenant: "atlas-travel", Purpose: "pay_benefit", Amount: 300},
		},
		GrantedSources: true,
	}
}

// Definition describes the payer p for every door: its fixture and the
// built-in invariants a payment can break (the right claim, a current
// entitlement, one payment a claim).
func Definition(p Payer) *model.Definition {
	d := model.Define("benefits", Fixture(), func() model.System { return p })
	d.Builtin = []string{model.InvRightSubject, model.InvCurrentEntitlement, model.InvEffectAtMostOnce}
	return d
}
