package benefits_test

import (
	"testing"

	"github.com/faultline/faultline/examples/benefits"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestDefaultSearchFindsDeauthorisedEvidence: the default search of the
// payer that guards only the claim's state version, from scratch, finds
// a de-authorised evidence item at the walk's schedule 91 (89 before
// do_not_retry was drawn at every tool.commit, 81 before server_error and
// network_error were: their one-fault schedules come before the family
// kinds'): the claim
// file's item, read valid, is withdrawn before the payment, which the
// payer makes on it (current_entitlement at seq 5; the search names the claim ref-75a630be). The payer that asks
// the service to check the decision's context with the payment holds
// over the whole default search (the walk's 6,542 schedules, 6,282
// before do_not_retry, 5,302 before the transport kinds, then 100
// draws), and denies the first claim on the same schedule (the second is paid).
func TestDefaultSearchFindsDeauthorisedEvidence(t *testing.T) {
	rep, err := properties.Explore(benefits.Definition(benefits.Payer{}))
	if err != nil {
		t.Fatal(err)
	}
	cx := rep.Counterexample
	if !rep.Found || rep.Walk == nil || rep.Walk.Index != 91 || cx.Invariant != model.InvCurrentEntitlement || cx.FirstSeq != 5 ||
		cx.Detail != "effect on ref-75a630be relies on the eligibility item of source claim_file, whose grant was withdrawn at 30 ms" {
		t.Fatalf("unguarded: found %v, walk %+v, %+v", rep.Found, rep.Walk, cx)
	}
	if f := cx.Schedule.Faults; len(f) != 1 || f[0].Kind != "deauthorised_evidence" || f[0].Event != model.EvContextEligibility || f[0].Ordinal != 2 {
		t.Fatalf("unguarded: schedule %+v", f)
	}
	res, err := model.NewHarness(benefits.Fixture(), model.Options{}).Run(func() model.System { return benefits.Payer{Guarded: true} }, cx.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	if res.Faults[0].Fired != 1 || res.Claims[0].Verdict != model.ClaimDeny || res.Terms.Effects != 1 {
		t.Errorf("guarded on the schedule: fired %d, claims %+v, %d effects", res.Faults[0].Fired, res.Claims, res.Terms.Effects)
	}
	rep, err = properties.Explore(benefits.Definition(benefits.Payer{Guarded: true}))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Found || rep.Walk == nil || !rep.Walk.Complete || rep.Walk.Schedules != 6542 || rep.Checks != 100 {
		t.Errorf("guarded: found %v, checks %d, walk %+v", rep.Found, rep.Checks, rep.Walk)
	}
}
