package properties

import (
	"pgregory.net/rapid"
)

// Check explores ordered compositions of typed faults and world events
// against sys and fails t with the reduced counterexample when a schedule
// breaks an invariant in scope: the invariant, the first crossing after
// which it was false, the fault that reached it, the 1-minimal schedule
// and the command that replays it. It is the test form of Explore: t is a
// *testing.T or any rapid.TB, and rapid's own fail file for t's name
// (testdata/rapid/NAME/) keeps working: it is replayed first on the next
// run. Bad options and harness errors fail t with Fatalf.
//
// Checks and seed are rapid's: -rapid.checks and -rapid.seed, or the
// RAPID_CHECKS and RAPID_SEED environment variables (default 100 checks,
// a random seed).
func Check(t rapid.TB, sys System, opts ...Option) {
	t.Helper()
	rep, err := explore(t, sys, opts)
	if err != nil {
		t.Fatalf("%v", err)
		return
	}
	if !rep.Found {
		t.Logf("properties: no counterexample in %d checks", rep.Checks)
		return
	}
	t.Logf("%s", rep.RapidOutput)
	t.Errorf("properties: counterexample after %d checks: %s", rep.ChecksToFailure, rep.Counterexample)
}
