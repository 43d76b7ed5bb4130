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
// trace, has no correlated proof; the worker hands the span to the second
// task, which decides, commits and proves under it and releases
// (provable_outcome: its effect is not joined to its own decision's
// trace). per_task_identity re-derives the trace per task and holds. On
// two workers, or one after another, no worker runs a later task and the
// break stays in the first; break_trace_lineage at the same retry does
// not persist and typed holds.
func TestCounterfactualSpanCarryOver(t *testing.T) {
	spec, err := model.Spec("span_carry_over")
	if err != nil || !spec.WorkerScoped || spec.Event != model.EvToolCommit || spec.Ordinal != 2 ||
		spec.Domain != "evidence" || spec.Oracle != "trace_lineage" || spec.Paper || !slices.Equal(spec.Threatens, []string{model.InvProvableOutcome}) {
		t.Fatalf("%+v %v", spec, err)
	}
	if slices.ContainsFunc(model.Catalogue(), func(s model.FaultSpec) bool { return s.Kind == spec.Kind }) {
		t.Error("span_carry_over is outside the catalogue")
	}
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	res := runNamed(t, retriedSpan(t, "span_carry_over", typed, 1))
	if f := res.Faults[1]; !f.Reached || f.Fired != 2 {
		t.Fatalf("typed: fault %+v", f)
	}
	r, _ := res.Invariant(model.InvProvableOutcome)
	if r.Held || r.FaultID != "f2" || r.Detail != "release without correlated proof" || r.FirstSeq != 57 {
		t.Errorf("typed: provable_outcome %+v", r)
	}
	if got := claims(res); !slices.Equal(got, []model.ClaimVerdict{model.ClaimHold, model.ClaimRelease}) || res.Terms.Effects != 2 {
		t.Errorf("typed: claims %v, %d effects", got, res.Terms.Effects)
	}
	res = runNamed(t, retriedSpan(t, "span_carry_over", typed.With(copperfin.PerTaskIdentity), 1))
	if f := res.Faults[1]; !f.Reached || f.Fired != 2 || !res.Held() || res.Terms.Effects != 2 {
		t.Errorf("per_task_identity: %+v %+v effects %d", res.Faults, res.Invariants, res.Terms.Effects)
	}
	if got := claims(res); !slices.Equal(got, []model.ClaimVerdict{model.ClaimHold, model.ClaimRelease}) {
		t.Errorf("per_task_identity: claims %v", got)
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
