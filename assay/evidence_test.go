package assay_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
	"github.com/faultline/faultline/reference/paper"
)

// paperConfig is the default evidence configuration restricted to the
// paper's ten modes (compat), so its figures are the paper's whatever else
// the catalogue holds.
func paperConfig() assay.EvidenceConfig {
	cfg := paper.EvidenceConfig()
	cfg.Compat = true
	return cfg
}

var (
	evOnce, paperOnce sync.Once
	evVal, paperVal   *assay.Evidence
	evErr, paperErr   error
)

// evidence gathers the default configuration (the whole catalogue, 25
// kinds) once for the package's tests.
func evidence(t *testing.T) *assay.Evidence {
	t.Helper()
	if raceDetector {
		t.Skip("the default gathering is checked under the detector by TestGatherIsDeterministic, over the small catalogue config: go test ./... runs this test in full")
	}
	evOnce.Do(func() { evVal, evErr = assay.Gather(refDef(), paper.EvidenceConfig()) })
	if evErr != nil {
		t.Fatal(evErr)
	}
	return evVal
}

// paperEvidence gathers paperConfig once for the package's tests.
func paperEvidence(t *testing.T) *assay.Evidence {
	t.Helper()
	if raceDetector {
		t.Skip("the paper config's gathering repeats the default gathering's goroutines (TestGatherIsDeterministic) over another input: go test ./... runs this test in full")
	}
	paperOnce.Do(func() { paperVal, paperErr = assay.Gather(refDef(), paperConfig()) })
	if paperErr != nil {
		t.Fatal(paperErr)
	}
	return paperVal
}

// views are the two trial plans the evidence is reported over.
var views = []struct {
	name   string
	compat bool
	kinds  int
	get    func(*testing.T) *assay.Evidence
}{{"catalogue", false, 35, evidence}, {"paper188", true, 10, paperEvidence}}

func sigOf(t *testing.T, st *assay.Study, profile, kind, config string) assay.Signature {
	t.Helper()
	for _, s := range st.Signatures {
		if s.Profile == profile && s.Kind == kind && s.Config == config {
			return s
		}
	}
	t.Fatalf("no signature for %s/%s/%s", profile, kind, config)
	return assay.Signature{}
}

// TestStudyMatchesRun: the base study's counts per kind and overall
// equal those of Run, which executes every one of the 2000 trials, over
// the whole catalogue and over the paper's ten: running each distinct
// schedule once and counting it per trial changes no figure. go test ./...
// runs Run for one profile of each view (typed over the catalogue,
// baseline over the paper's ten); FAULTLINE_HEAVY=1 runs every profile of
// both (six runs of 2000 trials).
func TestStudyMatchesRun(t *testing.T) {
	if raceDetector {
		t.Skip("repeats the study's and the dossier's goroutines over another input (TestGatherIsDeterministic and TestDossierContents run them under the detector); go test ./... runs this test in full")
	}
	small := map[string]copperfin.Profile{"catalogue": copperfin.ProfileTyped, "paper188": copperfin.ProfileBaseline}
	if !heavy() {
		t.Log("one profile of each view; FAULTLINE_HEAVY=1 runs every profile of both")
	}
	for _, v := range views {
		ref := v.get(t).Base
		for _, p := range copperfin.Profiles {
			if !heavy() && p != small[v.name] {
				continue
			}
			cs, _ := copperfin.ProfileControls(p)
			rep, err := assay.Run(refDef(), assay.Config{System: sysOf(cs), Trials: 2000, Seed: 188, Compat: v.compat})
			if err != nil {
				t.Fatal(err)
			}
			total, kinds := 0, 0
			for _, spec := range model.Catalogue() {
				if v.compat && !spec.Paper {
					continue
				}
				kinds++
				s := sigOf(t, ref, string(p), spec.Kind, assay.DefaultConfig)
				k := rep.ByKind[spec.Kind]
				got := []int{s.Trials, s.Q.Detect.Count, s.Q.Contain.Count, s.Q.Recover.Count, s.Q.Prove.Count, s.Q.Serve.Count,
					s.Harms.UnsafeEscape, s.Harms.DuplicateEffect, s.Harms.UnprovedRelease, s.Harms.ServiceLoss}
				want := []int{k.Trials, k.Detected, k.Contained, k.Recovered, k.Verified, k.UsefulService,
					k.UnsafeEscape, k.DuplicateEffect, k.UnverifiableRelease, k.ServiceLoss}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s %s/%s (-Run +study):\n%s", v.name, p, spec.Kind, diff)
				}
				total += s.Trials
			}
			if total != 2000 || kinds != v.kinds {
				t.Errorf("%s %s: %d trials over %d kinds", v.name, p, total, kinds)
			}
		}
		if n := len(ref.Signatures); n != 3*v.kinds {
			t.Errorf("%s: %d signatures, want one per profile and kind", v.name, n)
		}
	}
}

// TestSignatures pins signatures as exact counts with their intervals, over
// the paper's ten (the paper's numbers) and over the whole catalogue.
func TestSignatures(t *testing.T) {
	ref := paperEvidence(t).Base
	s := sigOf(t, ref, "typed", "break_trace_lineage", assay.DefaultConfig)
	if s.Trials != 188 || s.Q.Detect.Count != 188 || s.Q.Contain.Count != 188 || s.Q.Recover.Count != 0 || s.Q.Prove.Count != 0 || s.Q.Serve.Count != 0 {
		t.Errorf("typed break_trace_lineage: %+v", s.Q)
	}
	if s.Boundary != model.Boundary("effect") || s.Phase != model.Phase("before_commit") || !s.Critical {
		t.Errorf("typed break_trace_lineage key: %s %s %t", s.Boundary, s.Phase, s.Critical)
	}
	// Wilson at 0 of 188 and 188 of 188
	if iv := s.Q.Prove.Interval; iv.Lo != 0 || fmt.Sprintf("%.4f", iv.Hi) != "0.0200" {
		t.Errorf("prove interval %+v", iv)
	}
	if iv := s.Q.Contain.Interval; iv.Hi != 1 || fmt.Sprintf("%.4f", iv.Lo) != "0.9800" {
		t.Errorf("contain interval %+v", iv)
	}
	b := sigOf(t, ref, "baseline", "timeout_after_commit", assay.DefaultConfig)
	if b.Trials != 189 || b.Q.Detect.Count != 189 || b.Q.Contain.Count != 0 || b.Harms.DuplicateEffect != 189 || b.Harms.WrongSubject != 0 {
		t.Errorf("baseline timeout_after_commit: %+v %+v", b.Q, b.Harms)
	}
	if w := sigOf(t, ref, "baseline", "subject_swap", assay.DefaultConfig); w.Harms.WrongSubject != 212 || w.Harms.UnsafeEscape != 212 {
		t.Errorf("baseline subject_swap harms %+v", w.Harms)
	}
	// the pooled typed signature keeps the worst critical class
	var agg *assay.Aggregate
	for i, a := range ref.Aggregates {
		if a.Profile == "typed" && a.Domain == "all" && a.Config == "all" {
			agg = &ref.Aggregates[i]
		}
	}
	if agg == nil || agg.Trials != 2000 || agg.Q.Recover.Count != 1812 || agg.Q.Prove.Count != 1812 || agg.Q.Serve.Count != 1812 || agg.Q.Contain.Count != 2000 {
		t.Fatalf("typed pooled: %+v", agg)
	}
	if agg.WorstClass == nil || agg.WorstClass.Kind != "break_trace_lineage" || agg.WorstClass.Config != assay.DefaultConfig {
		t.Errorf("typed worst class %+v", agg.WorstClass)
	}
	want := []assay.WorstCell{
		{Term: "detect", Kind: "subject_swap", Config: "default", Count: 212, Trials: 212, Rate: 1},
		{Term: "contain", Kind: "subject_swap", Config: "default", Count: 212, Trials: 212, Rate: 1},
		{Term: "recover", Kind: "break_trace_lineage", Config: "default", Count: 0, Trials: 188},
		{Term: "prove", Kind: "break_trace_lineage", Config: "default", Count: 0, Trials: 188},
		{Term: "serve", Kind: "break_trace_lineage", Config: "default", Count: 0, Trials: 188},
	}
	if diff := cmp.Diff(want, agg.Worst); diff != "" {
		t.Errorf("typed worst cells (-want +got):\n%s", diff)
	}

	// The whole catalogue: the same 2000 trials spread over 35 kinds. The
	// evidence domain holds only the paper's kinds, so its counts are the
	// paper's (the identity domain's 400 trials are now over subject_swap,
	// tenant_swap, purpose_swap and revoked_capability); the tool domain's twelve kinds share its 400
	// trials, so timeout_after_commit draws 38 of them.
	all := evidence(t).Base
	if b := sigOf(t, all, "baseline", "timeout_after_commit", assay.DefaultConfig); b.Trials != 38 || b.Harms.DuplicateEffect != 38 || b.Q.Contain.Count != 0 {
		t.Errorf("baseline timeout_after_commit: %+v %+v", b.Q, b.Harms)
	}
	if w := sigOf(t, all, "baseline", "subject_swap", assay.DefaultConfig); w.Trials != 104 || w.Harms.WrongSubject != 104 {
		t.Errorf("baseline subject_swap %+v", w.Harms)
	}
	// a held approval loss: detected and contained, never recovered
	m := sigOf(t, all, "typed", "memory_loss", assay.DefaultConfig)
	if m.Trials != 44 || m.Q.Detect.Count != 44 || m.Q.Contain.Count != 44 || m.Q.Recover.Count != 0 || m.Q.Prove.Count != 0 ||
		m.Q.Serve.Count != 0 || m.Boundary != model.Boundary("memory") || !m.Critical || m.Harms.ServiceLoss != 44 {
		t.Errorf("typed memory_loss: %+v %+v", m.Q, m.Harms)
	}
	// a sandbox denial: a proven denial of an entitled action, so proven
	// but neither recovered nor served
	d := sigOf(t, all, "typed", "sandbox_denial", assay.DefaultConfig)
	if d.Trials != 31 || d.Q.Prove.Count != 31 || d.Q.Recover.Count != 0 || d.Q.Serve.Count != 0 || d.Boundary != model.Boundary("sandbox") {
		t.Errorf("typed sandbox_denial: %+v", d.Q)
	}
	// a worker restart resumes silently: recovered, never detected (the
	// state domain's ten kinds share its 400 trials)
	if r := sigOf(t, all, "typed", "worker_restart", assay.DefaultConfig); r.Trials != 37 || r.Q.Detect.Count != 0 || r.Q.Recover.Count != 37 {
		t.Errorf("typed worker_restart: %+v", r.Q)
	}
	agg = nil
	for i, a := range all.Aggregates {
		if a.Profile == "typed" && a.Domain == "all" && a.Config == "all" {
			agg = &all.Aggregates[i]
		}
	}
	if agg == nil || agg.Trials != 2000 || agg.Q.Detect.Count != 1868 || agg.Q.Contain.Count != 2000 || agg.Q.Recover.Count != 1389 ||
		agg.Q.Prove.Count != 1492 || agg.Q.Serve.Count != 1389 || agg.Harms.ServiceLoss != 611 || agg.Harms.ContractViolation != 0 {
		t.Fatalf("typed pooled over the catalogue: %+v", agg)
	}
	want = []assay.WorstCell{
		{Term: "detect", Kind: "duplicate_tool_call", Config: "default", Count: 0, Trials: 49},
		{Term: "contain", Kind: "subject_swap", Config: "default", Count: 104, Trials: 104, Rate: 1},
		{Term: "recover", Kind: "memory_loss", Config: "default", Count: 0, Trials: 44},
		{Term: "prove", Kind: "memory_loss", Config: "default", Count: 0, Trials: 44},
		{Term: "serve", Kind: "memory_loss", Config: "default", Count: 0, Trials: 44},
	}
	if diff := cmp.Diff(want, agg.Worst); diff != "" {
		t.Errorf("typed worst cells over the catalogue (-want +got):\n%s", diff)
	}
	if agg.WorstClass == nil || agg.WorstClass.Kind != "memory_loss" {
		t.Errorf("typed worst class over the catalogue %+v", agg.WorstClass)
	}
	// every catalogue kind threatens a hard invariant: all are critical
	for _, spec := range model.Catalogue() {
		if !assay.Critical(spec) {
			t.Errorf("%s is not critical", spec.Kind)
		}
	}
}

