package model_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestTransportKindsOnCopperfin: server_error and network_error at the
// refund's commit, before it (target "") and after it (after_commit),
// against the reference system. Whether the refund was committed is the
// provider's doing, read from the ledger: before commit every profile
// retries and refunds once; after it the baseline's fresh request id
// refunds twice (effect_at_most_once), typed reads back or replays its
// key and refunds once, and typed with transport_error_as_failure denies
// a refund the ledger holds (recorded_agrees_with_ledger). Both are
// outside the catalogue and not fleet kinds (FaultSpec.Fleet false): the
// default search draws them at every tool.commit, and the audit runs
// each after the commit (copperfin.CorrelatedSchedule).
func TestTransportKindsOnCopperfin(t *testing.T) {
	for _, kind := range []string{"server_error", "network_error"} {
		sp, err := model.Spec(kind)
		if err != nil {
			t.Fatal(err)
		}
		in := func(specs []model.FaultSpec) bool {
			return slices.ContainsFunc(specs, func(s model.FaultSpec) bool { return s.Kind == kind })
		}
		if in(model.Catalogue()) || !in(model.CacheAndWorkerKinds()) || sp.Fleet || sp.Paper || sp.Domain != "tool" || sp.Event != model.EvToolCommit {
			t.Fatalf("spec %+v", sp)
		}
		for _, c := range []struct {
			profile, mutant, target string
			broken                  []string
			entries                 int
			verdict                 model.ClaimVerdict
		}{
			{"baseline", "", "", nil, 1, model.ClaimRelease},
			{"typed", "", "", nil, 1, model.ClaimRelease},
			{"baseline", "", "after_commit", []string{model.InvEffectAtMostOnce, model.InvRecordedAgreesWithLedger}, 2, model.ClaimRelease},
			{"typed", "", "after_commit", nil, 1, model.ClaimRelease},
			{"typed", "transport_error_as_failure", "after_commit", []string{model.InvRecordedAgreesWithLedger}, 1, model.ClaimDeny},
		} {
			cfg := copperfin.WithMutant(copperfin.ConfigOfProfile(copperfin.Profile(c.profile)), c.mutant)
			s := &model.Schedule{Version: model.ScheduleVersion, Seed: "transport", Config: cfg,
				Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: kind, Target: c.target}}}
			res := runNamed(t, s)
			var broken []string
			for _, i := range res.Invariants {
				if !i.Held {
					broken = append(broken, i.Invariant)
				}
			}
			if !slices.Equal(broken, c.broken) || res.Terms.Effects != c.entries || res.Faults[0].Fired != 1 || res.Claims[0].Verdict != c.verdict {
				t.Errorf("%s %s %s [%s]: broken %v, %d effects, fault %+v, claim %+v", kind, c.profile, c.mutant, c.target, broken, res.Terms.Effects, res.Faults[0], res.Claims[0])
			}
			if c.verdict == model.ClaimDeny && !strings.Contains(res.Claims[0].Reason, kind) {
				t.Errorf("%s: claim %q", kind, res.Claims[0].Reason)
			}
		}
	}
	// the audit's run of each (copperfin.Correlated): after the commit,
	// the baseline refunds twice and typed holds
	for _, kind := range []string{"server_error", "network_error"} {
		for _, p := range []copperfin.Profile{copperfin.ProfileBaseline, copperfin.ProfileTyped} {
			s, err := copperfin.CorrelatedSchedule(kind, "isolated", copperfin.ConfigOfProfile(p))
			if err != nil || s.Faults[0].Target != "after_commit" {
				t.Fatalf("%s: %v %+v", kind, err, s)
			}
			res := runFixtureOf(t, s, p)
			e, _ := res.Invariant(model.InvEffectAtMostOnce)
			if e.Held != (p == copperfin.ProfileTyped) || res.Faults[0].Fired != 1 {
				t.Errorf("%s %s: %+v, fault %+v", kind, p, e, res.Faults[0])
			}
		}
	}
	bad := &model.Schedule{Version: model.ScheduleVersion, Seed: "transport",
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "server_error", Target: "later"}}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), `target "later" must be empty (before commit) or "after_commit"`) {
		t.Fatalf("validate: %v", err)
	}
}

// TestPlacementShowsTheTarget: a transport fault after the commit is told
// from the one before it wherever its place is printed: the fault
// report's placement, the run record's "at" and an unreached fault's
// inconclusive error.
func TestPlacementShowsTheTarget(t *testing.T) {
	for _, c := range []struct {
		target  string
		ordinal int
		at      string
		err     string
	}{
		{"", 1, "tool.commit#1", ""},
		{"after_commit", 1, "tool.commit#1[after_commit]", ""},
		{"after_commit", 9, "tool.commit#9[after_commit]", "inconclusive: scheduled faults not reached or not fired, so the run tested nothing at them: f1 network_error@tool.commit#9[after_commit] (not reached)"},
	} {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "placement", Config: copperfin.ConfigOfProfile(copperfin.ProfileTyped),
			Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: c.ordinal, Kind: "network_error", Target: c.target}}}
		if got := s.Faults[0].Placement(); got != c.at {
			t.Errorf("entry placement %q, want %q", got, c.at)
		}
		res := runNamed(t, s)
		f := res.Faults[0]
		if f.Target != c.target || f.Placement() != c.at || res.Record().Faults[0].At != c.at {
			t.Errorf("[%s]#%d: report %+v placement %q, record at %q; want %q", c.target, c.ordinal, f, f.Placement(), res.Record().Faults[0].At, c.at)
		}
		got := ""
		if err := res.Err(); err != nil {
			got = err.Error()
		}
		if got != c.err {
			t.Errorf("[%s]#%d: error %q, want %q", c.target, c.ordinal, got, c.err)
		}
	}
	// with a tool, the target follows the tool's ordinal
	if got := (model.FaultEntry{Event: model.EvToolCommit, Tool: "charge", Ordinal: 2, Kind: "server_error", Target: "after_commit"}).Placement(); got != "tool.commit(charge)#2[after_commit]" {
		t.Errorf("placement %q", got)
	}
}
