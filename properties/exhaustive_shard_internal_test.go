package properties

import (
	"bytes"
	"slices"
	"testing"

	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/model"
)

// walkBilling walks the billing agent (a user's system, through its
// Definition) under cfg, at most two faults (unless extra says otherwise),
// as shard i of n (n 0: unsharded), and returns the report and the
// schedules it counted, in order.
func walkBilling(t *testing.T, cfg model.Config, i, n int, extra ...Option) (*ExhaustiveReport, [][]byte) {
	t.Helper()
	var visited [][]byte
	opts := append([]Option{WithConfig(cfg), WithMaxFaults(2), WithWorkers(2),
		withVisit(func(s *model.Schedule) { visited = append(visited, model.Format(s)) })}, extra...)
	if n > 0 {
		opts = append(opts, WithShard(i, n))
	}
	rep, err := Explore(billing.Definition(), append(opts, WithExhaustive())...)
	if err != nil {
		t.Fatal(err)
	}
	return rep.Exhaustive, visited
}

// TestExhaustiveShardsPartitionTheWalk: for the correct billing agent,
// shard i of n counts exactly the schedules at the positions j of the
// unsharded walk with j-1 mod n = i-1, in its order; the shards'
// schedules, sizes and fault counts add up to the walk's, and each is
// complete. Under a cap, the cap counts positions of the whole walk.
func TestExhaustiveShardsPartitionTheWalk(t *testing.T) {
	tool := WithDomains(model.Domain("tool"), model.Domain("state"))
	whole, all := walkBilling(t, billing.Config(0), 0, 0, tool)
	if whole.Found || !whole.Complete || whole.Schedules != len(all) || whole.Schedules < 100 {
		t.Fatalf("the walk: found %t, complete %t, %d schedules (%s)", whole.Found, whole.Complete, whole.Schedules, whole.Sizes())
	}
	shards := []int{1, 2, 3, 7}
	if raceInternal {
		// each shard's walk runs the same two workers over its positions:
		// the detector watches the three shards of n = 3, go test ./...
		// checks every n
		shards = []int{3}
	}
	for _, n := range shards {
		perSize := make([]int, len(whole.PerSize))
		schedules, faults, reached, fired := 0, 0, 0, 0
		for i := 1; i <= n; i++ {
			rep, got := walkBilling(t, billing.Config(0), i, n, tool)
			var want [][]byte
			for j := i - 1; j < len(all); j += n {
				want = append(want, all[j])
			}
			if !slices.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("shard %d/%d: %d schedules, not the walk's %d at its positions", i, n, len(got), len(want))
			}
			if rep.Found || !rep.Complete || rep.Schedules != len(want) || rep.Shard != i || rep.Shards != n {
				t.Fatalf("shard %d/%d: found %t, complete %t, %d schedules", i, n, rep.Found, rep.Complete, rep.Schedules)
			}
			for k, c := range rep.PerSize {
				perSize[k] += c
			}
			schedules, faults, reached, fired = schedules+rep.Schedules, faults+rep.Faults, reached+rep.Reached, fired+rep.Fired
		}
		if schedules != whole.Schedules || !slices.Equal(perSize, whole.PerSize) || faults != whole.Faults || reached != whole.Reached || fired != whole.Fired {
			t.Errorf("%d shards: %d schedules %v, faults %d/%d/%d; the walk: %d %v, %d/%d/%d", n, schedules, perSize, faults, reached, fired,
				whole.Schedules, whole.PerSize, whole.Faults, whole.Reached, whole.Fired)
		}
	}
	// a cap of 40 schedules: shard 2 of 3 counts positions 2, 5, ..., 38
	rep, got := walkBilling(t, billing.Config(0), 2, 3, tool, WithMaxSchedules(40))
	if rep.Complete || rep.Schedules != 13 || !bytes.Equal(got[12], all[37]) {
		t.Errorf("capped shard: complete %t, %d schedules", rep.Complete, rep.Schedules)
	}
}

// TestExhaustiveShardFindsTheWalksCounterexample: with a planted bug, the
// walk's counterexample at position m is the counterexample of the shard
// owning m, at index m, with the same schedule; the other shards find
// none before m, so the least index among the shards is the walk's. The
// counterexample is of the walk's largest size (which a shard runs only
// its share of) or of a smaller one (which every shard runs).
func TestExhaustiveShardFindsTheWalksCounterexample(t *testing.T) {
	var kinds []string // every kind but the two that find fresh_key_per_retry first
	for _, sp := range walkKinds {
		if sp.Kind != "timeout_after_commit" && sp.Kind != "malformed_response" {
			kinds = append(kinds, sp.Kind)
		}
	}
	for _, c := range []struct {
		name string
		bug  billing.Bugs
		opts []Option
		at   int
	}{
		{"at the largest size", billing.FreshKeyPerRetry, []Option{WithMaxFaults(1), WithKinds(kinds...)}, 15},
		{"at a smaller size", billing.BlindResume, nil, 22},
	} {
		whole, _ := walkBilling(t, billing.Config(c.bug), 0, 0, c.opts...)
		if !whole.Found || whole.Index != c.at {
			t.Fatalf("%s: found %t at %d, want %d", c.name, whole.Found, whole.Index, c.at)
		}
		m := whole.Index
		for _, n := range []int{2, 3, 4} {
			least := 0
			for i := 1; i <= n; i++ {
				rep, _ := walkBilling(t, billing.Config(c.bug), i, n, c.opts...)
				if rep.Found && (least == 0 || rep.Index < least) {
					least = rep.Index
				}
				if (m-1)%n != i-1 {
					if rep.Found && rep.Index <= m {
						t.Errorf("%s, shard %d/%d: a counterexample at %d, before the walk's %d", c.name, i, n, rep.Index, m)
					}
					continue
				}
				if !rep.Found || rep.Index != m || !bytes.Equal(model.Format(rep.Counterexample.Schedule), model.Format(whole.Counterexample.Schedule)) ||
					rep.Schedules != (m-1)/n+1 {
					t.Errorf("%s, shard %d/%d: found %t at %d after %d schedules; the walk's at %d", c.name, i, n, rep.Found, rep.Index, rep.Schedules, m)
				}
			}
			if least != m {
				t.Errorf("%s, %d shards: the least index %d, the walk's %d", c.name, n, least, m)
			}
		}
	}
}
