package rebates_test

import (
	"slices"
	"testing"

	"github.com/faultline/faultline/examples/rebates"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestDefaultSearchFindsSpecDrift: the default search of the agent that
// sends its call unpinned, from scratch, finds specification drift at the
// walk's schedule 62 (60 before do_not_retry was drawn at every
// tool.commit, 52 before server_error and network_error were: their
// one-fault schedules come first):
// the provider moves to contract version 2 before the
// first payment, which it reads in whole units and commits at 100 times
// the approved rebate (current_entitlement at seq 3). The agent that pins
// the contract version it built the call under holds over the whole
// default search (the walk's 3,606 schedules, 3,404 before do_not_retry,
// 2,656 before the transport kinds, then 100 draws), and on the
// same schedule is refused both payments, pays nothing and denies both.
func TestDefaultSearchFindsSpecDrift(t *testing.T) {
	rep, err := properties.Explore(rebates.Definition(rebates.Agent{}))
	if err != nil {
		t.Fatal(err)
	}
	cx := rep.Counterexample
	if !rep.Found || rep.Walk == nil || rep.Walk.Index != 62 || cx.Invariant != model.InvCurrentEntitlement || cx.FirstSeq != 3 ||
		cx.Detail != "effect on ref-16600281 of amount 4500000 exceeds the approved 45000: the provider read the call under contract version 2 (moved at 60 ms)" {
		t.Fatalf("unpinned: found %v, walk %+v, %+v", rep.Found, rep.Walk, cx)
	}
	if f := cx.Schedule.Faults; len(f) != 1 || f[0].Kind != "spec_drift" || f[0].Event != model.EvToolCommit || f[0].Ordinal != 1 {
		t.Fatalf("unpinned: schedule %+v", f)
	}
	res, err := model.NewHarness(rebates.Fixture(), model.Options{}).Run(func() model.System { return rebates.Agent{Pinned: true} }, cx.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	const refused = "the payment was refused: precondition failed: contract version 1 is not the provider's (version 2)"
	if res.Faults[0].Fired != 1 || len(res.Claims) != 2 || res.Terms.Effects != 0 {
		t.Fatalf("pinned on the schedule: fired %d, claims %+v, %d effects", res.Faults[0].Fired, res.Claims, res.Terms.Effects)
	}
	for _, inv := range res.Invariants {
		if !inv.Held {
			t.Errorf("pinned on the schedule: %s violated: %s", inv.Invariant, inv.Detail)
		}
	}
	for _, c := range res.Claims {
		if c.Verdict != model.ClaimDeny || c.Reason != refused {
			t.Errorf("pinned on the schedule: claim %+v", c)
		}
	}
	rep, err = properties.Explore(rebates.Definition(rebates.Agent{Pinned: true}))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Found || rep.Walk == nil || !rep.Walk.Complete || rep.Walk.Schedules != 3606 || rep.Checks != 100 ||
		!slices.Contains(rep.Walk.Scope.Kinds, "spec_drift") {
		t.Errorf("pinned: found %v, checks %d, walk %+v", rep.Found, rep.Checks, rep.Walk)
	}
}

// TestSpecDriftDrawnWhereDeclared: on the same fixture without
// VersionedContracts the default search does not draw spec_drift, and the
// unpinned agent holds over it (the walk's 3,404 schedules, 3,208 before
// do_not_retry was drawn here, 2,484 before server_error and
// network_error were, then 100
// draws): the drift is the only fault that breaks it.
func TestSpecDriftDrawnWhereDeclared(t *testing.T) {
	f := rebates.Fixture()
	f.VersionedContracts = false
	d := model.Define("rebates", f, func() model.System { return rebates.Agent{} })
	d.Builtin = rebates.Definition(rebates.Agent{}).Builtin
	rep, err := properties.Explore(d)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Found || rep.Walk == nil || !rep.Walk.Complete || rep.Walk.Schedules != 3404 || rep.Checks != 100 ||
		slices.Contains(rep.Walk.Scope.Kinds, "spec_drift") {
		t.Errorf("undeclared: found %v, checks %d, walk %+v", rep.Found, rep.Checks, rep.Walk)
	}
}
