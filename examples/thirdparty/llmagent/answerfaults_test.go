package llmagent_test

import (
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/faultline/faultline/model"
)

// runOnce runs the glue's definition, correct agent over provider, under
// faults (each at tool.commit, ordinals as given), in a synctest bubble,
// and returns what fired and what broke.
func runOnce(t *testing.T, provider string, faults ...model.FaultEntry) (fired []int, broke string) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "answer", Config: configOf(provider, ""), Faults: faults}
		res, err := definition().Run(s, model.Options{})
		if err != nil {
			t.Fatalf("%q %v: %v", provider, faults, err)
		}
		for _, f := range res.Faults {
			if !f.Reached {
				t.Fatalf("%q %v: %s not reached", provider, faults, f.Kind)
			}
			fired = append(fired, f.Fired)
		}
		for _, inv := range res.Invariants {
			if !inv.Held {
				broke += fmt.Sprintf("%s after seq %d: %s; ", inv.Invariant, inv.FirstSeq, inv.Detail)
			}
		}
	})
	return fired, broke
}

// TestAnswerFaultsOnTheStream: the answer faults the default check draws
// at tool.commit, on the glue over each SDK. On the model's streamed reply
// (tool.commit#1, a server-sent-event stream, no JSON object)
// partial_success_response and output_drift are reached and not fired
// (they were a harness error: fired, and the stream still carried its
// message id); on the refund's JSON answer (#2) they fire, the receipt
// field "id" removed or renamed; malformed_response cuts either. The
// correct agent holds under each.
func TestAnswerFaultsOnTheStream(t *testing.T) {
	for _, p := range providers {
		for _, tc := range []struct {
			kind  string
			fired [2]int // at the model's reply, at the refund
		}{{"partial_success_response", [2]int{0, 1}}, {"output_drift", [2]int{0, 1}}, {"malformed_response", [2]int{1, 1}}} {
			for i, want := range tc.fired {
				fired, broke := runOnce(t, p, model.FaultEntry{Event: model.EvToolCommit, Ordinal: i + 1, Kind: tc.kind})
				if len(fired) != 1 || fired[0] != want || broke != "" {
					t.Errorf("%q: %s at tool.commit#%d fired %v (want %d), broke %q", p, tc.kind, i+1, fired, want, broke)
				}
			}
		}
	}
}

// TestFreshBudgetOnResume is what the default check without WithKinds
// finds in the correct agent, over each SDK, once no answer fault is a
// harness error: with the model unreachable (budget_exhaustion at its
// first request) and the worker crashing at the SDK's third attempt
// (worker_crash), the restarted worker starts the task afresh and the
// SDK's three attempts again: the sixth call breaks the retry budget of 4.
func TestFreshBudgetOnResume(t *testing.T) {
	for _, p := range providers {
		fired, broke := runOnce(t, p, model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "budget_exhaustion"},
			model.FaultEntry{Event: model.EvToolCommit, Ordinal: 3, Kind: "worker_crash"})
		if want := "budget after seq 10: attempt 6 exceeds one plus the retry budget of 4; "; len(fired) != 2 || fired[0] != 6 || fired[1] != 1 || broke != want {
			t.Errorf("%q: fired %v, broke %q, want %q", p, fired, broke, want)
		}
	}
}
