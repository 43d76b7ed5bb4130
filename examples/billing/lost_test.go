package billing_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"pgregory.net/rapid"
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
// fault over lostKinds (102 schedules) finds nothing.
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
	if w := rep.Exhaustive; w.Found || !w.Complete || w.Schedules != 102 {
		t.Fatalf("one fault: %s", w.Summary())
	}
}

// TestDefaultCheckFindsTheLostCheckpointBug: the default exploration (no
// mode option) finds the lost-checkpoint bug in its walk in every one of
// 20 seeds, at schedule 568 of the walk of <= 2 faults (the walk is
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
		if line := rep.Walk.WalkLine(); line != "walk: counterexample at schedule 568 of the schedules of <= 2 faults (1 of 0 faults, 101 of 1, 466 of 2)" {
			t.Errorf("seed %d: %s", seed, line)
		}
	}
}

// FuzzLostCheckpoint is the lost-checkpoint bug's fuzz target, for
// scripts/fuzz-shrink.sh: any bytes decode into up to four faults of
// lostKinds at the agent's sites under the bug. Its seeds, single
// faults, hold (no one fault finds the bug); a campaign fails with the
// bug shrunk to the faults Check reports (two).
func FuzzLostCheckpoint(f *testing.F) {
	for i := range 32 {
		f.Add([]byte{byte(i)})
	}
	dir := f.TempDir()
	f.Fuzz(fuzz.For(billing.Definition(), fuzz.WithConfig(billing.Config(billing.ChargeAfterLostCheckpoint)),
		fuzz.WithKinds(lostKinds()...), fuzz.WithFailDir(dir)))
}

// FuzzLostCheckpointRapid is FuzzLostCheckpoint through the exploration's
// generator (fuzz.Decoder.RapidProperty under rapid.MakeFuzz), whose
// faults sit at crossings the faults before them made: its failures are
// the ones removal alone left at three faults.
func FuzzLostCheckpointRapid(f *testing.F) {
	dec, err := fuzz.NewDecoder(billing.Definition(), fuzz.WithConfig(billing.Config(billing.ChargeAfterLostCheckpoint)),
		fuzz.WithKinds(lostKinds()...), fuzz.WithFailDir(f.TempDir()))
	if err != nil {
		f.Fatal(err)
	}
	prop, err := dec.RapidProperty(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(make([]byte, 8*16)) // the smallest draws: one fault, which holds
	f.Fuzz(rapid.MakeFuzz(prop))
}

// TestFuzzShrinksAsCheck: a failing fuzz input of three faults of the
// lost-checkpoint bug (a timeout after the charge's commit, a lagging
// ledger read and a restart after the third checkpoint write) is
// 1-minimal by removal (3 runs, none kept), and the walk step of the
// shrinking (Decoder.Verify) reaches, in 141 runs, two faults, as many as
// the default check reports (TestDefaultCheckFindsTheLostCheckpointBug):
// the lagging read it kept and a rollback of the third checkpoint, the
// bug's own pair (TestLostCheckpointNeedsTwoFaults).
func TestFuzzShrinksAsCheck(t *testing.T) {
	dec, err := fuzz.NewDecoder(billing.Definition(), fuzz.WithConfig(billing.Config(billing.ChargeAfterLostCheckpoint)),
		fuzz.WithKinds(lostKinds()...))
	if err != nil {
		t.Fatal(err)
	}
	in := &model.Schedule{Version: model.ScheduleVersion, Config: billing.Config(billing.ChargeAfterLostCheckpoint), Faults: []model.FaultEntry{
		{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"},
		{Event: model.EvLedgerReadback, Ordinal: 1, Kind: "lagging_readback"},
		{Event: model.EvCheckpointWrite, Ordinal: 3, Kind: "worker_restart"},
	}}
	var f *fuzz.Failure
	if err := dec.Verify(in); !errors.As(err, &f) {
		t.Fatalf("Verify: %v", err)
	}
	want := []model.FaultEntry{
		{Event: model.EvLedgerReadback, Ordinal: 2, Kind: "lagging_readback"},
		{Event: model.EvCheckpointWrite, Ordinal: 3, Kind: "checkpoint_rollback"},
	}
	if f.Invariant != billing.InvChargedOnce || !slices.Equal(f.Schedule.Faults, want) {
		t.Errorf("shrunk to %v (%s), want %v (charged_once)", f.Schedule.Faults, f.Invariant, want)
	}
	if line := "shrunk to 2 of its 3 faults (removal 3 runs, 3 faults left; walk 144 runs, found 2 faults):"; !strings.Contains(f.Error(), line) {
		t.Errorf("the failure lacks %q:\n%s", line, f.Error())
	}
}
