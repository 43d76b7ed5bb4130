package model_test

import (
	"context"
	"slices"
	"testing"

	"github.com/faultline/faultline/examples/rebates"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestCounterfactualSpecDrift: the provider's contract moves before
// copperfin's refund call; the baseline's unpinned call is read in whole
// units and commits 100 times the refund (current_entitlement at the
// commit, seq 16: the amount exceeds the capability). copperfin pins no
// version: the provider's capability guard (pre_effect_authority) and its
// policy guard (refresh_context) each check the amount as read and refuse
// it, and the refund is denied, as typed denies it; idempotency alone
// does not see the amount. A call pinned to a version the provider does
// not run is refused whether or not the contract moved, and a pinned call
// on an unmoved contract is read as sent.
func TestCounterfactualSpecDrift(t *testing.T) {
	spec, err := model.Spec("spec_drift")
	if err != nil || spec.Domain != "tool" || spec.Event != model.EvToolCommit || spec.Paper ||
		!slices.Equal(spec.Threatens, []string{model.InvCurrentEntitlement}) {
		t.Fatalf("%+v %v", spec, err)
	}
	if slices.ContainsFunc(model.Catalogue(), func(s model.FaultSpec) bool { return s.Kind == spec.Kind }) {
		t.Error("spec_drift is outside the catalogue")
	}
	if !slices.Equal(copperfin.Nominated(spec.Kind), []copperfin.Control{copperfin.PreEffectAuthority, copperfin.RefreshContext}) {
		t.Fatalf("defence %v", copperfin.Nominated(spec.Kind))
	}
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	for _, c := range []struct {
		name   string
		cs     copperfin.Controls
		want   []string
		claim  model.ClaimVerdict
		effect int
	}{
		{"baseline", 0, []string{"current_entitlement@16", "effect_at_most_once@19"}, model.ClaimUnsafe, 3},
		{"idempotency", copperfin.Controls(0).With(copperfin.Idempotency), []string{"current_entitlement@16"}, model.ClaimUnsafe, 1},
		{"pre_effect_authority", copperfin.Controls(0).With(copperfin.PreEffectAuthority), nil, model.ClaimDeny, 0},
		{"refresh_context", copperfin.Controls(0).With(copperfin.RefreshContext), nil, model.ClaimDeny, 0},
		{"typed", typed, nil, model.ClaimDeny, 0},
	} {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "drift", Config: copperfin.ConfigOfControls(c.cs),
			Faults: []model.FaultEntry{{Kind: spec.Kind, Event: model.EvToolCommit, Ordinal: 1}}}
		res := runNamed(t, s)
		if got := broken(res); !slices.Equal(got, c.want) || res.Faults[0].Fired != 1 || res.Terms.Effects != c.effect ||
			!slices.Equal(claims(res), []model.ClaimVerdict{c.claim}) {
			t.Errorf("%s: %v, fired %d, %d effects, %v", c.name, got, res.Faults[0].Fired, res.Terms.Effects, claims(res))
		}
		if c.name == "baseline" {
			if r, _ := res.Invariant(model.InvCurrentEntitlement); r.FaultID != "f1" || r.Detail != "amount exceeds capability" {
				t.Errorf("baseline: %+v", r)
			}
		}
	}
	h := model.NewHarness(rebates.Fixture(), model.Options{})
	for _, c := range []struct {
		contract int
		sys      model.System
		claim    model.ClaimVerdict
		effects  int
	}{{1, rebates.Agent{Pinned: true}, model.ClaimRelease, 2}, {2, pinned{2}, model.ClaimDeny, 0}} {
		res, err := h.Run(func() model.System { return c.sys }, &model.Schedule{Version: model.ScheduleVersion, Seed: "pinned"})
		if err != nil {
			t.Fatal(err)
		}
		// the rebates' scope (rebates.Definition): provable_outcome is not in it
		ce, _ := res.Invariant(model.InvCurrentEntitlement)
		if got := claims(res); res.Terms.Effects != c.effects || got[0] != c.claim || got[1] != c.claim || !ce.Held {
			t.Errorf("pinned to %d, no drift: %v, %d effects, %+v", c.contract, got, res.Terms.Effects, ce)
		}
		if c.contract == 2 && res.Claims[0].Reason != "precondition failed: contract version 2 is not the provider's (version 1)" {
			t.Errorf("pinned to 2: %q", res.Claims[0].Reason)
		}
	}
}

// pinned pays the task's amount on a call pinned to contract version v,
// and denies the task when the call is not committed.
type pinned struct{ v int }

func (p pinned) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	sub, err := env.Context.ReadSubject(ctx, t.Subject)
	if err != nil {
		return model.Claim{}, err
	}
	a := model.Action{Actor: t.Actor, Subject: t.Subject, Tenant: t.Tenant, Purpose: t.Purpose, Amount: t.Amount,
		ExpectedVersion: sub.Version, IdempotencyKey: t.ID, TraceID: t.Trace}
	res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: rebates.Tool, RequestKey: t.ID, Action: a, Contract: p.v})
	if err != nil || res.Outcome != model.OutcomeCommitted {
		return model.Claim{Verdict: model.ClaimDeny, Reason: res.Reason}, err
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "paid"}, nil
}
