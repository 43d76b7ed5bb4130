package renewals_test

import (
	"slices"
	"testing"

	"github.com/faultline/faultline/examples/renewals"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestDefaultSearchFindsCorruptedReadback: the default search of the
// renewer that takes any charge its lookup returns for the renewal's
// reference, from scratch, finds a corrupted verification path at the
// walk's schedule 76 (74 before do_not_retry was drawn at every
// tool.commit, 66 before server_error and network_error were: their
// one-fault schedules come first):
// the first renewal's lookup, which the ledger
// answers with nothing, is answered with a forged charge, and the
// renewer reports a renewal the provider never charged
// (no_invented_progress at its claim, seq 3). The strict renewer charges
// on that schedule (two charges, two releases) and holds over the whole
// default search (the walk's 4,770 schedules, 4,544 before do_not_retry,
// 3,700 before the transport kinds, then 100 draws). Without
// Fixture.ReadbackProxy the kind is not drawn: the search finds nothing.
func TestDefaultSearchFindsCorruptedReadback(t *testing.T) {
	rep, err := properties.Explore(renewals.Definition(renewals.Renewer{}))
	if err != nil {
		t.Fatal(err)
	}
	cx := rep.Counterexample
	if !rep.Found || rep.Walk == nil || rep.Walk.Index != 76 || cx.Invariant != model.InvNoInventedProgress || cx.FirstSeq != 3 ||
		cx.Detail != "release although the ledger holds no effect of the task" {
		t.Fatalf("trusting: found %v, walk %+v, %+v", rep.Found, rep.Walk, cx)
	}
	if f := cx.Schedule.Faults; len(f) != 1 || f[0].Kind != "corrupted_readback" || f[0].Event != model.EvLedgerReadback || f[0].Ordinal != 1 {
		t.Fatalf("trusting: schedule %+v", f)
	}
	res, err := model.NewHarness(renewals.Fixture(), model.Options{}).Run(func() model.System { return renewals.Renewer{Strict: true} }, cx.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	var verdicts []model.ClaimVerdict
	for _, c := range res.Claims {
		verdicts = append(verdicts, c.Verdict)
	}
	if res.Faults[0].Fired != 1 || res.Terms.Effects != 2 || !slices.Equal(verdicts, []model.ClaimVerdict{model.ClaimRelease, model.ClaimRelease}) {
		t.Errorf("strict on the schedule: fired %d, claims %v, %d effects", res.Faults[0].Fired, verdicts, res.Terms.Effects)
	}
	rep, err = properties.Explore(renewals.Definition(renewals.Renewer{Strict: true}))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Found || rep.Walk == nil || !rep.Walk.Complete || rep.Walk.Schedules != 4770 || rep.Checks != 100 {
		t.Errorf("strict: found %v, checks %d, walk %+v", rep.Found, rep.Checks, rep.Walk)
	}
	d := renewals.Definition(renewals.Renewer{})
	d.Fixtures[0].ReadbackProxy = false
	if rep, err = properties.Explore(d); err != nil || rep.Found {
		t.Errorf("no proxy declared: found %v, %v", rep.Found, err)
	}
}

// TestCorruptedLookupAnswersAnotherCharge: at the second renewal's
// lookup the ledger holds the first renewal's charge, which the
// corrupted path returns relabelled with the second's reference. The
// trusting renewer reports the second renewal charged on it (one charge
// in the ledger); the strict one finds the key, subscription and amount
// are another charge's, and charges.
func TestCorruptedLookupAnswersAnotherCharge(t *testing.T) {
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "other-charge", Config: model.Config{Fixture: "renewals"},
		Faults: []model.FaultEntry{{Kind: "corrupted_readback", Event: model.EvLedgerReadback, Ordinal: 2}}}
	for _, c := range []struct {
		strict  bool
		effects int
		held    bool
	}{{false, 1, false}, {true, 2, true}} {
		res, err := model.NewHarness(renewals.Fixture(), model.Options{}).Run(func() model.System { return renewals.Renewer{Strict: c.strict} }, s)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := res.Invariant(model.InvNoInventedProgress)
		if res.Faults[0].Fired != 1 || res.Terms.Effects != c.effects || r.Held != c.held || res.Claims[1].Verdict != model.ClaimRelease {
			t.Errorf("strict %v: fired %d, %d effects, %+v, claims %+v", c.strict, res.Faults[0].Fired, res.Terms.Effects, r, res.Claims)
		}
	}
}

// TestDefaultSearchFindsTransportErrorsMisread: the default search
// (properties.Explore, the campaign properties.Check runs), no kind
// named, finds each planted misreading of a server error from scratch,
// now that server_error and network_error are drawn at every tool.commit
// a run crosses: the renewer that takes a 5xx for a charge at the walk's
// schedule 68 (one server_error before the commit: it releases the
// renewal, nothing charged), the one that retries it under a fresh key at
// 69 (the same error after the provider charged: two charges); 66 and 67
// before do_not_retry's two schedules came first. Over the kinds the
// default search drew before (every other kind of its scope, do_not_retry
// left out too: the walk's 3,700 schedules, then 100 draws) both hold, as the trial's
// renewer that read a 5xx as success did. The strict renewer, which holds
// on the unknown outcome, holds on both schedules (and over the whole
// default search: TestDefaultSearchFindsCorruptedReadback).
func TestDefaultSearchFindsTransportErrorsMisread(t *testing.T) {
	for _, c := range []struct {
		rn        renewals.Renewer
		index     int
		invariant string
		detail    string
		target    string
		effects   int
	}{
		{renewals.Renewer{Strict: true, TransportAsCharged: true}, 68, model.InvNoInventedProgress, "release although the ledger holds no effect of the task", "", 0},
		{renewals.Renewer{Strict: true, FreshKeyOnError: true}, 69, model.InvEffectAtMostOnce, "second ledger effect for task ref-cfbd575e", "after_commit", 1},
	} {
		rep, err := properties.Explore(renewals.Definition(c.rn))
		if err != nil {
			t.Fatal(err)
		}
		cx := rep.Counterexample
		if !rep.Found || rep.Walk == nil || rep.Walk.Index != c.index || cx.Invariant != c.invariant || cx.Detail != c.detail || cx.FirstSeq != 5 {
			t.Fatalf("%+v: found %v, walk %+v, %+v", c.rn, rep.Found, rep.Walk, cx)
		}
		if f := cx.Schedule.Faults; len(f) != 1 || f[0].Kind != "server_error" || f[0].Event != model.EvToolCommit || f[0].Ordinal != 1 || f[0].Target != c.target {
			t.Fatalf("%+v: schedule %+v", c.rn, f)
		}
		kinds := slices.DeleteFunc(slices.Clone(rep.Walk.Scope.Kinds), func(k string) bool {
			return k == "server_error" || k == "network_error" || k == "do_not_retry" // the search as it was before these were drawn here
		})
		before, err := properties.Explore(renewals.Definition(c.rn), properties.WithKinds(kinds...))
		if err != nil || before.Found || before.Walk == nil || !before.Walk.Complete || before.Walk.Schedules != 3700 || before.Checks != 100 {
			t.Fatalf("%+v without the two kinds: %v, found %v, walk %+v", c.rn, err, before.Found, before.Walk)
		}
		strict := renewals.Definition(renewals.Renewer{Strict: true})
		res, err := model.NewHarness(renewals.Fixture(), model.Options{Builtin: strict.Builtin}).Run(func() model.System { return renewals.Renewer{Strict: true} }, cx.Schedule)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Held() || res.Faults[0].Fired != 1 || res.Claims[0].Verdict != model.ClaimHold || res.Terms.Effects != c.effects+1 {
			t.Errorf("strict on the schedule: %+v, fired %d, claims %+v, %d effects", res.Invariants, res.Faults[0].Fired, res.Claims, res.Terms.Effects)
		}
	}
}

// TestDefaultSearchFindsRetriedRefusal: the default search, no kind
// named, finds the renewer that retries a refusal naming no retry-after
// (a client that retries every 4xx) from scratch, now that do_not_retry
// is drawn at every tool.commit on every fixture, not on fleets only: at
// the walk's schedule 66, one do_not_retry at the first charge's commit,
// retried at once (retry_paced at seq 5). Over every other kind of the
// search's scope (the walk's 4,660 schedules, then 100 draws) it holds:
// no other refusal says not to retry, and a rate limit's, which names a
// retry-after, it does not retry. The strict renewer, which takes the refusal, holds on that
// schedule: the first renewal denied, the second charged.
func TestDefaultSearchFindsRetriedRefusal(t *testing.T) {
	rep, err := properties.Explore(renewals.Definition(renewals.Renewer{Strict: true, RetryRefused: true}))
	if err != nil {
		t.Fatal(err)
	}
	cx := rep.Counterexample
	if !rep.Found || rep.Walk == nil || rep.Walk.Index != 66 || cx.Invariant != "retry_paced" || cx.FirstSeq != 5 ||
		cx.Detail != "attempt 2 of task ref-cfbd575e sent at 70 ms: the provider answered at 70 ms that the request must not be retried" {
		t.Fatalf("found %v, walk %+v, %+v", rep.Found, rep.Walk, cx)
	}
	if f := cx.Schedule.Faults; len(f) != 1 || f[0].Kind != "do_not_retry" || f[0].Event != model.EvToolCommit || f[0].Ordinal != 1 {
		t.Fatalf("schedule %+v", f)
	}
	kinds := slices.DeleteFunc(slices.Clone(rep.Walk.Scope.Kinds), func(k string) bool { return k == "do_not_retry" })
	before, err := properties.Explore(renewals.Definition(renewals.Renewer{Strict: true, RetryRefused: true}), properties.WithKinds(kinds...))
	if err != nil || before.Found || before.Walk == nil || !before.Walk.Complete || before.Walk.Schedules != 4660 || before.Checks != 100 {
		t.Fatalf("without do_not_retry: %v, found %v, walk %+v", err, before.Found, before.Walk)
	}
	strict := renewals.Definition(renewals.Renewer{Strict: true})
	res, err := model.NewHarness(renewals.Fixture(), model.Options{Builtin: strict.Builtin}).Run(func() model.System { return renewals.Renewer{Strict: true} }, cx.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Held() || res.Faults[0].Fired != 1 || res.Claims[0].Verdict != model.ClaimDeny || res.Terms.Effects != 1 {
		t.Errorf("strict on the schedule: %+v, fired %d, claims %+v, %d effects", res.Invariants, res.Faults[0].Fired, res.Claims, res.Terms.Effects)
	}
}
