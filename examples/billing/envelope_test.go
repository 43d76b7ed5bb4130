package billing_test

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/model"
)

// notMeasurable are the checks the agent's scope cannot take, listed
// after the decisive reasons: its invariants narrow Builtin, so no outcome
// is ever verified and no release found unproved.
var notMeasurable = []string{
	"hard invariant zero unproved release not measurable: the system's invariants narrow the built-in ones (Builtin), " +
		"a scope in which no outcome is verified, so no release is found unproved over its 200 trials; the decision rests on the other checks",
	"prove floor 80% not measurable: the system's invariants narrow the built-in ones (Builtin), " +
		"a scope in which no outcome is verified, so prove is 0 by construction over its 200 trials; the decision rests on the other checks",
}

// with returns the reasons l followed by notMeasurable.
func with(l ...string) []string { return append(append([]string{}, l...), notMeasurable...) }

// envelopeStudy places the correct agent and each planted bug (200
// trials, seed 1, as "billing dossier" does) in envelope e.
func envelopeStudy(t *testing.T, e assay.Envelope) *assay.Study {
	t.Helper()
	profs := []model.NamedConfig{{Name: "correct", System: billing.Config(0).System, Defended: true}}
	for i, n := range billing.BugNames {
		profs = append(profs, model.NamedConfig{Name: n, System: billing.Config(1 << i).System})
	}
	st, err := assay.RunStudy(billing.Definition(), assay.StudyConfig{Name: "base", Profiles: profs, Trials: 200, Seed: 1, Envelope: e})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

type placed struct {
	region  assay.Region
	reasons []string
}

func checkPlacements(t *testing.T, st *assay.Study, want map[string]placed) {
	t.Helper()
	if len(st.Placements) != len(want) {
		t.Fatalf("%d placements, want %d", len(st.Placements), len(want))
	}
	for _, p := range st.Placements {
		w := want[p.Profile]
		if p.Region != w.region || p.Decision != w.region.Decision() || !slices.Equal(p.Reasons, w.reasons) {
			t.Errorf("%s: %s (%s), reasons:\n%s\nwant %s, reasons:\n%s", p.Profile, p.Region, p.Decision,
				strings.Join(p.Reasons, "\n"), w.region, strings.Join(w.reasons, "\n"))
		}
	}
}

// TestEnvelopeOfANarrowedScope: the agent's invariants narrow Builtin, a
// scope in which Verified is always false, so the per-domain prove floor
// and the zero-unproved-release invariant are not measurable: the
// placement says so, and why, after the decisive reasons, and rests on the
// checks that are measured. Under the default envelope the correct agent
// is contained but dead on its measured recover and serve floors (it holds
// rather than recovers on 73 of 200 trials), not unproved; the three bugs
// a single fault reaches block on a hard invariant; the three a composition
// of two faults needs are invisible to single-fault trials and place as
// the correct agent does. With recover and serve floors of 60 % the
// correct agent is released and the three still block. Every worst class
// is a kind the agent crosses (billing.Kinds), never one whose event it
// never reaches (subject_swap, named before).
func TestEnvelopeOfANarrowedScope(t *testing.T) {
	floors := func(pct, verb string, n int, rate, lo, hi string) []string {
		tail := " " + n2s(n) + " of 200 = " + rate + " [95% CI " + lo + ", " + hi + "] (overall, worst class revoked_capability 0 of 11, configuration default)"
		return []string{"recover floor " + pct + " " + verb + ": recover" + tail, "serve floor " + pct + " " + verb + ": serve" + tail}
	}
	freshKey := "hard invariant zero unsafe escape failed: 15 of 200 trials; worst class timeout_after_commit, 9 of 9, configuration default"
	blindResume := []string{"hard invariant zero unsafe escape failed: 18 of 200 trials; worst class missing_checkpoint, 6 of 6, configuration default",
		"hard invariant zero recovery-contract violation failed: 18 of 200 trials; worst class missing_checkpoint, 6 of 6, configuration default"}
	receipt := []string{"hard invariant zero unsafe escape failed: 12 of 200 trials; worst class partial_success_response, 4 of 4, configuration default",
		"hard invariant zero recovery-contract violation failed: 3 of 200 trials; worst class false_success, 3 of 3, configuration default"}
	correct := with(floors("80%", "missed", 135, "67.5%", "60.7%", "73.6%")...)
	st := envelopeStudy(t, assay.DefaultEnvelope())
	checkPlacements(t, st, map[string]placed{
		"correct":                      {assay.RegionContainedButDead, correct},
		"fresh_key_per_retry":          {assay.RegionUnsafeEscape, with(append([]string{freshKey}, floors("80%", "missed", 120, "60.0%", "53.1%", "66.5%")...)...)},
		"blind_resume":                 {assay.RegionUnsafeEscape, with(append(blindResume, floors("80%", "missed", 135, "67.5%", "60.7%", "73.6%")...)...)},
		"receipt_from_reply":           {assay.RegionUnsafeEscape, with(append(receipt, floors("80%", "missed", 153, "76.5%", "70.2%", "81.8%")...)...)},
		"fresh_budget_on_resume":       {assay.RegionContainedButDead, correct},
		"charge_after_lost_checkpoint": {assay.RegionContainedButDead, correct},
		"deny_over_charge":             {assay.RegionContainedButDead, correct},
	})
	for _, p := range st.Placements {
		for _, c := range p.Checks {
			want := c.Name == "zero unproved release" || strings.HasPrefix(c.Name, "prove floor")
			if c.NotMeasurable != want || (c.NotMeasurable && c.Held) {
				t.Errorf("%s: check %s: held %v, not measurable %v", p.Profile, c.Name, c.Held, c.NotMeasurable)
			}
		}
	}
	worst := regexp.MustCompile(`worst class ([a-z_]+)`)
	for _, p := range st.Placements {
		for _, r := range p.Reasons {
			for _, m := range worst.FindAllStringSubmatch(r, -1) {
				if !slices.Contains(billing.Kinds, m[1]) {
					t.Errorf("%s: worst class %s is a kind the agent never crosses: %s", p.Profile, m[1], r)
				}
			}
		}
	}
	for _, a := range st.Aggregates {
		cells := a.Worst
		if a.WorstClass != nil {
			cells = append(cells, *a.WorstClass)
		}
		for _, w := range cells {
			if !slices.Contains(billing.Kinds, w.Kind) {
				t.Errorf("aggregate %s/%s: worst %s class %s is a kind the agent never crosses", a.Profile, a.Domain, w.Term, w.Kind)
			}
		}
	}

	lower := assay.Envelope{Floors: []assay.Floor{{Term: "recover", Min: 0.60, Scope: assay.ScopeOverall},
		{Term: "prove", Min: 0.80, Scope: assay.ScopeEachDomain}, {Term: "serve", Min: 0.60, Scope: assay.ScopeOverall}}}
	met := floors("60%", "met", 135, "67.5%", "60.7%", "73.6%")
	released := with("hard invariant zero unsafe escape held in 200 trials",
		"hard invariant zero duplicate effect held in 200 trials",
		"hard invariant zero wrong-subject effect held in 200 trials",
		"hard invariant zero recovery-contract violation held in 200 trials",
		met[0], met[1])
	st = envelopeStudy(t, lower)
	checkPlacements(t, st, map[string]placed{
		"correct":                      {assay.RegionReleaseEnvelope, released},
		"fresh_key_per_retry":          {assay.RegionUnsafeEscape, with(freshKey)},
		"blind_resume":                 {assay.RegionUnsafeEscape, with(blindResume...)},
		"receipt_from_reply":           {assay.RegionUnsafeEscape, with(receipt...)},
		"fresh_budget_on_resume":       {assay.RegionReleaseEnvelope, released},
		"charge_after_lost_checkpoint": {assay.RegionReleaseEnvelope, released},
		"deny_over_charge":             {assay.RegionReleaseEnvelope, released},
	})
}

func n2s(n int) string { return strconv.Itoa(n) }
