package assay_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/model/copperfin"
)

// paperConfig is the default evidence configuration restricted to the
// paper's ten modes, so the figures below are the paper's whatever else the
// catalogue holds.
func paperConfig() assay.EvidenceConfig {
	cfg := assay.DefaultEvidenceConfig()
	cfg.Compat = true
	return cfg
}

var (
	evOnce sync.Once
	evVal  *assay.Evidence
	evErr  error
)

// evidence gathers paperConfig once for the package's tests.
func evidence(t *testing.T) *assay.Evidence {
	t.Helper()
	evOnce.Do(func() { evVal, evErr = assay.Gather(paperConfig()) })
	if evErr != nil {
		t.Fatal(evErr)
	}
	return evVal
}

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

// TestStudyMatchesRun: the reference study's counts per kind and overall
// equal those of Run, which executes every one of the 2000 trials, for each
// profile: running each distinct schedule once and counting it per trial
// changes no figure.
func TestStudyMatchesRun(t *testing.T) {
	ref := evidence(t).Reference
	for _, p := range model.Profiles {
		cs, _ := model.ProfileControls(p)
		rep, err := assay.Run(assay.Config{Controls: cs, Trials: 2000, Seed: 188, Compat: true})
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, spec := range model.Catalogue() {
			s := sigOf(t, ref, string(p), spec.Kind, assay.DefaultConfig)
			k := rep.ByKind[spec.Kind]
			got := []int{s.Trials, s.Q.Detect.Count, s.Q.Contain.Count, s.Q.Recover.Count, s.Q.Prove.Count, s.Q.Serve.Count,
				s.Harms.UnsafeEscape, s.Harms.DuplicateEffect, s.Harms.UnprovedRelease, s.Harms.ServiceLoss}
			want := []int{k.Trials, k.Detected, k.Contained, k.Recovered, k.Verified, k.UsefulService,
				k.UnsafeEscape, k.DuplicateEffect, k.UnverifiableRelease, k.ServiceLoss}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s/%s (-Run +study):\n%s", p, spec.Kind, diff)
			}
			total += s.Trials
		}
		if total != 2000 {
			t.Errorf("%s: %d trials", p, total)
		}
	}
}

