package billing_test

import (
	"fmt"
	"testing"

	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// lostKinds are the agent's kinds and lagging_readback, the read of the
// ledger that a replica serves before it holds the charge.
func lostKinds() []string {
	return append(append([]string{}, billing.Kinds...), "lagging_readback")
}

// TestLostCheckpointNeedsTwoFaults: the lost-checkpoint bug
// (billing.ChargeAfterLostCheckpoint) breaks charged_once under a
// rollback of the checkpoint written after the charge plus a lagging read
// of the ledger on resume, and under neither fault alone; the agent
// without the bug holds under both. The walk of every schedule of one
// fault over lostKinds (101 schedules) finds nothing.
func TestLostCheckpointNeedsTwoFaults(t *testing.T) {
	def := billing.Definition()
	rollback := model.FaultEntry{Event: model.EvCheckpointWrite, Ordinal: 3, Kind: "checkpoint_rollback"}
	lagging := model.FaultEntry{Event: model.EvLedgerReadback, Ordinal: 2, Kind: "lagging_readback"}
	for _, c := range []struct {
		bugs   billing.Bugs
		faults []model.FaultEntry
		broken bool
	}{
		{billing.ChargeAfterLostCheckpoint, []model.FaultEntry{rollback, lagging}, true},
		{billing.ChargeAfterLostCheckpoint, []model.FaultEntry{rollback}, false},
		{billing.ChargeAfterLostCheckpoint, []model.FaultEntry{lagging}, false},
		{0, []model.FaultEntry{rollback, lagging}, false},
	} {
		res, err := def.Replay(&model.Schedule{Version: 1, Config: billing.Config(c.bugs), Faults: c.faults})
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := res.Invariant(billing.InvChargedOnce); !ok || r.Held == c.broken {
			t.Errorf("bugs %s, faults %v: charged_once %+v, want broken %t", c.bugs, c.faults, r, c.broken)
		}
	}
	rep, err := properties.Explore(def, properties.WithConfig(billing.Config(billing.ChargeAfterLostCheckpoint)),
		properties.WithKinds(lostKinds()...), properties.WithMaxFaults(1), properties.WithExhaustive())
	if err != nil {
		t.Fatal(err)
	}
	if w := rep.Exhaustive; w.Found || !w.Complete || w.Schedules != 101 {
		t.Fatalf("one fault: %s", w.Summary())
	}
}

// TestDefaultCheckFindsTheLostCheckpointBug: the default exploration (no
// mode option) finds the lost-checkpoint bug in its walk in every one of
// 20 seeds, at schedule 561 of the walk of <= 2 faults (the walk is
// deterministic), before any random check. Its first schedule that breaks
// charged_once pairs the rollback with a tool_timeout at the first
// charge, whose late commit the resumed worker's read does not see yet:
// the same bug, a ledger read behind the charge.
func TestDefaultCheckFindsTheLostCheckpointBug(t *testing.T) {
	want := []model.FaultEntry{
		{Event: model.EvToolCommit, Ordinal: 1, Kind: "tool_timeout"},
		{Event: model.EvCheckpointWrite, Ordinal: 3, Kind: "checkpoint_rollback"},
	}
	for seed := uint64(1); seed <= 20; seed++ {
		rep, err := properties.Explore(billing.Definition(), properties.WithConfig(billing.Config(billing.ChargeAfterLostCheckpoint)),
			properties.WithKinds(lostKinds()...), properties.WithSeed(seed))
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Found || rep.Walk == nil || !rep.Walk.Found || rep.Checks != 0 {
			t.Fatalf("seed %d: found %t, walk %+v, checks %d", seed, rep.Found, rep.Walk, rep.Checks)
		}
		cx := rep.Counterexample
		if cx.Invariant != billing.InvChargedOnce || fmt.Sprint(cx.Schedule.Faults) != fmt.Sprint(want) {
			t.Errorf("seed %d: %s", seed, cx)
		}
		if line := rep.Walk.WalkLine(); line != "walk: counterexample at schedule 561 of the schedules of <= 2 faults (1 of 0 faults, 100 of 1, 460 of 2)" {
			t.Errorf("seed %d: %s", seed, line)
		}
	}
}