func placement(t *testing.T, st *assay.Study, profile, config string) assay.Placement {
	t.Helper()
	for _, p := range st.Placements {
		if p.Profile == profile && p.Config == config {
			return p
		}
	}
	t.Fatalf("no placement for %s/%s", profile, config)
	return assay.Placement{}
}

// TestPlacements: with the documented floors, over the paper's ten the
// baseline lands in unsafe escape, fail_closed in contained but dead, and
// typed in useful but unproved: every hard invariant holds and its overall
// recovery and service (90.6 %) meet their floors, but proof in the
// evidence domain is 53.0 %, under the 80 % proof floor, because broken
// trace lineage is held rather than proven. Over the whole catalogue typed
// lands in contained but dead: every hard invariant still holds (no unsafe
// escape, no unproved release, no recovery-contract violation), but
// recovery and service fall to 69.5 % because sandbox denials, rejections,
// exhausted budgets, unusable checkpoints, lost approvals and failed
// required branches end in safe holds and denials, which are not completed
// work; the baseline stays in unsafe escape and fail_closed in contained
// but dead.
func TestPlacements(t *testing.T) {
	cases := []struct {
		view    *assay.Study
		profile string
		region  assay.Region
		reasons []string
	}{
		{paperEvidence(t).Base, "baseline", assay.RegionUnsafeEscape, []string{
			"hard invariant zero unsafe escape failed: 1389 of 2000 trials; worst class subject_swap, 212 of 212, configuration default",
			"hard invariant zero duplicate effect failed: 382 of 2000 trials; worst class timeout_after_commit, 189 of 189, configuration default",
			"hard invariant zero wrong-subject effect failed: 212 of 2000 trials; worst class subject_swap, 212 of 212, configuration default",
			"hard invariant zero unproved release failed: 611 of 2000 trials; worst class partial_success_response, 211 of 211, configuration default",
			"recover floor 80% missed: recover 0 of 2000 = 0.0% [95% CI 0.0%, 0.2%] (overall, worst class subject_swap 0 of 212, configuration default)",
			"prove floor 80% missed: prove 0 of 400 = 0.0% [95% CI 0.0%, 1.0%] (domain identity, worst class subject_swap 0 of 212, configuration default)",
			"prove floor 80% missed: prove 0 of 400 = 0.0% [95% CI 0.0%, 1.0%] (domain context, worst class stale_policy 0 of 201, configuration default)",
			"prove floor 80% missed: prove 0 of 400 = 0.0% [95% CI 0.0%, 1.0%] (domain tool, worst class timeout_after_commit 0 of 189, configuration default)",
			"prove floor 80% missed: prove 0 of 400 = 0.0% [95% CI 0.0%, 1.0%] (domain state, worst class checkpoint_rollback 0 of 193, configuration default)",
			"prove floor 80% missed: prove 0 of 400 = 0.0% [95% CI 0.0%, 1.0%] (domain evidence, worst class drop_effect_receipt 0 of 212, configuration default)",
			"serve floor 80% missed: serve 0 of 2000 = 0.0% [95% CI 0.0%, 0.2%] (overall, worst class subject_swap 0 of 212, configuration default)",
		}},
		{paperEvidence(t).Base, "typed", assay.RegionUsefulButUnproved, []string{
			"prove floor 80% missed: prove 212 of 400 = 53.0% [95% CI 48.1%, 57.8%] (domain evidence, worst class break_trace_lineage 0 of 188, configuration default)",
		}},
		{paperEvidence(t).Base, "fail_closed", assay.RegionContainedButDead, []string{
			"recover floor 80% missed: recover 1007 of 2000 = 50.3% [95% CI 48.2%, 52.5%] (overall, worst class timeout_after_commit 0 of 189, configuration default)",
			"prove floor 80% missed: prove 0 of 400 = 0.0% [95% CI 0.0%, 1.0%] (domain tool, worst class timeout_after_commit 0 of 189, configuration default)",
			"prove floor 80% missed: prove 207 of 400 = 51.7% [95% CI 46.9%, 56.6%] (domain state, worst class checkpoint_rollback 0 of 193, configuration default)",
			"prove floor 80% missed: prove 0 of 400 = 0.0% [95% CI 0.0%, 1.0%] (domain evidence, worst class drop_effect_receipt 0 of 212, configuration default)",
			"serve floor 80% missed: serve 1007 of 2000 = 50.3% [95% CI 48.2%, 52.5%] (overall, worst class timeout_after_commit 0 of 189, configuration default)",
		}},
		{evidence(t).Base, "baseline", assay.RegionUnsafeEscape, []string{
			"hard invariant zero unsafe escape failed: 899 of 2000 trials; worst class subject_swap, 104 of 104, configuration default",
			"hard invariant zero duplicate effect failed: 203 of 2000 trials; worst class timeout_after_commit, 38 of 38, configuration default",
			"hard invariant zero wrong-subject effect failed: 338 of 2000 trials; worst class subject_swap, 104 of 104, configuration default",
			"hard invariant zero unproved release failed: 438 of 2000 trials; worst class partial_success_response, 38 of 38, configuration default",
			"recover floor 80% missed: recover 279 of 2000 = 14.0% [95% CI 12.5%, 15.5%] (overall, worst class subject_swap 0 of 104, configuration default)",
			"prove floor 80% missed: prove 0 of 400 = 0.0% [95% CI 0.0%, 1.0%] (domain identity, worst class subject_swap 0 of 104, configuration default)",
			"prove floor 80% missed: prove 95 of 400 = 23.8% [95% CI 19.8%, 28.2%] (domain context, worst class stale_policy 0 of 53, configuration default)",
			"prove floor 80% missed: prove 169 of 400 = 42.2% [95% CI 37.5%, 47.1%] (domain tool, worst class timeout_after_commit 0 of 38, configuration default)",
			"prove floor 80% missed: prove 118 of 400 = 29.5% [95% CI 25.2%, 34.1%] (domain state, worst class checkpoint_rollback 0 of 41, configuration default)",
			"prove floor 80% missed: prove 0 of 400 = 0.0% [95% CI 0.0%, 1.0%] (domain evidence, worst class drop_effect_receipt 0 of 212, configuration default)",
			"serve floor 80% missed: serve 279 of 2000 = 14.0% [95% CI 12.5%, 15.5%] (overall, worst class subject_swap 0 of 104, configuration default)",
		}},
		{evidence(t).Base, "typed", assay.RegionContainedButDead, []string{
			"recover floor 80% missed: recover 1389 of 2000 = 69.5% [95% CI 67.4%, 71.4%] (overall, worst class memory_loss 0 of 44, configuration default)",
			"prove floor 80% missed: prove 155 of 400 = 38.8% [95% CI 34.1%, 43.6%] (domain state, worst class missing_checkpoint 0 of 43, configuration default)",
			"prove floor 80% missed: prove 212 of 400 = 53.0% [95% CI 48.1%, 57.8%] (domain evidence, worst class break_trace_lineage 0 of 188, configuration default)",
			"serve floor 80% missed: serve 1389 of 2000 = 69.5% [95% CI 67.4%, 71.4%] (overall, worst class memory_loss 0 of 44, configuration default)",
		}},
		{evidence(t).Base, "fail_closed", assay.RegionContainedButDead, []string{
			"recover floor 80% missed: recover 870 of 2000 = 43.5% [95% CI 41.3%, 45.7%] (overall, worst class memory_loss 0 of 44, configuration default)",
			"prove floor 80% missed: prove 242 of 400 = 60.5% [95% CI 55.6%, 65.2%] (domain tool, worst class timeout_after_commit 0 of 38, configuration default)",
			"prove floor 80% missed: prove 159 of 400 = 39.8% [95% CI 35.1%, 44.6%] (domain state, worst class checkpoint_rollback 0 of 41, configuration default)",
			"prove floor 80% missed: prove 0 of 400 = 0.0% [95% CI 0.0%, 1.0%] (domain evidence, worst class drop_effect_receipt 0 of 212, configuration default)",
			"serve floor 80% missed: serve 870 of 2000 = 43.5% [95% CI 41.3%, 45.7%] (overall, worst class memory_loss 0 of 44, configuration default)",
		}},
	}
	for _, c := range cases {
		p := placement(t, c.view, c.profile, "all")
		if p.Region != c.region || p.Trials != 2000 {
			t.Errorf("%s (compat %t): region %q over %d trials, want %q", c.profile, c.view.Compat, p.Region, p.Trials, c.region)
		}
		if diff := cmp.Diff(c.reasons, p.Reasons); diff != "" {
			t.Errorf("%s (compat %t) reasons (-want +got):\n%s", c.profile, c.view.Compat, diff)
		}
		if c.region != assay.RegionUnsafeEscape && len(p.Checks) < 5 {
			t.Errorf("%s: %d checks", c.profile, len(p.Checks))
		}
		for _, ch := range p.Checks {
			if ch.Hard && ch.Name == "zero recovery-contract violation" && (!ch.Held || ch.Reason != "hard invariant zero recovery-contract violation held in 2000 trials") {
				t.Errorf("%s (compat %t): %+v", c.profile, c.view.Compat, ch)
			}
		}
	}
	if d := placement(t, paperEvidence(t).Base, "typed", "all").Decision; d != "shadow or hold" {
		t.Errorf("typed decision %q", d)
	}
	if d := placement(t, evidence(t).Base, "typed", "all").Decision; d != "redesign recovery" {
		t.Errorf("typed decision over the catalogue %q", d)
	}
}

