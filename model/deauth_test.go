package model_test

import (
	"slices"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestCounterfactualDeauthorisedEvidence: copperfin's refund reads the
// order's eligibility from the CRM summary (ordinal 1) and, under
// refresh_context, again from the order record before the effect
// (ordinal 2). Withdrawn after the first read, the CRM item is what the
// baseline refunds on (current_entitlement at the commit, seq 16);
// refresh_context re-reads the order record, which takes precedence, and
// holds, as typed does; withdrawn after the re-read itself, the order
// record's item fails refresh_context's context guard at the commit and
// the refund is denied, no effect. state_precondition alone does not see
// a withdrawal: the record's version is unchanged.
func TestCounterfactualDeauthorisedEvidence(t *testing.T) {
	spec, err := model.Spec("deauthorised_evidence")
	if err != nil || spec.Domain != "context" || spec.Event != model.EvContextEligibility || spec.Paper ||
		!slices.Equal(spec.Threatens, []string{model.InvCurrentEntitlement}) {
		t.Fatalf("%+v %v", spec, err)
	}
	if slices.ContainsFunc(model.Catalogue(), func(s model.FaultSpec) bool { return s.Kind == spec.Kind }) {
		t.Error("deauthorised_evidence is outside the catalogue")
	}
	if !slices.Equal(copperfin.Nominated(spec.Kind), []copperfin.Control{copperfin.RefreshContext}) || copperfin.MutantFor(spec.Kind) != "" {
		t.Fatalf("defence %v %q", copperfin.Nominated(spec.Kind), copperfin.MutantFor(spec.Kind))
	}
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	refresh := copperfin.Controls(0).With(copperfin.RefreshContext)
	for _, c := range []struct {
		name   string
		cs     copperfin.Controls
		ord    int
		fired  int
		want   []string
		claim  model.ClaimVerdict
		effect int
	}{
		{"baseline", 0, 1, 1, []string{"current_entitlement@16"}, model.ClaimUnsafe, 1},
		{"baseline, no second read", 0, 2, 0, nil, model.ClaimRelease, 1},
		{"state_precondition", copperfin.Controls(0).With(copperfin.StatePrecondition), 1, 1, []string{"current_entitlement@17"}, model.ClaimUnsafe, 1},
		{"refresh_context", refresh, 1, 1, nil, model.ClaimRelease, 1},
		{"refresh_context, the re-read withdrawn", refresh, 2, 1, nil, model.ClaimDeny, 0},
		{"typed", typed, 1, 1, nil, model.ClaimRelease, 1},
		{"typed, the re-read withdrawn", typed, 2, 1, nil, model.ClaimDeny, 0},
	} {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "deauth", Config: copperfin.ConfigOfControls(c.cs),
			Faults: []model.FaultEntry{{Kind: spec.Kind, Event: model.EvContextEligibility, Ordinal: c.ord}}}
		res := runNamed(t, s)
		if got := broken(res); !slices.Equal(got, c.want) || res.Faults[0].Fired != c.fired || res.Terms.Effects != c.effect ||
			!slices.Equal(claims(res), []model.ClaimVerdict{c.claim}) {
			t.Errorf("%s: %v, fired %d, %d effects, %v", c.name, got, res.Faults[0].Fired, res.Terms.Effects, claims(res))
		}
		if c.name == "baseline" {
			if r, _ := res.Invariant(model.InvCurrentEntitlement); r.FaultID != "f1" ||
				r.Detail != "effect on O-731 relies on the eligibility item of source crm_summary, whose grant was withdrawn at 30 ms" {
				t.Errorf("baseline: %+v", r)
			}
		}
	}
}
