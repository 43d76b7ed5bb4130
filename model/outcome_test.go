package model_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestLastOutcomeMatchesRun checks that the outcome read after the Terms
// hot path equals Run's result without its run id and timeline, for every
// kind under every profile, and for a fault that is never reached.
func TestLastOutcomeMatchesRun(t *testing.T) {
	h := model.NewHarness(copperfin.Copperfin(), model.Options{})
	if h.LastOutcome() != nil {
		t.Fatal("LastOutcome before any run is not nil")
	}
	var scheds []*model.Schedule
	for _, p := range copperfin.Profiles {
		for _, spec := range model.Catalogue() {
			s, err := model.SingleFault(spec.Kind, copperfin.ConfigOfProfile(p))
			if err != nil {
				t.Fatal(err)
			}
			scheds = append(scheds, s)
		}
	}
	scheds = append(scheds, &model.Schedule{Version: 1, Seed: "late", Config: copperfin.ConfigOfProfile(copperfin.ProfileTyped),
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 5, Kind: "timeout_after_commit"}}})
	violated := 0
	for _, s := range scheds {
		cs, _ := copperfin.ControlsOf(s.Config)
		f := copperfin.Factory(cs)
		want, err := h.Run(f, s)
		if err != nil {
			t.Fatal(err)
		}
		want.RunID, want.Timeline = "", model.Timeline{}
		terms, err := h.Terms(f, s)
		if err != nil {
			t.Fatal(err)
		}
		got := h.LastOutcome()
		// the unexported fields (fixture, budget, join) feed Result.Record, so they must match too
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(model.Result{})); diff != "" {
			t.Fatalf("%s under %s: LastOutcome after Terms differs from Run (-run +outcome):\n%s", s.Faults[0].Kind, s.Config, diff)
		}
		if got.Terms != terms {
			t.Fatalf("%s: LastOutcome terms %+v, Terms returned %+v", s.Faults[0].Kind, got.Terms, terms)
		}
		if !got.Held() {
			violated++
		}
	}
	// under baseline the paper's ten kinds, malformed_response, output_drift
	// and tool_timeout (a duplicate refund each), and the five proposal
	// kinds of the 35-kind catalogue (tenant_swap, purpose_swap and
	// malformed_tool_call: right_subject; stale_context and
	// omitted_context: current_entitlement) violate an invariant (18, was
	// 13); under typed no kind does; under fail_closed six do
	// (recorded_agrees_with_ledger: it denies a refund the provider made,
	// after timeout_after_commit, partial_success_response,
	// checkpoint_rollback, drop_effect_receipt, malformed_response and
	// output_drift)
	if violated != 24 {
		t.Fatalf("%d outcomes with a violated invariant, want 24 (the baseline's 18, fail_closed's 6)", violated)
	}
}