// TestContractViolationBlocks: a recovery-contract violation (here the
// erased failed branch of the failed_branch_dropped defect) is a hard
// failure: the profile lands in unsafe escape although no effect was
// unsafe, duplicated or unproved.
func TestContractViolationBlocks(t *testing.T) {
	dropped := wrapped("copperfin_failed_branch_dropped", func(cs copperfin.Controls, mutant string) (model.Factory, error) {
		if mutant == "" {
			mutant = "failed_branch_dropped"
		}
		return copperfin.NewFactory(cs, mutant)
	})
	cfg := paper.EvidenceConfig()
	st, err := assay.RunStudy(dropped, assay.StudyConfig{Name: "dropped", Base: cfg.Base, Profiles: []model.NamedConfig{profileOf(copperfin.ProfileTyped)},
		Trials: 2000, Seed: 188, Envelope: cfg.Envelope})
	if err != nil {
		t.Fatal(err)
	}
	p := placement(t, st, "typed", "all")
	if p.Region != assay.RegionUnsafeEscape || len(p.Reasons) == 0 ||
		p.Reasons[0] != "hard invariant zero recovery-contract violation failed: 45 of 2000 trials; worst class branch_failure, 45 of 45, configuration default" {
		t.Errorf("region %q reasons %q", p.Region, p.Reasons)
	}
	if s := sigOf(t, st, "typed", "branch_failure", assay.DefaultConfig); s.Harms.ContractViolation != 45 || s.Harms.UnsafeEscape != 0 || s.Harms.UnprovedRelease != 0 {
		t.Errorf("branch_failure harms %+v", s.Harms)
	}
}

