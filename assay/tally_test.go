package assay_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
	"github.com/faultline/faultline/reference/paper"
)

// tallyRun runs an assay with a Tally observing every trial.
func tallyRun(t *testing.T, cfg assay.Config) (*assay.Report, *assay.Tally) {
	t.Helper()
	cs, err := copperfin.ControlsOf(model.Config{System: cfg.System})
	if err != nil {
		t.Fatal(err)
	}
	tl := assay.NewTally(cfg.Profile, names(cs))
	cfg.Observe = tl.Observe
	rep, err := assay.Run(refDef(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep, tl
}

// TestTallyPlacesAsTheAudit: an assay run of a profile, counted by a Tally
// and placed in the default envelope, gives the placement "faultline audit"
// prints for that profile (the base study of assay.Gather over
// configuration "all"): region, decision, every check and every reason,
// over the whole catalogue and over the paper's ten modes; and the tally's
// signatures are the study's.
func TestTallyPlacesAsTheAudit(t *testing.T) {
	wantRegion := map[copperfin.Profile]assay.Region{
		copperfin.ProfileBaseline:   assay.RegionUnsafeEscape,
		copperfin.ProfileTyped:      assay.RegionContainedButDead,
		copperfin.ProfileFailClosed: assay.RegionContainedButDead,
	}
	for _, v := range views {
		ref := v.get(t).Base
		for _, p := range copperfin.Profiles {
			cs, _ := copperfin.ProfileControls(p)
			_, tl := tallyRun(t, assay.Config{Profile: string(p), System: sysOf(cs), Trials: paper.AuditTrials, Seed: paper.AuditSeed, Compat: v.compat})
			if n := assay.TallyTrials(tl); n != paper.AuditTrials {
				t.Fatalf("%s %s: tally counted %d trials, want %d", v.name, p, n, paper.AuditTrials)
			}
			var want *assay.Placement
			for i := range ref.Placements {
				if ref.Placements[i].Profile == string(p) && ref.Placements[i].Config == "all" {
					want = &ref.Placements[i]
				}
			}
			if want == nil {
				t.Fatalf("%s: the audit has no placement of %s", v.name, p)
			}
			got := tl.Place(assay.DefaultEnvelope())
			if d := cmp.Diff(*want, got); d != "" {
				t.Errorf("%s %s: placement differs from the audit's (-audit +tally):\n%s", v.name, p, d)
			}
			if !v.compat && got.Region != wantRegion[p] {
				t.Errorf("%s %s: region %q, want %q", v.name, p, got.Region, wantRegion[p])
			}
			var sigs []assay.Signature
			for _, s := range ref.Signatures {
				if s.Profile == string(p) {
					sigs = append(sigs, s)
				}
			}
			if d := cmp.Diff(sigs, assay.TallySignature(tl), cmpopts.IgnoreUnexported(assay.Signature{})); d != "" {
				t.Errorf("%s %s: signatures differ from the audit's (-audit +tally):\n%s", v.name, p, d)
			}
		}
	}
}

// TestTallyCountsTheRun: a tally of a run restricted to one domain counts
// exactly the run's trials per kind, and its placement rests on them; a
// tally refuses what is not one single-fault trial.
func TestTallyCountsTheRun(t *testing.T) {
	cs, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	rep, tl := tallyRun(t, assay.Config{Profile: "custom", System: sysOf(cs.Without(copperfin.Idempotency)), Domains: []model.Domain{model.Domain("tool")}, Trials: 301, Seed: 9})
	sigs := assay.TallySignature(tl)
	if len(sigs) != len(rep.ByKind) {
		t.Fatalf("%d signatures for %d kinds run", len(sigs), len(rep.ByKind))
	}
	dupes := 0
	for _, s := range sigs {
		c := rep.ByKind[s.Kind]
		if s.Domain != model.Domain("tool") || s.Trials != c.Trials || s.Q.Recover.Count != c.Recovered || s.Harms.DuplicateEffect != c.DuplicateEffect || s.Profile != "custom" || s.Config != assay.DefaultConfig {
			t.Errorf("signature of %s: %+v; the run counted %+v", s.Kind, s, c)
		}
		dupes += s.Harms.DuplicateEffect
	}
	pl := tl.Place(assay.DefaultEnvelope())
	if dupes == 0 || dupes != rep.ByDomain[model.Domain("tool")].DuplicateEffect || pl.Region != assay.RegionUnsafeEscape || pl.Trials != 301 {
		t.Fatalf("without idempotency: %d duplicate effects (run %d), region %q over %d trials; want an unsafe escape", dupes, rep.ByDomain[model.Domain("tool")].DuplicateEffect, pl.Region, pl.Trials)
	}
	want := "hard invariant zero duplicate effect failed: " + strconv.Itoa(dupes) + " of 301 trials; worst class "
	found := false
	for _, r := range pl.Reasons {
		found = found || strings.HasPrefix(r, want)
	}
	if !found {
		t.Errorf("reasons %q: none starts %q", pl.Reasons, want)
	}

	two, err := model.ParseSchedule([]byte(`{"version":1,"seed":"two","config":{"profile":"typed"},"faults":[` +
		`{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit"},{"event":"tool.commit","ordinal":1,"kind":"rate_limit"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := refDef().Replay(two)
	if err != nil {
		t.Fatal(err)
	}
	if err := assay.NewTally("typed", names(cs)).Observe(res); err == nil || !strings.Contains(err.Error(), "has 2 fault reports") {
		t.Errorf("a two-fault run: error %v", err)
	}
	if err := assay.NewTally("typed", names(cs)).Observe(nil); err == nil {
		t.Error("a nil result was counted")
	}
	empty := assay.NewTally("typed", names(cs)).Place(assay.DefaultEnvelope())
	if empty.Trials != 0 || empty.Region != assay.RegionContainedButDead {
		t.Errorf("an empty tally: %d trials, region %q", empty.Trials, empty.Region)
	}
}
