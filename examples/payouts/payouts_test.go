package payouts_test

import (
	"testing"

	"github.com/faultline/faultline/examples/payouts"
	"github.com/faultline/faultline/model"
)

func run(t *testing.T, bugs payouts.Bugs, faults ...model.FaultEntry) *model.Result {
	t.Helper()
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "payouts", Config: model.Config{Notices: true}, Faults: faults}
	res, err := model.NewHarness(payouts.Fixture(), model.Options{}).Run(payouts.Factory(bugs), s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestNoticeKindsCounterfactual: each kind of the provider's notices,
// placed at the payout agent's first notice.receive, breaks
// recorded_agrees_with_ledger in the agent that trusts its notices (with
// the detail the oracle derives from the agent's checkpoints and the
// provider's ledger) and holds in the correct agent, which releases the
// payout. reordered_notice and the late failed notice need a failed
// notice waiting first: a rate limit on the first attempt.
func TestNoticeKindsCounterfactual(t *testing.T) {
	rate := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "rate_limit"}
	at := func(kind string) model.FaultEntry {
		return model.FaultEntry{Event: model.EvNoticeReceive, Ordinal: 1, Kind: kind}
	}
	for _, c := range []struct {
		name   string
		faults []model.FaultEntry
		detail string
		claim  model.ClaimVerdict
	}{
		{"late", []model.FaultEntry{at("late_notice")}, "checkpoint 3 withdraws effect po-9:pay, which checkpoint 2 recorded and the provider's ledger holds", model.ClaimRelease},
		{"late failed", []model.FaultEntry{rate, at("late_notice")}, "checkpoint 4 withdraws effect po-9:pay, which checkpoint 2 recorded and the provider's ledger holds", model.ClaimHold},
		{"reordered", []model.FaultEntry{rate, at("reordered_notice")}, "checkpoint 3 withdraws effect po-9:pay, which checkpoint 2 recorded and the provider's ledger holds", model.ClaimHold},
		{"redelivered", []model.FaultEntry{at("redelivered_notice")}, "checkpoint 3 records effect po-9:pay 2 times; the provider's ledger holds it 1", model.ClaimRelease},
		{"lost", []model.FaultEntry{at("lost_notice")}, "checkpoint 3 withdraws effect po-9:pay, which checkpoint 2 recorded and the provider's ledger holds", model.ClaimHold},
	} {
		id := "f1"
		if len(c.faults) == 2 {
			id = "f2"
		}
		res := run(t, payouts.TrustNotices, c.faults...)
		r, ok := res.Invariant(model.InvRecordedAgreesWithLedger)
		if !ok || r.Held || r.FaultID != id || r.Detail != c.detail || res.Claims[0].Verdict != c.claim {
			t.Errorf("%s, trusting: %+v, claims %+v", c.name, r, res.Claims)
		}
		for _, f := range res.Faults {
			if !f.Reached || f.Fired != 1 {
				t.Errorf("%s: %s not reached/fired", c.name, f.Kind)
			}
		}
		res = run(t, 0, c.faults...)
		if !res.Held() || res.Claims[0].Verdict != model.ClaimRelease {
			t.Errorf("%s, correct: %+v %+v", c.name, res.Invariants, res.Claims)
		}
	}
}

// TestWithoutNotices: a run whose provider sends no notices hands the
// agent no inbox; it claims the payout from the reply, and the eight
// built-in invariants and recorded_agrees_with_ledger, checked in every
// run, are the run's, all held.
func TestWithoutNotices(t *testing.T) {
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "payouts"}
	res, err := model.NewHarness(payouts.Fixture(), model.Options{}).Run(payouts.Factory(payouts.TrustNotices), s)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Held() || len(res.Invariants) != 10 || res.Invariants[8].Invariant != model.InvRecordedAgreesWithLedger || res.Invariants[9].Invariant != "retry_paced" || res.Claims[0].Reason != "paid" {
		t.Errorf("%+v %+v", res.Invariants, res.Claims)
	}
}
