package spans_test

import (
	"encoding/json"
	"testing"

	"github.com/faultline/faultline/examples/spans"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// explore runs the default check of the sender configured by system on
// workers concurrent workers (0: one task after another).
func explore(t *testing.T, system string, workers int) *properties.Report {
	t.Helper()
	cfg := model.Config{System: json.RawMessage(system)}
	if workers > 0 {
		cfg.Concurrency = &model.Concurrency{Workers: workers}
	}
	rep, err := properties.Explore(spans.Definition(), properties.WithConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestDefaultCheckFindsTheCarriedSpan: the two campaigns run by one
// worker. The default check finds, from scratch, at its walk's 483rd
// schedule (477th before do_not_retry was drawn at every tool.commit,
// 453rd before server_error and network_error were drawn at
// every tool.commit), the first send's reply lost after the commit and the retry's
// span left running in the worker (span_carry_over): the first campaign
// is proved (the provider replays the send it made under the task's
// trace), and the second is decided, sent and proved under the carried
// span and released, its effect joined to no decision of its own
// (provable_outcome). An identity leaked by the worker
// (ambient_identity_leak) breaks nothing: the sender checks the
// principal. PerTaskTrace holds over the whole walk (11,847 schedules; 11,488
// before do_not_retry was drawn, 9,848
// before the transport kinds) and the random checks; so does the sender
// on two workers (12,987; 12,380; 10,636) or one task after another
// (11,190; 10,841; 9,249), where no worker runs a later task.
func TestDefaultCheckFindsTheCarriedSpan(t *testing.T) {
	if testing.Short() {
		t.Skip("the default check's walk budget under -short stops before the carried span")
	}
	rep := explore(t, `{}`, 1)
	if !rep.Found || rep.Walk == nil || !rep.Walk.Found || rep.Walk.Index != 483 {
		t.Fatalf("found %v, walk %+v", rep.Found, rep.Walk)
	}
	cx := rep.Counterexample
	f := cx.Schedule.Faults
	if cx.Invariant != model.InvProvableOutcome || cx.Detail != "release without correlated proof" || len(f) != 2 ||
		f[0].Kind != "timeout_after_commit" || f[0].Ordinal != 1 || f[1].Kind != "span_carry_over" || f[1].Event != model.EvToolCommit || f[1].Ordinal != 2 {
		t.Errorf("counterexample %s: %s %+v", cx.Invariant, cx.Detail, f)
	}
	for _, c := range []struct {
		system          string
		workers, walked int
	}{{`{"per_task_trace": true}`, 1, 11847}, {`{}`, 2, 12987}, {`{}`, 0, 11190}} {
		rep := explore(t, c.system, c.workers)
		if rep.Found || rep.Walk == nil || !rep.Walk.Complete || rep.Walk.Schedules != c.walked || rep.Checks != 100 || rep.Fired == 0 {
			t.Errorf("%s on %d workers: found %v, walk %+v, %d checks, %d fired", c.system, c.workers, rep.Found, rep.Walk, rep.Checks, rep.Fired)
		}
	}
}

// TestCounterfactualCarriedSpan replays the counterexample's schedule:
// the sender releases the second campaign under the span the first
// one's retry left running; PerTaskTrace releases both, proved.
func TestCounterfactualCarriedSpan(t *testing.T) {
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "carried", Config: model.Config{Concurrency: &model.Concurrency{Workers: 1}},
		Faults: []model.FaultEntry{{Kind: "timeout_after_commit", Event: model.EvToolCommit, Ordinal: 1}, {Kind: "span_carry_over", Event: model.EvToolCommit, Ordinal: 2}}}
	for _, c := range []struct {
		sender spans.Sender
		held   bool
	}{{spans.Sender{}, false}, {spans.Sender{PerTaskTrace: true}, true}} {
		res, err := model.NewHarness(spans.Fixture(), model.Options{}).Run(func() model.System { return c.sender }, s)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := res.Invariant(model.InvProvableOutcome)
		if res.Held() != c.held || r.Held != c.held || res.Faults[1].Fired != 2 || res.Terms.Effects != 2 ||
			res.Tasks[0].Claim != model.ClaimRelease || res.Tasks[1].Claim != model.ClaimRelease {
			t.Errorf("%+v: held %v, provable_outcome %+v, faults %+v, tasks %+v", c.sender, res.Held(), r, res.Faults, res.Tasks)
		}
		if !c.held && (r.FaultID != "f2" || r.Detail != "release without correlated proof") {
			t.Errorf("undefended: provable_outcome %+v", r)
		}
	}
}
