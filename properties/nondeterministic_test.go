package properties_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/faultline/faultline/examples/inventory"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// leakRuns counts the leaky system's runs in this process: state kept
// across runs, as a process-global cache keeps it.
var leakRuns atomic.Int64

// leaky crosses checkpoint.write twice and holds, but on a later run it
// claims release at once, as a cache filled by an earlier run would make
// it: on every run after its first (cached), or on its second alone
// (once).
type leaky struct{ once bool }

func (l leaky) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	n := leakRuns.Add(1)
	if l.once && n == 2 || !l.once && n > 1 {
		return model.Claim{Verdict: model.ClaimRelease, Reason: "cached"}, nil
	}
	return unenacted{}.Run(ctx, env, task)
}

func (leaky) ProviderLedger(context.Context) ([]model.LedgerEntry, error) { return nil, nil }

// holdsOnly is the leaky system's invariant: it never releases.
var holdsOnly = model.UserInvariant{Name: "holds_only", Owner: "leaky", Oracle: "ledger_readback",
	Doc: "the task is never released", Check: func(v model.View) string {
		if c, ok := v.Claim(); ok && c.Verdict == model.ClaimRelease {
			return "released"
		}
		return ""
	}}

func leakyOptions(more ...properties.Option) []properties.Option {
	return append([]properties.Option{properties.WithFixtureValue(unenactedFixture), properties.WithKinds("stale_checkpoint"),
		properties.WithHarnessOptions(model.Options{Builtin: []string{}, Invariants: []model.UserInvariant{holdsOnly}}), properties.WithoutWorldEvents()}, more...)
}

// TestExhaustiveConfirmsItsCounterexample: a system whose runs leak into
// each other breaks an invariant on the walk's second schedule, with its
// fault never reached; the walk confirms the counterexample before it
// reports it and finds the system not deterministic: the clean run it
// extends breaks when run again (cached), or the schedule itself crosses
// other events when run again (once).
func TestExhaustiveConfirmsItsCounterexample(t *testing.T) {
	for _, c := range []struct {
		once bool
		want string
	}{
		// the cached release names no receipt: recorded_agrees_with_ledger,
		// reported before the system's own, breaks with holds_only
		{false, "properties: the walk's schedule 2 broke recorded_agrees_with_ledger, but the clean run, which held every invariant when the walk ran it, " +
			"broke recorded_agrees_with_ledger after seq 2 (claim) when run again to confirm the counterexample (state kept across runs, a clock or global randomness): the system under test is not deterministic"},
		{true, "properties: the walk's schedule 2 broke recorded_agrees_with_ledger after seq 2 (claim), and run again to confirm it crossed other events: " +
			"crossing 2 was claim#0 (release), then checkpoint.write#1 (ok); every invariant held (state kept across runs, a clock or global randomness): the system under test is not deterministic"},
	} {
		leakRuns.Store(0)
		sys := fixed(func() model.System { return leaky{c.once} })
		rep, err := exhaustive(sysdef(sys), leakyOptions(properties.WithMaxFaults(2))...)
		if rep != nil || !errors.Is(err, properties.ErrNondeterministic) || err.Error() != c.want {
			t.Fatalf("once %v: report %v, error:\n got %v\nwant %s", c.once, rep, err, c.want)
		}
	}
}

// TestExploreConfirmsItsCounterexample: random exploration of the cached
// system fails from its first check on, whatever the faults; the clean
// run it surveyed first crosses other events when run again, so the
// counterexample is not reported: the system is not deterministic.
func TestExploreConfirmsItsCounterexample(t *testing.T) {
	leakRuns.Store(0)
	sys := fixed(func() model.System { return leaky{} })
	rep, err := properties.Explore(sysdef(sys), leakyOptions(properties.WithSeed(1), properties.WithChecks(5), properties.WithoutWalk())...)
	const want = "properties: the clean run (no faults), run again to confirm the counterexample, crossed other events than its first run: " +
		"crossing 2 was checkpoint.write#1 (ok), then claim#0 (release); it broke recorded_agrees_with_ledger after seq 2 (claim) (state kept across runs, a clock or global randomness): the system under test is not deterministic"
	if rep != nil || !errors.Is(err, properties.ErrNondeterministic) || err.Error() != want {
		t.Fatalf("report %v, error:\n got %v\nwant %s", rep, err, want)
	}
}

// TestWalkCounterexampleHeldOnRerun: the checkout agent's planted bug (a
// confirm retried under a fresh key) broken on the walk's schedule and
// its first confirming run, fixed on every later run (as a key drawn from
// global randomness would be): Check fails exit 4 naming the schedule,
// says that an invariant was broken once and not on the rerun, stores the
// schedule under nondeterministic/ and prints its replay line.
func TestWalkCounterexampleHeldOnRerun(t *testing.T) {
	builds := 0
	sys := define(func(model.Config) (model.Factory, error) {
		if builds++; builds > 7 { // the walk's schedule 3 is run 3; runs 4 to 7 confirm it
			return inventory.Factory(inventory.Defended, inventory.Fixed), nil
		}
		return inventory.Factory(inventory.Defended, inventory.Planted), nil
	}, inventory.Fixture())
	dir := t.TempDir()
	tb := &recordingTB{name: "TestR"}
	properties.CheckTB(tb, nil, sys, checkoutOptions(properties.WithFailDir(dir))...)
	stored, err := filepath.Glob(filepath.Join(dir, "nondeterministic", "*.json"))
	if err != nil || len(stored) != 1 {
		t.Fatalf("stored %q: %v", stored, err)
	}
	data, err := os.ReadFile(stored[0])
	if err != nil || string(data) != plantedSchedule {
		t.Fatalf("stored %s: %v", data, err)
	}
	want := `properties: the walk's schedule 3 (seed "exhaustive", faults: tool_timeout at tool.commit#2) broke confirmed_once after seq 17 (tool.commit), then held it when run again to confirm it: ` +
		"an invariant was broken once and not on the rerun, so the system's nondeterminism (global randomness such as math/rand's global source, a clock, state kept across runs) hides a real violation: " +
		"the system under test is not deterministic, under the schedule\n" + plantedSchedule +
		"(exit 4: a verdict on the system, not a harness error: make it draw its randomness from Env.Rand, take its waits from the time package in the bubble and keep no state across runs)\n" +
		"replay (it may hold or break, run to run): " + properties.ReplayCommand("TestR", stored[0])
	if builds != 8 || len(tb.errors) != 1 || tb.errors[0] != want {
		t.Fatalf("%d runs, errors:\n%q\nwant\n%q", builds, tb.errors, want)
	}
}
