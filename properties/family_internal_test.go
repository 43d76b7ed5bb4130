package properties

import (
	"testing"

	"github.com/faultline/faultline/model"
)

// TestFamilyKindsDrawnByTheirDeclaration: each kind outside the catalogue
// that needs a fixture declaration names it in its spec (Needs), and the
// default search draws it on a fixture that makes that declaration and on
// no fixture that makes only another one.
func TestFamilyKindsDrawnByTheirDeclaration(t *testing.T) {
	want := map[string]string{"forked_run": "at_least_once", "deauthorised_evidence": "granted_sources",
		"corrupted_readback": "readback_proxy", "policy_fetch_failed": "max_policy_age",
		"credential_expired": "shared_credential", "spec_drift": "versioned_contracts"}
	declare := map[string]func(fx *model.Fixture){
		"at_least_once":       func(fx *model.Fixture) { fx.AtLeastOnce = true },
		"granted_sources":     func(fx *model.Fixture) { fx.GrantedSources = true },
		"readback_proxy":      func(fx *model.Fixture) { fx.ReadbackProxy = true },
		"max_policy_age":      func(fx *model.Fixture) { fx.MaxPolicyAge = 1000 },
		"shared_credential":   func(fx *model.Fixture) { fx.Fleet = &model.Fleet{SharedCredential: true} },
		"versioned_contracts": func(fx *model.Fixture) { fx.VersionedContracts = true },
	}
	if len(familyKinds) != len(want) {
		t.Fatalf("%d family kinds, want %d", len(familyKinds), len(want))
	}
	for _, sp := range familyKinds {
		if sp.Needs != want[sp.Kind] {
			t.Errorf("%s needs %q, want %q", sp.Kind, sp.Needs, want[sp.Kind])
		}
		for need, set := range declare {
			s := &settings{}
			set(&s.fixture)
			if got := familyDrawn(s, sp); got != (need == sp.Needs) {
				t.Errorf("%s on a fixture declaring %s: drawn %v", sp.Kind, need, got)
			}
		}
		if familyDrawn(&settings{}, sp) {
			t.Errorf("%s drawn on a fixture declaring nothing", sp.Kind)
		}
	}
	// a fleet without a shared credential does not declare it
	s := &settings{}
	s.fixture.Fleet = &model.Fleet{}
	if sp, _ := model.Spec("credential_expired"); familyDrawn(s, sp) {
		t.Error("credential_expired drawn on a fleet whose credential is not shared")
	}
	// the catalogue's kinds need nothing
	for _, sp := range model.Catalogue() {
		if sp.Needs != "" {
			t.Errorf("catalogue kind %s needs %q", sp.Kind, sp.Needs)
		}
	}
}
