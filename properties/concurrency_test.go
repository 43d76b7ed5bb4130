package properties_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/reference/copperfin"

	"github.com/faultline/faultline/examples/lostupdate"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

func clerks(model.Config) (model.Factory, error) { return lostupdate.Factory(), nil }

// clerkOpts explore the counter clerks as two concurrent workers.
func clerkOpts(opts ...properties.Option) []properties.Option {
	return append([]properties.Option{properties.WithFixtureValue(lostupdate.Fixture()), properties.WithHarnessOptions(lostupdate.Options()),
		properties.WithConfig(model.Config{Concurrency: &model.Concurrency{Workers: 2}})}, opts...)
}

// Exploration draws interleavings with the faults (and, for a concurrent
// config, correlation modifiers, which tool_timeout takes, and scheduler
// seeds): the clerks' lost update needs an interleaving (run one after
// another, or each going on until it ends, they hold), it is found, and
// the reducer shrinks it to no fault, no seed and one context switch: task
// a reads, task b reads and writes, a writes.
func TestExploreFindsLostUpdate(t *testing.T) {
	rapidFlags(t, 300, 5)
	rep, err := properties.Explore(sysdef(clerks), clerkOpts(properties.WithKinds("tool_timeout"), properties.WithMaxFaults(1))...)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Found {
		t.Fatalf("no counterexample in %d checks", rep.Checks)
	}
	cx := rep.Counterexample
	il := cx.Schedule.Config.Concurrency.Interleaving
	t.Logf("found after %d checks; shrunk %v\n%s", rep.ChecksToFailure, cx.Shrunk.Config.Concurrency.Interleaving, cx)
	if cx.Invariant != lostupdate.InvNoLostUpdate || len(cx.Schedule.Faults) != 0 || cx.ContextSwitches != 1 || cx.FaultID != "" ||
		cx.Schedule.Config.Concurrency.Seed != "" {
		t.Fatalf("counterexample %s: %d faults, %d context switches", cx.Invariant, len(cx.Schedule.Faults), cx.ContextSwitches)
	}
	// the shortest interleaving with one switch: the first worker's two
	// scheduling points (its start and its read), then the other's
	if len(il) != 3 || il[0] != il[1] || il[2] == il[0] {
		t.Errorf("interleaving %v", il)
	}
	if cx.FirstSeq != 7 || cx.Event != model.EvToolCommit {
		t.Errorf("first false after seq %d (%s)", cx.FirstSeq, cx.Event)
	}
	var tasks []string
	for _, ev := range cx.Timeline {
		tasks = append(tasks, ev.Task)
	}
	first, second := cx.Timeline[0].Task, cx.Timeline[2].Task
	if want := []string{first, first, second, second, second, second, first}; !slices.Equal(tasks, want) {
		t.Errorf("timeline tasks %v, want %v", tasks, want)
	}
	s := cx.String()
	for _, want := range []string{"interleaving (1 context switch; the task picked at each scheduling point): ", "<- context switch", `"concurrency": {`} {
		if !strings.Contains(s, want) {
			t.Errorf("counterexample text lacks %q:\n%s", want, s)
		}
	}
	if strings.Count(s, "<- context switch") != 1 {
		t.Errorf("one switch marked in the timeline:\n%s", s)
	}
}

// The reducer, ours and not rapid's, shrinks an interleaving of five
// context switches that loses an update to one of one switch, and drops
// the fault that played no part.
func TestReduceFewestContextSwitches(t *testing.T) {
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "hand-made",
		Config: model.Config{Fixture: "lostupdate", Concurrency: &model.Concurrency{Workers: 2, Interleaving: []int{1, 2, 1, 2, 1, 2, 2, 1, 2}}},
		Faults: []model.FaultEntry{{Event: model.EvLedgerReadback, Ordinal: 5, Kind: "clock_advance", Target: "10"}}}
	h := model.NewHarness(lostupdate.Fixture(), lostupdate.Options())
	before, err := h.Run(lostupdate.Factory(), s)
	if err != nil {
		t.Fatal(err)
	}
	if before.Held() || before.ContextSwitches != 5 {
		t.Fatalf("the hand-made schedule: held %v, %d context switches", before.Held(), before.ContextSwitches)
	}
	cx, err := properties.Reduce(sysdef(clerks), s, lostupdate.InvNoLostUpdate, clerkOpts()...)
	if err != nil {
		t.Fatal(err)
	}
	if il := cx.Schedule.Config.Concurrency.Interleaving; cx.ContextSwitches != 1 || !slices.Equal(il, []int{1, 1, 2}) || len(cx.Schedule.Faults) != 0 {
		t.Fatalf("reduced to %v (%d context switches), faults %v", il, cx.ContextSwitches, cx.Schedule.Faults)
	}
	if !slices.Equal(cx.Interleaving, []int{1, 1, 2, 2, 2, 2, 1, 1}) {
		t.Errorf("picks %v", cx.Interleaving)
	}
}

