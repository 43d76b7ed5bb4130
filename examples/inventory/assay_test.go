package inventory_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
)

// TestReleaseEvidence: the release evidence of package assay (what
// "faultline audit" and "faultline dossier" print for the reference
// system) for the checkout agent, from its Definition alone: the
// signature of every fault kind under each named configuration, the
// placements, the counterfactual pairs of the kinds its Defences name
// (sides built with Arm), the diagnoses, and the dossier written and read
// back.
func TestReleaseEvidence(t *testing.T) {
	def := inventory.Definition()
	cfg := assay.EvidenceConfig{Trials: 200, Seed: 7, Envelope: assay.DefaultEnvelope()}
	d, err := assay.BuildDossier(def, cfg)
	if err != nil {
		t.Fatal(err)
	}
	st := d.Evidence.Base
	if st.System != "inventory" || len(st.Signatures) != 3*34 || len(st.Pairs) != 42 || len(st.Diagnoses) != 17 || st.Runs != 388 {
		t.Fatalf("system %s: %d signatures, %d pairs, %d diagnoses, %d runs", st.System, len(st.Signatures), len(st.Pairs), len(st.Diagnoses), st.Runs)
	}
	sig := func(profile, kind string) assay.Signature {
		for _, s := range st.Signatures {
			if s.Profile == profile && s.Kind == kind {
				return s
			}
		}
		t.Fatalf("no signature %s/%s", profile, kind)
		return assay.Signature{}
	}
	// a swapped subject is detected and contained with every control, and
	// escapes as a wrong-subject effect in every trial without them
	if s := sig("defended", "subject_swap"); s.Trials != 12 || s.Q.Detect.Count != 12 || s.Q.Contain.Count != 12 || s.Q.Recover.Count != 0 ||
		s.Controls != "stable_keys,hold_lookup,typed_outcomes,checkpoint_check,bind_request,recheck_authority" {
		t.Errorf("defended subject_swap %+v", s)
	}
	if s := sig("undefended", "subject_swap"); s.Controls != "none" || s.Q.Contain.Count != 0 || s.Harms.UnsafeEscape != 12 || s.Harms.WrongSubject != 12 {
		t.Errorf("undefended subject_swap %+v", s)
	}
	if s := sig("undefended", "corrupt_checkpoint"); s.Trials != 4 || s.Harms.ContractViolation != 4 || s.Q.Detect.Count != 4 {
		t.Errorf("undefended corrupt_checkpoint %+v", s)
	}
	regions := map[string]assay.Region{}
	for _, p := range st.Placements {
		regions[p.Profile] = p.Region
	}
	want := map[string]assay.Region{"defended": assay.RegionContainedButDead, "undefended": assay.RegionUnsafeEscape, "planted": assay.RegionContainedButDead}
	for p, r := range want {
		if regions[p] != r {
			t.Errorf("%s placed in %q, want %q", p, regions[p], r)
		}
	}
	pair := func(profile, kind string) assay.Pair {
		for _, p := range st.Pairs {
			if p.Profile == profile && p.Kind == kind {
				return p
			}
		}
		t.Fatalf("no pair %s/%s", profile, kind)
		return assay.Pair{}
	}
	// a lost reply to a commit: the two recovery controls together carry
	// it, and stable keys alone do (without them, a second hold the record
	// does not name)
	p := pair("defended", "tool_timeout")
	if !slices.Equal(p.Nominated, []string{"stable_keys", "hold_lookup"}) || p.Contrast.Class != assay.LeverageShown ||
		!slices.Equal(p.Contrast.Off.Violated, []string{"recorded_agrees_with_ledger", "no_oversell"}) || p.Contrast.On.RunVerdict != model.Recovered ||
		p.Contrast.Off.Controls != "typed_outcomes,checkpoint_check,bind_request,recheck_authority" || len(p.PerControl) != 2 ||
		p.PerControl[0].Control != "stable_keys" || p.PerControl[0].Contrast.Class != assay.LeverageShown ||
		p.PerControl[1].Control != "hold_lookup" || p.PerControl[1].Contrast.Class != assay.InvalidGreen ||
		!slices.Equal(p.PerControl[1].CarriedBy, []string{"stable_keys"}) {
		t.Errorf("tool_timeout pair %+v", p)
	}
	// a timeout before the send is harmless without typed outcomes too: an
	// invalid green, not reassurance
	if p := pair("defended", "timeout_before_send"); p.Contrast.Class != assay.InvalidGreen || p.Contrast.Off.Fired != 1 {
		t.Errorf("timeout_before_send pair %+v", p)
	}
	for _, x := range st.Diagnoses {
		if x.Profile == "undefended" && x.Kind == "tool_timeout" &&
			(x.Invariant != "no_oversell" || !slices.Equal(x.Control, []string{"stable_keys"}) || x.Why != "adding stable_keys alone makes the same schedule hold (recovered)") {
			t.Errorf("tool_timeout diagnosis %+v", x)
		}
	}
	// any schedule makes a pair
	s, err := model.SingleFault("subject_swap", model.Config{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := assay.ContrastOf(def, assay.Setup{}, s, def.Controls, []string{"stable_keys", "hold_lookup"})
	if err != nil || c.Class != assay.LeverageShown || !slices.Equal(c.Off.Violated, []string{"right_subject"}) {
		t.Errorf("contrast %+v %v", c, err)
	}

	// the dossier: its manifest names the system and its configurations,
	// each fault its declared defence
	m := d.Manifest
	if m.Configuration.System != "inventory" || m.Configuration.Fixture != "inventory" || m.CoveredKinds != 35 || len(m.Schedules) != 388 ||
		len(m.Configuration.Profiles) != 3 || m.Configuration.Profiles[1].Profile != "undefended" || len(m.Configuration.Profiles[1].Controls) != 0 ||
		len(m.Configuration.Profiles[0].Controls) != 6 {
		t.Errorf("manifest %+v", m.Configuration)
	}
	if f := d.Faults[0]; f.Kind != "subject_swap" || !slices.Equal(f.Nominated, []string{"bind_request"}) || f.Mutant != "" {
		t.Errorf("first fault %+v", f)
	}
	if len(d.ChangeTriggers) != 6 {
		t.Errorf("%d change triggers", len(d.ChangeTriggers))
	}
	dir := filepath.Join(t.TempDir(), "dossier")
	if err := assay.WriteDossier(dir, d); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"dossier.json", "dossier.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	diff, err := assay.DiffDossiers(dir, dir)
	if err != nil || len(diff.Fired) != 0 {
		t.Errorf("a dossier against itself: %+v %v", diff, err)
	}
}
