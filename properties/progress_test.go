package properties_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/model/copperfin"
	"github.com/faultline/faultline/properties"
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
