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
//
// Check fails t in three ways, each saying which it is: a counterexample
// (an invariant violated, exit code 1 of the command line's table), an
// inconclusive campaign (no scheduled fault was reached in any check, so
// nothing was tested; the message names the events the system did cross;
// 3), and a harness or option error (Fatalf: no verdict, the command
// line's 4 or, for options, 2). A campaign that reached
// some of its faults passes and logs how many were not reached.
func Check(t rapid.TB, sys System, opts ...Option) {
	t.Helper()
	rep, err := explore(t, sys, opts)
	if err != nil {
		t.Fatalf("%v (a harness or option error, not a verdict on the system)", err)
		return
	}
	if rep.Inconclusive() {
		t.Errorf("properties: %s (exit code 3 of the table: the campaign is inconclusive, not a pass; widen the scope with WithKinds, WithDomains or WithFixture so the faults meet events the workload crosses)", rep.InconclusiveMessage())
		return
	}
	if !rep.Found {
		t.Logf("properties: no counterexample in %d checks; %d of %d scheduled faults reached (%d not reached)", rep.Checks, rep.Reached, rep.Faults, rep.Unreached())
		return
	}
	t.Logf("%s", rep.RapidOutput)
	t.Errorf("properties: counterexample after %d checks (an invariant violated, exit code 1 of the table): %s", rep.ChecksToFailure, rep.Counterexample)
}
