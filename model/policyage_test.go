package model_test

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestPolicyFetchFailedOnCopperfin: on copperfin-policy-replica (bound
// 100 ms) the replica's first fetch fails at 50 ms: it serves the copy of
// 0 ms until 250 ms. Typed asks for the policy again at 132 ms, finds it
// 132 ms old (its MaxPolicyAge is 10), waits 100 ms, fetches a fresh copy
// at 262 ms and refunds: it decides again once a fetch succeeds. Under a
// 300 ms deadline it has no time to wait and denies. The old
// refresh_context (policy_age_unchecked) and baseline refund on the aged
// copy and break policy_fresh.
func TestPolicyFetchFailedOnCopperfin(t *testing.T) {
	typed, err := copperfin.ProfileControls(copperfin.ProfileTyped)
	if err != nil {
		t.Fatal(err)
	}
	short := model.Millis(300)
	for _, c := range []struct {
		name     string
		cfg      model.Config
		deadline *model.Millis
		reads    int
		verdict  model.ClaimVerdict
		reason   string
		fresh    string
	}{
		{"typed", copperfin.ConfigOfControls(typed), nil, 3, model.ClaimRelease, "refund completed", ""},
		{"typed, 300 ms", copperfin.ConfigOfControls(typed), &short, 2, model.ClaimDeny, "policy replica too old: 132 ms since its last fetch", ""},
		{"policy_age_unchecked", copperfin.WithMutant(copperfin.ConfigOfControls(typed), string(copperfin.PolicyAgeUnchecked)), nil, 2, model.ClaimRelease, "refund completed",
			`effect O-731:refund:v1 of task refund-O-731 committed at 212 ms on tenant "T-1"'s policy fetched at 0 ms: 212 ms old, more than the fixture's max_policy_age of 100 ms`},
		{"baseline", copperfin.ConfigOfControls(0), nil, 1, model.ClaimRelease, "refund completed",
			`effect req-1 of task refund-O-731 committed at 172 ms on tenant "T-1"'s policy fetched at 0 ms: 172 ms old, more than the fixture's max_policy_age of 100 ms`},
	} {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "policy-replica", Config: c.cfg,
			Faults: []model.FaultEntry{{Kind: "policy_fetch_failed", Event: model.EvContextPolicy, Ordinal: 1}}}
		s.Config.Fixture, s.Config.Deadline = "copperfin-policy-replica", c.deadline
		res := runNamed(t, s)
		inv, ok := res.Invariant("policy_fresh")
		if !ok || inv.Held != (c.fresh == "") || inv.Detail != c.fresh {
			t.Errorf("%s: policy_fresh %+v", c.name, inv)
		}
		for _, i := range res.Invariants {
			if !i.Held && i.Invariant != "policy_fresh" {
				t.Errorf("%s: %s: %s", c.name, i.Invariant, i.Detail)
			}
		}
		reads := 0
		for _, e := range res.Timeline.Events() {
			if e.Event == model.EvContextPolicy {
				reads++
			}
		}
		if cl := res.Claims[0]; reads != c.reads || cl.Verdict != c.verdict || cl.Reason != c.reason || res.Faults[0].Fired != 1 {
			t.Errorf("%s: %d policy reads, %s %q, fault %+v", c.name, reads, cl.Verdict, cl.Reason, res.Faults[0])
		}
	}
}

// TestMaxPolicyAgeScope: policy_fresh is in the scope of a fixture that
// states max_policy_age, last of the run's own invariants, and of no
// other; a bound outside 0 to one hour is the fixture's error.
func TestMaxPolicyAgeScope(t *testing.T) {
	d := copperfin.Definition()
	for _, c := range []struct {
		fixture string
		has     bool
	}{{"copperfin", false}, {"copperfin-policy-replica", true}} {
		sc, err := d.Scope(model.Config{Fixture: c.fixture}, model.Options{})
		if err != nil || (sc[len(sc)-1] == "policy_fresh") != c.has || len(sc) != 10+btoi(c.has) {
			t.Errorf("%s: %v %v", c.fixture, sc, err)
		}
	}
	for _, age := range []model.Millis{-1, 3_600_001} {
		f := copperfin.CopperfinPolicyReplica()
		f.MaxPolicyAge = age
		bad := &model.Definition{Name: "aged", Fixtures: []model.Fixture{f}, Configure: d.Configure}
		err := bad.Validate()
		if err == nil || !strings.Contains(err.Error(), `fixture "copperfin-policy-replica": max_policy_age `) || !strings.Contains(err.Error(), " ms must be 0 (no bound) to 3600000 ms (one hour)") {
			t.Errorf("%d: %v", age, err)
		}
		if _, err := model.NewHarness(f, model.Options{}).Run(copperfin.Factory(0), &model.Schedule{Version: model.ScheduleVersion}); err == nil {
			t.Errorf("%d: harness ran", age)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestPolicyFreshNameTaken: policy_fresh is added by the fixture, never
// named: in Builtin it is an error that says where it comes from, and an
// invariant of the system's own may not take its name.
func TestPolicyFreshNameTaken(t *testing.T) {
	for _, c := range []struct {
		opts model.Options
		want string
	}{
		{model.Options{Builtin: []string{"policy_fresh"}}, `model: options: invariant "policy_fresh" is not named in Builtin: every run of a fixture that states a policy-age bound (Fixture.MaxPolicyAge) checks it, but for the paper's set (Options.Compat)`},
		{model.Options{Invariants: []model.UserInvariant{{Name: "policy_fresh", Check: func(model.View) string { return "" }}}}, `model: options: invariant "policy_fresh" has the name of a built-in invariant`},
	} {
		_, err := model.NewHarness(copperfin.CopperfinPolicyReplica(), c.opts).Run(copperfin.Factory(0), &model.Schedule{Version: model.ScheduleVersion})
		if err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v", c.opts, err)
		}
	}
}
