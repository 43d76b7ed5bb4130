package model_test

import (
	"slices"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestCounterfactualCorruptedReadback: copperfin's refund is sent into a
// timeout before it reaches the provider (nothing committed) and the
// readback that resolves the unknown outcome is answered by a corrupted
// verification path: a forged record of the refund's reference (the
// ledger is empty). Typed verifies the entry on the request's trace and
// key: it is no effect of this decision, and the evidence gate finds no
// decision behind it: hold, no effect. With readback_trusts_ref (outside
// Mutants()) any entry of the reference is the effect: it releases a
// refund the provider's ledger does not hold (no_invented_progress at
// the effected checkpoint, provable_outcome at the claim).
func TestCounterfactualCorruptedReadback(t *testing.T) {
	spec, err := model.Spec("corrupted_readback")
	if err != nil || spec.Domain != "evidence" || spec.Event != model.EvLedgerReadback || spec.Paper ||
		!slices.Equal(spec.Threatens, []string{model.InvNoInventedProgress}) {
		t.Fatalf("%+v %v", spec, err)
	}
	if slices.ContainsFunc(model.Catalogue(), func(s model.FaultSpec) bool { return s.Kind == spec.Kind }) ||
		slices.ContainsFunc(copperfin.Mutants(), func(m copperfin.MutantInfo) bool { return m.Name == copperfin.ReadbackTrustsRef }) {
		t.Error("corrupted_readback is outside the catalogue, readback_trusts_ref outside Mutants()")
	}
	if !slices.Equal(copperfin.Nominated(spec.Kind), []copperfin.Control{copperfin.EffectReadback}) ||
		copperfin.MutantFor(spec.Kind) != string(copperfin.ReadbackTrustsRef) {
		t.Fatalf("defence %v %q", copperfin.Nominated(spec.Kind), copperfin.MutantFor(spec.Kind))
	}
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	for _, c := range []struct {
		name  string
		cfg   model.Config
		want  []string
		claim model.ClaimVerdict
	}{
		{"typed", copperfin.ConfigOfControls(typed), nil, model.ClaimHold},
		{"typed, readback_trusts_ref", copperfin.WithMutant(copperfin.ConfigOfControls(typed), string(copperfin.ReadbackTrustsRef)),
			[]string{"provable_outcome@27", "no_invented_progress@23"}, model.ClaimRelease},
	} {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "corrupt", Config: c.cfg,
			Faults: []model.FaultEntry{{Kind: "timeout_before_send", Event: model.EvToolCommit, Ordinal: 1},
				{Kind: spec.Kind, Event: model.EvLedgerReadback, Ordinal: 1}}}
		res := runNamed(t, s)
		if got := broken(res); !slices.Equal(got, c.want) || res.Faults[1].Fired != 1 || res.Terms.Effects != 0 ||
			!slices.Equal(claims(res), []model.ClaimVerdict{c.claim}) {
			t.Errorf("%s: %v, fired %d, %d effects, %v", c.name, got, res.Faults[1].Fired, res.Terms.Effects, claims(res))
		}
		if r, _ := res.Invariant(model.InvNoInventedProgress); c.want != nil && (r.FaultID != "f2" || r.Detail != `checkpoint 3 records effect "" that the ledger does not hold (neither a request key nor a receipt id of the task's effects)`) {
			t.Errorf("%s: %+v", c.name, r)
		}
	}
}
