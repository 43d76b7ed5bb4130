package properties_test

import (
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// The default check draws a worker-scoped kind where one worker runs
// several tasks: on copperfin-tenants' two refunds run by one worker, the
// walk of the typed profile with the worker_span_adopted defect finds,
// from scratch, the retry whose span the worker carries into the second
// task (a send that times out, then span_carry_over at the retry) at its
// 15,675th schedule (15,614th before do_not_retry was drawn at every
// tool.commit, 15,370th before server_error and network_error were, 15,010th with 30 kinds: each put more
// schedules ahead of it); the second task releases
// an effect not joined to its own decision's trace. The typed profile, which starts each task's own
// trace, holds over the same schedule.
func TestDefaultCheckFindsSpanCarryOver(t *testing.T) {
	if testing.Short() {
		t.Skip("the walk's budget under -short (5,000 schedules) stops before the carried span")
	}
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	cfg := copperfin.WithMutant(copperfin.ConfigOfControls(typed), string(copperfin.WorkerSpanAdopted))
	cfg.Fixture = "copperfin-tenants"
	cfg.Concurrency = &model.Concurrency{Workers: 1}
	rep, err := properties.Explore(copperfin.Definition(), properties.WithConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Found || rep.Walk == nil || !rep.Walk.Found || rep.Walk.Index != 15675 {
		t.Fatalf("found %v, walk %+v", rep.Found, rep.Walk)
	}
	cx := rep.Counterexample
	f := cx.Schedule.Faults
	if cx.Invariant != model.InvProvableOutcome || cx.Detail != "release without correlated proof" || len(f) != 2 ||
		f[0].Kind != "timeout_before_send" || f[0].Event != model.EvToolCommit || f[0].Ordinal != 1 ||
		f[1].Kind != "span_carry_over" || f[1].Event != model.EvToolCommit || f[1].Ordinal != 2 {
		t.Errorf("counterexample %s: %s %+v", cx.Invariant, cx.Detail, f)
	}
	fixed := *cx.Schedule
	fixed.Config = copperfin.WithMutant(fixed.Config, "")
	factory, err := copperfin.Configured(fixed.Config)
	if err != nil {
		t.Fatal(err)
	}
	fx, _ := copperfin.FixtureNamed(fixed.Config.Fixture)
	res, err := model.NewHarness(fx, model.Options{}).Run(factory, &fixed)
	if err != nil || !res.Held() {
		t.Errorf("typed over the same schedule: %v %+v", err, res.Invariants)
	}
}
