package billing_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// oneRetry is the config of an agent allowed one retry (two attempts a
// charge) with bugs planted.
func oneRetry(bugs billing.Bugs) model.Config {
	cfg, n := billing.Config(bugs), 1
	cfg.RetryBudget = &n
	return cfg
}

// TestWalkPlacesAModifierOnOneOfTwoFaults: over timeouts and restarts,
// an agent allowed one retry that forgets its spent budget on resume
// (billing.FreshBudgetOnResume) charges a third time only when both its
// attempts time out and the worker restarts before it gives up: two
// timeouts and a restart, or two faults when the first timeout repeats.
// The walk of <= 2 faults finds it at schedule 24 of its enumeration:
// the clean run, 5 of one fault, the 13 plain schedules of two (all
// hold), then the schedules of two with a modifier, the fifth of which
// is a repeated tool_timeout at the first charge and a restart at the
// third checkpoint write. The same faults without the modifier, either
// fault alone, and the correct agent under them hold; the plain three
// faults the modifier stands for break it too; the correct agent's walk
// (28 schedules) holds; the default check's walk phase finds the same.
func TestWalkPlacesAModifierOnOneOfTwoFaults(t *testing.T) {
	def := billing.Definition()
	kinds := properties.WithKinds("tool_timeout", "worker_restart")
	timeouts := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "tool_timeout", Correlation: "repeated", Repeat: 2}
	restart := model.FaultEntry{Event: model.EvCheckpointWrite, Ordinal: 3, Kind: "worker_restart"}
	rep, err := properties.Explore(def, properties.WithConfig(oneRetry(billing.FreshBudgetOnResume)), kinds, properties.WithMaxFaults(2), properties.WithExhaustive())
	if err != nil {
		t.Fatal(err)
	}
	w := rep.Exhaustive
	if !w.Found || w.Index != 24 || !slices.Equal(w.PerSize, []int{1, 5, 18}) || w.Counterexample.Invariant != model.InvBudget ||
		!slices.Equal(w.Counterexample.Schedule.Faults, []model.FaultEntry{timeouts, restart}) ||
		!strings.HasSuffix(w.Summary(), "modifiers on any fault repeated (2 crossings); not enumerated: synchronized (one worker), shared (one tenant), other repeat counts, until events and windows)") {
		t.Fatalf("%s\n%v", w.Summary(), w.Counterexample)
	}
	plain := timeouts
	plain.Correlation, plain.Repeat = "", 0
	second := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 2, Kind: "tool_timeout"}
	for _, c := range []struct {
		bugs   billing.Bugs
		faults []model.FaultEntry
		broken bool
	}{
		{billing.FreshBudgetOnResume, []model.FaultEntry{timeouts, restart}, true},
		{billing.FreshBudgetOnResume, []model.FaultEntry{plain, restart}, false},
		{billing.FreshBudgetOnResume, []model.FaultEntry{timeouts}, false},
		{billing.FreshBudgetOnResume, []model.FaultEntry{restart}, false},
		{billing.FreshBudgetOnResume, []model.FaultEntry{plain, second, restart}, true},
		{0, []model.FaultEntry{timeouts, restart}, false},
	} {
		res, err := def.Replay(&model.Schedule{Version: model.ScheduleVersion, Config: oneRetry(c.bugs), Faults: c.faults})
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := res.Invariant(model.InvBudget); !ok || r.Held == c.broken {
			t.Errorf("bugs %s, faults %v: budget %+v, want broken %t", c.bugs, c.faults, r, c.broken)
		}
	}
	correct, err := properties.Explore(def, properties.WithConfig(oneRetry(0)), kinds, properties.WithMaxFaults(2), properties.WithExhaustive())
	if err != nil {
		t.Fatal(err)
	}
	if c := correct.Exhaustive; c.Found || !c.Complete || c.Schedules != 28 || !slices.Equal(c.PerSize, []int{1, 5, 22}) {
		t.Fatalf("the correct agent: %s", c.Summary())
	}
	campaign, err := properties.Explore(def, properties.WithConfig(oneRetry(billing.FreshBudgetOnResume)), kinds, properties.WithSeed(1), properties.WithChecks(100))
	if err != nil {
		t.Fatal(err)
	}
	if campaign.Walk == nil || !campaign.Found || campaign.Checks != 0 || !slices.Equal(campaign.Counterexample.Schedule.Faults, []model.FaultEntry{timeouts, restart}) ||
		campaign.Walk.WalkLine() != "walk: counterexample at schedule 24 of the schedules of <= 2 faults (1 of 0 faults, 5 of 1, 18 of 2)" {
		t.Fatalf("the default check: found %t after %d checks, walk %v", campaign.Found, campaign.Checks, campaign.Walk)
	}
}

// TestFuzzDecoderPlacesModifiers: under fuzz.WithModifiers each fault
// takes one byte more, which picks a modifier its kind takes (0: none),
// so the fuzz decoder expresses the same bug: bytes 00 01 03 00 (site 0,
// a tool_timeout at the first charge, with its first modifier, repeated;
// site 3, a restart at the third checkpoint write, with none) decode to
// the walk's counterexample, which breaks budget, and Encode gives them
// back. Without the option the bytes of the sites alone (00 03) decode as
// before, to the plain faults, which hold, and Encode drops the
// modifier, as it did.
func TestFuzzDecoderPlacesModifiers(t *testing.T) {
	def := billing.Definition()
	timeouts := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "tool_timeout", Correlation: "repeated", Repeat: 2}
	restart := model.FaultEntry{Event: model.EvCheckpointWrite, Ordinal: 3, Kind: "worker_restart"}
	opts := []fuzz.Option{fuzz.WithConfig(oneRetry(billing.FreshBudgetOnResume)), fuzz.WithKinds("tool_timeout", "worker_restart"), fuzz.WithScope("anywhere")}
	dec, err := fuzz.NewDecoder(def, append(opts, fuzz.WithModifiers())...)
	if err != nil {
		t.Fatal(err)
	}
	in := []byte{0, 1, 3, 0}
	s := dec.Decode(in)
	if !slices.Equal(s.Faults, []model.FaultEntry{timeouts, restart}) {
		t.Fatalf("decoded %v (sites %v)", s.Faults, dec.Sites())
	}
	if b, err := dec.Encode(s); err != nil || !slices.Equal(b, in) {
		t.Fatalf("encoded %x, %v; want %x", b, err, in)
	}
	if _, err := dec.Check(s); err == nil || !strings.Contains(err.Error(), model.InvBudget) {
		t.Fatalf("check: %v", err)
	}
	plain, err := fuzz.NewDecoder(def, opts...)
	if err != nil {
		t.Fatal(err)
	}
	p := plain.Decode([]byte{0, 3})
	bare := timeouts
	bare.Correlation, bare.Repeat = "", 0
	if !slices.Equal(p.Faults, []model.FaultEntry{bare, restart}) {
		t.Fatalf("without modifiers: %v", p.Faults)
	}
	if b, err := plain.Encode(s); err != nil || !slices.Equal(b, []byte{0, 3}) {
		t.Fatalf("without modifiers, encoded %x, %v", b, err)
	}
	if _, err := plain.Check(p); err != nil {
		t.Fatalf("the plain faults: %v", err)
	}
}