// The counterexample file written beside a concurrent counterexample's schedule carries its picks
// and context switches, and reads back.
func TestConcurrentCounterexampleRecord(t *testing.T) {
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "hand-made",
		Config: model.Config{Fixture: "lostupdate", Concurrency: &model.Concurrency{Workers: 2, Interleaving: []int{2, 1, 2, 1}}},
		Faults: []model.FaultEntry{}}
	cx, err := properties.Reduce(sysdef(clerks), s, lostupdate.InvNoLostUpdate, clerkOpts()...)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := properties.WriteCounterexample(dir, cx, nil, "replay %s"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(strings.TrimSuffix(cx.File, ".json") + ".counterexample.json")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := corpus.ParseCounterexample(data)
	if err != nil {
		t.Fatal(err)
	}
	if rec.ContextSwitches != 1 || !slices.Equal(rec.Interleaving, cx.Interleaving) || !rec.Schedule.Config.Equal(cx.Schedule.Config) {
		t.Errorf("record: %d switches, picks %v, config %s", rec.ContextSwitches, rec.Interleaving, rec.Schedule.Config)
	}
}

// The counterfactual: the guarded clerk, keying each write by the version
// it read, holds under every interleaving the same exploration draws, and
// under the one that loses the unguarded clerk's update both writes land.
func TestExploreGuardedClerkHolds(t *testing.T) {
	rapidFlags(t, 100, 5)
	guarded := func(model.Config) (model.Factory, error) { return lostupdate.GuardedFactory(), nil }
	rep, err := properties.Explore(sysdef(guarded), clerkOpts(properties.WithKinds("tool_timeout"), properties.WithMaxFaults(1))...)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Found || rep.Checks != 100 {
		t.Fatalf("found %v after %d checks: %v", rep.Found, rep.Checks, rep.Counterexample)
	}
	h := model.NewHarness(lostupdate.Fixture(), lostupdate.Options())
	res, err := h.Run(lostupdate.GuardedFactory(), &model.Schedule{Version: model.ScheduleVersion,
		Config: model.Config{Concurrency: &model.Concurrency{Workers: 2, Interleaving: []int{1, 1, 2}}}, Faults: []model.FaultEntry{}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Held() || res.Terms.Effects != 2 || res.ContextSwitches != 1 || res.Claims[0].Reason != "wrote version 2" || res.Claims[1].Reason != "wrote version 1" {
		t.Errorf("held %v, effects %d, switches %d, claims %+v", res.Held(), res.Terms.Effects, res.ContextSwitches, res.Claims)
	}
}

// For a concurrent config the generator draws the interleaving first and
// places the faults in runs under it: over the reference system's three
// tasks as three workers, every drawn schedule validates, and its first
// fault sits at an occurrence the run under the interleaving reaches (a
// later fault may overtake it, as in a sequential draw: it runs alone
// here).
func TestConcurrentDrawsPlaceFaultsUnderTheInterleaving(t *testing.T) {
	oneGoroutine(t)
	cfg := copperfin.ConfigOfProfile(copperfin.ProfileTyped)
	cfg.Concurrency = &model.Concurrency{Workers: 3}
	gen, err := properties.Generator(ref(), properties.WithFixtureValue(copperfin.CopperfinBatch()), properties.WithConfig(cfg),
		properties.WithoutWorldEvents())
	if err != nil {
		t.Fatal(err)
	}
	h := model.NewHarness(copperfin.CopperfinBatch(), model.Options{})
	interleaved, faulted := 0, 0
	for i := range 200 {
		s := gen.Example(i)
		if err := s.Validate(); err != nil {
			t.Fatalf("example %d: %v", i, err)
		}
		if len(s.Config.Concurrency.Interleaving) > 0 {
			interleaved++
		}
		if len(s.Faults) == 0 {
			continue
		}
		f, err := copperfin.Configured(s.Config)
		if err != nil {
			t.Fatal(err)
		}
		first := *s
		first.Faults = s.Faults[:1]
		res, err := h.Run(f, &first)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Faults[0].Reached {
			t.Errorf("example %d: the first fault %s was not reached\n%s", i, s.Faults[0].Placement(), model.Format(s))
		}
		faulted++
	}
	if interleaved < 100 || faulted < 100 {
		t.Errorf("%d of 200 draws interleaved, %d held a fault", interleaved, faulted)
	}
}

// For a concurrent config exploration also draws correlation modifiers and
// a seeded scheduler, after the faults and interleaving: over the clerks
// with output_drift (which takes all four modifiers), every drawn schedule
// validates, and many carry a modifier or a scheduler seed, never shared
// (the clerks are one tenant's). The same exploration of the sequential
// config draws no seed and, after everything else, a modifier that acts
// on one task (repeated, persistent) on the last fault one time in four:
// 49 of 200 schedules, each a schedule drawn before modifiers were with
// its last fault modified.
func TestConcurrentDrawsCorrelationsAndSeeds(t *testing.T) {
	count := func(cfg model.Config) (seeded, correlated, repeated int) {
		gen, err := properties.Generator(sysdef(clerks), properties.WithFixtureValue(lostupdate.Fixture()), properties.WithHarnessOptions(lostupdate.Options()),
			properties.WithConfig(cfg), properties.WithKinds("output_drift"), properties.WithMaxFaults(2))
		if err != nil {
			t.Fatal(err)
		}
		for i := range 200 {
			s := gen.Example(i)
			if err := s.Validate(); err != nil {
				t.Fatalf("example %d: %v\n%s", i, err, model.Format(s))
			}
			if c := s.Config.Concurrency; c != nil && c.Seed != "" {
				seeded++
			}
			for j, f := range s.Faults {
				if f.Correlation != "" {
					correlated++
				}
				if f.Correlation == model.Correlation("shared") {
					t.Errorf("example %d: shared drawn over one tenant", i)
				}
				if cfg.Concurrency == nil && f.Correlation != "" && (j != len(s.Faults)-1 || f.Correlation != "repeated" && f.Correlation != "persistent") {
					t.Errorf("example %d: sequential fault %d of %d is %s", i, j+1, len(s.Faults), f.Correlation)
				}
				if f.Correlation == model.Correlation("repeated") && (f.Repeat < 2 || f.Repeat > 4) {
					t.Errorf("example %d: repeat %d", i, f.Repeat)
				}
				if f.Repeat > 0 {
					repeated++
				}
			}
		}
		return seeded, correlated, repeated
	}
	seeded, correlated, repeated := count(model.Config{Concurrency: &model.Concurrency{Workers: 2}})
	t.Logf("concurrent: %d of 200 seeded, %d faults with a modifier (%d repeated)", seeded, correlated, repeated)
	if seeded < 50 || correlated < 50 || repeated < 10 {
		t.Errorf("concurrent: %d of 200 seeded, %d faults with a modifier (%d repeated)", seeded, correlated, repeated)
	}
	if seeded, correlated, repeated := count(model.Config{}); seeded != 0 || correlated != 49 || repeated == 0 || repeated == correlated {
		t.Errorf("sequential: %d seeded, %d faults with a modifier (%d repeated)", seeded, correlated, repeated)
	}
}

// The reducer replaces a seeded scheduler by the picks of its run, then
// shrinks them: a schedule whose seed 7 switches context five times and
// whose repeated output_drift plays no part in the lost update reduces to
// no fault, no seed and one switch.
func TestReducePinsSeededPicks(t *testing.T) {
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "hand-made",
		Config: model.Config{Fixture: "lostupdate", Concurrency: &model.Concurrency{Workers: 2, Seed: "7"}},
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "output_drift", Correlation: "repeated", Repeat: 2}}}
	before, err := model.NewHarness(lostupdate.Fixture(), lostupdate.Options()).Run(lostupdate.Factory(), s)
	if err != nil {
		t.Fatal(err)
	}
	if before.Held() || before.ContextSwitches != 5 || before.Faults[0].Fired != 2 {
		t.Fatalf("the hand-made schedule: held %v, %d context switches, fired %d", before.Held(), before.ContextSwitches, before.Faults[0].Fired)
	}
	cx, err := properties.Reduce(sysdef(clerks), s, lostupdate.InvNoLostUpdate, clerkOpts()...)
	if err != nil {
		t.Fatal(err)
	}
	c := cx.Schedule.Config.Concurrency
	if c.Seed != "" || cx.ContextSwitches != 1 || len(c.Interleaving) != 3 || len(cx.Schedule.Faults) != 0 {
		t.Fatalf("reduced to %s (%d context switches), faults %v", c, cx.ContextSwitches, cx.Schedule.Faults)
	}
}

