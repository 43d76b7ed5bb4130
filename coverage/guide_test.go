package coverage_test

import (
	"slices"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// explore runs n single-fault runs under typed, choosing each kind with
// choose, and returns how many reachable keys were visited after each run.
func explore(t *testing.T, n int, choose func(*coverage.Tracker) string) (curve []int, kinds []string) {
	tr := newTracker(t, nil)
	for range n {
		k := choose(tr)
		kinds = append(kinds, k)
		if err := tr.Record(runSchedule(t, single(t, k, copperfin.ProfileTyped))); err != nil {
			t.Fatal(err)
		}
		curve = append(curve, coverage.NewReport(coverage.Default(), tr.Data(), coverage.ReportOptions{}).Summary.Visited)
	}
	return curve, kinds
}

// TestGuideVisitsEveryKeyInAsManyRuns: guided choice visits all 20 keys
// of the kinds' own specs in 20 runs (the guide chooses kinds; the 17
// keys of the correlation modifiers need a modifier on a fault entry), one new key a run, for every seed tried (each
// kind fires at its default ordinal under typed, and a visit by one kind of
// a shared key makes its other kinds as visited); uniform choice over the
// 27 kinds from the same generator family needs more.
func TestGuideVisitsEveryKeyInAsManyRuns(t *testing.T) {
	oneGoroutine(t)
	u := coverage.Default()
	own := map[coverage.Key]bool{}
	for _, s := range model.Catalogue() {
		k, _ := u.KindKey(s.Kind)
		own[k] = true
	}
	n := len(own)
	// the reachable keys also hold the two of the kinds outside the
	// catalogue, which the guide does not rank
	if n != 21 || len(u.Reachable()) != 40 {
		t.Fatalf("%d keys of the kinds' own specs, %d reachable", n, len(u.Reachable()))
	}
	var want []int
	for i := range n {
		want = append(want, i+1)
	}
	for seed := range uint64(5) {
		g := coverage.NewGuide(nil, seed)
		curve, kinds := explore(t, n, func(tr *coverage.Tracker) string { return g.Next(tr) })
		if !slices.Equal(curve, want) {
			t.Fatalf("seed %d: guided curve %v (kinds %v)", seed, curve, kinds)
		}
	}
	// uniform choice, seeded the same way: a coupon collector over 35 kinds
	// and 21 keys
	g := coverage.NewGuide(nil, 1)
	empty := &coverage.Data{}
	curve, kinds := explore(t, n, func(*coverage.Tracker) string {
		// every key unvisited in empty, so Rank is a seeded shuffle: its head is uniform
		return g.Rank(empty)[0]
	})
	// the curve counts the distinct keys of the kinds drawn so far
	seen := map[coverage.Key]bool{}
	for i, kind := range kinds {
		k, _ := u.KindKey(kind)
		seen[k] = true
		if curve[i] != len(seen) {
			t.Fatalf("uniform run %d: %d keys visited, but the kinds drawn %v have %d", i+1, curve[i], kinds[:i+1], len(seen))
		}
	}
	if !slices.Equal(curve, []int{1, 2, 3, 4, 5, 5, 5, 6, 7, 8, 9, 10, 11, 11, 11, 11, 12, 13, 13, 13, 13}) {
		t.Fatalf("uniform choice, seed 1: curve %v (kinds %v)", curve, kinds)
	}
}

func TestGuideIsDeterministicAndPrefersUnvisited(t *testing.T) {
	tr := record(t, single(t, "timeout_after_commit", copperfin.ProfileTyped), single(t, "stale_policy", copperfin.ProfileTyped),
		at(t, "drop_effect_receipt", 4, copperfin.ProfileTyped))
	a, b := coverage.NewGuide(nil, 7), coverage.NewGuide(nil, 7)
	for range 3 {
		ra, rb := a.Rank(tr), b.Rank(tr)
		if !slices.Equal(ra, rb) {
			t.Fatalf("same seed, different ranks:\n%v\n%v", ra, rb)
		}
		// 32 never-scheduled kinds first, then the one whose fault missed its event, then the visited two
		if n := len(ra); n != 35 || ra[32] != "drop_effect_receipt" || !slices.Contains(ra[33:], "timeout_after_commit") || !slices.Contains(ra[33:], "stale_policy") {
			t.Fatalf("rank %v", ra)
		}
	}
	// a kind that shares a visited key ranks with the visited: malformed_response
	// and output_drift share partial_success_response's key
	tr2 := record(t, single(t, "partial_success_response", copperfin.ProfileTyped))
	if r := coverage.NewGuide(nil, 3).Rank(tr2); !slices.Equal(slices.Sorted(slices.Values(r[32:])), []string{"malformed_response", "output_drift", "partial_success_response"}) {
		t.Fatalf("rank after a visit of a shared key: %v", r)
	}
	differ := false
	for seed := range uint64(10) {
		differ = differ || !slices.Equal(coverage.NewGuide(nil, seed).Rank(tr)[:24], coverage.NewGuide(nil, seed+100).Rank(tr)[:24])
	}
	if !differ {
		t.Fatal("the seed does not change the order among equally wanted kinds")
	}
}
