package paper_test

import (
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestReplayAttributesToTheWorkload: Replay (the run behind "faultline
// replay") gives the workload the violations the fault-free run already
// shows, and leaves a fault the violations it moves.
func TestReplayAttributesToTheWorkload(t *testing.T) {
	for _, c := range []struct {
		fault, inv, by, detail string
		seq                    int
	}{
		// the third task's duplicate refund of O-731 happens without any fault
		{`{"event":"evidence.receipt","ordinal":1,"kind":"drop_effect_receipt"}`, model.InvEffectAtMostOnce, "",
			"second effect for subject O-731: task refund-O-731 already made it", 54},
		{`{"event":"evidence.receipt","ordinal":1,"kind":"drop_effect_receipt"}`, model.InvProvableOutcome, "f1",
			"release without correlated proof", 19},
		// the swap makes the first task refund O-732: the second refund of
		// O-732 is the fault's
		{`{"event":"proposal","ordinal":1,"kind":"subject_swap"}`, model.InvEffectAtMostOnce, "f1",
			"second effect for subject O-732: task refund-O-731 already made it", 35},
	} {
		s, err := model.ParseSchedule([]byte(`{"version":1,"seed":"x","config":{"fixture":"copperfin-batch","profile":"baseline"},"faults":[` + c.fault + `]}`))
		if err != nil {
			t.Fatal(err)
		}
		res, err := copperfin.Definition().Replay(s)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := res.Invariant(c.inv)
		if got.Held || got.FaultID != c.by || got.Detail != c.detail || got.FirstSeq != c.seq {
			t.Errorf("%s: %s %+v, want reached by %q at seq %d: %s", c.fault, c.inv, got, c.by, c.seq, c.detail)
		}
	}
}
