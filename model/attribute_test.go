package model_test

import (
	"slices"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestBatchWorkloadViolationIsNotTheFaults: on copperfin-batch under the
// baseline the fault-free run already refunds O-731 twice (the repeated
// request). A dropped receipt in the first task breaks provable_outcome,
// which stays the fault's; the duplicate refund of the third task is the
// workload's, as exploration reduces it to a schedule with no fault.
func TestBatchWorkloadViolationIsNotTheFaults(t *testing.T) {
	src := `{"version":1,"seed":"x","config":{"fixture":"copperfin-batch","profile":"baseline"},` +
		`"faults":[{"event":"evidence.receipt","ordinal":1,"kind":"drop_effect_receipt"}]}`
	s, err := model.ParseSchedule([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, res *model.Result) {
		t.Helper()
		dup, _ := res.Invariant(model.InvEffectAtMostOnce)
		proof, _ := res.Invariant(model.InvProvableOutcome)
		if dup.Held || dup.FirstSeq != 54 || dup.Event != model.EvToolCommit || dup.FaultID != "" ||
			dup.Detail != "second effect for subject O-731: task refund-O-731 already made it" {
			t.Errorf("effect_at_most_once: %+v, want the workload's duplicate at seq 54 with no fault", dup)
		}
		if proof.Held || proof.FirstSeq != 19 || proof.FaultID != "f1" {
			t.Errorf("provable_outcome: %+v, want f1's at seq 19", proof)
		}
		if got := res.Faults[0].Observed; !slices.Equal(got, []string{model.InvProvableOutcome}) {
			t.Errorf("f1 observed by %v, want [provable_outcome]", got)
		}
		if rec := res.Record(); rec.Faults[0].Handled || rec.NextCheck == "" {
			t.Errorf("record fault %+v next %q", rec.Faults[0], rec.NextCheck)
		}
	}
	h := model.NewHarness(copperfin.CopperfinBatch(), model.Options{})
	cs, _ := copperfin.ControlsOf(s.Config)
	raw, err := h.Run(copperfin.Factory(cs), s)
	if err != nil {
		t.Fatal(err)
	}
	if dup, _ := raw.Invariant(model.InvEffectAtMostOnce); dup.FaultID != "f1" {
		t.Fatalf("raw run: effect_at_most_once reached by %q, want f1 before Attribute", dup.FaultID)
	}
	if err := model.Attribute(h, raw, copperfin.Factory(cs)); err != nil {
		t.Fatal(err)
	}
	check(t, raw)

}
