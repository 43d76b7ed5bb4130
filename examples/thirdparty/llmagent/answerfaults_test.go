package llmagent_test

import (
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/faultline/faultline/model"
)

// runOnce runs the glue's definition, the agent with bug ("" for the
// correct one) over provider, under faults (each at tool.commit, ordinals
// as given), in a synctest bubble, and returns what fired and what broke.
func runOnce(t *testing.T, provider, bug string, faults ...model.FaultEntry) (fired []int, broke string) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "answer", Config: configOf(provider, bug), Faults: faults}
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
				fired, broke := runOnce(t, p, "", model.FaultEntry{Event: model.EvToolCommit, Ordinal: i + 1, Kind: tc.kind})
				if len(fired) != 1 || fired[0] != want || broke != "" {
					t.Errorf("%q: %s at tool.commit#%d fired %v (want %d), broke %q", p, tc.kind, i+1, fired, want, broke)
				}
			}
		}
	}
}

// TestFreshBudgetOnResume is the journal's counterfactual pair, over each
// SDK, on what the default check without WithKinds finds: with the model
// unreachable (budget_exhaustion at its first request) and the worker
// crashing at the SDK's third attempt (worker_crash), the agent that
// counts its requests from zero at every start (fresh_budget_on_resume)
// makes the SDK's three attempts again: the sixth call breaks the retry
// budget of 4. The correct agent reads its journal (three sent) and makes
// two: budget_exhaustion fires at each of its five calls, and it holds.
func TestFreshBudgetOnResume(t *testing.T) {
	for _, p := range providers {
		for _, c := range []struct {
			bug, broke string
			fired      int
		}{{"fresh_budget_on_resume", "budget after seq 10: attempt 6 exceeds one plus the retry budget of 4; ", 6}, {"", "", 5}} {
			fired, broke := runOnce(t, p, c.bug, model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "budget_exhaustion"},
				model.FaultEntry{Event: model.EvToolCommit, Ordinal: 3, Kind: "worker_crash"})
			if len(fired) != 2 || fired[0] != c.fired || fired[1] != 1 || broke != c.broke {
				t.Errorf("%q %q: fired %v, broke %q, want [%d 1], %q", p, c.bug, fired, broke, c.fired, c.broke)
			}
		}
	}
}