// TestEnvelopeFloorsDecide: the same typed signatures land in the release
// envelope when proof is checked overall (90.6 %) instead of per domain,
// and in contained but dead when the service floor is 95 %: the region
// follows the declared floors, never a single score.
func TestEnvelopeFloorsDecide(t *testing.T) {
	ref := paperEvidence(t).Base
	var typed []assay.Signature
	for _, s := range ref.Signatures {
		if s.Profile == "typed" {
			typed = append(typed, s)
		}
	}
	overall := assay.Envelope{Floors: []assay.Floor{
		{Term: "recover", Min: 0.8, Scope: assay.ScopeOverall}, {Term: "prove", Min: 0.8, Scope: assay.ScopeOverall}, {Term: "serve", Min: 0.8, Scope: assay.ScopeOverall}}}
	p := overall.Place("typed", "all", typed)
	want := []string{
		"hard invariant zero unsafe escape held in 2000 trials",
		"hard invariant zero duplicate effect held in 2000 trials",
		"hard invariant zero wrong-subject effect held in 2000 trials",
		"hard invariant zero recovery-contract violation held in 2000 trials",
		"hard invariant zero unproved release held in 2000 trials",
		"recover floor 80% met: recover 1812 of 2000 = 90.6% [95% CI 89.2%, 91.8%] (overall, worst class break_trace_lineage 0 of 188, configuration default)",
		"prove floor 80% met: prove 1812 of 2000 = 90.6% [95% CI 89.2%, 91.8%] (overall, worst class break_trace_lineage 0 of 188, configuration default)",
		"serve floor 80% met: serve 1812 of 2000 = 90.6% [95% CI 89.2%, 91.8%] (overall, worst class break_trace_lineage 0 of 188, configuration default)",
	}
	if p.Region != assay.RegionReleaseEnvelope || p.Decision != "release the bounded claim" {
		t.Errorf("region %q", p.Region)
	}
	if diff := cmp.Diff(want, p.Reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
	strict := assay.Envelope{Floors: []assay.Floor{{Term: "serve", Min: 0.95, Scope: assay.ScopeOverall}}}
	if p := strict.Place("typed", "all", typed); p.Region != assay.RegionContainedButDead {
		t.Errorf("serve floor 95%%: region %q", p.Region)
	}
	// a failed hard invariant blocks, whatever floor is missed beside it:
	// the same signatures with 5 unproved releases, under the 95 % service
	// floor they miss, are an unsafe escape, not contained but dead
	unproved := slices.Clone(typed)
	unproved[0].Harms.UnprovedRelease = 5
	if p := strict.Place("typed", "all", unproved); p.Region != assay.RegionUnsafeEscape || p.Decision != "block" ||
		p.Reasons[0] != "hard invariant zero unproved release failed: 5 of 2000 trials; worst class "+unproved[0].Kind+", 5 of "+strconv.Itoa(unproved[0].Trials)+", configuration default" {
		t.Errorf("an unproved release beside a missed floor: %q %q", p.Region, p.Reasons)
	}
	perKind := assay.Envelope{Floors: []assay.Floor{{Term: "prove", Min: 0.5, Scope: assay.ScopeEachKind}}}
	p = perKind.Place("typed", "all", typed)
	if p.Region != assay.RegionUsefulButUnproved || len(p.Reasons) != 1 ||
		p.Reasons[0] != "prove floor 50% missed: prove 0 of 188 = 0.0% [95% CI 0.0%, 2.0%] (kind break_trace_lineage)" {
		t.Errorf("per-kind proof floor: %q %q", p.Region, p.Reasons)
	}
	for _, bad := range []assay.Envelope{
		{Floors: []assay.Floor{{Term: "speed", Min: 0.5, Scope: assay.ScopeOverall}}},
		{Floors: []assay.Floor{{Term: "serve", Min: 1.5, Scope: assay.ScopeOverall}}},
		{Floors: []assay.Floor{{Term: "serve", Min: 0.5, Scope: "everywhere"}}},
	} {
		if _, err := assay.RunStudy(refDef(), assay.StudyConfig{Trials: 1, Envelope: bad}); !errors.Is(err, assay.ErrBadConfig) {
			t.Errorf("%+v: want an error", bad)
		}
	}
	// over the whole catalogue no choice of proof scope saves typed: its
	// recovery and service (69.5 %) miss the 80 % floors
	typed = nil
	for _, s := range evidence(t).Base.Signatures {
		if s.Profile == "typed" {
			typed = append(typed, s)
		}
	}
	if p := overall.Place("typed", "all", typed); p.Region != assay.RegionContainedButDead || len(p.Reasons) != 3 ||
		p.Reasons[1] != "prove floor 80% missed: prove 1492 of 2000 = 74.6% [95% CI 72.6%, 76.5%] (overall, worst class memory_loss 0 of 44, configuration default)" {
		t.Errorf("catalogue, overall floors: %q %q", p.Region, p.Reasons)
	}
	lax := assay.Envelope{Floors: []assay.Floor{{Term: "recover", Min: 0.6, Scope: assay.ScopeOverall}, {Term: "serve", Min: 0.6, Scope: assay.ScopeOverall}}}
	if p := lax.Place("typed", "all", typed); p.Region != assay.RegionReleaseEnvelope {
		t.Errorf("catalogue, 60%% floors without proof: %q %q", p.Region, p.Reasons)
	}
}

func pairOf(t *testing.T, st *assay.Study, profile, kind, config string) assay.Pair {
	t.Helper()
	for _, p := range st.Pairs {
		if p.Profile == profile && p.Kind == kind && p.Config == config {
			return p
		}
	}
	t.Fatalf("no pair for %s/%s/%s", profile, kind, config)
	return assay.Pair{}
}

// TestPairsTypedShowLeverage: over the paper's ten, for every kind and
// configuration, removing its nominated controls from typed transfers the
// fault into the invariant the spec predicts, and restoring them contains
// it; for kinds with two nominated controls, removing one alone is an
// invalid green that the other carries.
func TestPairsTypedShowLeverage(t *testing.T) {
	ev := paperEvidence(t)
	for _, st := range []*assay.Study{ev.Base, ev.Variation} {
		for _, spec := range model.Catalogue() {
			if !spec.Paper {
				continue
			}
			for _, conf := range st.Configurations {
				p := pairOf(t, st, "typed", spec.Kind, conf)
				if spec.Kind == "checkpoint_rollback" && strings.HasSuffix(conf, "deadline_ms=340") {
					// under the short deadline the resumed worker's
					// re-checks leave no time for a second commit: the
					// deadline masks the transfer, and only dropping two of
					// those checks brings it back
					if p.Contrast.Class != assay.InvalidGreen || p.Contrast.Off.Claim != model.ClaimHold ||
						!cmp.Equal(p.CarriedJointly, [][]string{cl(copperfin.PreEffectAuthority, copperfin.RefreshContext), cl(copperfin.RefreshContext, copperfin.StatePrecondition)}) {
						t.Errorf("%s %s/%s: %s %+v jointly %v", st.Name, spec.Kind, conf, p.Contrast.Class, p.Contrast.Off, p.CarriedJointly)
					}
					continue
				}
				if p.Contrast.Class != assay.LeverageShown || !p.Predicted || p.Mutant != "" {
					t.Errorf("%s %s/%s: %s predicted %t: %s", st.Name, spec.Kind, conf, p.Contrast.Class, p.Predicted, p.Contrast.Reason)
				}
				if !p.Contrast.Off.Reached || p.Contrast.Off.Fired != 1 || !p.Contrast.On.Held() {
					t.Errorf("%s %s/%s: off %+v on %+v", st.Name, spec.Kind, conf, p.Contrast.Off, p.Contrast.On)
				}
				if len(copperfin.Nominated(spec.Kind)) == 2 {
					a, b := copperfin.Nominated(spec.Kind)[0], copperfin.Nominated(spec.Kind)[1]
					if len(p.PerControl) != 2 || p.PerControl[0].Contrast.Class != assay.InvalidGreen ||
						!cmp.Equal(p.PerControl[0].CarriedBy, cl(b)) || !cmp.Equal(p.PerControl[1].CarriedBy, cl(a)) {
						t.Errorf("%s %s/%s: per control %+v", st.Name, spec.Kind, conf, p.PerControl)
					}
				}
			}
		}
	}
	p := pairOf(t, ev.Base, "typed", "timeout_after_commit", assay.DefaultConfig)
	if p.Contrast.Off.Effects != 2 || p.Contrast.Off.FirstSeq != 23 || p.Contrast.On.RunVerdict != model.Recovered ||
		p.PerControl[0].Finding != "removing idempotency alone leaves the fault contained: effect_readback silently carries the result" {
		t.Errorf("typed timeout_after_commit pair %+v", p)
	}
	// fail_closed: deny_on_warning silently carries timeout_after_commit
	f := pairOf(t, ev.Base, "fail_closed", "timeout_after_commit", assay.DefaultConfig)
	if f.Contrast.Class != assay.InvalidGreen || !cmp.Equal(f.CarriedBy, cl(copperfin.DenyOnWarning)) || f.Predicted {
		t.Errorf("fail_closed timeout_after_commit pair: %s %v %s", f.Contrast.Class, f.CarriedBy, f.Contrast.Reason)
	}
	n := map[assay.PairClass]int{}
	for _, p := range ev.Base.Pairs {
		n[p.Contrast.Class]++
	}
	if n[assay.LeverageShown] != 29 || n[assay.InvalidGreen] != 1 || n[assay.ControlIneffective] != 0 {
		t.Errorf("reference pair classes %v", n)
	}
}

// TestPairsCatalogue: over the whole catalogue every kind has a pair in
// every profile and configuration. For the fifteen kinds of the harness
// practice and the two kinds of reads that lag whose defence is a
// behaviour of the reference system, off runs it with the seeded defect
// that lacks the behaviour. Under the baseline (no control) and typed
// every pair shows leverage into the predicted invariant: each declared
// defence carries its kind. Three kinds declare the paper's controls as
// co-defences of their behaviour, and their pairs remove both; the
// per-part findings say what carries what: a fabricated approval is
// contained by bind_identity and by pre_effect_authority, each alone, and
// by the behaviour; a corrupt checkpoint accepted, by effect_readback, and
// the checksum check carries it without effect_readback; a lagging
// readback, by idempotency, and the behaviour (no re-send of what the
// readback does not show) carries it without idempotency.
func TestPairsCatalogue(t *testing.T) {
	ev := evidence(t)
	type part struct {
		control   copperfin.Control
		mutant    string
		single    []string
		joint     [][]string
		behaviour string
		with      []string
	}
	coDefended := map[string][]part{
		"memory_loss": {
			{control: copperfin.BindIdentity, behaviour: "fabricated_approval", with: cl(copperfin.PreEffectAuthority)},
			{control: copperfin.PreEffectAuthority, behaviour: "fabricated_approval", with: []string{string(copperfin.BindIdentity)}},
			{mutant: "fabricated_approval", joint: [][]string{cl(copperfin.BindIdentity, copperfin.PreEffectAuthority)}},
		},
		"corrupt_checkpoint": {
			{control: copperfin.EffectReadback, behaviour: "stale_checkpoint_accepted"},
			{mutant: "stale_checkpoint_accepted", single: cl(copperfin.EffectReadback)},
		},
		"lagging_readback": {
			{control: copperfin.Idempotency, behaviour: "resend_unseen"},
			{mutant: "resend_unseen", single: []string{string(copperfin.Idempotency)}},
		},
	}
	for _, st := range []*assay.Study{ev.Base, ev.Variation} {
		if len(st.Pairs) != 3*35*len(st.Configurations) {
			t.Errorf("%s: %d pairs", st.Name, len(st.Pairs))
		}
		for _, spec := range model.Catalogue() {
			for _, conf := range st.Configurations {
				b := pairOf(t, st, "baseline", spec.Kind, conf)
				if spec.Kind == "missing_checkpoint" && strings.HasSuffix(conf, "deadline_ms=340") {
					// the defect starts over after the missing checkpoint, but
					// the deadline runs from the task's first start: under 340
					// ms it holds before a second commit; its fresh checkpoint
					// withdraws the refund the lost one recorded, so the
					// deadline no longer masks the transfer in either profile
					// (an invariant the kind does not threaten: not predicted)
					for _, x := range []assay.Pair{b, pairOf(t, st, "typed", spec.Kind, conf)} {
						if x.Contrast.Class != assay.LeverageShown || x.Predicted || x.Contrast.Off.Claim != model.ClaimHold || x.Contrast.Off.RunVerdict != model.Unrecoverable ||
							!cmp.Equal(x.Contrast.Off.Violated, []string{model.InvRecordedAgreesWithLedger}) || x.Contrast.Off.FirstEvent != model.EvCheckpointWrite {
							t.Errorf("%s %s %s/%s: %s %+v", st.Name, x.Profile, spec.Kind, conf, x.Contrast.Class, x.Contrast.Off)
						}
					}
					continue
				}
				if spec.Kind == "lagging_readback" || spec.Kind == "stale_state_read" {
					// the baseline's own run never reaches the read that
					// lags (its path does not read back): the off side
					// violates, but the on side tested nothing, so the pair
					// shows no leverage
					if b.Contrast.Class != assay.Inconclusive || b.Contrast.On.Reached || b.Contrast.Off.Fired != 1 || !b.Predicted {
						t.Errorf("%s baseline %s/%s: %s: %s", st.Name, spec.Kind, conf, b.Contrast.Class, b.Contrast.Reason)
					}
				} else if b.Contrast.Class != assay.LeverageShown || !b.Predicted || b.Mutant != copperfin.MutantFor(spec.Kind) || b.Contrast.Off.Mutant != copperfin.MutantFor(spec.Kind) || b.Contrast.On.Mutant != "" {
					t.Errorf("%s baseline %s/%s: %s predicted %t mutant %q: %s", st.Name, spec.Kind, conf, b.Contrast.Class, b.Predicted, b.Mutant, b.Contrast.Reason)
				}
				p := pairOf(t, st, "typed", spec.Kind, conf)
				if spec.Kind == "checkpoint_rollback" && strings.HasSuffix(conf, "deadline_ms=340") {
					continue // the short deadline masks it; asserted in TestPairsTypedShowLeverage
				}
				if p.Contrast.Class != assay.LeverageShown || !p.Predicted || !p.Contrast.On.Held() || p.Contrast.Off.Mutant != copperfin.MutantFor(spec.Kind) || p.Contrast.On.Mutant != "" {
					t.Errorf("%s typed %s/%s: %s predicted %t: %s", st.Name, spec.Kind, conf, p.Contrast.Class, p.Predicted, p.Contrast.Reason)
				}
				parts, co := coDefended[spec.Kind]
				if !co {
					continue
				}
				if len(p.PerControl) != len(parts) {
					t.Fatalf("%s typed %s/%s: %d findings", st.Name, spec.Kind, conf, len(p.PerControl))
				}
				for i, w := range parts {
					f := p.PerControl[i]
					if f.Control != string(w.control) || f.Mutant != w.mutant || f.Contrast.Class != assay.InvalidGreen || f.Contrast.Off.Fired != 1 ||
						f.Contrast.Off.Mutant != w.mutant || !cmp.Equal(f.CarriedBy, append([]string{}, w.single...)) ||
						!cmp.Equal(f.CarriedJointly, append([][]string{}, w.joint...)) || f.CarriedByBehaviour != w.behaviour ||
						!slices.Equal(f.CarriedWithBehaviour, w.with) {
						t.Errorf("%s typed %s/%s, %s alone: %+v", st.Name, spec.Kind, conf, f.Control+f.Mutant, f)
					}
				}
			}
		}
	}
	// the reference system's own recovery rules carry these kinds once the
	// oracle reads checkpoints against the ledger: the mutant's invented
	// progress is caught at the checkpoint that records it
	p := pairOf(t, ev.Base, "typed", "sandbox_denial", assay.DefaultConfig)
	if p.Contrast.Class != assay.LeverageShown || !cmp.Equal(p.Contrast.Off.Violated, []string{model.InvNoInventedProgress}) ||
		p.Contrast.Off.FirstEvent != model.EvCheckpointWrite || p.Contrast.Off.FirstSeq != 21 {
		t.Errorf("typed sandbox_denial: %+v", p.Contrast)
	}
	p = pairOf(t, ev.Base, "typed", "memory_loss", assay.DefaultConfig)
	if p.Contrast.Reason != "control off violates no_invented_progress (first at seq 19, tool.commit); control on holds every invariant (contained_failure)" ||
		p.PerControl[2].Finding != "removing behaviour (defect fabricated_approval) alone leaves the fault contained; carried jointly by bind_identity and pre_effect_authority "+
			"(each contains the fault without the other; removing both brings the transfer back)" ||
		p.PerControl[0].Finding != "removing bind_identity alone leaves the fault contained: the system's own behaviour (absent under defect fabricated_approval) "+
			"carries the result jointly with pre_effect_authority (each contains the fault without the other)" {
		t.Errorf("typed memory_loss reason %q findings %+v", p.Contrast.Reason, p.PerControl)
	}
	p = pairOf(t, ev.Base, "typed", "corrupt_checkpoint", assay.DefaultConfig)
	if p.PerControl[1].Finding != "removing behaviour (defect stale_checkpoint_accepted) alone leaves the fault contained: effect_readback silently carries the result" ||
		p.Contrast.Off.FirstSeq != 27 || !cmp.Equal(p.Contrast.Off.Violated, []string{model.InvResumeFromCheckpoint}) {
		t.Errorf("typed corrupt_checkpoint %+v", p)
	}
	b := pairOf(t, ev.Base, "typed", "branch_failure", assay.DefaultConfig)
	if b.Mutant != "failed_branch_dropped" || !cmp.Equal(b.Contrast.Off.Violated, []string{model.InvJoinPreserved}) || b.Contrast.Off.FirstSeq != 12 ||
		b.Contrast.Off.Claim != model.ClaimRelease || b.Contrast.On.Claim != model.ClaimHold || b.Contrast.On.RunVerdict != model.ContainedFailure {
		t.Errorf("typed branch_failure pair %+v", b.Contrast)
	}
	n := map[string]int{}
	for _, p := range ev.Base.Pairs {
		n[p.Profile+" "+string(p.Contrast.Class)]++
	}
	// fail_closed keeps bind_identity, pre_effect_authority and
	// effect_readback, so its memory_loss and corrupt_checkpoint pairs show
	// leverage too; its four invalid greens (false_success's among them:
	// the receipt_missing warning denies) are carried by deny_on_warning;
	// under six kinds (timeout_after_commit, partial_success_response,
	// malformed_response, output_drift, checkpoint_rollback,
	// drop_effect_receipt) its controls on deny a refund the provider made
	// (recorded_agrees_with_ledger): control_ineffective; the five kinds of
	// the model's arguments and context show leverage in every profile
	// (+5 each: 35 kinds, was 30)
	want := map[string]int{"baseline leverage_shown": 33, "baseline inconclusive": 2, "typed leverage_shown": 35,
		"fail_closed leverage_shown": 25, "fail_closed invalid_green": 4, "fail_closed control_ineffective": 6}
	if diff := cmp.Diff(want, n); diff != "" {
		t.Errorf("reference pair classes (-want +got):\n%s", diff)
	}
	var b2 strings.Builder
	if err := ev.WriteText(&b2); err != nil {
		t.Fatal(err)
	}
	// over the four varied configurations: typed and fail_closed each gain
	// the two co-defended kinds in every configuration (+16 on 256), and
	// missing_checkpoint under the 340 ms deadline is masked by the deadline
	// in baseline, typed and fail_closed (-6); the two kinds of reads that
	// lag show leverage in typed and fail_closed in every configuration
	// (+16 on 300), and are inconclusive in the baseline, whose own run
	// never reaches them (-8); false_success shows it in baseline and typed
	// (+8 on 12); duplicate_tool_call and model_refusal show it in every
	// profile and configuration (+24 on 24); with recorded_agrees_with_ledger
	// (314 before), missing_checkpoint under 340 ms shows leverage in every
	// profile (the resumed record withdraws the refund) and fail_closed's
	// pairs of its six wrong denials are control_ineffective in every
	// configuration (24); the five kinds of the model's arguments and
	// context show it in every profile and configuration (+60 on 60: 370
	// of 420, was 310 of 360)
	if !strings.Contains(b2.String(), "pairs across configurations: 370 of 420 show leverage") ||
		!strings.Contains(b2.String(), "typed        default  memory_loss                bind_identity+pre_effect_authority and behaviour (defect fabricated_approval)  leverage_shown       yes") || // the class column fits control_ineffective
		!strings.Contains(b2.String(), "typed/corrupt_checkpoint (default), behaviour (defect stale_checkpoint_accepted) alone: invalid_green: "+
			"removing behaviour (defect stale_checkpoint_accepted) alone leaves the fault contained: effect_readback silently carries the result") {
		t.Errorf("report lacks the pair summary or rows")
	}
}

// TestPairsWithoutDefects: a system without seeded defects (no
// Definition.Defect) has no pairs for the kinds whose only defence is a
// behaviour, and the pairs of its nominated controls are the reference
// system's; a contrast of a schedule carrying a defect it cannot build is
// refused.
func TestPairsWithoutDefects(t *testing.T) {
	plain := wrapped("plain", func(cs copperfin.Controls, mutant string) (model.Factory, error) {
		if mutant != "" {
			return nil, fmt.Errorf("system plain has no seeded defects, so it cannot run the mutant %q", mutant)
		}
		return copperfin.Factory(cs), nil
	})
	plain.Defect = nil
	cfg := paper.EvidenceConfig()
	sc := assay.StudyConfig{Name: "plain", Base: cfg.Base, Profiles: []model.NamedConfig{profileOf(copperfin.ProfileTyped)}, Trials: 200, Seed: 188, Envelope: cfg.Envelope, Roles: cfg.Roles}
	st, err := assay.RunStudy(plain, sc)
	if err != nil {
		t.Fatal(err)
	}
	full, err := assay.RunStudy(refDef(), sc)
	if err != nil {
		t.Fatal(err)
	}
	var want []assay.Pair
	for _, p := range full.Pairs {
		if len(p.Nominated) > 0 {
			p.System, p.Mutant, p.PerControl = "plain", "", []assay.ControlFinding{}
			want = append(want, p)
		}
	}
	if len(st.Pairs) != len(want) || len(st.Pairs) == len(full.Pairs) {
		t.Fatalf("%d pairs without defects, want %d (of %d)", len(st.Pairs), len(want), len(full.Pairs))
	}
	for i, p := range st.Pairs {
		if p.Kind != want[i].Kind || p.Mutant != "" || p.Contrast.Off.Mutant != "" {
			t.Errorf("pair %d: %s mutant %q", i, p.Kind, p.Mutant)
		}
	}
	s, _ := model.SingleFault("branch_failure", copperfin.ConfigOfProfile(copperfin.ProfileTyped))
	s.Config = copperfin.WithMutant(s.Config, "failed_branch_dropped")
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	if _, err := assay.ContrastOf(plain, assay.Setup{Fixture: copperfin.Copperfin()}, s, names(typed), names(typed)); !errors.Is(err, assay.ErrBadConfig) || !strings.Contains(err.Error(), `cannot run the mutant "failed_branch_dropped"`) {
		t.Errorf("contrast with a defect on a plain system: %v", err)
	}
	// the reference system runs it: both sides keep the schedule's defect
	c, err := assay.ContrastOf(refDef(), assay.Setup{Fixture: copperfin.Copperfin()}, s, names(typed), names(typed))
	if err != nil || c.On.Mutant != "failed_branch_dropped" || c.Class != assay.ControlIneffective {
		t.Errorf("reference contrast with a defect: %+v %v", c, err)
	}
}

// dedupTool is a hidden fallback: a transport that silently replaces every
// request key with the action's logical idempotency key, whatever the
// system's idempotency control says.
type dedupTool struct{ model.ToolClient }

func (d dedupTool) Commit(ctx context.Context, call model.ToolCall) (model.ToolResult, error) {
	call.RequestKey = call.Action.IdempotencyKey
	return d.ToolClient.Commit(ctx, call)
}

type fallbackSystem struct{ inner model.System }

func (f fallbackSystem) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	env.Tool = dedupTool{env.Tool}
	return f.inner.Run(ctx, env, task)
}

