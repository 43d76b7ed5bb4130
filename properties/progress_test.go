package properties_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// call is one WithProgress call.
type call struct{ done, total, cx int }

// TestProgressCountsEveryCheck: with no counterexample, the callback is
// called once per check, with done 1..N, rapid's N as the total and no
// counterexample.
func TestProgressCountsEveryCheck(t *testing.T) {
	rapidFlags(t, 7, 1)
	var calls []call
	rep, err := explore(copperfin.Configured, properties.WithConfig(copperfin.Settings{Profile: copperfin.ProfileTyped}.Config()),
		properties.WithProgress(func(done, total, cx int) { calls = append(calls, call{done, total, cx}) }))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Found || rep.Checks != 7 {
		t.Fatalf("report: found %v after %d checks, want none in 7", rep.Found, rep.Checks)
	}
	want := []call{{1, 7, 0}, {2, 7, 0}, {3, 7, 0}, {4, 7, 0}, {5, 7, 0}, {6, 7, 0}, {7, 7, 0}}
	if !slices.Equal(calls, want) {
		t.Fatalf("calls %v, want %v", calls, want)
	}
}

// TestProgressStopsAtTheCounterexample: the failing check is the last
// call, done its number and one counterexample; rapid's shrinking and the
// reduction add none.
func TestProgressStopsAtTheCounterexample(t *testing.T) {
	oneGoroutine(t)
	rapidFlags(t, 100, 1)
	var calls []call
	rep, err := explore(copperfin.Configured, properties.WithConfig(typedWithout(copperfin.Idempotency)),
		properties.WithProgress(func(done, total, cx int) { calls = append(calls, call{done, total, cx}) }))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Found {
		t.Fatal("no counterexample without idempotency")
	}
	n := rep.ChecksToFailure
	want := make([]call, n)
	for i := range want {
		want[i] = call{i + 1, 100, 0}
	}
	want[n-1].cx = 1
	if !slices.Equal(calls, want) {
		t.Fatalf("calls %v, want %v", calls, want)
	}
}

func TestProgressNeedsAFunction(t *testing.T) {
	if _, err := explore(copperfin.Configured, properties.WithProgress(nil)); err == nil || !strings.Contains(err.Error(), "WithProgress needs a function") {
		t.Fatalf("WithProgress(nil): %v", err)
	}
}

// TestProgressOfTheWalk: the exhaustive walk reports each schedule in
// order, done 1..N, with a total that starts at the clean run and the
// single faults it found (1 + 10), never falls below done, grows and ends
// at the N schedules run; on two workers the calls are the same. The
// planted bug's walk ends at its counterexample, done and total the same,
// and a cap bounds the total.
func TestProgressOfTheWalk(t *testing.T) {
	d := inventory.Definition()
	opts := []properties.Option{properties.WithoutWorldEvents(), properties.WithHarnessOptions(model.Options{RetryBudget: 3}),
		properties.WithKinds("tool_timeout", "timeout_after_commit")}
	walk := func(extra ...properties.Option) ([]call, *properties.ExhaustiveReport) {
		var calls []call
		rep, err := exhaustive(d, append(append(slices.Clone(opts), extra...),
			properties.WithProgress(func(done, total, cx int) { calls = append(calls, call{done, total, cx}) }))...)
		if err != nil {
			t.Fatal(err)
		}
		return calls, rep
	}
	calls, rep := walk(properties.WithMaxFaults(2))
	if rep.Schedules != 131 || len(calls) != 131 {
		t.Fatalf("%d schedules, %d calls; want 131 and 131", rep.Schedules, len(calls))
	}
	if calls[0] != (call{1, 11, 0}) || calls[130] != (call{131, 131, 0}) {
		t.Fatalf("first call %v, last %v; want {1 11 0} and {131 131 0}", calls[0], calls[130])
	}
	for i, c := range calls {
		if c.done != i+1 || c.total < c.done || c.cx != 0 || (i > 0 && c.total < calls[i-1].total) {
			t.Fatalf("call %d: %v (all: %v)", i, c, calls)
		}
	}
	if two, _ := walk(properties.WithMaxFaults(2), properties.WithWorkers(2)); !slices.Equal(two, calls) {
		t.Fatalf("two workers: %v, one: %v", two, calls)
	}
	planted, rep := walk(properties.WithMaxFaults(1), properties.WithConfig(model.Config{System: json.RawMessage(`{"variant":"planted"}`)}))
	if !rep.Found || len(planted) != 5 || planted[4] != (call{5, 5, 1}) {
		t.Fatalf("planted: found %v, calls %v; want the 5th {5 5 1}", rep.Found, planted)
	}
	capped, _ := walk(properties.WithMaxFaults(2), properties.WithMaxSchedules(3))
	if want := []call{{1, 3, 0}, {2, 3, 0}, {3, 3, 0}}; !slices.Equal(capped, want) {
		t.Fatalf("capped: %v, want %v", capped, want)
	}
}
