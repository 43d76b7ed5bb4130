package discounts_test

import (
	"slices"
	"testing"

	"github.com/faultline/faultline/examples/discounts"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestDefaultSearchFindsPolicyFetchFailed: policy_fetch_failed is a kind
// outside the catalogue, drawn by the default search because the
// fixture states a max_policy_age. The default check of the agent that
// ignores the policy's age finds it from scratch at the walk's 39th
// schedule (38th before do_not_retry was drawn at every tool.commit, 34th
// before server_error and network_error were: their one-fault schedules
// come first), shrunk to one failed fetch at the first policy read: the
// discount is applied at 70 ms on the replica's copy of 0 ms, 70 ms old
// (the bound is 50). The careful agent holds over the complete walk of
// 1,471 schedules (1,402 before do_not_retry, 1,146 before the transport kinds) and the random draws after it.
func TestDefaultSearchFindsPolicyFetchFailed(t *testing.T) {
	spec, err := model.Spec("policy_fetch_failed")
	if err != nil {
		t.Fatal(err)
	}
	in := func(specs []model.FaultSpec) bool {
		return slices.ContainsFunc(specs, func(s model.FaultSpec) bool { return s.Kind == spec.Kind })
	}
	if in(model.Catalogue()) || in(model.CacheAndWorkerKinds()) || spec.Paper || spec.Oracle != "policy_record" ||
		spec.Event != model.EvContextPolicy || !slices.Equal(spec.Threatens, []string{"policy_fresh"}) {
		t.Fatalf("spec %+v", spec)
	}
	d := discounts.Definition()
	rep, err := properties.Explore(d, properties.WithConfig(model.Config{System: []byte(`{"ignore_age":true}`)}))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Found || rep.Walk == nil || rep.Walk.Index != 39 {
		t.Fatalf("found %v, walk %+v", rep.Found, rep.Walk)
	}
	cx := rep.Counterexample
	f := cx.Schedule.Faults
	want := `effect ref-1df98a68:discount of task ref-1df98a68 committed at 70 ms on tenant "shop-1"'s policy fetched at 0 ms: 70 ms old, more than the fixture's max_policy_age of 50 ms`
	if cx.Invariant != "policy_fresh" || cx.Detail != want || len(f) != 1 || f[0].Kind != "policy_fetch_failed" || f[0].Event != model.EvContextPolicy || f[0].Ordinal != 1 {
		t.Errorf("counterexample %s: %s %+v", cx.Invariant, cx.Detail, f)
	}
	rep, err = properties.Explore(d)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Found || rep.Walk == nil || !rep.Walk.Complete || rep.Walk.Schedules != 1471 {
		t.Fatalf("careful agent: found %v, walk %+v", rep.Found, rep.Walk)
	}
}

// TestCarefulAgentWaitsForAFreshPolicy: every run of the store checks
// policy_fresh beside no_invented_progress. Under one failed fetch (its
// replica fails for 200 ms from 30 ms) the careful agent finds the copy
// 30 ms old, fetches again at 140 ms (still failing) and at 250 ms (a
// fresh copy) and applies the discount: it decides again once a fetch
// succeeds. When the replica fails again at the third read, the copy is
// still too old after three refetches and it denies. The agent that
// ignores the age applies it on the old copy and breaks policy_fresh.
func TestCarefulAgentWaitsForAFreshPolicy(t *testing.T) {
	d := discounts.Definition()
	scope, err := d.Scope(model.Config{}, model.Options{})
	if err != nil || !slices.Equal(scope, []string{model.InvNoInventedProgress, model.InvRecordedAgreesWithLedger, "retry_paced", "policy_fresh"}) {
		t.Fatalf("scope %v %v", scope, err)
	}
	at := func(ordinals ...int) *model.Schedule {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "discount-replica"}
		for _, o := range ordinals {
			s.Faults = append(s.Faults, model.FaultEntry{Kind: "policy_fetch_failed", Event: model.EvContextPolicy, Ordinal: o})
		}
		return s
	}
	for _, c := range []struct {
		ignore  bool
		s       *model.Schedule
		reads   int
		verdict model.ClaimVerdict
		reason  string
		fresh   string
	}{
		{false, at(1), 3, model.ClaimRelease, "discount applied", ""},
		{false, at(1, 3), 4, model.ClaimDeny, "discount policy 360 ms old: no fresh fetch", ""},
		{true, at(1), 1, model.ClaimRelease, "discount applied",
			`effect discount-cart-77:discount of task discount-cart-77 committed at 70 ms on tenant "shop-1"'s policy fetched at 0 ms: 70 ms old, more than the fixture's max_policy_age of 50 ms`},
	} {
		res, err := model.NewHarness(discounts.Store(), d.Options(model.Options{})).Run(func() model.System { return discounts.Agent{IgnoreAge: c.ignore} }, c.s)
		if err != nil {
			t.Fatal(err)
		}
		inv, ok := res.Invariant("policy_fresh")
		if !ok || inv.Held != (c.fresh == "") || inv.Detail != c.fresh {
			t.Errorf("ignore %v %d faults: policy_fresh %+v", c.ignore, len(c.s.Faults), inv)
		}
		reads := 0
		for _, e := range res.Timeline.Events() {
			if e.Event == model.EvContextPolicy {
				reads++
			}
		}
		if cl := res.Claims[0]; reads != c.reads || cl.Verdict != c.verdict || cl.Reason != c.reason {
			t.Errorf("ignore %v %d faults: %d policy reads, %s %q", c.ignore, len(c.s.Faults), reads, cl.Verdict, cl.Reason)
		}
	}
}
