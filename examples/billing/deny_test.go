package billing_test

import (
	"fmt"
	"testing"

	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestDenyOverChargeNeedsTwoFaults: the deny-over-charge bug
// (billing.DenyOverCharge, the agent's behaviour before the fix) denies an
// invoice the provider charged: the first charge's reply is lost after it
// committed, the retry is rejected, and the agent claims the rejection
// without reading the ledger, so recorded_agrees_with_ledger breaks at the
// claim. Neither fault alone breaks it, and the correct agent reads the
// ledger back and claims the invoice paid; when the first charge landed on
// another trace (break_trace_lineage, which rapid's draws added in
// TestExplore, check 79 of seed 1's), it cannot prove the charge its own
// and holds.
func TestDenyOverChargeNeedsTwoFaults(t *testing.T) {
	def := billing.Definition()
	lost := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}
	denied := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 2, Kind: "sandbox_denial"}
	traced := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "break_trace_lineage"}
	for _, c := range []struct {
		bugs   billing.Bugs
		faults []model.FaultEntry
		want   string // the claim verdict, the invariants broken, the effects
	}{
		{billing.DenyOverCharge, []model.FaultEntry{lost, denied}, "deny [recorded_agrees_with_ledger] 1"},
		{billing.DenyOverCharge, []model.FaultEntry{lost}, "release [] 1"},
		{billing.DenyOverCharge, []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "sandbox_denial"}}, "deny [] 0"},
		{0, []model.FaultEntry{lost, denied}, "release [] 1"},
		{billing.DenyOverCharge, []model.FaultEntry{traced, lost, denied}, "deny [recorded_agrees_with_ledger] 1"},
		{0, []model.FaultEntry{traced, lost, denied}, "hold [] 1"},
	} {
		res, err := def.Replay(&model.Schedule{Version: model.ScheduleVersion, Config: billing.Config(c.bugs), Faults: c.faults})
		if err != nil {
			t.Fatal(err)
		}
		var broke []string
		for _, inv := range res.Invariants {
			if !inv.Held {
				broke = append(broke, inv.Invariant)
			}
		}
		if got := fmt.Sprintf("%s %v %d", res.Claims[0].Verdict, broke, res.Terms.Effects); got != c.want {
			t.Errorf("bugs %s, faults %v: %s, want %s", c.bugs, c.faults, got, c.want)
		}
	}
}

// TestDefaultCheckFindsTheDenyOverChargeBug: the default exploration finds
// the bug in its walk over the agent's kinds (TestExplore's options), at
// schedule 177 of the schedules of <= 2 faults, the schedule that found
// it in the agent before the fix.
func TestDefaultCheckFindsTheDenyOverChargeBug(t *testing.T) {
	want := "[timeout_after_commit@tool.commit#1 sandbox_denial@tool.commit#2]"
	rep, err := properties.Explore(billing.Definition(), explore(billing.DenyOverCharge, properties.WithSeed(1))...)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Found || rep.Walk == nil || !rep.Walk.Found || rep.Checks != 0 {
		t.Fatalf("found %t, walk %+v, checks %d", rep.Found, rep.Walk, rep.Checks)
	}
	cx := rep.Counterexample
	var got []string
	for _, f := range cx.Schedule.Faults {
		got = append(got, fmt.Sprintf("%s@%s#%d", f.Kind, f.Event, f.Ordinal))
	}
	if cx.Invariant != model.InvRecordedAgreesWithLedger || fmt.Sprint(got) != want {
		t.Errorf("%s: %v, want %s", cx.Invariant, got, want)
	}
	if line := rep.Walk.WalkLine(); line != "walk: counterexample at schedule 177 of the schedules of <= 2 faults (1 of 0 faults, 100 of 1, 76 of 2)" {
		t.Errorf("%s", line)
	}
}
