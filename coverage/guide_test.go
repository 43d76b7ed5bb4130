package coverage_test

import (
	"slices"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
)

// explore runs n single-fault runs under typed, choosing each kind with
// choose, and returns how many reachable keys were visited after each run.
func explore(t *testing.T, n int, choose func(*coverage.Tracker) string) (curve []int, kinds []string) {
	tr := coverage.NewTracker(nil)
	for range n {
		k := choose(tr)
		kinds = append(kinds, k)
		if err := tr.Record(runSchedule(t, single(t, k, model.ProfileTyped))); err != nil {
			t.Fatal(err)
		}
		curve = append(curve, coverage.NewReport(coverage.Default(), tr.Data(), coverage.ReportOptions{}).Summary.Visited)
	}
	return curve, kinds
}

// TestGuideVisitsEveryKeyInAsManyRuns: guided choice visits all ten
// reachable keys in ten runs, one new key a run, for every seed tried;
// uniform choice from the same generator family needs more.
func TestGuideVisitsEveryKeyInAsManyRuns(t *testing.T) {
	for seed := range uint64(5) {
		g := coverage.NewGuide(nil, seed)
		curve, kinds := explore(t, 10, func(tr *coverage.Tracker) string { return g.Next(tr) })
		if !slices.Equal(curve, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) {
			t.Fatalf("seed %d: guided curve %v (kinds %v)", seed, curve, kinds)
		}
	}
	// uniform choice, seeded the same way: a coupon collector
	g := coverage.NewGuide(nil, 1)
	empty := &coverage.Data{}
	curve, _ := explore(t, 10, func(*coverage.Tracker) string {
		// every key unvisited in empty, so Rank is a seeded shuffle: its head is uniform
		return g.Rank(empty)[0]
	})
	if !slices.Equal(curve, []int{1, 2, 3, 4, 5, 6, 6, 6, 7, 7}) {
		t.Fatalf("uniform choice, seed 1: curve %v", curve)
	}
}

func TestGuideIsDeterministicAndPrefersUnvisited(t *testing.T) {
	tr := record(t, single(t, "timeout_after_commit", model.ProfileTyped), single(t, "stale_policy", model.ProfileTyped),
		at(t, "drop_effect_receipt", 4, model.ProfileTyped))
	a, b := coverage.NewGuide(nil, 7), coverage.NewGuide(nil, 7)
	for range 3 {
		ra, rb := a.Rank(tr), b.Rank(tr)
		if !slices.Equal(ra, rb) {
			t.Fatalf("same seed, different ranks:\n%v\n%v", ra, rb)
		}
		// seven never-scheduled kinds first, then the one whose fault missed its event, then the visited two
		if n := len(ra); n != 10 || ra[7] != "drop_effect_receipt" || !slices.Contains(ra[8:], "timeout_after_commit") || !slices.Contains(ra[8:], "stale_policy") {
			t.Fatalf("rank %v", ra)
		}
	}
	differ := false
	for seed := range uint64(10) {
		differ = differ || !slices.Equal(coverage.NewGuide(nil, seed).Rank(tr)[:7], coverage.NewGuide(nil, seed+100).Rank(tr)[:7])
	}
	if !differ {
		t.Fatal("the seed does not change the order among equally wanted kinds")
	}
}