// hiddenFallback is the reference system behind the deduplicating
// transport.
func hiddenFallback() *model.Definition {
	return wrapped("copperfin_dedup", func(cs copperfin.Controls, mutant string) (model.Factory, error) {
		inner, err := copperfin.NewFactory(cs, mutant)
		if err != nil {
			return nil, err
		}
		return func() model.System { return fallbackSystem{inner()} }, nil
	})
}

// TestHiddenFallbackIsInvalidGreen: behind a hidden deduplicating
// transport, removing idempotency and readback no longer duplicates the
// refund although the fault fired: the pair is an invalid green, not
// reassurance.
func TestHiddenFallbackIsInvalidGreen(t *testing.T) {
	base := assay.Setup{Fixture: copperfin.Copperfin()}
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	off := typed.Without(copperfin.Idempotency).Without(copperfin.EffectReadback)
	s, _ := model.SingleFault("timeout_after_commit", copperfin.ConfigOfControls(typed))
	c, err := assay.ContrastOf(hiddenFallback(), base, s, names(typed), names(off))
	if err != nil {
		t.Fatal(err)
	}
	if c.Class != assay.InvalidGreen || !c.Off.Reached || c.Off.Fired != 1 || c.Off.Effects != 1 || !c.Off.Held() {
		t.Fatalf("hidden fallback: %+v", c)
	}
	if !strings.HasPrefix(c.Reason, "control off is still safe although the fault fired (1)") {
		t.Errorf("reason %q", c.Reason)
	}
	// the same pair on the reference system shows leverage
	c, err = assay.ContrastOf(refDef(), base, s, names(typed), names(off))
	if err != nil {
		t.Fatal(err)
	}
	if c.Class != assay.LeverageShown || c.Off.Effects != 2 {
		t.Fatalf("reference: %+v", c)
	}
	// a fault scheduled past the run never fires: invalid green too
	late := *s
	late.Faults = []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 3, Kind: "timeout_after_commit"}}
	c, err = assay.ContrastOf(refDef(), base, &late, names(typed), names(off))
	if err != nil {
		t.Fatal(err)
	}
	if c.Class != assay.InvalidGreen || c.Reason != "control off is still safe because the fault did not reach its path (reached false, fired 0)" {
		t.Fatalf("unreached: %+v", c)
	}
	// a control that does not act: control ineffective
	c, err = assay.ContrastOf(wrapped("uncontrolled", func(copperfin.Controls, string) (model.Factory, error) { return copperfin.Factory(0), nil }), base, s, names(typed), names(off))
	if err != nil {
		t.Fatal(err)
	}
	if c.Class != assay.ControlIneffective {
		t.Fatalf("uncontrolled: %+v", c)
	}
}