// The reducer drops a correlation modifier the violation does not need
// and keeps the fault: the baseline duplicates a refund under an isolated
// lost reply too, so timeout_after_commit's synchronized schedule on the
// two tenants reduces to the isolated fault.
func TestReduceDropsAnUnneededModifier(t *testing.T) {
	s, err := copperfin.CorrelatedSchedule("timeout_after_commit", model.Correlation("synchronized"), copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
	if err != nil {
		t.Fatal(err)
	}
	cx, err := properties.Reduce(ref(), s, model.InvEffectAtMostOnce, properties.WithFixtureValue(copperfin.CopperfinTenants()),
		properties.WithConfig(s.Config))
	if err != nil {
		t.Fatal(err)
	}
	if f := cx.Schedule.Faults; len(f) != 1 || f[0].Kind != "timeout_after_commit" || f[0].Correlation != "" || cx.ContextSwitches != 0 {
		t.Fatalf("reduced to faults %+v, %d context switches", f, cx.ContextSwitches)
	}
}

// A modifier the violation needs is drawn and kept: with idempotency
// alone, the reference system's three tasks as three workers break their
// retry budget only when the checkpoint store rolls back persistently
// (each rollback restarts the worker, which retries its refund); random
// exploration of checkpoint_rollback finds it, the reducer keeps the
// modifier, and the same schedule without it holds.
func TestExploreKeepsANeededModifier(t *testing.T) {
	oneGoroutine(t)
	rapidFlags(t, 100, 1)
	cfg := copperfin.ConfigOfControls(copperfin.Controls(0).With(copperfin.Control("idempotency")))
	cfg.Concurrency = &model.Concurrency{Workers: 3}
	rep, err := properties.Explore(ref(), properties.WithFixtureValue(copperfin.CopperfinBatch()), properties.WithConfig(cfg),
		properties.WithKinds("checkpoint_rollback"), properties.WithMaxFaults(1), properties.WithoutWorldEvents())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Found {
		t.Fatalf("no counterexample in %d checks", rep.Checks)
	}
	cx := rep.Counterexample
	f := cx.Schedule.Faults
	if cx.Invariant != model.InvBudget || len(f) != 1 || f[0].Kind != "checkpoint_rollback" || f[0].Correlation != model.Correlation("persistent") ||
		cx.Schedule.Config.Concurrency.Seed != "" {
		t.Fatalf("counterexample %s, faults %+v, %s", cx.Invariant, f, cx.Schedule.Config.Concurrency)
	}
	iso := *cx.Schedule
	iso.Faults = []model.FaultEntry{{Event: f[0].Event, Ordinal: f[0].Ordinal, Kind: f[0].Kind}}
	factory, err := copperfin.Configured(iso.Config)
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.NewHarness(copperfin.CopperfinBatch(), model.Options{}).Run(factory, &iso)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Held() || res.Faults[0].Fired != 1 {
		t.Errorf("without the modifier: held %v, fired %d", res.Held(), res.Faults[0].Fired)
	}
}

// With a concurrent config the exhaustive walk runs every fault schedule
// under each interleaving of at most one context switch (5 for the two
// clerks: the default order and four that switch once, of the eight
// candidates; the others repeat a run): the clerks' lost update is found
// at the fourth schedule, with no fault, under the interleaving [1, 1, 2],
// and the guarded clerk's walk is a complete bounded proof over 5 clean
// runs and 36 of one tool_timeout (12 plain, 12 repeated, 12
// synchronized).
func TestExhaustiveWalksInterleavings(t *testing.T) {
	rep, err := exhaustive(sysdef(clerks), clerkOpts(properties.WithKinds("tool_timeout"), properties.WithMaxFaults(1))...)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Found || rep.Counterexample.Invariant != lostupdate.InvNoLostUpdate || len(rep.Counterexample.Schedule.Faults) != 0 ||
		rep.Counterexample.ContextSwitches != 1 || rep.Scope.Interleavings != 5 || rep.Index != 4 ||
		!slices.Equal(rep.Counterexample.Schedule.Config.Concurrency.Interleaving, []int{1, 1, 2}) {
		t.Fatalf("found %v at %d of %d interleavings: %v", rep.Found, rep.Index, rep.Scope.Interleavings, rep.Counterexample)
	}
	t.Logf("%s; %s: found at %d\n%s", rep.Scope, rep.Sizes(), rep.Index, rep.Counterexample)
	guarded := func(model.Config) (model.Factory, error) { return lostupdate.GuardedFactory(), nil }
	g, err := exhaustive(sysdef(guarded), clerkOpts(properties.WithKinds("tool_timeout"), properties.WithMaxFaults(1))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("guarded: %s; %s", g.Scope, g.Sizes())
	if g.Found || !g.Complete || g.Schedules != 41 || !slices.Equal(g.PerSize, []int{5, 36}) {
		t.Fatalf("guarded: found %v, complete %v: %v", g.Found, g.Complete, g.Counterexample)
	}
}

// WithMaxSwitches bounds the walk's interleavings: at 0 the clerks run in
// the default order alone and hold (a complete walk, no counterexample); at
// 2 the walk runs more interleavings and still finds the lost update first
// under one switch, and the guarded clerk holds under all of them. A bound
// out of range, and a config with its own seed, are errors.
func TestExhaustiveMaxSwitches(t *testing.T) {
	walk := func(sys func(model.Config) (model.Factory, error), n int, opts ...properties.Option) *properties.ExhaustiveReport {
		t.Helper()
		rep, err := exhaustive(sysdef(sys), clerkOpts(append(opts, properties.WithKinds("tool_timeout"), properties.WithMaxFaults(1), properties.WithMaxSwitches(n))...)...)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if r := walk(clerks, 0); r.Found || !r.Complete || r.Scope.Interleavings != 1 || r.Scope.String() != "kinds tool_timeout; world events on; placement any event; fixture lostupdate; 1 interleavings (the default order alone); modifiers on any fault repeated (2 crossings), synchronized (the default window); not enumerated: shared (one tenant), other repeat counts, until events and windows" {
		t.Fatalf("bound 0: found %v, complete %v, scope %s", r.Found, r.Complete, r.Scope)
	}
	r := walk(clerks, 2)
	if !r.Found || r.Counterexample.ContextSwitches != 1 || r.Index != 4 || r.Scope.Interleavings != 17 {
		t.Fatalf("bound 2: found %v at %d, %d interleavings: %v", r.Found, r.Index, r.Scope.Interleavings, r.Counterexample)
	}
	guarded := func(model.Config) (model.Factory, error) { return lostupdate.GuardedFactory(), nil }
	if g := walk(guarded, 2); g.Found || !g.Complete || g.Scope.Interleavings != 17 || g.Scope.MaxSwitches != 2 {
		t.Fatalf("guarded, bound 2: found %v, complete %v, scope %+v", g.Found, g.Complete, g.Scope)
	}
	if _, err := exhaustive(sysdef(clerks), clerkOpts(properties.WithMaxSwitches(5))...); err == nil || err.Error() != "properties: max switches 5 must be between 0 and 4" {
		t.Errorf("bound 5: %v", err)
	}
	seeded := append(clerkOpts(), properties.WithConfig(model.Config{Concurrency: &model.Concurrency{Workers: 2, Seed: "x"}}))
	if _, err := exhaustive(sysdef(clerks), seeded...); err == nil || !strings.Contains(err.Error(), "leave the config's concurrency seed and interleaving unset") {
		t.Errorf("a seeded config: %v", err)
	}
}

// A scope that checks no invariant is an error, never a pass: the counter
// clerks' harness options without their invariant (Builtin empty), or with
// WithInvariants naming only a built-in one those options do not select;
// their own options explore as before.
func TestNoInvariantIsAnError(t *testing.T) {
	msgs := map[string]string{
		"no invariant":  "properties: system test_system: inconclusive: no invariant in scope (Builtin empty and no Invariants of the system's own): every run would pass whatever the system does",
		"none in scope": "properties: system test_system: no invariant in scope: the invariants the options name leave none of those its runs check, so every run would pass whatever the system does",
	}
	none := []properties.Option{properties.WithFixtureValue(lostupdate.Fixture()), properties.WithHarnessOptions(model.Options{Builtin: []string{}}), properties.WithKinds("tool_timeout")}
	outOfScope := append(clerkOpts(properties.WithKinds("tool_timeout")), properties.WithInvariants("effect_at_most_once"))
	for name, opts := range map[string][]properties.Option{"no invariant": none, "none in scope": outOfScope} {
		msg := msgs[name]
		if _, err := properties.Explore(sysdef(clerks), opts...); err == nil || err.Error() != msg {
			t.Errorf("%s: Explore: %v", name, err)
		}
		if _, err := exhaustive(sysdef(clerks), opts...); err == nil || err.Error() != msg {
			t.Errorf("%s: Exhaustive: %v", name, err)
		}
	}
	// a misspelt built-in in the options is named, not a scope that is empty
	typo := []properties.Option{properties.WithFixtureValue(lostupdate.Fixture()), properties.WithHarnessOptions(model.Options{Builtin: []string{"efect_at_most_once"}}), properties.WithKinds("tool_timeout")}
	if _, err := properties.Explore(sysdef(clerks), typo...); err == nil || !strings.HasPrefix(err.Error(), `properties: model: options: unknown built-in invariant "efect_at_most_once" (valid: `) {
		t.Errorf("a misspelt built-in: %v", err)
	}
	rapidFlags(t, 20, 1)
	if _, err := properties.Explore(sysdef(clerks), clerkOpts(properties.WithKinds("tool_timeout"), properties.WithMaxFaults(1))...); err != nil {
		t.Errorf("the clerks' own options: %v", err)
	}
}

// TestExploreRefusesZeroChecks: -rapid.checks=0 runs no check, which is an
// error naming the flag, not a green or an inconclusive campaign, given
// before the walk phase runs a schedule (it had walked first); WithChecks
// still runs its own count.
func TestExploreRefusesZeroChecks(t *testing.T) {
	rapidFlags(t, 0, 1)
	configured := 0
	guarded := func(model.Config) (model.Factory, error) { configured++; return lostupdate.GuardedFactory(), nil }
	opts := clerkOpts(properties.WithKinds("tool_timeout"), properties.WithMaxFaults(1))
	if rep, err := properties.Explore(sysdef(guarded), opts...); err == nil || !strings.Contains(err.Error(), "no check to run: rapid would run 0 checks") || configured != 0 {
		// refused before the walk phase ran a schedule
		t.Fatalf("-rapid.checks=0: %+v, %v, configured %d times", rep, err, configured)
	}
	if rep, err := properties.Explore(sysdef(guarded), append(opts, properties.WithChecks(3), properties.WithSeed(1))...); err != nil || rep.Checks != 3 {
		t.Fatalf("WithChecks(3): %+v, %v", rep, err)
	}
}

// Concurrent exploration draws shared only where the fixture's tasks have
// two tenants or more: over the reference system's copperfin-tenants
// (T-1 and T-2) under two workers, timeout_after_commit (which takes all
// four modifiers) carries shared 21 times in 200 drawn schedules; over
// copperfin-batch (one tenant) in none, and a sequential config draws it
// nowhere.
func TestSharedOnlyAcrossTenants(t *testing.T) {
	count := func(fixture string, c *model.Concurrency) int {
		cfg := copperfin.ConfigOfProfile(copperfin.ProfileTyped)
		cfg.Concurrency = c
		gen, err := properties.Generator(copperfin.Definition(), properties.WithFixture(fixture), properties.WithConfig(cfg),
			properties.WithKinds("timeout_after_commit"), properties.WithMaxFaults(2))
		if err != nil {
			t.Fatal(err)
		}
		shared := 0
		for i := range 200 {
			for _, f := range gen.Example(i).Faults {
				if f.Correlation == model.Correlation("shared") {
					shared++
				}
			}
		}
		return shared
	}
	two := &model.Concurrency{Workers: 2}
	tenants, batch, sequential := count("copperfin-tenants", two), count("copperfin-batch", two), count("copperfin-tenants", nil)
	if tenants != 21 || batch != 0 || sequential != 0 {
		t.Errorf("shared drawn: %d over two tenants, %d over one, %d sequentially", tenants, batch, sequential)
	}
}
