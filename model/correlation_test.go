package model_test

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// runOn runs s on the built-in fixture its config names, under profile p.
func runFixtureOf(t *testing.T, s *model.Schedule, p copperfin.Profile) *model.Result {
	t.Helper()
	fx, err := copperfin.FixtureNamed(s.Config.Fixture)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := copperfin.ProfileControls(p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.NewHarness(fx, model.Options{}).Run(copperfin.Factory(cs), s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCorrelationPairs: each correlation modifier of the catalogue is a
// counterfactual pair on its CorrelatedSchedule: the baseline breaks the
// invariant the kind threatens, attributed to the fault, which fires on as
// many crossings as its correlation says (an isolated fault fires once),
// and the typed profile holds.
func TestCorrelationPairs(t *testing.T) {
	type ck = copperfin.CorrelatedKind
	const (
		rep, per, syn, sha = model.Correlation("repeated"), model.Correlation("persistent"), model.Correlation("synchronized"), model.Correlation("shared")
	)
	// the baseline's firings: repeated 2 (the call and its retry),
	// persistent every crossing of the run, synchronized 2 (both workers'
	// crossings in the window), shared 2 (the first of each tenant)
	fired := map[ck]int{
		{Kind: "stale_policy", Correlation: syn}: 2, {Kind: "stale_policy", Correlation: sha}: 2,
		{Kind: "timeout_after_commit", Correlation: rep}: 2, {Kind: "timeout_after_commit", Correlation: per}: 3,
		{Kind: "timeout_after_commit", Correlation: syn}: 2, {Kind: "timeout_after_commit", Correlation: sha}: 2,
		{Kind: "partial_success_response", Correlation: syn}: 2, {Kind: "partial_success_response", Correlation: sha}: 2,
		{Kind: "checkpoint_rollback", Correlation: rep}: 2, {Kind: "checkpoint_rollback", Correlation: per}: 4,
		{Kind: "drop_effect_receipt", Correlation: syn}: 2, {Kind: "drop_effect_receipt", Correlation: sha}: 2,
		{Kind: "malformed_response", Correlation: rep}: 2, {Kind: "malformed_response", Correlation: per}: 3,
		{Kind: "malformed_response", Correlation: syn}: 2, {Kind: "malformed_response", Correlation: sha}: 2,
		{Kind: "output_drift", Correlation: rep}: 2, {Kind: "output_drift", Correlation: per}: 3,
		{Kind: "output_drift", Correlation: syn}: 2, {Kind: "output_drift", Correlation: sha}: 2,
		{Kind: "tool_timeout", Correlation: rep}: 2, {Kind: "tool_timeout", Correlation: syn}: 2, {Kind: "tool_timeout", Correlation: sha}: 2,
	}
	pairs := copperfin.Correlated()
	// the last five are the kinds outside the catalogue under their own
	// correlation: their counterfactual pairs are
	// TestCounterfactualSlidingGrantCache,
	// TestCounterfactualAmbientIdentityLeak,
	// TestCounterfactualSpanCarryOver and, for server_error and
	// network_error (drawn on every fixture, no longer on fleets only),
	// TestTransportKindsOnCopperfin
	if n := len(pairs); n != len(fired)+5 || pairs[n-5] != (copperfin.CorrelatedKind{Kind: "sliding_grant_cache", Correlation: per}) ||
		pairs[n-4] != (copperfin.CorrelatedKind{Kind: "ambient_identity_leak", Correlation: per}) ||
		pairs[n-3] != (copperfin.CorrelatedKind{Kind: "span_carry_over", Correlation: "isolated"}) ||
		pairs[n-2] != (copperfin.CorrelatedKind{Kind: "server_error", Correlation: "isolated"}) ||
		pairs[n-1] != (copperfin.CorrelatedKind{Kind: "network_error", Correlation: "isolated"}) {
		t.Fatalf("%d correlated kinds, want %d and the five kinds outside the catalogue: %v", len(pairs), len(fired), pairs)
	}
	pairs = pairs[:len(fired)]
	for _, ck := range pairs {
		want, ok := fired[ck]
		if !ok {
			t.Errorf("%s+%s: not in the table", ck.Kind, ck.Correlation)
			continue
		}
		spec, _ := model.Spec(ck.Kind)
		inv := spec.Threatens[0]
		s, err := copperfin.CorrelatedSchedule(ck.Kind, ck.Correlation, copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
		if err != nil {
			t.Fatal(err)
		}
		base := runFixtureOf(t, s, copperfin.ProfileBaseline)
		if f := base.Faults[0]; f.Fired != want || f.Correlation != ck.Correlation {
			t.Errorf("%s+%s: baseline fault %+v, want %d firings", ck.Kind, ck.Correlation, f, want)
		}
		if r, _ := base.Invariant(inv); r.Held || r.FaultID != "f1" {
			t.Errorf("%s+%s: baseline %s %+v, want violated by f1", ck.Kind, ck.Correlation, inv, r)
		}
		typed := runFixtureOf(t, s, copperfin.ProfileTyped)
		if !typed.Held() || typed.Terms.UnsafeEscape || typed.Faults[0].Fired < 1 {
			t.Errorf("%s+%s: typed does not hold: %+v %+v", ck.Kind, ck.Correlation, typed.Invariants, typed.Faults)
		}
		// the same placement without the modifier fires once
		iso := *s
		iso.Faults = []model.FaultEntry{{Event: s.Faults[0].Event, Ordinal: s.Faults[0].Ordinal, Kind: ck.Kind}}
		if f := runFixtureOf(t, &iso, copperfin.ProfileBaseline).Faults[0]; f.Fired != 1 {
			t.Errorf("%s isolated on %s's workload: fired %d, want 1", ck.Kind, ck.Correlation, f.Fired)
		}
	}
}

// TestPersistentUntil: a persistent fault ends at the first crossing of
// its until event after it fired: the baseline's checkpoint
// write after the lost reply ends it, so its retry's reply arrives; the
// receipt, written only after a reply, never does.
func TestPersistentUntil(t *testing.T) {
	for _, c := range []struct {
		until model.EventName
		fired int
	}{{"", 3}, {model.EvEvidenceReceipt, 3}, {model.EvCheckpointWrite, 1}} {
		s, _ := copperfin.CorrelatedSchedule("timeout_after_commit", model.Correlation("persistent"), copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
		s.Faults[0].Until = c.until
		if f := runFixtureOf(t, s, copperfin.ProfileBaseline).Faults[0]; f.Fired != c.fired {
			t.Errorf("until %q: fired %d, want %d", c.until, f.Fired, c.fired)
		}
	}
}

// TestSynchronizedWindow: a synchronized fault hits another worker's call
// only within its window: the other tenant's call is sent 40 logical ms
// after the first (one commit's cost), so a window of 41 ms hits it and
// one of 40 does not; with the two tasks one after another it is outside
// the default window and only the first call is hit.
func TestSynchronizedWindow(t *testing.T) {
	s, _ := copperfin.CorrelatedSchedule("timeout_after_commit", model.Correlation("synchronized"), copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
	for w, want := range map[model.Millis]int{40: 1, 41: 2} {
		s.Faults[0].WindowMs = w
		if f := runFixtureOf(t, s, copperfin.ProfileBaseline).Faults[0]; f.Fired != want {
			t.Errorf("window %d ms: fired %d, want %d", w, f.Fired, want)
		}
	}
	s.Config.Concurrency = nil
	s.Faults[0].WindowMs = 0
	if f := runFixtureOf(t, s, copperfin.ProfileBaseline).Faults[0]; f.Fired != 1 {
		t.Errorf("sequential: fired %d, want 1", f.Fired)
	}
}

// TestCorrelationValidation: a modifier the kind does not take, or a
// parameter of another correlation, is an error naming it.
func TestCorrelationValidation(t *testing.T) {
	for _, c := range []struct{ fault, want string }{
		{`"kind":"rate_limit","correlation":"shared"`, `kind "rate_limit" does not take correlation "shared" (it takes isolated): a call refused before its commit is contained without any control`},
		{`"kind":"subject_swap","event":"proposal","correlation":"synchronized"`, `(it takes isolated): its disturbance is one task's own proposal`},
		{`"kind":"stale_policy","event":"context.policy","correlation":"repeated","repeat":2`, `kind "stale_policy" does not take correlation "repeated" (it takes isolated, synchronized, shared): a task crosses its event once`},
		{`"kind":"tool_timeout","correlation":"persistent"`, `(it takes isolated, repeated, synchronized, shared): a workflow without controls holds under it`},
		{`"kind":"checkpoint_rollback","event":"checkpoint.write","correlation":"shared"`, `(it takes isolated, repeated, persistent): each task rolls back its own checkpoints`},
		{`"kind":"timeout_after_commit","correlation":"bursty"`, `unknown correlation "bursty"`},
		{`"kind":"timeout_after_commit","correlation":"repeated"`, `correlation repeated needs "repeat" between 2 and 100`},
		{`"kind":"timeout_after_commit","correlation":"repeated","repeat":101`, `got 101`},
		{`"kind":"timeout_after_commit","repeat":2`, `"repeat" 2 is set, but the fault's correlation is "isolated"`},
		{`"kind":"timeout_after_commit","until":"claim"`, `"until" "claim" is set, but the fault's correlation is "isolated"`},
		{`"kind":"timeout_after_commit","correlation":"persistent","until":"tool.commit"`, `is the fault's own event`},
		{`"kind":"timeout_after_commit","correlation":"persistent","until":"nowhere"`, `"until": unknown event "nowhere"`},
		{`"kind":"timeout_after_commit","correlation":"shared","window_ms":50`, `only a synchronized fault has a window`},
		{`"kind":"timeout_after_commit","correlation":"synchronized","window_ms":-5`, `"window_ms" -5 must be positive`},
	} {
		fault := c.fault
		if !strings.Contains(fault, `"event"`) {
			fault = `"event":"tool.commit",` + fault
		}
		_, err := model.ParseSchedule([]byte(`{"version":2,"seed":"s","config":{"system":{}},"faults":[{"ordinal":1,` + fault + `}]}`))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "schedule: faults[0]: ") {
			t.Errorf("%s: error %v, want %q", c.fault, err, c.want)
		}
	}
}

// TestCorrelationRoundTrip: a modifier survives Format and ParseSchedule,
// changes the run id, and a schedule without one formats as before.
func TestCorrelationRoundTrip(t *testing.T) {
	for _, ck := range copperfin.Correlated() {
		s, _ := copperfin.CorrelatedSchedule(ck.Kind, ck.Correlation, copperfin.ConfigOfProfile(copperfin.ProfileTyped))
		back, err := model.ParseSchedule(model.Format(s))
		if err != nil || string(model.Format(back)) != string(model.Format(s)) {
			t.Fatalf("%s: %v\n%s", ck.Correlation, err, model.Format(s))
		}
		if !strings.Contains(string(model.Format(s)), `"correlation": "`+string(ck.Correlation)+`"`) {
			t.Errorf("%s: not written:\n%s", ck.Correlation, model.Format(s))
		}
		iso := *s
		iso.Faults = []model.FaultEntry{{Event: s.Faults[0].Event, Ordinal: s.Faults[0].Ordinal, Kind: ck.Kind}}
		if runFixtureOf(t, s, copperfin.ProfileTyped).RunID == runFixtureOf(t, &iso, copperfin.ProfileTyped).RunID {
			t.Errorf("%s: the modifier leaves the run id unchanged", ck.Correlation)
		}
	}
	plain, _ := model.SingleFault("timeout_after_commit", copperfin.ConfigOfProfile(copperfin.ProfileTyped))
	if strings.Contains(string(model.Format(plain)), "correlation") {
		t.Errorf("a schedule without a modifier writes one:\n%s", model.Format(plain))
	}
}
