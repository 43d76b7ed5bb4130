package model_test

import (
	"slices"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestMissingCheckpointBreaksTheRecord: missing_checkpoint threatens
// recorded_agrees_with_ledger as well as resume_from_checkpoint. A worker
// that resumes from the nothing the store served (copperfin's
// stale_checkpoint_accepted) writes a checkpoint that withdraws the
// effect its lost checkpoint recorded and the ledger holds, under the
// baseline and the typed controls alike; the typed system without the
// defect holds.
func TestMissingCheckpointBreaksTheRecord(t *testing.T) {
	spec, err := model.Spec("missing_checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{model.InvResumeFromCheckpoint, model.InvRecordedAgreesWithLedger}; !slices.Equal(spec.Threatens, want) {
		t.Fatalf("threatens %v, want %v", spec.Threatens, want)
	}
	for _, c := range []struct {
		profile copperfin.Profile
		mutant  string
		broken  []string
		record  string
		effects int
		verdict model.ClaimVerdict
	}{
		{copperfin.ProfileBaseline, "stale_checkpoint_accepted", []string{model.InvEffectAtMostOnce, model.InvResumeFromCheckpoint, model.InvRecordedAgreesWithLedger},
			"checkpoint 1 withdraws effect req-1, which checkpoint 3 recorded and the provider's ledger holds", 2, model.ClaimRelease},
		{copperfin.ProfileTyped, "stale_checkpoint_accepted", []string{model.InvResumeFromCheckpoint, model.InvRecordedAgreesWithLedger},
			"checkpoint 1 withdraws effect O-731:refund:v1, which checkpoint 3 recorded and the provider's ledger holds", 1, model.ClaimRelease},
		{copperfin.ProfileTyped, "", nil, "", 1, model.ClaimHold},
	} {
		s, err := model.SingleFault("missing_checkpoint", copperfin.WithMutant(copperfin.ConfigOfProfile(c.profile), c.mutant))
		if err != nil {
			t.Fatal(err)
		}
		res := run(t, s)
		var broken []string
		for _, i := range res.Invariants {
			if !i.Held {
				broken = append(broken, i.Invariant)
			}
		}
		rec, _ := res.Invariant(model.InvRecordedAgreesWithLedger)
		if !slices.Equal(broken, c.broken) || rec.Detail != c.record || res.Terms.Effects != c.effects || res.Claims[0].Verdict != c.verdict || res.Faults[0].Fired != 1 {
			t.Errorf("%s %s: broken %v, record %q, %d effects, claim %s, fault %+v", c.profile, c.mutant, broken, rec.Detail, res.Terms.Effects, res.Claims[0].Verdict, res.Faults[0])
		}
		if !rec.Held && rec.FaultID != "f1" {
			t.Errorf("%s %s: the record's violation is not the fault's: %+v", c.profile, c.mutant, rec)
		}
	}
}
