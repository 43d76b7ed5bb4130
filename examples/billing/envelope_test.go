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

// proveNotMeasurable is the prove floor's reason for the agent: its
// invariants narrow Builtin, so no outcome is ever verified.
const proveNotMeasurable = "prove floor 80% not measurable: the system's invariants narrow the built-in ones (Builtin), " +
	"a scope in which no outcome is verified, so prove is 0 by construction over its 200 trials; the decision rests on the other checks"

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
// is not measurable: the placement says so once, with why, and rests on
// the floors that are measured. Under the default envelope the correct
// agent is contained but dead on its measured recover and serve floors
// (it holds rather than recovers on 73 of 200 trials), not unproved; the
// three bugs a single fault reaches block on a hard invariant; the two a
// composition of two faults needs are invisible to single-fault trials
// and place as the correct agent does. With recover and serve floors the
// correct agent meets (60%), it is released and the three still block.
// Every worst class named is a kind the agent crosses (billing.Kinds),
// never one whose event it never reaches (subject_swap).
func TestEnvelopeOfANarrowedScope(t *testing.T) {
	recover := func(n int, pct string, lo, hi string) []string {
		return []string{
			"recover floor 80% missed: recover " + n2s(n) + " of 200 = " + pct + " [95% CI " + lo + ", " + hi + "] (overall, worst class revoked_capability 0 of 19, configuration default)",
			proveNotMeasurable,
			"serve floor 80% missed: serve " + n2s(n) + " of 200 = " + pct + " [95% CI " + lo + ", " + hi + "] (overall, worst class revoked_capability 0 of 19, configuration default)",
		}
	}
	correct := recover(127, "63.5%", "56.6%", "69.9%")
	freshKey := append([]string{"hard invariant zero unsafe escape failed: 15 of 200 trials; worst class timeout_after_commit, 9 of 9, configuration default"},
		recover(112, "56.0%", "49.1%", "62.7%")...)
	blindResume := append([]string{"hard invariant zero unsafe escape failed: 18 of 200 trials; worst class missing_checkpoint, 6 of 6, configuration default",
		"hard invariant zero recovery-contract violation failed: 18 of 200 trials; worst class missing_checkpoint, 6 of 6, configuration default"},
		correct...)
	receipt := append([]string{"hard invariant zero unsafe escape failed: 12 of 200 trials; worst class partial_success_response, 4 of 4, configuration default",
		"hard invariant zero recovery-contract violation failed: 3 of 200 trials; worst class false_success, 3 of 3, configuration default"},
		recover(145, "72.5%", "65.9%", "78.2%")...)
	st := envelopeStudy(t, assay.DefaultEnvelope())
	checkPlacements(t, st, map[string]placed{
		"correct":                      {assay.RegionContainedButDead, correct},
		"fresh_key_per_retry":          {assay.RegionUnsafeEscape, freshKey},
		"blind_resume":                 {assay.RegionUnsafeEscape, blindResume},
		"receipt_from_reply":           {assay.RegionUnsafeEscape, receipt},
		"fresh_budget_on_resume":       {assay.RegionContainedButDead, correct},
		"charge_after_lost_checkpoint": {assay.RegionContainedButDead, correct},
	})
	for _, p := range st.Placements {
		for _, c := range p.Checks {
			if c.NotMeasurable != strings.HasPrefix(c.Name, "prove floor") || (c.NotMeasurable && c.Held) {
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
	released := []string{
		"hard invariant zero unsafe escape held in 200 trials",
		"hard invariant zero duplicate effect held in 200 trials",
		"hard invariant zero wrong-subject effect held in 200 trials",
		"hard invariant zero recovery-contract violation held in 200 trials",
		"hard invariant zero unproved release held in 200 trials",
		"recover floor 60% met: recover 127 of 200 = 63.5% [95% CI 56.6%, 69.9%] (overall, worst class revoked_capability 0 of 19, configuration default)",
		proveNotMeasurable,
		"serve floor 60% met: serve 127 of 200 = 63.5% [95% CI 56.6%, 69.9%] (overall, worst class revoked_capability 0 of 19, configuration default)",
	}
	st = envelopeStudy(t, lower)
	checkPlacements(t, st, map[string]placed{
		"correct": {assay.RegionReleaseEnvelope, released},
		"fresh_key_per_retry": {assay.RegionUnsafeEscape, []string{freshKey[0],
			"recover floor 60% missed: recover 112 of 200 = 56.0% [95% CI 49.1%, 62.7%] (overall, worst class revoked_capability 0 of 19, configuration default)",
			proveNotMeasurable,
			"serve floor 60% missed: serve 112 of 200 = 56.0% [95% CI 49.1%, 62.7%] (overall, worst class revoked_capability 0 of 19, configuration default)"}},
		"blind_resume":                 {assay.RegionUnsafeEscape, append(blindResume[:2:2], proveNotMeasurable)},
		"receipt_from_reply":           {assay.RegionUnsafeEscape, append(receipt[:2:2], proveNotMeasurable)},
		"fresh_budget_on_resume":       {assay.RegionReleaseEnvelope, released},
		"charge_after_lost_checkpoint": {assay.RegionReleaseEnvelope, released},
	})
}

func n2s(n int) string { return strconv.Itoa(n) }
