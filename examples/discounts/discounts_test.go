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
// ignores the policy's age finds first, at the walk's 18th schedule, a
// pause of 1000 ms right after its policy read (clock_advance): the
// discount is decided on at 1070 ms on the copy of 30 ms. Without world
// events it finds the kind from scratch at the walk's 16th schedule,
// shrunk to one failed fetch at the first policy read: the discount is
// applied at 70 ms on the replica's copy of 0 ms, 70 ms old (the bound is
// 50). The careful agent, which checks the copy's age after each read,
// holds over the complete walk of 1,146 schedules and the random draws
// after it.
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
	if !rep.Found || rep.Walk == nil || rep.Walk.Index != 18 {
		t.Fatalf("found %v, walk %+v", rep.Found, rep.Walk)
	}
	paused := `effect ref-1df98a68:discount of task ref-1df98a68 committed at 1070 ms on tenant "shop-1"'s policy fetched at 30 ms and decided on at 1070 ms: 1040 ms old, more than the fixture's max_policy_age of 50 ms`
	if cx, f := rep.Counterexample, rep.Counterexample.Schedule.Faults; cx.Invariant != "policy_fresh" || cx.Detail != paused || len(f) != 1 ||
		f[0].Kind != "clock_advance" || f[0].Event != model.EvContextPolicy || f[0].Ordinal != 1 {
		t.Errorf("counterexample %s: %s %+v", cx.Invariant, cx.Detail, f)
	}
	rep, err = properties.Explore(d, properties.WithConfig(model.Config{System: []byte(`{"ignore_age":true}`)}), properties.WithoutWorldEvents())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Found || rep.Walk == nil || rep.Walk.Index != 16 {
		t.Fatalf("without world events: found %v, walk %+v", rep.Found, rep.Walk)
	}
	cx := rep.Counterexample
	f := cx.Schedule.Faults
	want := `effect ref-1df98a68:discount of task ref-1df98a68 committed at 70 ms on tenant "shop-1"'s policy fetched at 0 ms and decided on at 70 ms: 70 ms old, more than the fixture's max_policy_age of 50 ms`
	if cx.Invariant != "policy_fresh" || cx.Detail != want || len(f) != 1 || f[0].Kind != "policy_fetch_failed" || f[0].Event != model.EvContextPolicy || f[0].Ordinal != 1 {
		t.Errorf("counterexample %s: %s %+v", cx.Invariant, cx.Detail, f)
	}
	rep, err = properties.Explore(d)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Found || rep.Walk == nil || !rep.Walk.Complete || rep.Walk.Schedules != 1146 {
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
			`effect discount-cart-77:discount of task discount-cart-77 committed at 70 ms on tenant "shop-1"'s policy fetched at 0 ms and decided on at 70 ms: 70 ms old, more than the fixture's max_policy_age of 50 ms`},
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

// TestPolicyFreshMeasuresTheDecisionsCopy: policy_fresh measures the copy
// the decision read, not the replica. With no fault the replica stays
// fresh (every read fetches); the agent that quotes the discount, waits
// 100 ms for the customer's confirmation and applies it on the copy it
// quoted from commits at 170 ms on the copy of 30 ms and breaks the
// invariant; the agent that reads the policy again after the confirmation
// commits on the copy of 140 ms and holds, as it does over the complete
// default walk (1,967 schedules), where the default search finds the
// caching agent at its first schedule, with no fault. A config asking to
// keep the copy without confirming is refused.
func TestPolicyFreshMeasuresTheDecisionsCopy(t *testing.T) {
	d := discounts.Definition()
	for _, c := range []struct {
		config string
		reads  int
		asOf   []model.Millis
		fresh  string
	}{
		{`{"confirm":true,"cache_policy":true}`, 1, []model.Millis{30},
			`effect discount-cart-77:discount of task discount-cart-77 committed at 170 ms on tenant "shop-1"'s policy fetched at 30 ms and decided on at 170 ms: 140 ms old, more than the fixture's max_policy_age of 50 ms`},
		{`{"confirm":true}`, 2, []model.Millis{30, 140}, ""},
	} {
		factory, err := d.Configure([]byte(c.config))
		if err != nil {
			t.Fatal(err)
		}
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "discount-quote", Faults: []model.FaultEntry{}}
		res, err := model.NewHarness(discounts.Store(), d.Options(model.Options{})).Run(factory, s)
		if err != nil {
			t.Fatal(err)
		}
		inv, ok := res.Invariant("policy_fresh")
		if !ok || inv.Held != (c.fresh == "") || inv.Detail != c.fresh {
			t.Errorf("%s: policy_fresh %+v", c.config, inv)
		}
		var reads []model.Millis
		for _, e := range res.Timeline.Events() {
			if e.Event == model.EvContextPolicy {
				reads = append(reads, e.At)
			}
		}
		if cl := res.Claims[0]; !slices.Equal(reads, c.asOf) || cl.Verdict != model.ClaimRelease || res.Terms.Effects != 1 {
			t.Errorf("%s: policy reads at %v, %s %q, %d effects", c.config, reads, cl.Verdict, cl.Reason, res.Terms.Effects)
		}
		if len(reads) != c.reads {
			t.Errorf("%s: %d reads, want %d", c.config, len(reads), c.reads)
		}
	}
	rep, err := properties.Explore(d, properties.WithConfig(model.Config{System: []byte(`{"confirm":true,"cache_policy":true}`)}))
	if err != nil || !rep.Found || rep.Walk == nil || rep.Walk.Index != 1 || len(rep.Counterexample.Schedule.Faults) != 0 || rep.Counterexample.Invariant != "policy_fresh" {
		t.Errorf("caching agent's default search: %v %+v", err, rep.Walk)
	}
	rep, err = properties.Explore(d, properties.WithConfig(model.Config{System: []byte(`{"confirm":true}`)}))
	if err != nil || rep.Found || rep.Walk == nil || !rep.Walk.Complete || rep.Walk.Schedules != 1967 {
		t.Errorf("re-reading agent's default search: %v %+v", err, rep.Walk)
	}
	if _, err := d.Configure([]byte(`{"cache_policy":true}`)); err == nil || err.Error() != "discounts: config: cache_policy needs confirm (an agent that does not wait has no older copy to keep)" {
		t.Errorf("cache_policy alone: %v", err)
	}
}
