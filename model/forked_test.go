package model_test

import (
	"slices"
	"strconv"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// forkAt is copperfin's one refund under cs (and mutant), its run forked
// at the checkpoint write of ordinal ord.
func forkAt(t *testing.T, cs copperfin.Controls, mutant string, ord int) *model.Result {
	t.Helper()
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "fork", Config: copperfin.WithMutant(copperfin.ConfigOfControls(cs), mutant),
		Faults: []model.FaultEntry{{Kind: "forked_run", Event: model.EvCheckpointWrite, Ordinal: ord}}}
	return runNamed(t, s)
}

// broken lists res's violated invariants as name@first seq.
func broken(res *model.Result) []string {
	var out []string
	for _, r := range res.Invariants {
		if !r.Held {
			out = append(out, r.Invariant+"@"+strconv.Itoa(r.FirstSeq))
		}
	}
	return out
}

// TestCounterfactualForkedRun: the refund's run forks at its first
// checkpoint (authorized, before the effect); the second worker resumes
// from it once the first has refunded and claimed. The baseline refunds
// again under a fresh request id (effect_at_most_once at the second
// commit, seq 23) after its stale committing checkpoint withdrew the
// first's effect (recorded_agrees_with_ledger, seq 22): two effects, the
// task unsafe. effect_readback alone, the nominated control, finds the
// effect on resume and holds; idempotency alone dedupes the commit but
// not the record; typed holds; typed with resume_trusts_plan, which
// skips the readback on a resume before any attempt, breaks the record
// (seq 33). A fork after the effect (ordinal 3) resumes into
// verification: the baseline holds.
func TestCounterfactualForkedRun(t *testing.T) {
	spec, err := model.Spec("forked_run")
	if err != nil || spec.Domain != "state" || spec.Event != model.EvCheckpointWrite || spec.Ordinal != 1 || spec.Paper ||
		spec.Oracle != "ledger_readback" || !slices.Equal(spec.Threatens, []string{model.InvEffectAtMostOnce}) {
		t.Fatalf("%+v %v", spec, err)
	}
	if slices.ContainsFunc(model.Catalogue(), func(s model.FaultSpec) bool { return s.Kind == spec.Kind }) {
		t.Error("forked_run is outside the catalogue")
	}
	if copperfin.MutantFor("forked_run") != string(copperfin.ResumeTrustsPlan) ||
		!slices.Equal(copperfin.Nominated("forked_run"), []copperfin.Control{copperfin.EffectReadback}) {
		t.Fatalf("defence %q %v", copperfin.MutantFor("forked_run"), copperfin.Nominated("forked_run"))
	}
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	base := forkAt(t, 0, "", 1)
	if f := base.Faults[0]; !f.Reached || f.Fired != 1 {
		t.Fatalf("baseline: fault %+v", f)
	}
	if got := broken(base); !slices.Equal(got, []string{"effect_at_most_once@23", "recorded_agrees_with_ledger@22"}) {
		t.Errorf("baseline: %v", got)
	}
	if r, _ := base.Invariant(model.InvEffectAtMostOnce); r.FaultID != "f1" || r.Detail != "second ledger effect for task refund-O-731" {
		t.Errorf("baseline: %+v", r)
	}
	if tl := base.Timeline; tl.Name(19) != model.EvWorkerStart || tl.Detail(19) != "forked run: resumes from checkpoint 1 another worker was handed" ||
		tl.Name(20) != model.EvCheckpointLoad || tl.Detail(20) != "checkpoint 1 of head 1, state authorized" {
		t.Errorf("baseline: the fork's start %s %q, load %s %q", tl.Name(19), tl.Detail(19), tl.Name(20), tl.Detail(20))
	}
	if got := claims(base); !slices.Equal(got, []model.ClaimVerdict{model.ClaimUnsafe}) || base.Terms.Effects != 2 || !base.Terms.DuplicateEffect {
		t.Errorf("baseline: claims %v, terms %+v", got, base.Terms)
	}
	for _, c := range []struct {
		name   string
		cs     copperfin.Controls
		mutant string
		ord    int
		want   []string
		effs   int
	}{
		{"effect_readback", copperfin.Controls(0).With(copperfin.EffectReadback), "", 1, nil, 1},
		{"idempotency", copperfin.Controls(0).With(copperfin.Idempotency), "", 1, []string{"recorded_agrees_with_ledger@22"}, 1},
		{"typed", typed, "", 1, nil, 1},
		{"typed, resume_trusts_plan", typed, string(copperfin.ResumeTrustsPlan), 1, []string{"recorded_agrees_with_ledger@33"}, 1},
		{"baseline after the effect", 0, "", 3, nil, 1},
	} {
		res := forkAt(t, c.cs, c.mutant, c.ord)
		if got := broken(res); !slices.Equal(got, c.want) || res.Terms.Effects != c.effs || res.Faults[0].Fired != 1 {
			t.Errorf("%s: %v, %d effects, fired %d", c.name, got, res.Terms.Effects, res.Faults[0].Fired)
		}
	}
}
