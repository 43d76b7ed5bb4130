package model_test

import (
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

func run(t *testing.T, s *model.Schedule) *model.Result {
	t.Helper()
	return runSchedule(t, copperfin.Copperfin(), s)
}

// runSchedule runs the reference system under s's config on fx.
func runSchedule(t *testing.T, fx model.Fixture, s *model.Schedule) *model.Result {
	t.Helper()
	cs, err := copperfin.ControlsOf(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	factory, err := copperfin.NewFactory(cs, copperfin.MutantOf(s.Config))
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.NewHarness(fx, model.Options{}).Run(factory, s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestModelImportsNoTestLibraries keeps model/ free of testing, rapid,
// go-cmp and testify outside _test.go files.
func TestModelImportsNoTestLibraries(t *testing.T) {
	banned := []string{"testing", "pgregory.net/rapid", "github.com/google/go-cmp", "github.com/stretchr/testify"}
	checked := 0
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, b := range banned {
				if p == b || strings.HasPrefix(p, b+"/") {
					t.Errorf("%s imports %s", path, p)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 8 {
		t.Fatalf("checked only %d files", checked)
	}
}

// TestCounterfactualPerMode: each catalogue fault, injected alone, breaks
// the invariant it threatens in a system lacking the defending behaviour
// (the baseline profile, or the baseline with the mutant the spec names),
// and each control the paper nominates, alone, contains it (the invariant
// holds and no unsafe effect escapes); the typed profile contains it too,
// and detects each of the paper's ten.
func TestCounterfactualPerMode(t *testing.T) {
	for _, spec := range model.Catalogue() {
		base, err := model.SingleFault(spec.Kind, copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
		if err != nil {
			t.Fatal(err)
		}
		base.Config = copperfin.WithMutant(base.Config, copperfin.MutantFor(spec.Kind))
		res := run(t, base)
		if f := res.Faults[0]; !f.Reached || f.Fired < 1 {
			t.Errorf("%s: fault not reached/fired without its defence: %+v", spec.Kind, f)
		}
		for _, inv := range spec.Threatens {
			if r, _ := res.Invariant(inv); r.Held {
				t.Errorf("%s: %s holds without the defence (mutant %q); the fault cannot break an unprotected system", spec.Kind, inv, copperfin.MutantFor(spec.Kind))
			} else if r.FaultID != "f1" {
				t.Errorf("%s: %s violation not attributed to the fault: %+v", spec.Kind, inv, r)
			}
		}
		for _, c := range copperfin.Nominated(spec.Kind) {
			// each nominated control alone contains the kind, in the
			// system that lacks the kind's defending behaviour when the
			// spec also names one (the controls are co-defences)
			s, _ := model.SingleFault(spec.Kind, copperfin.ConfigOfControls(copperfin.Controls(0).With(c)))
			s.Config = copperfin.WithMutant(s.Config, copperfin.MutantFor(spec.Kind))
			res := run(t, s)
			if f := res.Faults[0]; !f.Reached || f.Fired < 1 {
				t.Errorf("%s: fault not reached/fired with %s alone (mutant %q): %+v", spec.Kind, c, copperfin.MutantFor(spec.Kind), f)
			}
			if !res.Held() || res.Terms.UnsafeEscape || res.Terms.UnverifiableRelease {
				t.Errorf("%s: nominated control %s alone (mutant %q) does not contain it: %+v %+v", spec.Kind, c, copperfin.MutantFor(spec.Kind), res.Invariants, res.Terms)
			}
		}
		typed, _ := model.SingleFault(spec.Kind, copperfin.ConfigOfProfile(copperfin.ProfileTyped))
		res = run(t, typed)
		if f := res.Faults[0]; !f.Reached || f.Fired < 1 {
			t.Errorf("%s: fault not reached/fired under typed: %+v", spec.Kind, f)
		}
		if !res.Held() || !res.Terms.Contained {
			t.Errorf("%s: typed profile does not contain it: %+v %+v", spec.Kind, res.Invariants, res.Terms)
		}
		if spec.Paper && !res.Terms.Detected {
			t.Errorf("%s: typed profile does not detect it", spec.Kind)
		}
	}
}

func TestReplayIsDeterministic(t *testing.T) {
	for _, spec := range model.Catalogue() {
		for _, p := range copperfin.Profiles {
			s, _ := model.SingleFault(spec.Kind, copperfin.ConfigOfProfile(p))
			a, b := run(t, s), run(t, s)
			if diff := cmp.Diff(model.Normalize(a.Timeline.Events()), model.Normalize(b.Timeline.Events())); diff != "" {
				t.Errorf("%s/%s: two runs differ:\n%s", spec.Kind, p, diff)
			}
			if a.RunID != b.RunID || a.Terms != b.Terms {
				t.Errorf("%s/%s: run id or terms differ", spec.Kind, p)
			}
		}
	}
}

// TestFaultNotReachedIsNotTested: a fault scheduled at an occurrence that
// never happens is reported as not reached, never fires, is observed by no
// invariant, and makes the run inconclusive.
func TestFaultNotReachedIsNotTested(t *testing.T) {
	s, err := model.ParseSchedule([]byte(`{"version":1,"seed":"late","config":{"profile":"baseline"},
		"faults":[{"event":"tool.commit","ordinal":5,"kind":"timeout_after_commit"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, s)
	f := res.Faults[0]
	if f.Reached || f.Fired != 0 || len(f.Observed) != 0 {
		t.Fatalf("fault report %+v", f)
	}
	if res.RunVerdict != model.Inconclusive || !res.Held() || res.Terms.Effects != 1 {
		t.Fatalf("run verdict %s, held %t, effects %d", res.RunVerdict, res.Held(), res.Terms.Effects)
	}
	for _, e := range res.Timeline.Events() {
		if e.FaultID != "" {
			t.Fatalf("an event carries fault id %q though the fault never fired", e.FaultID)
		}
	}
}

// TestTimeoutAfterCommitTimeline pins the thought experiment of the paper:
// the provider commits, the reply is lost, and the baseline's blind retry
// commits a second refund.
func TestTimeoutAfterCommitTimeline(t *testing.T) {
	s, _ := model.SingleFault("timeout_after_commit", copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
	res := run(t, s)
	var commits []string
	for _, e := range res.Timeline.Events() {
		if e.Event == model.EvToolCommit {
			commits = append(commits, e.Outcome)
		}
	}
	if diff := cmp.Diff([]string{"unknown", "committed"}, commits); diff != "" {
		t.Fatalf("commit outcomes (-want +got):\n%s", diff)
	}
	inv, _ := res.Invariant(model.InvEffectAtMostOnce)
	if inv.Held || inv.Event != model.EvToolCommit || inv.FaultID != "f1" {
		t.Fatalf("effect_at_most_once: %+v", inv)
	}
	if res.Terms.Effects != 2 || res.Verdict != model.ClaimUnsafe || res.RunVerdict != model.Unrecoverable {
		t.Fatalf("terms %+v verdict %s run %s", res.Terms, res.Verdict, res.RunVerdict)
	}
}

// TestCounterfactualPerLaggingKind: each kind of reads that lag (kept out
// of Catalogue() for now) meets TestCounterfactualPerMode's contract:
// injected alone it breaks the invariant it threatens in the baseline with
// the seeded defect its defence row names (resend_unseen re-sends what a
// lagging readback hides; state_check_unguarded acts on a stale state
// read with no state guard), each nominated control alone contains it
// (idempotency: the re-send is replayed), and the typed profile contains
// it (lagging_readback: effect_readback holds on the missing effect;
// stale_state_read: state_precondition's guard, checked by the provider
// against the primary, refuses the commit).
func TestCounterfactualPerLaggingKind(t *testing.T) {
	kinds := model.LaggingKinds()
	if len(kinds) != 2 || kinds[0].Kind != "lagging_readback" || kinds[1].Kind != "stale_state_read" {
		t.Fatalf("lagging kinds %+v", kinds)
	}
	for _, spec := range kinds {
		base, err := model.SingleFault(spec.Kind, copperfin.WithMutant(copperfin.ConfigOfProfile(copperfin.ProfileBaseline), copperfin.MutantFor(spec.Kind)))
		if err != nil {
			t.Fatal(err)
		}
		res := run(t, base)
		if f := res.Faults[0]; !f.Reached || f.Fired != 1 {
			t.Errorf("%s: fault not reached/fired without its defence: %+v", spec.Kind, f)
		}
		for _, inv := range spec.Threatens {
			if r, _ := res.Invariant(inv); r.Held || r.FaultID != "f1" {
				t.Errorf("%s: %s without the defence: %+v", spec.Kind, inv, r)
			}
		}
		for _, c := range copperfin.Nominated(spec.Kind) {
			s, _ := model.SingleFault(spec.Kind, copperfin.WithMutant(copperfin.ConfigOfControls(copperfin.Controls(0).With(c)), copperfin.MutantFor(spec.Kind)))
			res := run(t, s)
			if f := res.Faults[0]; !f.Reached || f.Fired != 1 || !res.Held() || res.Terms.UnsafeEscape || res.Terms.UnverifiableRelease {
				t.Errorf("%s: %s alone does not contain it: %+v %+v", spec.Kind, c, res.Invariants, res.Terms)
			}
		}
		typed, _ := model.SingleFault(spec.Kind, copperfin.ConfigOfProfile(copperfin.ProfileTyped))
		res = run(t, typed)
		if f := res.Faults[0]; !f.Reached || f.Fired != 1 || !res.Held() || !res.Terms.Contained || res.RunVerdict != model.ContainedFailure {
			t.Errorf("%s: typed: %+v %+v %s", spec.Kind, res.Faults, res.Terms, res.RunVerdict)
		}
	}
}

// runNamed runs s on the built-in fixture its config names.
func runNamed(t *testing.T, s *model.Schedule) *model.Result {
	t.Helper()
	fx, err := copperfin.FixtureNamed(s.Config.Fixture)
	if err != nil {
		t.Fatal(err)
	}
	factory, err := copperfin.Configured(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.NewHarness(fx, model.Options{}).Run(factory, s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCounterfactualSlidingGrantCache: a revoked grant kept alive by the
// sliding cache breaks current_entitlement for a system that acts on the
// check's answer with no capability guard (authority_check_unguarded);
// bounded_grant_age, the same system otherwise, re-validates the
// answer, older than MaxGrantAge, at the issuer and denies; the typed
// profile's capability guard has the provider refuse the commit.
func TestCounterfactualSlidingGrantCache(t *testing.T) {
	mut := copperfin.MutantFor("sliding_grant_cache")
	if mut != "authority_check_unguarded" {
		t.Fatalf("mutant %q", mut)
	}
	base, err := model.SingleFault("sliding_grant_cache", copperfin.WithMutant(copperfin.ConfigOfProfile(copperfin.ProfileBaseline), mut))
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, base)
	if f := res.Faults[0]; !f.Reached || f.Fired != 1 {
		t.Fatalf("undefended: fault %+v", f)
	}
	if r, _ := res.Invariant(model.InvCurrentEntitlement); r.Held || r.FaultID != "f1" || r.Event != model.EvToolCommit || r.Detail != "capability revoked at effect time" {
		t.Errorf("undefended: current_entitlement %+v", r)
	}
	if res.Verdict != model.ClaimUnsafe || res.Terms.Effects != 1 {
		t.Errorf("undefended: claim %s, %d effects", res.Verdict, res.Terms.Effects)
	}
	bounded, _ := model.SingleFault("sliding_grant_cache", copperfin.WithMutant(copperfin.ConfigOfControls(copperfin.Controls(0).With(copperfin.BoundedGrantAge)), mut))
	res = run(t, bounded)
	if f := res.Faults[0]; !f.Reached || f.Fired != 1 || !f.Detected || !res.Held() || res.Verdict != model.ClaimDeny || res.Terms.Effects != 0 {
		t.Errorf("bounded_grant_age: %+v held %v claim %s effects %d", res.Faults[0], res.Held(), res.Verdict, res.Terms.Effects)
	}
	// the answer the cache served is the grant as approved, filled before
	// the check by more than the bound
	var check model.Event
	for _, e := range res.Timeline.Events() {
		if e.Event == model.EvAuthorityCheck {
			check = e
		}
	}
	if check.FaultID != "f1" || check.Outcome != "live" || !strings.Contains(check.Detail, "cached as of") {
		t.Errorf("check event %+v", check)
	}
	typed, _ := model.SingleFault("sliding_grant_cache", copperfin.ConfigOfProfile(copperfin.ProfileTyped))
	res = run(t, typed)
	if f := res.Faults[0]; !f.Reached || f.Fired != 1 || !res.Held() || res.Terms.Effects != 0 {
		t.Errorf("typed: %+v %+v", res.Faults, res.Invariants)
	}
	// the baseline makes no authority check: nothing for the cache to serve
	res = run(t, mustSingle(t, "sliding_grant_cache", copperfin.ConfigOfProfile(copperfin.ProfileBaseline)))
	if f := res.Faults[0]; f.Reached {
		t.Errorf("baseline: %+v", f)
	}
}

func mustSingle(t *testing.T, kind string, cfg model.Config) *model.Schedule {
	t.Helper()
	s, err := model.SingleFault(kind, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCounterfactualAmbientIdentityLeak: one worker running the two
// tenants' refunds one after another hands the second (tenant T-2,
// operator-31) the identity it captured for the first (T-1,
// operator-27): the baseline refunds O-841 as operator-27 of T-1
// (right_subject) under the first task's trace (provable_outcome);
// per_task_identity re-derives the identity from the task and holds;
// the typed profile's binding guard has the provider refuse the commit.
// With two workers no worker runs a later task, and the fault never
// fires.
func TestCounterfactualAmbientIdentityLeak(t *testing.T) {
	spec, err := model.Spec("ambient_identity_leak")
	if err != nil || !spec.WorkerScoped || spec.Event != model.EvWorkerStart {
		t.Fatalf("%+v %v", spec, err)
	}
	sched := func(cs copperfin.Controls) *model.Schedule {
		s, err := copperfin.CorrelatedSchedule("ambient_identity_leak", model.Correlation("persistent"), copperfin.ConfigOfControls(cs))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	res := runNamed(t, sched(0))
	if f := res.Faults[0]; !f.Reached || f.Fired != 1 {
		t.Fatalf("undefended: fault %+v", f)
	}
	if r, _ := res.Invariant(model.InvRightSubject); r.Held || r.FaultID != "f1" || r.Event != model.EvToolCommit || r.Detail != "effect on O-841 for task refund-O-841 of O-841, actor operator-27 (task refund-O-731's; the task's is operator-31), trace trace-refund-O-731 (task refund-O-731's; the task's is trace-refund-O-841)" {
		t.Errorf("undefended: right_subject %+v", r)
	}
	if r, _ := res.Invariant(model.InvProvableOutcome); r.Held {
		t.Errorf("undefended: provable_outcome %+v", r)
	}
	if res.Tasks[1].Claim != model.ClaimUnsafe || res.Terms.Effects != 2 {
		t.Errorf("undefended: tasks %+v, %d effects", res.Tasks, res.Terms.Effects)
	}
	res = runNamed(t, sched(copperfin.Controls(0).With(copperfin.PerTaskIdentity)))
	if f := res.Faults[0]; !f.Reached || f.Fired != 1 || !res.Held() || res.Terms.Effects != 2 {
		t.Errorf("per_task_identity: %+v %+v effects %d", res.Faults, res.Invariants, res.Terms.Effects)
	}
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	res = runNamed(t, sched(typed))
	if f := res.Faults[0]; !f.Reached || f.Fired != 1 || !res.Held() || res.Terms.Effects != 1 {
		t.Errorf("typed: %+v %+v effects %d", res.Faults, res.Invariants, res.Terms.Effects)
	}
	two := sched(0)
	two.Config.Concurrency.Workers = 2
	res = runNamed(t, two)
	if f := res.Faults[0]; !f.Reached || f.Fired != 0 {
		t.Errorf("two workers: %+v", f)
	}
	// a task's own worker in a sequential run runs no later task
	seq := sched(0)
	seq.Config.Concurrency = nil
	if f := runNamed(t, seq).Faults[0]; !f.Reached || f.Fired != 0 {
		t.Errorf("sequential: %+v", f)
	}
}

// checker approves its task's grant, then checks it at the given logical
// times after the approval, and reports each answer's liveness and age.
type checker struct {
	at  []model.Millis
	got *[]string
}

func (c checker) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	g, err := env.Authority.Approve(ctx, t, model.Action{Actor: t.Actor, Subject: t.Subject, Tenant: t.Tenant, Purpose: t.Purpose})
	if err != nil {
		return model.Claim{}, err
	}
	start := env.Now()
	for _, at := range c.at {
		if err := env.Sleep(ctx, start+at-env.Now()); err != nil {
			return model.Claim{}, err
		}
		a, err := env.Authority.Check(ctx, g.ID)
		if err != nil {
			return model.Claim{}, err
		}
		*c.got = append(*c.got, fmt.Sprintf("live %t age %d", a.Live(env.Now()), env.Now()-a.AsOf))
	}
	return model.Claim{Verdict: model.ClaimHold, Reason: "checked"}, nil
}

// TestGrantCacheLifetimeSlides: the entry the fault fills at the first
// check (with the grant as approved) answers every check within
// GrantCacheTTL of the last one, each read sliding its expiry, so the
// revoked grant stays live 50 s after the approval, past the 30 s a fixed
// lifetime would give; a check more than GrantCacheTTL after the last
// read finds the entry expired and reads the record: revoked.
func TestGrantCacheLifetimeSlides(t *testing.T) {
	fx := model.Fixture{Name: "grants",
		Subjects:     []model.Subject{{ID: "S-1", Tenant: "t", Status: "open", Version: 1}},
		Capabilities: []model.Capability{{ID: "G-1", Actor: "a", Subject: "S-1", Tenant: "t", Purpose: "p", Expiry: 1000000}},
		Tasks:        []model.Task{{ID: "task-1", Actor: "a", Subject: "S-1", Tenant: "t", Purpose: "p", Capability: "G-1"}}}
	var got []string
	s := mustSingle(t, "sliding_grant_cache", model.Config{})
	res, err := model.NewHarness(fx, model.Options{}).Run(func() model.System {
		return checker{at: []model.Millis{1000, 26000, 51000, 90000}, got: &got}
	}, s)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"live true age 1010", "live true age 26010", "live true age 51010", "live false age 0"}
	if !slices.Equal(got, want) || res.Faults[0].Fired != 3 {
		t.Errorf("answers %q, fired %d; want %q, fired 3", got, res.Faults[0].Fired, want)
	}
}
