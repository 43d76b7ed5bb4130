package billing_test

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestRandomModeFindsTheComposedBug: the fresh-budget bug
// (billing.FreshBudgetOnResume) needs two faults: the exhaustive walk of
// every schedule of one fault over the agent's kinds finds nothing, and
// random mode (swarm draws, properties.WithSwarm; no enumeration) finds it in each of seeds 1
// to 10 within 1000 checks, at the exact checks given, shrunk to the
// same two faults (in either order): the budget spent at the first charge, then a rollback
// at the third checkpoint write, after which the restarted worker charges
// again under a fresh budget (seed 3: three faults, a worker crash in the
// rollback's place; seeds 2 and 4 shrink to a worker restart in the
// rollback's place, which resumes the worker under a fresh budget too). go test ./... runs seeds 1 to 5;
// FAULTLINE_HEAVY=1 runs the ten.
func TestRandomModeFindsTheComposedBug(t *testing.T) {
	if raceDetector || testing.Short() {
		t.Skip("explorations in one goroutine, with up to 1000 checks a seed: go test ./... runs them without the race detector")
	}
	def := billing.Definition()
	walk, err := properties.Explore(def, explore(billing.FreshBudgetOnResume, properties.WithMaxFaults(1), properties.WithExhaustive())...)
	if err != nil {
		t.Fatal(err)
	}
	one := walk.Exhaustive
	if one.Found || one.Schedules != 101 {
		t.Fatalf("one fault: %s", one.Summary())
	}
	want := []model.FaultEntry{
		{Event: model.EvToolCommit, Ordinal: 1, Kind: "budget_exhaustion"},
		{Event: model.EvCheckpointWrite, Ordinal: 3, Kind: "checkpoint_rollback"},
	}
	wantCrash := []model.FaultEntry{
		{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_before_send"},
		{Event: model.EvToolCommit, Ordinal: 2, Kind: "budget_exhaustion"},
		{Event: model.EvCheckpointWrite, Ordinal: 3, Kind: "worker_crash"},
	}
	seeds, wantCTF := uint64(5), []int{29, 257, 81, 26, 73, 55, 115, 366, 199, 25}
	if heavy() {
		seeds = 10
	} else {
		t.Log("seeds 1 to 5; FAULTLINE_HEAVY=1 runs seeds 1 to 10")
	}
	var ctf []int
	for seed := uint64(1); seed <= seeds; seed++ {
		rep, err := properties.Explore(def, explore(billing.FreshBudgetOnResume, properties.WithSeed(seed), properties.WithChecks(1000), properties.WithMaxSchedules(0), properties.WithSwarm())...)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Found {
			t.Fatalf("seed %d: no counterexample in %d checks", seed, rep.Checks)
		}
		cx := rep.Counterexample
		got := slices.SortedFunc(slices.Values(cx.Schedule.Faults), func(a, b model.FaultEntry) int {
			return cmp.Or(strings.Compare(string(b.Event), string(a.Event)), a.Ordinal-b.Ordinal)
		})
		w := want
		switch seed {
		case 3:
			// the same bug through a crash: the resumed worker's fresh
			// budget lets a third fault's timeouts exceed it
			w = wantCrash
		case 2, 4:
			// the same bug through a restart at the same checkpoint write
			w = []model.FaultEntry{want[0], {Event: model.EvCheckpointWrite, Ordinal: 3, Kind: "worker_restart"}}
		}
		if cx.Invariant != model.InvBudget || !slices.Equal(got, w) {
			t.Errorf("seed %d: %s", seed, cx)
		}
		ctf = append(ctf, rep.ChecksToFailure)
	}
	if w := wantCTF[:seeds]; !slices.Equal(ctf, w) {
		t.Errorf("checks to failure %v, want %v", ctf, w)
	}
}

// TestDefaultCheckFindsTheComposedBug: the default exploration (no mode
// option) finds the same bug in its walk phase, whatever the seed: the
// walk over the schedules of at most two faults is deterministic and
// stops at the first that breaks an invariant, here schedule 564 of
// 4,728, of the same two faults; no random check runs.
func TestDefaultCheckFindsTheComposedBug(t *testing.T) {
	want := []model.FaultEntry{
		{Event: model.EvToolCommit, Ordinal: 1, Kind: "budget_exhaustion"},
		{Event: model.EvCheckpointWrite, Ordinal: 3, Kind: "checkpoint_rollback"},
	}
	for seed := uint64(1); seed <= 3; seed++ {
		rep, err := properties.Explore(billing.Definition(), explore(billing.FreshBudgetOnResume, properties.WithSeed(seed), properties.WithChecks(100))...)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Found || rep.Walk == nil || !rep.Walk.Found || rep.Checks != 0 {
			t.Fatalf("seed %d: found %t, walk %+v, checks %d", seed, rep.Found, rep.Walk, rep.Checks)
		}
		cx := rep.Counterexample
		got := slices.SortedFunc(slices.Values(cx.Schedule.Faults), func(a, b model.FaultEntry) int {
			return cmp.Or(strings.Compare(string(b.Event), string(a.Event)), a.Ordinal-b.Ordinal)
		})
		if cx.Invariant != model.InvBudget || !slices.Equal(got, want) {
			t.Errorf("seed %d: %s", seed, cx)
		}
		if line := rep.Walk.WalkLine(); line != "walk: counterexample at schedule 564 of the schedules of <= 2 faults (1 of 0 faults, 100 of 1, 463 of 2)" {
			t.Errorf("seed %d: %s", seed, line)
		}
	}
}
