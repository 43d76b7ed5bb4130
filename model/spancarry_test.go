package model_test

import (
	"slices"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// retriedSpan is copperfin-tenants' two refunds run by one worker (or
// workers of them), the first's commit timing out before it is sent, and
// kind at the second tool.commit (the first task's retry).
func retriedSpan(t *testing.T, kind string, cs copperfin.Controls, workers int) *model.Schedule {
	t.Helper()
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "span", Config: copperfin.ConfigOfControls(cs), Faults: []model.FaultEntry{
		{Kind: "timeout_before_send", Event: model.EvToolCommit, Ordinal: 1},
		{Kind: kind, Event: model.EvToolCommit, Ordinal: 2},
	}}
	s.Config.Fixture = "copperfin-tenants"
	if workers > 0 {
		s.Config.Concurrency = &model.Concurrency{Workers: workers}
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	return s
}

// claims are the tasks' claims of res, in fixture order.
func claims(res *model.Result) []model.ClaimVerdict {
	var out []model.ClaimVerdict
	for _, k := range res.Tasks {
		out = append(out, k.Claim)
	}
	return out
}

// TestCounterfactualSpanCarryOver: the first refund's send times out and
// its retry's span is left running in the worker. The typed profile's
// evidence gate holds the first task, whose retried effect, under another
// trace, has no correlated proof, and starts the second task's own trace:
// typed holds. The worker_span_adopted defect (the system before that
// fix) adopts the worker's running span as the second task's trace, and
// the second task decides, commits and proves under it and releases
// (provable_outcome: its effect is not joined to its own decision's
// trace); per_task_identity re-derives the identity per task and holds
// even with the defect. On two workers, or one after another, no worker
// runs a later task and the break stays in the first; break_trace_lineage
// at the same retry does not persist and typed holds.
func TestCounterfactualSpanCarryOver(t *testing.T) {
	spec, err := model.Spec("span_carry_over")
	if err != nil || !spec.WorkerScoped || spec.Event != model.EvToolCommit || spec.Ordinal != 2 ||
		spec.Domain != "evidence" || spec.Oracle != "trace_lineage" || spec.Paper || !slices.Equal(spec.Threatens, []string{model.InvProvableOutcome}) {
		t.Fatalf("%+v %v", spec, err)
	}
	if slices.ContainsFunc(model.Catalogue(), func(s model.FaultSpec) bool { return s.Kind == spec.Kind }) {
		t.Error("span_carry_over is outside the catalogue")
	}
	if mut := copperfin.MutantFor("span_carry_over"); mut != string(copperfin.WorkerSpanAdopted) ||
		!slices.Equal(copperfin.Nominated("span_carry_over"), []copperfin.Control{copperfin.EvidenceGate}) {
		t.Fatalf("defence %q %v", mut, copperfin.Nominated("span_carry_over"))
	}
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	mutant := func(s *model.Schedule) *model.Schedule {
		s.Config = copperfin.WithMutant(s.Config, string(copperfin.WorkerSpanAdopted))
		return s
	}
	res := runNamed(t, mutant(retriedSpan(t, "span_carry_over", typed, 1)))
	if f := res.Faults[1]; !f.Reached || f.Fired != 2 {
		t.Fatalf("worker_span_adopted: fault %+v", f)
	}
	r, _ := res.Invariant(model.InvProvableOutcome)
	if r.Held || r.FaultID != "f2" || r.Detail != "release without correlated proof" || r.FirstSeq != 57 {
		t.Errorf("worker_span_adopted: provable_outcome %+v", r)
	}
	if got := claims(res); !slices.Equal(got, []model.ClaimVerdict{model.ClaimHold, model.ClaimRelease}) || res.Terms.Effects != 2 {
		t.Errorf("worker_span_adopted: claims %v, %d effects", got, res.Terms.Effects)
	}
	for name, s := range map[string]*model.Schedule{
		"typed":             retriedSpan(t, "span_carry_over", typed, 1),
		"per_task_identity": mutant(retriedSpan(t, "span_carry_over", typed.With(copperfin.PerTaskIdentity), 1)),
	} {
		res = runNamed(t, s)
		if f := res.Faults[1]; !f.Reached || f.Fired != 2 || !res.Held() || res.Terms.Effects != 2 {
			t.Errorf("%s: %+v %+v effects %d", name, res.Faults, res.Invariants, res.Terms.Effects)
		}
		if got := claims(res); !slices.Equal(got, []model.ClaimVerdict{model.ClaimHold, model.ClaimRelease}) {
			t.Errorf("%s: claims %v", name, got)
		}
	}
	for _, workers := range []int{2, 0} {
		res = runNamed(t, retriedSpan(t, "span_carry_over", typed, workers))
		if f := res.Faults[1]; !f.Reached || f.Fired != 1 || !res.Held() {
			t.Errorf("%d workers: %+v %+v", workers, res.Faults, res.Invariants)
		}
	}
	res = runNamed(t, retriedSpan(t, "break_trace_lineage", typed, 1))
	if f := res.Faults[1]; !f.Reached || f.Fired != 1 || !res.Held() {
		t.Errorf("break_trace_lineage: %+v %+v", res.Faults, res.Invariants)
	}
	// a first attempt is no retry: alone at the second commit (the second
	// task's first attempt), the kind is reached and does not fire
	one := retriedSpan(t, "span_carry_over", 0, 1)
	one.Faults = one.Faults[1:]
	if res = runNamed(t, one); res.Faults[0].Fired != 0 || !res.Faults[0].Reached {
		t.Errorf("no retry: %+v", res.Faults)
	}
	// the audit's correlated schedule is the retried one
	s, err := copperfin.CorrelatedSchedule("span_carry_over", spec.Correlation, copperfin.ConfigOfControls(typed))
	if err != nil {
		t.Fatal(err)
	}
	want := retriedSpan(t, "span_carry_over", typed, 1)
	want.Faults[1].Correlation = spec.Correlation
	if !slices.Equal(s.Faults, want.Faults) || s.Config.Fixture != want.Config.Fixture || s.Config.Concurrency.Workers != 1 {
		t.Errorf("correlated schedule %+v", s)
	}
	// the baseline has no evidence gate: the first task already releases
	// without proof
	res = runNamed(t, retriedSpan(t, "span_carry_over", 0, 1))
	if r, _ := res.Invariant(model.InvProvableOutcome); r.Held || r.FaultID != "f2" || r.FirstSeq != 22 {
		t.Errorf("baseline: provable_outcome %+v", r)
	}
}
