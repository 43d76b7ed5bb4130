package model_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// runStorm runs the storm schedule on a fleet of n agents under the typed
// profile plus the fleet controls named.
func runStorm(t testing.TB, n int, extra ...copperfin.Control) *model.Result {
	t.Helper()
	cs, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	for _, c := range extra {
		cs = cs.With(c)
	}
	fx := copperfin.CopperfinFleet(n)
	cfg := copperfin.ConfigOfControls(cs)
	cfg.Fixture = fx.Name
	s, err := copperfin.StormSchedule(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.NewHarness(fx, model.Options{}).Run(copperfin.Factory(cs), s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestFleetStormOfTen: the storm on a fleet of ten agents (capacity one
// attempt per 100 ms, a shared budget of two retries), exactly: the first
// burst is ten attempts in the window 100-200 ms, all timed out by the one
// synchronized fault; without either control all ten retry in the window
// 200-300 ms; jitter spreads the ten retries but still puts two in one
// window; the budget alone lets two retry, at once; both together hold.
func TestFleetStormOfTen(t *testing.T) {
	for _, c := range []struct {
		name     string
		controls []copperfin.Control
		held     bool
		retries  int
		storm    int
		load     []int
		detail   string
	}{
		{"neither", nil, false, 10, 10, []int{0, 10, 10}, "2 attempts (2 retries) in the window 200-300 ms, past the provider's capacity of 1"},
		{"jittered_backoff", []copperfin.Control{copperfin.JitteredBackoff}, false, 10, 2, []int{0, 10, 0, 1, 1, 1, 0, 1, 2, 2, 1, 1}, "2 attempts (2 retries) in the window 800-900 ms, past the provider's capacity of 1"},
		{"shared_retry_budget", []copperfin.Control{copperfin.SharedRetryBudget}, false, 2, 2, []int{0, 10, 2}, "2 attempts (2 retries) in the window 200-300 ms, past the provider's capacity of 1"},
		{"both", copperfin.FleetControls, true, 2, 1, []int{0, 10, 0, 0, 0, 0, 0, 1, 0, 1}, ""},
	} {
		res := runStorm(t, 10, c.controls...)
		l := res.Fleet
		if l == nil || l.Capacity != 1 || l.WindowMs != 100 || l.Agents != 10 || l.Peak != 10 || l.PeakWindow != 1 {
			t.Fatalf("%s: load %+v", c.name, l)
		}
		inv, _ := res.Invariant(model.InvNoRetryStorm)
		if inv.Held != c.held || inv.Detail != c.detail || l.RetryCount != c.retries || l.Attempts != 10+c.retries ||
			l.StormPeak != c.storm || !slices.Equal(l.Load, c.load) {
			t.Errorf("%s: %+v, load %+v", c.name, inv, l)
		}
		if f := res.Faults[0]; f.Fired != 10 || f.Correlation != model.Correlation("synchronized") || !c.held && inv.FaultID != f.ID {
			t.Errorf("%s: fault %+v, storm attributed to %q", c.name, f, inv.FaultID)
		}
		// every other invariant holds: the storm is the only harm
		for _, i := range res.Invariants {
			if i.Invariant != model.InvNoRetryStorm && !i.Held {
				t.Errorf("%s: %s violated: %+v", c.name, i.Invariant, i)
			}
		}
	}
}

// TestFleetControlPairs: on the paper's hundred agents (corpus
// retry-storm.json), each fleet control is a counterfactual pair:
// typed_fleet holds no_retry_storm, and without either control it breaks.
// The jitter leaves the retry count as it was and collapses the peak.
func TestFleetControlPairs(t *testing.T) {
	both := runStorm(t, copperfin.FleetAgents, copperfin.FleetControls...)
	if !both.Held() || both.Fleet.StormPeak > both.Fleet.Capacity {
		t.Fatalf("typed_fleet: %+v %s", both.Invariants, both.Fleet)
	}
	for _, c := range copperfin.FleetControls {
		other := copperfin.JitteredBackoff
		if c == other {
			other = copperfin.SharedRetryBudget
		}
		res := runStorm(t, copperfin.FleetAgents, other)
		if inv, _ := res.Invariant(model.InvNoRetryStorm); inv.Held {
			t.Errorf("typed_fleet without %s: no_retry_storm holds (%s)", c, res.Fleet)
		}
	}
	neither := runStorm(t, copperfin.FleetAgents)
	jitter := runStorm(t, copperfin.FleetAgents, copperfin.JitteredBackoff)
	if neither.Fleet.RetryCount != 100 || jitter.Fleet.RetryCount != 100 || neither.Fleet.StormPeak != 100 || jitter.Fleet.StormPeak >= 20 {
		t.Errorf("neither %s; jitter %s", neither.Fleet, jitter.Fleet)
	}
}

// TestFleetReplaysExactly: a fleet run is a pure function of its schedule:
// runs under GOMAXPROCS 1, 2 and 8 give equal results, byte for byte.
func TestFleetReplaysExactly(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var out [3][]byte
	for i, procs := range []int{1, 2, 8} {
		runtime.GOMAXPROCS(procs)
		res := runStorm(t, 30, copperfin.FleetControls...)
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	if !bytes.Equal(out[0], out[1]) || !bytes.Equal(out[0], out[2]) {
		t.Fatal("runs of one fleet schedule differ")
	}
}

// TestFleetRunsAlikeOnOneHarness: a harness's every run of the corpus
// storm (retry-storm.json) and of a storm of ten is the run of a fresh
// harness, byte for byte, whatever ran on it before: no worker's clock
// outlives its run (the first worker's clock once started where the last
// run's first worker ended, so a second run made 21 effects, not 20).
func TestFleetRunsAlikeOnOneHarness(t *testing.T) {
	if raceDetector {
		t.Skip("the storm's workers run under the detector in TestFleetReplaysExactly; go test ./... runs this test")
	}
	data, err := os.ReadFile(filepath.Join("..", "reference", "corpus", "retry-storm.json"))
	if err != nil {
		t.Fatal(err)
	}
	storm, err := model.ParseSchedule(data)
	if err != nil {
		t.Fatal(err)
	}
	fx, err := copperfin.FixtureNamed(storm.Config.Fixture)
	if err != nil {
		t.Fatal(err)
	}
	factory, err := copperfin.Configured(storm.Config)
	if err != nil {
		t.Fatal(err)
	}
	run := func(h *model.Harness, s *model.Schedule) (*model.Result, []byte) {
		t.Helper()
		res, err := h.Run(factory, s)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return res, b
	}
	fresh, want := run(model.NewHarness(fx, model.Options{}), storm)
	if fresh.Terms.Effects != 20 || fresh.Timeline.Len() != 2560 {
		t.Fatalf("a fresh harness's run: %d effects, %d events; want 20 and 2560", fresh.Terms.Effects, fresh.Timeline.Len())
	}
	h := model.NewHarness(fx, model.Options{})
	other := *storm
	other.Faults = nil
	for i := range 3 {
		if res, got := run(h, storm); !bytes.Equal(got, want) {
			t.Fatalf("run %d on one harness: %d effects, %d events; a fresh harness's: 20 and 2560", i+1, res.Terms.Effects, res.Timeline.Len())
		}
		run(h, &other) // a fault-free run between
	}
}

// TestFleetValidation: a fleet without capacity, or with more agents than
// workers, is an error of the run, not a panic.
func TestFleetValidation(t *testing.T) {
	fx := copperfin.CopperfinFleet(2)
	fx.Fleet = &model.Fleet{}
	s, _ := model.SingleFault("rate_limit", copperfin.ConfigOfProfile(copperfin.ProfileTypedFleet))
	s.Config.Fixture = fx.Name
	if _, err := model.NewHarness(fx, model.Options{}).Run(copperfin.Factory(0), s); err == nil || err.Error() != "fleet: capacity 0 must be 1 or more attempts per window" {
		t.Errorf("error %v", err)
	}
}

// BenchmarkFleet1000: one run of the storm on a fleet of 1,000 agents
// under typed_fleet (kept out of the test suite; go test -bench Fleet).
func BenchmarkFleet1000(b *testing.B) {
	for b.Loop() {
		res := runStorm(b, 1000, copperfin.FleetControls...)
		if res.Fleet.Attempts != 1200 {
			b.Fatalf("load %s", res.Fleet)
		}
	}
}

// TestFixtureBudgetsAreTheHarnesss: a fixture task's retry budget,
// deadline or join policy other than the harness's is refused by name
// (the harness sets them before each run and never reads a fixture's, so
// a 5 there ran with 2); zero, or the harness's own value, runs.
func TestFixtureBudgetsAreTheHarnesss(t *testing.T) {
	run := func(task model.Task, opts model.Options) error {
		fx := model.Fixture{Name: "budgets", Tasks: []model.Task{task}}
		_, err := model.NewHarness(fx, opts).Run(copperfin.Factory(0), &model.Schedule{Version: model.ScheduleVersion, Seed: "b", Faults: []model.FaultEntry{}})
		return err
	}
	for _, c := range []struct {
		task model.Task
		opts model.Options
		err  string
	}{
		{model.Task{ID: "t", RetryBudget: 5}, model.Options{}, `model: fixture "budgets": task t sets retry budget 5, but the harness runs every task with 2: set Options.RetryBudget or the schedule's retry_budget (a fixture's is never read)`},
		{model.Task{ID: "t", Deadline: 10000}, model.Options{}, `model: fixture "budgets": task t sets deadline 10000 ms, but the harness runs every task with 2000 ms: set Options.Deadline or the schedule's deadline (a fixture's is never read)`},
		{model.Task{ID: "t", Join: "best_effort"}, model.Options{}, `model: fixture "budgets": task t sets join policy "best_effort", but the harness runs every task with "all_required": set Options.Join or the schedule's join (a fixture's is never read)`},
		{model.Task{ID: "t", Started: 7}, model.Options{}, `model: fixture "budgets": task t sets Started 7 ms: the harness sets it when the task's first worker starts`},
		{model.Task{ID: "t", RetryBudget: 5, Deadline: 10000}, model.Options{RetryBudget: 5, Deadline: 10000}, ""},
		{model.Task{ID: "t", RetryBudget: 2, Join: model.JoinAllRequired}, model.Options{}, ""},
	} {
		err := run(c.task, c.opts)
		if got := fmt.Sprint(err); c.err == "" && err != nil || c.err != "" && got != c.err {
			t.Errorf("%+v under %+v: %v, want %q", c.task, c.opts, err, c.err)
		}
	}
}