// TestCoefficients: under the baseline each kind whose defence is
// controls only (absent there) transfers into exactly the invariants it threatens
// (T = 1 over all its runs, against 0 of the matched no-fault runs) and
// into no other; a kind whose defence is a behaviour of the reference
// system (present in every profile) transfers into nothing; under typed
// every T is 0. Over the whole catalogue recorded_agrees_with_ledger is
// checked too (not over the paper's set): the baseline's five duplicate
// kinds transfer into it (its record names one of the two refunds), and
// so do the six kinds under which fail_closed denies a refund the
// provider made; no kind threatens it, so it is listed here.
func TestCoefficients(t *testing.T) {
	ledger := map[string]bool{}
	for _, k := range []string{"timeout_after_commit", "malformed_response", "output_drift", "tool_timeout", "checkpoint_rollback"} {
		ledger["baseline "+k] = true
	}
	for _, k := range []string{"timeout_after_commit", "partial_success_response", "malformed_response", "output_drift", "checkpoint_rollback", "drop_effect_receipt"} {
		ledger["fail_closed "+k] = true
	}
	for _, v := range views {
		ref := v.get(t).Base
		// eight built-in invariants, and recorded_agrees_with_ledger and
		// retry_paced outside the paper's set
		if len(ref.Coefficients) != 3*v.kinds*(8+2*btoi(!v.compat)) {
			t.Fatalf("%s: %d coefficients", v.name, len(ref.Coefficients))
		}
		ones, ledgerOnes := 0, 0
		for _, c := range ref.Coefficients {
			if c.Invariant == model.InvRecordedAgreesWithLedger {
				want := 0.0
				if ledger[c.Profile+" "+c.Kind] {
					want = 1
					ledgerOnes++
				}
				if c.T != want || c.Runs != c.BaselineRuns || c.BaselineViolations != 0 || c.Violations != int(want)*c.Runs {
					t.Errorf("%s %+v: want T %v", v.name, c, want)
				}
				continue
			}
			spec, _ := model.Spec(c.Kind)
			threat := false
			for _, x := range spec.Threatens {
				threat = threat || x == c.Invariant
			}
			want := 0.0
			if c.Profile == "baseline" && threat && len(copperfin.Nominated(spec.Kind)) > 0 && copperfin.MutantFor(spec.Kind) == "" {
				want = 1
				ones++
			}
			if c.T != want || c.Runs != c.BaselineRuns || c.BaselineViolations != 0 || c.Violations != int(want)*c.Runs {
				t.Errorf("%s %+v: want T %v", v.name, c, want)
			}
		}
		// the whole catalogue adds three kinds and the five of the model's
		// arguments and context (tenant_swap threatens two invariants):
		// 19 ones, was 13 with 30 kinds; the ledger's eleven are unchanged
		// (none of the five new kinds touches the record)
		if ones != 10+9*btoi(!v.compat) || ledgerOnes != 11*btoi(!v.compat) {
			t.Errorf("%s: %d coefficients of 1, %d of recorded_agrees_with_ledger", v.name, ones, ledgerOnes)
		}
		for _, c := range ref.Coefficients {
			if c.Profile == "baseline" && c.Kind == "subject_swap" && c.Invariant == model.InvRightSubject && (c.Runs != 212 && v.compat || c.Runs != 104 && !v.compat || c.Violations != c.Runs) {
				t.Errorf("%+v", c)
			}
			if c.Profile == "baseline" && c.Kind == "tool_timeout" && c.Invariant == model.InvEffectAtMostOnce && (c.Runs != 42 || c.Violations != 42) {
				t.Errorf("%+v", c)
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func diagnosisOf(t *testing.T, st *assay.Study, profile, kind string) assay.Diagnosis {
	t.Helper()
	for _, d := range st.Diagnoses {
		if d.Profile == profile && d.Kind == kind && d.Config == assay.DefaultConfig {
			return d
		}
	}
	t.Fatalf("no diagnosis for %s/%s", profile, kind)
	return assay.Diagnosis{}
}

// TestDiagnoses: every baseline counterexample is diagnosed from its run;
// typed has none; fail_closed's six wrong denials (recorded_agrees_with_ledger)
// reject the operating scenario: no control added makes them hold, since
// deny_on_warning denies whatever the others find. The duplicate refund of the paper: first
// false at the second payment commit (seq 19: the fan-out, the join and a
// write-ahead checkpoint before each attempt come first), discriminated by
// the unknown first commit (seq 16), interrupted by stable logical-action
// identity (or readback), with no ledger readback in between: add
// recovery. Over the whole catalogue eight more kinds transfer in the
// baseline: three into a duplicate that idempotency interrupts, and the
// five of the model's arguments and context.
func TestDiagnoses(t *testing.T) {
	ref := evidence(t).Base
	ledger := func(kind string) bool {
		return slices.Contains([]string{"timeout_after_commit", "partial_success_response", "malformed_response", "output_drift", "checkpoint_rollback", "drop_effect_receipt"}, kind)
	}
	// 24, was 19 with 30 kinds: the five new kinds add five baseline
	// diagnoses (narrow authority)
	if len(ref.Diagnoses) != 24 {
		t.Fatalf("%d diagnoses, want the baseline's 18 and fail_closed's 6", len(ref.Diagnoses))
	}
	if n := len(paperEvidence(t).Base.Diagnoses); n != 10 {
		t.Errorf("%d diagnoses over the paper's ten", n)
	}
	d := diagnosisOf(t, ref, "baseline", "timeout_after_commit")
	want := assay.Diagnosis{Profile: "baseline", Config: "default", Kind: "timeout_after_commit", Trials: 38, Schedule: d.Schedule,
		Invariant: model.InvEffectAtMostOnce, Violated: []string{model.InvEffectAtMostOnce, model.InvRecordedAgreesWithLedger}, FirstSeq: 19, FirstEvent: model.EvToolCommit,
		FirstOrdinal: 2, FirstBoundary: model.Boundary("effect"), Detail: "second ledger effect for task ref-db32399f", // refund-O-731, redacted as in the record
		Signal: assay.Signal{Seq: 16, Event: model.EvToolCommit, Ordinal: 1, Outcome: "unknown",
			Detail:   "payments.refund key req-1 replayed false receipt false",
			Withheld: model.Signal("acknowledgement"), Manner: model.Manner("absent"), WarnSeq: 17, Warning: "unknown_outcome",
			Text: `tool.commit#1 at seq 16 returned "unknown" (payments.refund key req-1 replayed false receipt false) with the acknowledgement withheld (absent); the system warned unknown_outcome at seq 17`},
		Interrupting: []assay.Interruption{{Controls: []string{string(copperfin.Idempotency)}, RunVerdict: model.Recovered},
			{Controls: cl(copperfin.EffectReadback), RunVerdict: model.Recovered}},
		Control:     []string{string(copperfin.Idempotency)},
		Missing:     []string{"no ledger_readback read (ledger.readback) between the disturbance at seq 16 and the violation at seq 19"},
		Remediation: assay.AddRecovery,
		Why:         "adding idempotency alone makes the same schedule hold (recovered): add recovery",
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("timeout_after_commit diagnosis (-want +got):\n%s", diff)
	}
	if p := diagnosisOf(t, paperEvidence(t).Base, "baseline", "timeout_after_commit"); p.Trials != 189 || p.FirstSeq != 19 || p.Signal.Seq != 16 {
		t.Errorf("paper's timeout_after_commit diagnosis %+v", p)
	}
	classes := map[string]assay.Remediation{}
	boundaries := map[string]model.Boundary{}
	for _, d := range ref.Diagnoses {
		if d.Profile == "fail_closed" && ledger(d.Kind) && d.Invariant == model.InvRecordedAgreesWithLedger && d.Remediation == assay.RejectScenario && len(d.Control) == 0 {
			continue
		}
		if d.Profile != "baseline" {
			t.Errorf("%s/%s diagnosed: %+v", d.Profile, d.Kind, d)
		}
		classes[d.Kind] = d.Remediation
		boundaries[d.Kind] = d.FirstBoundary
	}
	wantClasses := map[string]assay.Remediation{
		"tenant_swap": assay.NarrowAuthority, "purpose_swap": assay.NarrowAuthority, "stale_context": assay.NarrowAuthority,
		"omitted_context": assay.NarrowAuthority, "malformed_tool_call": assay.NarrowAuthority,
		"subject_swap": assay.NarrowAuthority, "revoked_capability": assay.NarrowAuthority, "stale_policy": assay.NarrowAuthority,
		"cross_source_conflict": assay.NarrowAuthority, "concurrent_version_change": assay.NarrowAuthority,
		"timeout_after_commit": assay.AddRecovery, "checkpoint_rollback": assay.AddRecovery, "partial_success_response": assay.AddRecovery,
		"drop_effect_receipt": assay.AddRecovery, "break_trace_lineage": assay.ChangeArchitecture,
		"malformed_response": assay.AddRecovery, "output_drift": assay.AddRecovery, "tool_timeout": assay.AddRecovery,
	}
	if diff := cmp.Diff(wantClasses, classes); diff != "" {
		t.Errorf("remediation classes (-want +got):\n%s", diff)
	}
	if boundaries["break_trace_lineage"] != model.Boundary("proof") || boundaries["subject_swap"] != model.Boundary("effect") || boundaries["tool_timeout"] != model.Boundary("effect") {
		t.Errorf("boundaries %v", boundaries)
	}
	s := diagnosisOf(t, ref, "baseline", "subject_swap")
	if !cmp.Equal(s.Control, []string{string(copperfin.BindIdentity)}) || s.Signal.Detail != "subject ref-45b16f9b" /* O-732, redacted */ || s.Signal.WarnSeq != 0 || s.FirstSeq != 16 || s.Signal.Seq != 6 {
		t.Errorf("subject_swap diagnosis %+v", s)
	}
	tt := diagnosisOf(t, ref, "baseline", "tool_timeout")
	if !cmp.Equal(tt.Control, []string{string(copperfin.Idempotency)}) || tt.Signal.Withheld != model.Signal("acknowledgement") || tt.Signal.Manner != model.Manner("late") ||
		len(tt.Interrupting) != 1 || tt.FirstSeq != 19 {
		t.Errorf("tool_timeout diagnosis %+v", tt)
	}
	for e, b := range map[model.EventName]model.Boundary{model.EvMemoryRead: model.Boundary("memory"), model.EvBranchJoin: model.Boundary("branch_join"),
		model.EvClockSleep: model.Boundary("tool_call"), model.EvCheckpointLoad: model.Boundary("checkpoint_store"), model.EvClaim: model.Boundary("proof")} {
		if got := assay.EventBoundary(e); got != b {
			t.Errorf("EventBoundary(%s) = %s, want %s", e, got, b)
		}
	}
}

// TestDiagnoseRejectsScenario: when no control changes the outcome (a
// system that ignores its controls), the diagnosis rejects the operating
// scenario; a run that holds is not a counterexample.
func TestDiagnoseRejectsScenario(t *testing.T) {
	base := assay.Setup{Fixture: copperfin.Copperfin()}
	deaf := wrapped("deaf", func(copperfin.Controls, string) (model.Factory, error) { return copperfin.Factory(0), nil })
	s, _ := model.SingleFault("stale_policy", copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
	res, err := model.NewHarness(base.Fixture, base.Options).Run(copperfin.Factory(0), s)
	if err != nil {
		t.Fatal(err)
	}
	d, err := assay.Diagnose(deaf, base, paper.Roles, res)
	if err != nil {
		t.Fatal(err)
	}
	if d.Remediation != assay.RejectScenario || len(d.Interrupting) != 0 || d.Invariant != model.InvCurrentEntitlement {
		t.Errorf("%+v", d)
	}
	d, err = assay.Diagnose(refDef(), base, paper.Roles, res)
	if err != nil || d.Remediation != assay.NarrowAuthority || !cmp.Equal(d.Control, []string{string(copperfin.RefreshContext)}) {
		t.Errorf("reference: %+v %v", d, err)
	}
	typed, _ := model.SingleFault("stale_policy", copperfin.ConfigOfProfile(copperfin.ProfileTyped))
	cs, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	held, _ := model.NewHarness(base.Fixture, base.Options).Run(copperfin.Factory(cs), typed)
	if _, err := assay.Diagnose(refDef(), base, paper.Roles, held); err == nil || !strings.Contains(err.Error(), "not a counterexample") {
		t.Errorf("held run: %v", err)
	}
}

// TestVariation: configurations are drawn alongside faults. Over the
// paper's ten, the typed checkpoint-rollback resume (352 ms) misses the
// 340 ms deadline, so its worst configuration is retry_budget=1
// deadline_ms=340 and that configuration loses useful service; the retry
// budget changes nothing for any single fault. Over the whole catalogue a
// rate-limited call (its retry waits 100 ms) cannot retry within 340 ms
// either, under the baseline and typed.
func TestVariation(t *testing.T) {
	v := paperEvidence(t).Variation
	want := []string{"retry_budget=1 deadline_ms=340", "retry_budget=1 deadline_ms=2000", "retry_budget=2 deadline_ms=340", "retry_budget=2 deadline_ms=2000"}
	if diff := cmp.Diff(want, v.Configurations); diff != "" {
		t.Fatalf("configurations (-want +got):\n%s", diff)
	}
	per := map[string]int{}
	for _, s := range v.Signatures {
		if s.Profile == "typed" {
			per[s.Config] += s.Trials
		}
	}
	if diff := cmp.Diff(map[string]int{want[0]: 521, want[1]: 459, want[2]: 511, want[3]: 509}, per); diff != "" {
		t.Errorf("trials per configuration (-want +got):\n%s", diff)
	}
	varied := 0
	for _, w := range v.WorstConfigs {
		if w.AllEqual {
			continue
		}
		varied++
		if w.Profile != "typed" || w.Kind != "checkpoint_rollback" || w.Config != want[0] || w.Q.Serve.Count != 0 || w.Q.Recover.Count != w.Q.Recover.Trials || w.Q.Serve.Trials != 54 {
			t.Errorf("worst config %+v", w)
		}
	}
	if varied != 1 || len(v.WorstConfigs) != 30 {
		t.Errorf("%d varied of %d worst configurations", varied, len(v.WorstConfigs))
	}
	if s := sigOf(t, v, "typed", "checkpoint_rollback", want[2]); s.Q.Serve.Count != 0 || s.Q.Recover.Count != s.Trials {
		t.Errorf("typed checkpoint_rollback at 340 ms: %+v", s.Q)
	}
	if s := sigOf(t, v, "typed", "checkpoint_rollback", want[3]); s.Q.Serve.Count != s.Trials {
		t.Errorf("typed checkpoint_rollback at 2000 ms: %+v", s.Q)
	}
	p := placement(t, v, "typed", want[0])
	if p.Region != assay.RegionContainedButDead || p.Trials != 521 || !strings.HasPrefix(p.Reasons[1], "serve floor 80% missed: serve 413 of 521 = 79.3%") {
		t.Errorf("typed under %s: %s %q", want[0], p.Region, p.Reasons)
	}
	for _, c := range want[1:] {
		if p := placement(t, v, "typed", c); p.Region != assay.RegionUsefulButUnproved {
			t.Errorf("typed under %s: %s", c, p.Region)
		}
	}

	all := evidence(t).Variation
	type wc struct {
		profile, kind, config string
		serve, recover, n     int
	}
	var got []wc
	for _, w := range all.WorstConfigs {
		if !w.AllEqual {
			got = append(got, wc{w.Profile, w.Kind, w.Config, w.Q.Serve.Count, w.Q.Recover.Count, w.Q.Serve.Trials})
		}
	}
	wantVaried := []wc{
		{"baseline", "rate_limit", want[0], 0, 0, 9},
		{"typed", "rate_limit", want[0], 0, 0, 9},
		{"typed", "checkpoint_rollback", want[0], 0, 17, 17},
	}
	if diff := cmp.Diff(wantVaried, got, cmp.AllowUnexported(wc{})); diff != "" || len(all.WorstConfigs) != 105 {
		t.Errorf("catalogue: varied worst configurations of %d (-want +got):\n%s", len(all.WorstConfigs), diff)
	}
	if s := sigOf(t, all, "typed", "rate_limit", want[3]); s.Q.Serve.Count != s.Trials || s.Q.Recover.Count != s.Trials {
		t.Errorf("typed rate_limit at 2000 ms: %+v", s.Q)
	}
	for _, c := range all.Configurations {
		if p := placement(t, all, "typed", c); p.Region != assay.RegionContainedButDead {
			t.Errorf("catalogue: typed under %s: %s", c, p.Region)
		}
	}
	for _, bad := range []assay.Variation{{assay.RetryBudgets(0)}, {assay.Deadlines(-1)}, {assay.RetryBudgets(1, 1)},
		{assay.RetryBudgets(1), assay.RetryBudgets(2)}, {assay.RetryBudgets()}} {
		cfg := paperConfig()
		cfg.Variation = bad
		if _, err := assay.Gather(refDef(), cfg); err == nil {
			t.Errorf("variation %v: want an error", bad)
		}
	}
}

// TestStudyStops: a declared abort on the first duplicate stops every
// baseline run of timeout_after_commit (189) and checkpoint_rollback (193)
// at once over the paper's ten, and the study and its report say so; their
// duplicates are still counted. Under DefaultStop no trial run stops, but
// the off run of budget_exhaustion's pair (the unbounded_retry defect) is
// stopped by max_faults right where the budget violation is recorded.
func TestStudyStops(t *testing.T) {
	cfg := paperConfig()
	cfg.Base.Options.Stop = model.Stop{Abort: "duplicate_effects"}
	cfg.Profiles = []model.NamedConfig{profileOf(copperfin.ProfileBaseline), profileOf(copperfin.ProfileTyped)}
	st, err := assay.RunStudy(refDef(), assay.StudyConfig{Name: "stops", Base: cfg.Base, Profiles: cfg.Profiles,
		Trials: 2000, Seed: 188, Compat: true, Envelope: cfg.Envelope, Roles: cfg.Roles})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]assay.StopCount{{Profile: "baseline", Condition: "abort", Runs: 382}}, st.Stops); diff != "" {
		t.Errorf("stops (-want +got):\n%s", diff)
	}
	s := sigOf(t, st, "baseline", "timeout_after_commit", assay.DefaultConfig)
	if s.Harms.Stopped != 189 || s.Harms.DuplicateEffect != 189 {
		t.Errorf("harms %+v", s.Harms)
	}
	ev := &assay.Evidence{Base: st, Variation: st}
	var b strings.Builder
	if err := ev.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "stops study, baseline: 382 runs stopped by abort") {
		t.Errorf("report does not say the runs stopped:\n%s", b.String())
	}
	cfg.Base.Options.Stop = model.Stop{Abort: "panic"}
	if _, err := assay.Gather(refDef(), cfg); err == nil || !strings.Contains(err.Error(), `unknown abort metric "panic"`) {
		t.Errorf("bad stop: %v", err)
	}

	all := evidence(t)
	for _, st := range []*assay.Study{all.Base, all.Variation} {
		if len(st.Stops) != 0 {
			t.Errorf("%s: trial runs stopped: %+v", st.Name, st.Stops)
		}
	}
	wantPS := []assay.PairStop{
		{Profile: "baseline", Config: "default", Kind: "budget_exhaustion", Side: "off", Condition: "max_faults", Violated: []string{model.InvBudget}},
		{Profile: "typed", Config: "default", Kind: "budget_exhaustion", Side: "off", Condition: "max_faults", Violated: []string{model.InvBudget}},
	}
	if diff := cmp.Diff(wantPS, all.Base.PairStops); diff != "" || len(all.Variation.PairStops) != 8 {
		t.Errorf("pair stops (-want +got), %d in the variation:\n%s", len(all.Variation.PairStops), diff)
	}
	b.Reset()
	if err := all.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"no trial run met a declared stop condition",
		"base study, counterfactual pair typed/budget_exhaustion (default), off run: stopped by max_faults; violated by then: budget"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestGatherIsDeterministic: two gatherings give byte-equal evidence: a
// gathering of smallConfig equals the one the shared small dossier was
// built from; FAULTLINE_HEAVY=1 gathers the whole catalogue (the default
// config) a second time and compares it with the shared one.
func TestGatherIsDeterministic(t *testing.T) {
	if raceDetector && !heavy() {
		t.Skip("the second gathering of the small config is TestDossierDiffTriggers' second build, which runs it under the race detector; go test ./... runs this test")
	}
	var a, b *assay.Evidence
	var err error
	if !heavy() {
		// the same goroutines over a smaller input, and the race
		// detector's share of the check
		t.Log("over the small config; FAULTLINE_HEAVY=1 gathers the whole catalogue again")
		_, d := smallDossier(t)
		a = d.Evidence
		b, err = assay.Gather(refDef(), smallConfig())
	} else {
		a = evidence(t)
		b, err = assay.Gather(refDef(), paper.EvidenceConfig())
	}
	if err != nil {
		t.Fatal(err)
	}
	var x, y strings.Builder
	if err := paper.Encode(&x, a); err != nil {
		t.Fatal(err)
	}
	if err := paper.Encode(&y, b); err != nil {
		t.Fatal(err)
	}
	if x.String() != y.String() {
		t.Fatal("two gatherings differ")
	}
}

// TestCompositionPairs: the audit's composition pairs, from seed 1 and
// 10000 draws per control, over the whole catalogue and over the paper's
// ten: exact witnesses for the controls that have one, and for each a
// matched pair (assay.ContrastOf) that shows leverage while dropping any
// one fault does not. The others report the draws they ran.
func TestCompositionPairs(t *testing.T) {
	tc := func(ev, kind string, o int) model.FaultEntry {
		return model.FaultEntry{Event: model.EventName(ev), Ordinal: o, Kind: kind}
	}
	want := map[string]map[copperfin.Control][]model.FaultEntry{
		"catalogue": {
			// with do_not_retry drawn on every fixture too, pre_effect_authority
			// has no witness among seed 1's 10000 draws (draw 2,636 with
			// server_error and network_error only: a connection refused at
			// the first commit, then the capability revoked before the
			// retry), state_precondition's is draw 4,428 with a timeout before
			// the send (2,916 before; 2,154 with a tool_timeout before the
			// transport kinds), evidence_gate's draw 69, a reply on another
			// trace then a timeout (18 before: a malformed reply, then a reply
			// on another trace), effect_readback's draw 416, a rollback of the
			// record then a false success at the retry (854 before, with a
			// sandbox denial: the worker denies a refund the ledger holds).
			// With the catalogue's 35 kinds, refresh_context's witness is not
			// among seed 1's 10000 draws (656 with 30 kinds); idempotency's comes at
			// draw 36 (was 30 with 30 kinds). evidence_gate's was 155 with 30
			// kinds, 84 without the ledger check: without the gate a reply on
			// another trace leaves the record without the refund
			copperfin.StatePrecondition: {tc("tool.commit", "state_version_change", 1), tc("tool.commit", "timeout_before_send", 1)},
			copperfin.Idempotency:       {tc("ledger.readback", "lagging_readback", 1), tc("tool.commit", "output_drift", 1)},
			copperfin.EffectReadback:    {tc("checkpoint.write", "checkpoint_rollback", 3), tc("tool.commit", "false_success", 2)},
			copperfin.EvidenceGate:      {tc("tool.commit", "break_trace_lineage", 1), tc("tool.commit", "tool_timeout", 1)},
		},
		"paper188": {
			copperfin.EvidenceGate: {tc("tool.commit", "timeout_after_commit", 1), tc("evidence.readback", "drop_effect_receipt", 1)},
		},
	}
	draws := map[string]map[copperfin.Control]int{
		"catalogue": {copperfin.StatePrecondition: 4428, copperfin.Idempotency: 36, copperfin.EffectReadback: 416, copperfin.EvidenceGate: 69},
		"paper188":  {copperfin.EvidenceGate: 261},
	}
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	base := paper.EvidenceConfig().Base
	for _, v := range views {
		cps := v.get(t).Compositions
		if len(cps) != len(copperfin.PaperControls) {
			t.Fatalf("%s: %d composition pairs", v.name, len(cps))
		}
		for i, p := range cps {
			w, found := want[v.name][copperfin.Control(p.Control)]
			if p.Control != string(copperfin.PaperControls[i]) || p.Found != found || p.Seed != 1 || p.Profile != "typed" {
				t.Errorf("%s %s: found %t", v.name, p.Control, p.Found)
				continue
			}
			if !found {
				if p.Draws != 10000 || p.Schedule != nil || p.ReplayOff != "" {
					t.Errorf("%s %s: %+v", v.name, p.Control, p)
				}
				continue
			}
			if diff := cmp.Diff(w, p.Schedule.Faults); diff != "" || p.Draw != draws[v.name][copperfin.Control(p.Control)] || p.Draws != p.Draw {
				t.Errorf("%s %s: draw %d of %d (-want +got):\n%s", v.name, p.Control, p.Draw, p.Draws, diff)
			}
			if p.ReplayOff != "faultline replay --profile typed --without "+string(p.Control)+" composition-"+string(p.Control)+".json" ||
				p.ReplayOn != "faultline replay --profile typed composition-"+string(p.Control)+".json" {
				t.Errorf("%s %s: replay %q %q", v.name, p.Control, p.ReplayOff, p.ReplayOn)
			}
			c, err := assay.ContrastOf(refDef(), base, p.Schedule, names(typed), names(typed.Without(copperfin.Control(p.Control))))
			if err != nil || c.Class != assay.LeverageShown || !slices.Contains(c.Off.Violated, p.Invariant) || c.Off.FirstSeq != p.FirstSeq || c.On.RunVerdict != p.OnVerdict {
				t.Errorf("%s %s: contrast %+v %v", v.name, p.Control, c, err)
			}
			for j := range p.Schedule.Faults {
				s := *p.Schedule
				s.Faults = slices.Delete(slices.Clone(s.Faults), j, j+1)
				c, err := assay.ContrastOf(refDef(), base, &s, names(typed), names(typed.Without(copperfin.Control(p.Control))))
				if err != nil || c.Class == assay.LeverageShown && slices.Contains(c.Off.Violated, p.Invariant) {
					t.Errorf("%s %s: without fault %d the pair still shows: %+v %v", v.name, p.Control, j, c, err)
				}
			}
		}
	}
}

// TestGatherWithoutVariationRunsOnce: with no Variation the variation
// study is the base study under its own name: Gather builds the system as
// often as the base study alone, and a bad config is one error line.
func TestGatherWithoutVariationRunsOnce(t *testing.T) {
	def := refDef()
	var built atomic.Int64
	configure := def.Configure
	def.Configure = func(system json.RawMessage) (model.Factory, error) { built.Add(1); return configure(system) }
	cfg := smallConfig()
	cfg.Variation, cfg.Compositions.Draws, cfg.Trials = nil, 0, 20
	ev, err := assay.Gather(def, cfg)
	if err != nil {
		t.Fatal(err)
	}
	gathered := built.Swap(0)
	base, err := assay.RunStudy(def, assay.StudyConfig{Name: "base", Base: cfg.Base, Profiles: cfg.Profiles, Trials: cfg.Trials,
		Seed: cfg.Seed, Compat: cfg.Compat, Envelope: cfg.Envelope, Roles: cfg.Roles})
	if err != nil {
		t.Fatal(err)
	}
	if alone := built.Load(); gathered != alone || alone == 0 {
		t.Fatalf("Gather built the system %d times, the base study alone %d", gathered, alone)
	}
	if ev.Variation.Name != "variation" || ev.Base.Name != "base" || ev.Variation.Runs != base.Runs || len(ev.Variation.Signatures) != len(base.Signatures) {
		t.Fatalf("variation study %q, %d runs (base %d)", ev.Variation.Name, ev.Variation.Runs, base.Runs)
	}
	cfg.Base.Options.Stop = model.Stop{Abort: "panic"}
	if _, err := assay.Gather(def, cfg); err == nil || strings.Count(err.Error(), `unknown abort metric "panic"`) != 1 {
		t.Fatalf("bad stop: %v", err)
	}
}
