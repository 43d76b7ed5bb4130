package model_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// schedulerRuns is every concurrent run TestSchedulerPicksPinned digests:
// fleets (workers on clocks of their own) and copies of the reference task
// (one clock), with as many workers as tasks and fewer, under the worker
// that ran last, seeds, a round robin and a pseudo-random interleaving that
// often names a task that is not ready.
func schedulerRuns(t *testing.T, yield func(name string, h *model.Harness, factory model.Factory, s *model.Schedule)) {
	t.Helper()
	policies := func(n, workers int) map[string]*model.Concurrency {
		robin, scattered := []int{}, []int{}
		x := uint32(n*7919 + workers)
		for i := range 30 * n {
			robin = append(robin, i%n+1)
			x = x*1664525 + 1013904223
			scattered = append(scattered, int(x>>8)%n+1)
		}
		return map[string]*model.Concurrency{
			"last":      {Workers: workers},
			"seed-a":    {Workers: workers, Seed: "a"},
			"seed-b":    {Workers: workers, Seed: "b"},
			"robin":     {Workers: workers, Interleaving: robin},
			"scattered": {Workers: workers, Interleaving: scattered, Seed: "c"},
		}
	}
	cs, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	for _, n := range []int{1, 2, 7, 30, 100} {
		fx := copperfin.CopperfinFleet(n)
		cfg := copperfin.ConfigOfControls(cs)
		cfg.Fixture = fx.Name
		h := model.NewHarness(fx, model.Options{})
		for _, w := range []int{n, n/3 + 1} {
			for name, c := range policies(n, w) {
				s, err := copperfin.StormSchedule(cfg)
				if err != nil {
					t.Fatal(err)
				}
				s.Config.Concurrency = c
				yield(fmt.Sprintf("%s/workers=%d/%s", fx.Name, w, name), h, copperfin.Factory(cs), s)
			}
		}
	}
	for _, n := range []int{1, 3, 10, 40} {
		h := model.NewHarness(taskFixture(n), model.Options{})
		for _, w := range []int{n, n/2 + 1, 2} {
			for name, c := range policies(n, w) {
				factory, s := benchSchedule(t)
				s.Config.Concurrency = c
				yield(fmt.Sprintf("tasks=%d/workers=%d/%s", n, w, name), h, factory, s)
			}
		}
	}
}

// TestSchedulerPicksPinned: the scheduler's picks, and so every run it
// schedules, are pinned: the digest of the results (picks, context
// switches, timeline, verdicts) of schedulerRuns' runs, in a fixed order,
// is the one the scheduler gave before its ready list was indexed (with
// a claim the deadline forced leaving its task timed_out in the timeline,
// not failed: 769b8714... before), with recorded_agrees_with_ledger and
// retry_paced checked in every run (543139f1... before both; without
// their results the runs hash to that digest, without retry_paced's alone
// to b9086719..., without recorded_agrees_with_ledger's alone to
// 99e49c2b...: the picks, timelines and verdicts are the same).
func TestSchedulerPicksPinned(t *testing.T) {
	if raceDetector {
		// 9 s under the detector, two thirds of model's time there
		t.Skip("its runs switch between coroutines, never between goroutines that run at once, and the scheduler's handoffs run under the detector in the other concurrency tests; go test ./... runs it")
	}
	const want = "dcf7933a0a53f000956ef8f19dd27f8556bb0e1dbfaaf32a1250efb1c5428e0b"
	sum := sha256.New()
	runs := map[string][]byte{}
	var names []string
	schedulerRuns(t, func(name string, h *model.Harness, factory model.Factory, s *model.Schedule) {
		res, err := h.Run(factory, s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		runs[name] = b
		names = append(names, name)
	})
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(sum, "%s %x\n", name, sha256.Sum256(runs[name]))
	}
	if got := hex.EncodeToString(sum.Sum(nil)); got != want {
		t.Errorf("the digest of %d concurrent runs is %s, want %s", len(names), got, want)
	}
}
