package accounts_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/accounts"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// retrying is the Definition of a closer that sends a timed-out close
// twice more under its key, with the fresh-key fallback when bug is set.
func retrying(bug bool) *model.Definition {
	d := closer(accounts.Closer{PerTask: true, Retries: 2, FreshKeyFallback: bug})
	d.Builtin, d.Invariants = opts.Builtin, opts.Invariants
	return d
}

// TestModifiedFaultInTwoFaultSchedule: over tool timeouts, the closer
// that falls back to a fresh request key once its three attempts timed
// out closes an account twice (the first attempt commits late): three
// timeouts of one close, or two faults when one repeats. The default
// check finds it in its walk at schedule 15 of <= 2 faults, after the
// clean run, 6 of one fault and the 7 plain pairs (all hold): a timeout
// of the first close and a repeated one of the second. The same faults
// without the modifier, the repeated one alone, a shared timeout with a
// plain one and the correct closer under them hold; the three plain
// timeouts the modifier stands for break it. The correct closer's
// default walk, every one of 24 schedules, holds, and so does its walk
// with modifiers on any fault (WithExhaustive: 67).
func TestModifiedFaultInTwoFaultSchedule(t *testing.T) {
	kinds := properties.WithKinds("tool_timeout")
	at := func(o int, c model.Correlation) model.FaultEntry {
		f := model.FaultEntry{Event: model.EvToolCommit, Ordinal: o, Kind: "tool_timeout", Correlation: c}
		if c == "repeated" {
			f.Repeat = 2
		}
		return f
	}
	pair := []model.FaultEntry{at(1, ""), at(2, "repeated")}
	rep, err := properties.Explore(retrying(true), kinds, properties.WithSeed(1), properties.WithChecks(100))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Found || rep.Checks != 0 || rep.Walk == nil || !slices.Equal(rep.Counterexample.Schedule.Faults, pair) ||
		rep.Counterexample.Invariant != model.InvEffectAtMostOnce ||
		rep.Walk.WalkLine() != "walk: counterexample at schedule 15 of the schedules of <= 2 faults (1 of 0 faults, 6 of 1, 8 of 2)" {
		t.Fatalf("default check: found %t after %d checks, walk %v: %v", rep.Found, rep.Checks, rep.Walk, rep.Counterexample)
	}
	for _, c := range []struct {
		bug    bool
		faults []model.FaultEntry
		broken bool
	}{
		{true, pair, true},
		{true, []model.FaultEntry{at(1, ""), at(2, "")}, false},
		{true, []model.FaultEntry{at(1, "repeated")}, false},
		{true, []model.FaultEntry{at(1, "shared"), at(2, "")}, false},
		{true, []model.FaultEntry{at(1, ""), at(2, ""), at(3, "")}, true},
		{false, pair, false},
	} {
		res, err := retrying(c.bug).Replay(&model.Schedule{Version: model.ScheduleVersion, Faults: c.faults})
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := res.Invariant(model.InvEffectAtMostOnce); !ok || r.Held == c.broken {
			t.Errorf("bug %t, faults %v: %+v, want broken %t", c.bug, c.faults, r, c.broken)
		}
	}
	correct, err := properties.Explore(retrying(false), kinds, properties.WithSeed(1), properties.WithChecks(20))
	if err != nil {
		t.Fatal(err)
	}
	if correct.Found || correct.Walk == nil || correct.Walk.WalkLine() != "walk: every one of 24 schedules of <= 2 faults, no counterexample; of their 40 faults 40 reached, 36 fired "+
		"(1 of 0 faults, 6 of 1, 17 of 2; modifiers on the last fault repeated (2 crossings), shared; not enumerated: "+
		"synchronized (one worker), faults placed after a modified one, other repeat counts, until events and windows)" {
		t.Fatalf("correct closer: %v", correct.Walk)
	}
	whole, err := walk(retrying(false), kinds, properties.WithMaxFaults(2))
	if err != nil || whole.Found || !whole.Complete || whole.Schedules != 67 || !slices.Equal(whole.PerSize, []int{1, 6, 60}) {
		t.Fatalf("correct closer, --exhaustive: %v %v", err, whole)
	}
}

// TestFuzzSeedWithAModifier: under fuzz.WithModifiers each fault takes a
// byte more that picks its modifier (tool_timeout's: 1 repeated, 2
// shared; two tenants), so a fuzz input reaches the walk's pair: 00 00 01
// 01 (site 0, the first close, plain; site 1, the second, repeated)
// decodes to it and breaks effect_at_most_once, and Encode gives the
// bytes back. An input of four faults that contains it (a shared
// timeout and a plain one added) shrinks, modifier kept, to the pair
// (removal 8 runs, walk 10), which replays through the Definition. Without the option 00 01 decodes to
// the plain pair, which holds, as before.
func TestFuzzSeedWithAModifier(t *testing.T) {
	pair := []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "tool_timeout"},
		{Event: model.EvToolCommit, Ordinal: 2, Kind: "tool_timeout", Correlation: "repeated", Repeat: 2}}
	scope := []fuzz.Option{fuzz.WithKinds("tool_timeout"), fuzz.WithScope("anywhere")}
	tgt, err := fuzz.NewTarget(retrying(true), append(scope, fuzz.WithModifiers())...)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := fuzz.NewDecoder(retrying(true), append(scope, fuzz.WithModifiers())...)
	if err != nil {
		t.Fatal(err)
	}
	seed := []byte{0, 0, 1, 1}
	if s := dec.Decode(seed); !slices.Equal(s.Faults, pair) {
		t.Fatalf("decoded %v (sites %v)", s.Faults, dec.Sites())
	} else if b, err := dec.Encode(s); err != nil || !slices.Equal(b, seed) {
		t.Fatalf("encoded %x, %v", b, err)
	}
	var f *fuzz.Failure
	if err := tgt.Check(seed); !errors.As(err, &f) || f.Invariant != model.InvEffectAtMostOnce || !slices.Equal(f.Schedule.Faults, pair) {
		t.Fatalf("seed: %v", err)
	}
	if err := tgt.Check([]byte{1, 2, 0, 0, 1, 0, 1, 1}); !errors.As(err, &f) || !slices.Equal(f.Schedule.Faults, pair) ||
		!strings.Contains(f.Error(), "shrunk to 2 of its 4 faults (removal 8 runs, 2 faults left; walk 10 runs, nothing smaller)") {
		t.Fatalf("four faults: %v", err)
	}
	res, err := retrying(true).Replay(f.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := res.Invariant(model.InvEffectAtMostOnce); r.Held {
		t.Errorf("the shrunk schedule replays without breaking effect_at_most_once: %v", f.Schedule)
	}
	plain, err := fuzz.NewDecoder(retrying(true), scope...)
	if err != nil {
		t.Fatal(err)
	}
	if s := plain.Decode([]byte{0, 1}); len(s.Faults) != 2 || s.Faults[1].Correlation != "" {
		t.Fatalf("without modifiers: %v", s.Faults)
	} else if _, err := plain.Check(s); err != nil {
		t.Fatalf("the plain pair: %v", err)
	}
}

// FuzzRetryingCloser fuzzes the correct retrying closer over tool
// timeouts with modifiers, seeded by the input of the buggy closer's
// pair (TestFuzzSeedWithAModifier): it holds under it.
func FuzzRetryingCloser(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1})
	dir := f.TempDir()
	f.Fuzz(fuzz.For(retrying(false), fuzz.WithKinds("tool_timeout"), fuzz.WithScope("anywhere"), fuzz.WithModifiers(), fuzz.WithFailDir(dir)))
}
