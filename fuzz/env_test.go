package fuzz

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

func clearEnv(t *testing.T) {
	for _, k := range []string{"FAULTLINE_PROFILE", "FAULTLINE_CONTROLS", "FAULTLINE_MUTANT", "FAULTLINE_FIXTURE", "FAULTLINE_SCOPE"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}

// TestEnvBecomesTypedOptions: the environment variables select the
// decoder's config, scope and system; every bad value is an error naming
// its variable, never ignored.
func TestEnvBecomesTypedOptions(t *testing.T) {
	cases := []struct {
		env    map[string]string
		config model.Config
		scope  scope
		chosen bool
		err    string
	}{
		{env: nil, config: copperfin.ConfigOfProfile(copperfin.ProfileTyped)},
		{env: map[string]string{"FAULTLINE_PROFILE": "typed"}, config: copperfin.ConfigOfProfile(copperfin.ProfileTyped)},
		{env: map[string]string{"FAULTLINE_PROFILE": "baseline"}, config: copperfin.ConfigOfProfile(copperfin.ProfileBaseline), chosen: true},
		{env: map[string]string{"FAULTLINE_CONTROLS": "effect_readback, idempotency"},
			config: copperfin.ConfigOfControls(copperfin.Controls(0).With(copperfin.Idempotency).With(copperfin.EffectReadback)), chosen: true},
		{env: map[string]string{"FAULTLINE_CONTROLS": ""}, config: copperfin.ConfigOfControls(0), chosen: true},
		{env: map[string]string{"FAULTLINE_SCOPE": "ordinals"}, config: copperfin.ConfigOfProfile(copperfin.ProfileTyped), scope: scopeOrdinals, chosen: true},
		{env: map[string]string{"FAULTLINE_PROFILE": "baseline", "FAULTLINE_CONTROLS": "idempotency"}, err: "set FAULTLINE_PROFILE or FAULTLINE_CONTROLS, not both"},
		{env: map[string]string{"FAULTLINE_PROFILE": "paranoid"}, err: `FAULTLINE_PROFILE: unknown profile "paranoid"`},
		{env: map[string]string{"FAULTLINE_CONTROLS": "idempotency,magic"}, err: `FAULTLINE_CONTROLS: unknown control "magic"`},
		{env: map[string]string{"FAULTLINE_SCOPE": "anywhere"}, config: copperfin.ConfigOfProfile(copperfin.ProfileTyped), scope: scopeAnywhere, chosen: true},
		{env: map[string]string{"FAULTLINE_MUTANT": "key_per_attempt"}, config: copperfin.Settings{Profile: copperfin.ProfileTyped, Mutant: "key_per_attempt"}.Config(), chosen: true},
		{env: map[string]string{"FAULTLINE_FIXTURE": "copperfin-batch", "FAULTLINE_PROFILE": "typed"}, config: func() model.Config {
			c := copperfin.Settings{Profile: copperfin.ProfileTyped}.Config()
			c.Fixture = "copperfin-batch"
			return c
		}(), chosen: true},
		{env: map[string]string{"FAULTLINE_MUTANT": "no_readback"}, err: `FAULTLINE_MUTANT: unknown mutant "no_readback" (valid: rejection_as_success, timeout_as_success,`},
		{env: map[string]string{"FAULTLINE_MUTANT": ""}, err: `FAULTLINE_MUTANT is empty: name a mutant, or unset it for none`},
		{env: map[string]string{"FAULTLINE_FIXTURE": "warehouse"}, err: `FAULTLINE_FIXTURE: unknown fixture "warehouse" (valid: copperfin, copperfin-batch, copperfin-tenants, copperfin-fleet, copperfin-fleet-N for N from 1 to 1000, copperfin-policy-replica)`},
		{env: map[string]string{"FAULTLINE_FIXTURE": ""}, err: `FAULTLINE_FIXTURE is empty`},
		{env: map[string]string{"FAULTLINE_SCOPE": "wide"}, err: `FAULTLINE_SCOPE: unknown scope "wide" (valid: designed, ordinals, anywhere)`},
	}
	for _, c := range cases {
		clearEnv(t)
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		d, chosen, err := decoderFromEnv()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: error %v, want %q", c.env, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", c.env, err)
			continue
		}
		if !reflect.DeepEqual(d.config, c.config) || d.scope != c.scope || chosen != c.chosen || d.def.Name != "copperfin" || d.fixture.Name != fixtureName(copperfin.Definition(), c.config) {
			t.Errorf("%v: config %v scope %v chosen %t, want %v %v %t", c.env, d.config, d.scope, chosen, c.config, c.scope, c.chosen)
		}
	}
}

// TestSeedsFromTheCorpus: under the default every corpus schedule of the
// designed scope is a composition seed; under the baseline the corpus
// schedules that already violate there are left out and named.
func TestSeedsFromTheCorpus(t *testing.T) {
	d, err := NewReferenceDecoder()
	if err != nil {
		t.Fatal(err)
	}
	s, err := loadSeeds(d, corpusDir, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range s.notes {
		if !strings.Contains(n, "not a composition of scope designed") {
			t.Errorf("typed note %q", n)
		}
	}
	c, err := corpus.Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 + len(c.Schedules()) - len(s.notes); len(s.composition) != want || len(c.Seeds) < 13 {
		t.Errorf("%d composition seeds, want %d: the two byte seeds and every corpus schedule of the scope", len(s.composition), want)
	}
	// under WithModifiers: the same seeds but retry-storm.json, whose
	// synchronized timeout the one-worker config does not take, and the
	// byte seed's faults plain
	m, err := NewReferenceDecoder(WithModifiers())
	if err != nil {
		t.Fatal(err)
	}
	ms, err := loadSeeds(m, corpusDir, false)
	if err != nil {
		t.Fatal(err)
	}
	refused := slices.ContainsFunc(ms.notes, func(n string) bool {
		return strings.HasPrefix(n, "retry-storm.json: ") && strings.Contains(n, "carries the modifier synchronized, which its kind does not take")
	})
	if len(ms.composition) != len(s.composition)-1 || !refused || !slices.Equal(ms.composition[1], []byte{0, 0, 1, 0, 2, 0, 3, 0}) ||
		fmt.Sprint(m.Decode(ms.composition[1]).Faults) != fmt.Sprint(d.Decode(s.composition[1]).Faults) {
		t.Errorf("with modifiers: %d composition seeds (want %d), byte seed %x", len(ms.composition), len(s.composition)-1, ms.composition[1])
	}
	b, err := NewReferenceDecoder(WithProfile(copperfin.ProfileBaseline))
	if err != nil {
		t.Fatal(err)
	}
	bs, err := loadSeeds(b, corpusDir, true)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range bs.notes {
		if strings.HasPrefix(n, "timeout-after-commit.json: already violates an invariant under profile baseline") {
			found = true
		}
	}
	if !found {
		t.Errorf("baseline notes do not name timeout-after-commit.json: %q", bs.notes)
	}
	for _, c := range bs.composition {
		if _, err := b.Check(b.Decode(c)); err != nil {
			t.Errorf("baseline seed %x violates: %v", c, err)
		}
	}
}

// TestSettingIsValid fails when the FAULTLINE_* environment variables name
// something that does not exist (scripts/fuzz-nightly.sh runs it before
// fuzzing).
func TestSettingIsValid(t *testing.T) {
	d, _, err := decoderFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("setting: %s, scope %s, system %s", d.config, d.scope, d.def.Name)
}