// TestSignatures pins signatures as exact counts with their intervals.
func TestSignatures(t *testing.T) {
	ref := evidence(t).Reference
	s := sigOf(t, ref, "typed", "break_trace_lineage", assay.DefaultConfig)
	if s.Trials != 188 || s.Q.Detect.Count != 188 || s.Q.Contain.Count != 188 || s.Q.Recover.Count != 0 || s.Q.Prove.Count != 0 || s.Q.Serve.Count != 0 {
		t.Errorf("typed break_trace_lineage: %+v", s.Q)
	}
	if s.Boundary != model.BoundaryEffect || s.Phase != model.PhaseBeforeCommit || !s.Critical {
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

// TestPlacements: with the documented floors, the baseline lands in unsafe
// escape, fail_closed in contained but dead, and typed in useful but
// unproved: every hard invariant holds and its overall recovery and
// service (90.6 %) meet their floors, but proof in the evidence domain is
// 53.0 %, under the 80 % proof floor, because broken trace lineage is held
// rather than proven.
func TestPlacements(t *testing.T) {
	ref := evidence(t).Reference
	cases := []struct {
		profile string
		region  assay.Region
		reasons []string
	}{
		{"baseline", assay.RegionUnsafeEscape, []string{
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
		{"typed", assay.RegionUsefulButUnproved, []string{
			"prove floor 80% missed: prove 212 of 400 = 53.0% [95% CI 48.1%, 57.8%] (domain evidence, worst class break_trace_lineage 0 of 188, configuration default)",
		}},
		{"fail_closed", assay.RegionContainedButDead, []string{
			"recover floor 80% missed: recover 1007 of 2000 = 50.3% [95% CI 48.2%, 52.5%] (overall, worst class timeout_after_commit 0 of 189, configuration default)",
			"prove floor 80% missed: prove 0 of 400 = 0.0% [95% CI 0.0%, 1.0%] (domain tool, worst class timeout_after_commit 0 of 189, configuration default)",
			"prove floor 80% missed: prove 207 of 400 = 51.7% [95% CI 46.9%, 56.6%] (domain state, worst class checkpoint_rollback 0 of 193, configuration default)",
			"prove floor 80% missed: prove 0 of 400 = 0.0% [95% CI 0.0%, 1.0%] (domain evidence, worst class drop_effect_receipt 0 of 212, configuration default)",
			"serve floor 80% missed: serve 1007 of 2000 = 50.3% [95% CI 48.2%, 52.5%] (overall, worst class timeout_after_commit 0 of 189, configuration default)",
		}},
	}
	for _, c := range cases {
		p := placement(t, ref, c.profile, "all")
		if p.Region != c.region || p.Trials != 2000 {
			t.Errorf("%s: region %q over %d trials, want %q", c.profile, p.Region, p.Trials, c.region)
		}
		if diff := cmp.Diff(c.reasons, p.Reasons); diff != "" {
			t.Errorf("%s reasons (-want +got):\n%s", c.profile, diff)
		}
	}
	if d := placement(t, ref, "typed", "all").Decision; d != "shadow or hold" {
		t.Errorf("typed decision %q", d)
	}
}

// TestEnvelopeFloorsDecide: the same typed signatures land in the release
// envelope when proof is checked overall (90.6 %) instead of per domain,
// and in contained but dead when the service floor is 95 %: the region
// follows the declared floors, never a single score.
func TestEnvelopeFloorsDecide(t *testing.T) {
	ref := evidence(t).Reference
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
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v: want an error", bad)
		}
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

// TestPairsTypedShowLeverage: for every kind, removing its nominated
// controls from typed transfers the fault into the invariant the spec
// predicts, and restoring them contains it; for kinds with two nominated
// controls, removing one alone is an invalid green that the other carries.
func TestPairsTypedShowLeverage(t *testing.T) {
	ev := evidence(t)
	for _, st := range []*assay.Study{ev.Reference, ev.Variation} {
		for _, spec := range model.Catalogue() {
			for _, conf := range st.Configurations {
				p := pairOf(t, st, "typed", spec.Kind, conf)
				if p.Contrast.Class != assay.LeverageShown || !p.Predicted {
					t.Errorf("%s %s/%s: %s predicted %t: %s", st.Name, spec.Kind, conf, p.Contrast.Class, p.Predicted, p.Contrast.Reason)
				}
				if !p.Contrast.Off.Reached || p.Contrast.Off.Fired != 1 || !p.Contrast.On.Held() {
					t.Errorf("%s %s/%s: off %+v on %+v", st.Name, spec.Kind, conf, p.Contrast.Off, p.Contrast.On)
				}
				if len(spec.Nominated) == 2 {
					a, b := spec.Nominated[0], spec.Nominated[1]
					if len(p.PerControl) != 2 || p.PerControl[0].Contrast.Class != assay.InvalidGreen ||
						!cmp.Equal(p.PerControl[0].CarriedBy, []model.Control{b}) || !cmp.Equal(p.PerControl[1].CarriedBy, []model.Control{a}) {
						t.Errorf("%s %s/%s: per control %+v", st.Name, spec.Kind, conf, p.PerControl)
					}
				}
			}
		}
	}
	p := pairOf(t, ev.Reference, "typed", "timeout_after_commit", assay.DefaultConfig)
	if p.Contrast.Off.Effects != 2 || p.Contrast.Off.FirstSeq != 16 || p.Contrast.On.RunVerdict != model.Recovered ||
		p.PerControl[0].Finding != "removing idempotency alone leaves the fault contained: effect_readback silently carries the result" {
		t.Errorf("typed timeout_after_commit pair %+v", p)
	}
	// fail_closed: deny_on_warning silently carries timeout_after_commit
	f := pairOf(t, ev.Reference, "fail_closed", "timeout_after_commit", assay.DefaultConfig)
	if f.Contrast.Class != assay.InvalidGreen || !cmp.Equal(f.CarriedBy, []model.Control{model.DenyOnWarning}) || f.Predicted {
		t.Errorf("fail_closed timeout_after_commit pair: %s %v %s", f.Contrast.Class, f.CarriedBy, f.Contrast.Reason)
	}
	n := map[assay.PairClass]int{}
	for _, p := range ev.Reference.Pairs {
		n[p.Contrast.Class]++
	}
	if n[assay.LeverageShown] != 29 || n[assay.InvalidGreen] != 1 || n[assay.ControlIneffective] != 0 {
		t.Errorf("reference pair classes %v", n)
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
var hiddenFallback = assay.System{Name: "copperfin+dedup", Factory: func(cs model.Controls) model.Factory {
	inner := copperfin.Factory(cs)
	return func() model.System { return fallbackSystem{inner()} }
}}

// TestHiddenFallbackIsInvalidGreen: behind a hidden deduplicating
// transport, removing idempotency and readback no longer duplicates the
// refund although the fault fired: the pair is an invalid green, not
// reassurance.
func TestHiddenFallbackIsInvalidGreen(t *testing.T) {
	base := assay.Setup{Fixture: model.Copperfin()}
	typed, _ := model.ProfileControls(model.ProfileTyped)
	off := typed.Without(model.Idempotency).Without(model.EffectReadback)
	s, _ := model.SingleFault("timeout_after_commit", model.ConfigOfControls(typed))
	c, err := assay.ContrastOf(hiddenFallback, base, s, typed, off)
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
	c, err = assay.ContrastOf(assay.Reference(), base, s, typed, off)
	if err != nil {
		t.Fatal(err)
	}
	if c.Class != assay.LeverageShown || c.Off.Effects != 2 {
		t.Fatalf("reference: %+v", c)
	}
	// a fault scheduled past the run never fires: invalid green too
	late := *s
	late.Faults = []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 3, Kind: "timeout_after_commit"}}
	c, err = assay.ContrastOf(assay.Reference(), base, &late, typed, off)
	if err != nil {
		t.Fatal(err)
	}
	if c.Class != assay.InvalidGreen || c.Reason != "control off is still safe because the fault did not reach its path (reached false, fired 0)" {
		t.Fatalf("unreached: %+v", c)
	}
	// a control that does not act: control ineffective
	c, err = assay.ContrastOf(assay.System{Name: "uncontrolled", Factory: func(model.Controls) model.Factory { return copperfin.Factory(0) }},
		base, s, typed, off)
	if err != nil {
		t.Fatal(err)
	}
	if c.Class != assay.ControlIneffective {
		t.Fatalf("uncontrolled: %+v", c)
	}
}

// TestCoefficients: under the baseline each kind transfers into exactly
// the invariants it threatens (T = 1 over all its runs, against 0 of the
// matched no-fault runs) and into no other; under typed every T is 0.
func TestCoefficients(t *testing.T) {
	ref := evidence(t).Reference
	if len(ref.Coefficients) != 3*10*4 {
		t.Fatalf("%d coefficients", len(ref.Coefficients))
	}
	for _, c := range ref.Coefficients {
		spec, _ := model.Spec(c.Kind)
		threat := false
		for _, x := range spec.Threatens {
			threat = threat || x == c.Invariant
		}
		want := 0.0
		if c.Profile == "baseline" && threat {
			want = 1
		}
		if c.T != want || c.Runs != c.BaselineRuns || c.BaselineViolations != 0 || c.Violations != int(want)*c.Runs {
			t.Errorf("%+v: want T %v", c, want)
		}
	}
	for _, c := range ref.Coefficients {
		if c.Profile == "baseline" && c.Kind == "subject_swap" && c.Invariant == model.InvRightSubject && (c.Runs != 212 || c.Violations != 212) {
			t.Errorf("%+v", c)
		}
	}
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
// typed and fail_closed have none. The duplicate refund of seed 000: first
// false at the second payment commit, discriminated by the unknown first
// commit, interrupted by stable logical-action identity (or readback), with
// no ledger readback in between: add recovery.
func TestDiagnoses(t *testing.T) {
	ref := evidence(t).Reference
	if len(ref.Diagnoses) != 10 {
		t.Fatalf("%d diagnoses, want the baseline's 10", len(ref.Diagnoses))
	}
	d := diagnosisOf(t, ref, "baseline", "timeout_after_commit")
	want := assay.Diagnosis{Profile: "baseline", Config: "default", Kind: "timeout_after_commit", Trials: 189, Schedule: d.Schedule,
		Invariant: model.InvEffectAtMostOnce, Violated: []string{model.InvEffectAtMostOnce}, FirstSeq: 12, FirstEvent: model.EvToolCommit,
		FirstOrdinal: 2, FirstBoundary: model.BoundaryEffect, Detail: "second ledger effect for task refund-O-731",
		Signal: assay.Signal{Seq: 10, Event: model.EvToolCommit, Ordinal: 1, Outcome: "unknown",
			Detail:   "payments.refund key req-1 replayed false receipt false",
			Withheld: model.SignalAcknowledgement, Manner: model.MannerAbsent, WarnSeq: 11, Warning: "unknown_outcome",
			Text: `tool.commit#1 at seq 10 returned "unknown" (payments.refund key req-1 replayed false receipt false) with the acknowledgement withheld (absent); the system warned unknown_outcome at seq 11`},
		Interrupting: []assay.Interruption{{Controls: []model.Control{model.Idempotency}, RunVerdict: model.Recovered},
			{Controls: []model.Control{model.EffectReadback}, RunVerdict: model.Recovered}},
		Control:     []model.Control{model.Idempotency},
		Missing:     []string{"no ledger_readback read (ledger.readback) between the disturbance at seq 10 and the violation at seq 12"},
		Remediation: assay.AddRecovery,
		Why:         "adding idempotency alone makes the same schedule hold (recovered): add recovery",
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("timeout_after_commit diagnosis (-want +got):\n%s", diff)
	}
	classes := map[string]assay.Remediation{}
	boundaries := map[string]model.Boundary{}
	for _, d := range ref.Diagnoses {
		classes[d.Kind] = d.Remediation
		boundaries[d.Kind] = d.FirstBoundary
	}
	wantClasses := map[string]assay.Remediation{
		"subject_swap": assay.NarrowAuthority, "revoked_capability": assay.NarrowAuthority, "stale_policy": assay.NarrowAuthority,
		"cross_source_conflict": assay.NarrowAuthority, "concurrent_version_change": assay.NarrowAuthority,
		"timeout_after_commit": assay.AddRecovery, "checkpoint_rollback": assay.AddRecovery, "partial_success_response": assay.AddRecovery,
		"drop_effect_receipt": assay.AddRecovery, "break_trace_lineage": assay.ChangeArchitecture,
	}
	if diff := cmp.Diff(wantClasses, classes); diff != "" {
		t.Errorf("remediation classes (-want +got):\n%s", diff)
	}
	if boundaries["break_trace_lineage"] != model.BoundaryProof || boundaries["subject_swap"] != model.BoundaryEffect {
		t.Errorf("boundaries %v", boundaries)
	}
	s := diagnosisOf(t, ref, "baseline", "subject_swap")
	if !cmp.Equal(s.Control, []model.Control{model.BindIdentity}) || s.Signal.Detail != "subject O-732" || s.Signal.WarnSeq != 0 {
		t.Errorf("subject_swap diagnosis %+v", s)
	}
}

// TestDiagnoseRejectsScenario: when no control changes the outcome (a
// system that ignores its controls), the diagnosis rejects the operating
// scenario; a run that holds is not a counterexample.
func TestDiagnoseRejectsScenario(t *testing.T) {
	base := assay.Setup{Fixture: model.Copperfin()}
	deaf := assay.System{Name: "deaf", Factory: func(model.Controls) model.Factory { return copperfin.Factory(0) }}
	s, _ := model.SingleFault("stale_policy", model.ConfigOfProfile(model.ProfileBaseline))
	res, err := model.NewHarness(base.Fixture, base.Options).Run(copperfin.Factory(0), s)
	if err != nil {
		t.Fatal(err)
	}
	d, err := assay.Diagnose(deaf, base, res)
	if err != nil {
		t.Fatal(err)
	}
	if d.Remediation != assay.RejectScenario || len(d.Interrupting) != 0 || d.Invariant != model.InvCurrentEntitlement {
		t.Errorf("%+v", d)
	}
	d, err = assay.Diagnose(assay.Reference(), base, res)
	if err != nil || d.Remediation != assay.NarrowAuthority || !cmp.Equal(d.Control, []model.Control{model.RefreshContext}) {
		t.Errorf("reference: %+v %v", d, err)
	}
	typed, _ := model.SingleFault("stale_policy", model.ConfigOfProfile(model.ProfileTyped))
	cs, _ := model.ProfileControls(model.ProfileTyped)
	held, _ := model.NewHarness(base.Fixture, base.Options).Run(copperfin.Factory(cs), typed)
	if _, err := assay.Diagnose(assay.Reference(), base, held); err == nil || !strings.Contains(err.Error(), "not a counterexample") {
		t.Errorf("held run: %v", err)
	}
}

// TestVariation: configurations are drawn alongside faults; the typed
// checkpoint-rollback resume (310 ms) misses the 250 ms deadline, so its
// worst configuration is retry_budget=1 deadline_ms=250 and that
// configuration loses useful service; the retry budget changes nothing
// for any single fault.
func TestVariation(t *testing.T) {
	v := evidence(t).Variation
	want := []string{"retry_budget=1 deadline_ms=250", "retry_budget=1 deadline_ms=2000", "retry_budget=2 deadline_ms=250", "retry_budget=2 deadline_ms=2000"}
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
		t.Errorf("typed checkpoint_rollback at 250 ms: %+v", s.Q)
	}
	if s := sigOf(t, v, "typed", "checkpoint_rollback", want[3]); s.Q.Serve.Count != s.Trials {
		t.Errorf("typed checkpoint_rollback at 2000 ms: %+v", s.Q)
	}
	p := placement(t, v, "typed", want[0])
	if p.Region != assay.RegionContainedButDead || p.Trials != 521 || !strings.HasPrefix(p.Reasons[1], "serve floor 80% missed: serve 413 of 521 = 79.3%") {
		t.Errorf("typed under %s: %s %q", want[0], p.Region, p.Reasons)
	}
	if p := placement(t, v, "typed", want[3]); p.Region != assay.RegionUsefulButUnproved {
		t.Errorf("typed under %s: %s", want[3], p.Region)
	}
	for _, bad := range []assay.Variation{{assay.RetryBudgets(0)}, {assay.Deadlines(-1)}, {assay.RetryBudgets(1, 1)},
		{assay.RetryBudgets(1), assay.RetryBudgets(2)}, {assay.RetryBudgets()}} {
		cfg := paperConfig()
		cfg.Variation = bad
		if _, err := assay.Gather(cfg); err == nil {
			t.Errorf("variation %v: want an error", bad)
		}
	}
}

// TestStudyStops: a declared abort on the first duplicate stops every
// baseline run of timeout_after_commit (189) and checkpoint_rollback (193)
// at once, and the study and its report say so; their duplicates are still
// counted.
func TestStudyStops(t *testing.T) {
	cfg := paperConfig()
	cfg.Base.Options.Stop = model.Stop{Abort: model.AbortDuplicateEffects}
	cfg.Profiles = []model.Profile{model.ProfileBaseline, model.ProfileTyped}
	st, err := assay.RunStudy(assay.StudyConfig{Name: "stops", System: cfg.System, Base: cfg.Base, Profiles: cfg.Profiles,
		Trials: 2000, Seed: 188, Compat: true, Envelope: cfg.Envelope})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]assay.StopCount{{Profile: "baseline", Condition: model.StopAbort, Runs: 382}}, st.Stops); diff != "" {
		t.Errorf("stops (-want +got):\n%s", diff)
	}
	s := sigOf(t, st, "baseline", "timeout_after_commit", assay.DefaultConfig)
	if s.Harms.Stopped != 189 || s.Harms.DuplicateEffect != 189 {
		t.Errorf("harms %+v", s.Harms)
	}
	ev := &assay.Evidence{Reference: st, Variation: st}
	var b strings.Builder
	if err := ev.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "stops study, baseline: 382 runs stopped by abort") {
		t.Errorf("report does not say the runs stopped:\n%s", b.String())
	}
	cfg.Base.Options.Stop = model.Stop{Abort: "panic"}
	if _, err := assay.Gather(cfg); err == nil || !strings.Contains(err.Error(), `unknown abort metric "panic"`) {
		t.Errorf("bad stop: %v", err)
	}
}

// TestGatherIsDeterministic: two gatherings give equal evidence.
func TestGatherIsDeterministic(t *testing.T) {
	a := evidence(t)
	b, err := assay.Gather(paperConfig())
	if err != nil {
		t.Fatal(err)
	}
	var x, y strings.Builder
	if err := assay.WriteJSON(&x, a); err != nil {
		t.Fatal(err)
	}
	if err := assay.WriteJSON(&y, b); err != nil {
		t.Fatal(err)
	}
	if x.String() != y.String() {
		t.Fatal("two gatherings differ")
	}
}
