package properties_test

import (
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// The default check draws policy_fetch_failed on a fixture that states a
// max_policy_age: on copperfin-policy-replica, the walk of the typed
// profile with refresh_context as it was (policy_age_unchecked) finds,
// from scratch at its 232nd schedule (231st before do_not_retry was drawn
// at every tool.commit, 227th before server_error and network_error were), the refund made at 212 ms on the
// replica's copy of 0 ms, shrunk to one failed fetch at the first policy
// read. Typed, which waits for a fresh fetch, holds over the same
// schedule and refunds.
func TestDefaultCheckFindsPolicyFetchFailed(t *testing.T) {
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	cfg := copperfin.WithMutant(copperfin.ConfigOfControls(typed), string(copperfin.PolicyAgeUnchecked))
	cfg.Fixture = "copperfin-policy-replica"
	rep, err := properties.Explore(copperfin.Definition(), properties.WithConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Found || rep.Walk == nil || !rep.Walk.Found || rep.Walk.Index != 232 {
		t.Fatalf("found %v, walk %+v", rep.Found, rep.Walk)
	}
	cx := rep.Counterexample
	f := cx.Schedule.Faults
	want := `effect ref-46b1712e:refund:v1 of task ref-db32399f committed at 212 ms on tenant "T-1"'s policy fetched at 0 ms: 212 ms old, more than the fixture's max_policy_age of 100 ms`
	if cx.Invariant != "policy_fresh" || cx.Detail != want || len(f) != 1 ||
		f[0].Kind != "policy_fetch_failed" || f[0].Event != model.EvContextPolicy || f[0].Ordinal != 1 {
		t.Errorf("counterexample %s: %s %+v", cx.Invariant, cx.Detail, f)
	}
	fixed := *cx.Schedule
	fixed.Config = copperfin.WithMutant(fixed.Config, "")
	factory, err := copperfin.Configured(fixed.Config)
	if err != nil {
		t.Fatal(err)
	}
	fx, _ := copperfin.FixtureNamed(fixed.Config.Fixture)
	res, err := model.NewHarness(fx, model.Options{}).Run(factory, &fixed)
	if err != nil || !res.Held() || res.Claims[0].Verdict != model.ClaimRelease {
		t.Errorf("typed over the same schedule: %v %+v %+v", err, res.Invariants, res.Claims)
	}
}
