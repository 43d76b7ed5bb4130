package assay_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// termsOf runs kind once under cs through the full model.
func termsOf(t *testing.T, kind string, cs copperfin.Controls) model.Terms {
	t.Helper()
	s, err := model.SingleFault(kind, copperfin.ConfigOfControls(cs))
	if err != nil {
		t.Fatal(err)
	}
	terms, err := model.NewHarness(copperfin.Copperfin(), model.Options{}).Terms(copperfin.Factory(cs), s)
	if err != nil {
		t.Fatal(err)
	}
	return terms
}

// TestKindsListingEveryKindChangesNothing: naming every kind of the
// catalogue draws exactly as naming none.
func TestKindsListingEveryKindChangesNothing(t *testing.T) {
	var all []string
	for _, s := range model.Catalogue() {
		all = append(all, s.Kind)
	}
	for _, p := range copperfin.Profiles {
		cs, _ := copperfin.ProfileControls(p)
		cfg := assay.Config{Profile: string(p), System: sysOf(cs), Trials: 777, Seed: 5}
		want, err := assay.Run(refDef(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Kinds = all
		got, err := assay.Run(refDef(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		got.Config.Kinds = nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: listing every kind changed the report:\n got %+v\nwant %+v", p, got, want)
		}
	}
}

// TestKindsSingleMode: with one kind every trial injects it, so each count
// is the trial count times that kind's single-run term, and the round robin
// runs over its domain only.
func TestKindsSingleMode(t *testing.T) {
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	for _, cs := range []copperfin.Controls{0, typed, typed.Without(copperfin.Idempotency).Without(copperfin.EffectReadback)} {
		const n = 301
		rep, err := assay.Run(refDef(), assay.Config{Profile: "custom", System: sysOf(cs), Trials: n, Seed: 188, Kinds: []string{"timeout_after_commit"}})
		if err != nil {
			t.Fatal(err)
		}
		var want assay.Counts
		terms := termsOf(t, "timeout_after_commit", cs)
		for range n {
			want.Add(terms)
		}
		if rep.Overall != want {
			t.Errorf("[%s]: overall %+v, want %+v", cs, rep.Overall, want)
		}
		if !reflect.DeepEqual(rep.Config.Domains, []model.Domain{model.Domain("tool")}) || len(rep.ByDomain) != 1 || rep.ByDomain[model.Domain("tool")] != want {
			t.Errorf("[%s]: domains %v, by domain %+v", cs, rep.Config.Domains, rep.ByDomain)
		}
		if len(rep.ByKind) != 1 || rep.ByKind["timeout_after_commit"] != want {
			t.Errorf("[%s]: by kind %+v", cs, rep.ByKind)
		}
	}
}

// TestKindsTwoDomains: two kinds of two domains alternate in the round
// robin, in the order of the selected domains.
func TestKindsTwoDomains(t *testing.T) {
	const n = 99
	rep, err := assay.Run(refDef(), assay.Config{Profile: "baseline", System: sysOf(0), Trials: n, Seed: 1, Kinds: []string{"timeout_after_commit", "stale_policy"}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.Config.Domains, []model.Domain{model.Domain("context"), model.Domain("tool")}) {
		t.Fatalf("domains %v", rep.Config.Domains)
	}
	var ctx, tool assay.Counts
	for i := range n {
		if i%2 == 0 {
			ctx.Add(termsOf(t, "stale_policy", 0))
		} else {
			tool.Add(termsOf(t, "timeout_after_commit", 0))
		}
	}
	if rep.ByDomain[model.Domain("context")] != ctx || rep.ByDomain[model.Domain("tool")] != tool {
		t.Errorf("by domain %+v, want context %+v tool %+v", rep.ByDomain, ctx, tool)
	}
}

func TestKindsBadLists(t *testing.T) {
	cases := []struct {
		cfg  assay.Config
		want string
	}{
		{assay.Config{System: sysOf(0), Trials: 1, Kinds: []string{"gremlin"}}, `unknown fault kind "gremlin"`},
		{assay.Config{System: sysOf(0), Trials: 1, Kinds: []string{"stale_policy", "stale_policy"}}, `fault kind "stale_policy" listed twice`},
		{assay.Config{System: sysOf(0), Trials: 1, Domains: []model.Domain{model.Domain("tool")}, Kinds: []string{"stale_policy"}}, `fault kind "stale_policy" is in domain context, which is not selected`},
		{assay.Config{System: sysOf(0), Trials: 1, Kinds: []string{"lost_notice"}}, `fault kind "lost_notice" is not in the catalogue the assay draws from (model.Catalogue): replay or explore it instead`},
		{assay.Config{System: sysOf(0), Trials: 1, Kinds: []string{"ambient_identity_leak"}}, `fault kind "ambient_identity_leak" is not in the catalogue the assay draws from (model.Catalogue): replay or explore it instead`},
	}
	for _, c := range cases {
		_, err := assay.Run(refDef(), c.cfg)
		if err == nil || !errors.Is(err, assay.ErrBadConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Kinds %v: error %v, want one wrapping ErrBadConfig naming %q", c.cfg.Kinds, err, c.want)
		}
	}
}

// TestDomainWithoutTrialBlocks: outside the paper's compatibility mode an
// assay too short to reach every selected domain does not pass: each
// domain without a trial is a reason; with a trial in each, none is. The
// paper's mode keeps the artefact's verdict.
func TestDomainWithoutTrialBlocks(t *testing.T) {
	cs, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	rep, err := assay.Run(refDef(), assay.Config{System: sysOf(cs), Trials: 2, Seed: 188})
	if err != nil {
		t.Fatal(err)
	}
	// the two trials draw an identity and a context kind the typed
	// profile denies (no useful service)
	want := []string{
		"useful service was below the 80% synthetic target",
		"domain tool had no trial (2 trials over 5 domains): nothing in it was tested",
		"domain state had no trial (2 trials over 5 domains): nothing in it was tested",
		"domain evidence had no trial (2 trials over 5 domains): nothing in it was tested",
	}
	if rep.Assessment != assay.AssessBlock || !slices.Equal(rep.Reasons, want) {
		t.Errorf("2 trials: %s %q", rep.Assessment, rep.Reasons)
	}
	rep, err = assay.Run(refDef(), assay.Config{System: sysOf(cs), Trials: 5, Seed: 188})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Reasons {
		if strings.Contains(r, "had no trial") {
			t.Errorf("5 trials: %q", rep.Reasons)
		}
	}
	rep, err = assay.Run(refDef(), assay.Config{System: sysOf(cs), Trials: 2, Seed: 188, Compat: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Assessment != assay.AssessPass || len(rep.Reasons) != 0 {
		t.Errorf("compat, 2 trials: %s %q", rep.Assessment, rep.Reasons)
	}
}

func TestRunRejectsZeroTrials(t *testing.T) {
	if _, err := assay.Run(refDef(), assay.Config{System: sysOf(0), Trials: 0}); err == nil {
		t.Fatal("want an error for zero trials")
	}
}
