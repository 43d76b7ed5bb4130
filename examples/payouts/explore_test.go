package payouts_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/faultline/faultline/examples/payouts"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

func explore(t *testing.T, system json.RawMessage, opts ...properties.Option) *properties.Report {
	t.Helper()
	def := payouts.Definition()
	rep, err := properties.Explore(def, append([]properties.Option{properties.WithConfig(model.Config{System: system}), properties.WithSeed(1), properties.WithChecks(200)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestExploreFindsTrustNotices: exploring the kinds of the provider's
// notices on the payout agent (WithKinds naming one turns the notices
// on) finds the agent that trusts its notices withdrawing a payout the
// ledger holds, and shrinks it to the one late notice, or, for
// reordered_notice, which needs two notices waiting, to the reorder and
// the rate limit that makes a failed notice first; the correct agent
// holds over every kind of the notices with the rate limit (200 checks,
// 393 of their 394 faults reached).
func TestExploreFindsTrustNotices(t *testing.T) {
	for _, c := range []struct {
		kinds  []string
		faults []model.FaultEntry
		seq    int
	}{
		{[]string{"late_notice"}, []model.FaultEntry{{Event: model.EvNoticeReceive, Ordinal: 1, Kind: "late_notice"}}, 9},
		{[]string{"reordered_notice", "rate_limit"}, []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "rate_limit"},
			{Event: model.EvNoticeReceive, Ordinal: 1, Kind: "reordered_notice"}}, 13},
	} {
		rep := explore(t, payouts.Trusting, properties.WithKinds(c.kinds...))
		cx := rep.Counterexample
		if !rep.Found || cx.Invariant != model.InvRecordedAgreesWithLedger || cx.FirstSeq != c.seq || cx.Event != model.EvCheckpointWrite ||
			// the payout po-9 by its reference, as a counterexample shows it
			cx.Detail != "checkpoint 3 withdraws effect ref-c839ef2a:pay, which checkpoint 2 recorded and the provider's ledger holds" {
			t.Fatalf("%v: %+v", c.kinds, rep)
		}
		if !slices.Equal(cx.Schedule.Faults, c.faults) || !cx.Schedule.Config.Notices || string(cx.Schedule.Config.System) != string(payouts.Trusting) {
			t.Errorf("%v: minimal schedule\n%s", c.kinds, model.Format(cx.Schedule))
		}
	}
	rep := explore(t, json.RawMessage(`{}`), properties.WithNotices(), properties.WithKinds("rate_limit"), properties.WithoutWorldEvents())
	if rep.Found || rep.Inconclusive() || rep.Checks != 200 || rep.Faults != 394 || rep.Reached != 393 || rep.Fired != 262 {
		t.Errorf("correct agent: %+v", rep)
	}
}

// TestCheckHoldsForTheCorrectAgent: properties.Check, the test form,
// over the kinds of the notices (WithNotices) and the rate limit, passes
// on the correct agent.
func TestCheckHoldsForTheCorrectAgent(t *testing.T) {
	def := payouts.Definition()
	properties.Check(t, def, properties.WithNotices(), properties.WithKinds("rate_limit"),
		properties.WithoutWorldEvents(), properties.WithFailDir(t.TempDir()))
}

// TestExhaustiveNotices: the exhaustive walk of schedules of at most two
// faults of late_notice and rate_limit finds the trusting agent's late
// notice at schedule 3 (after the clean run and the rate limit alone), and walks all 17
// schedules of the correct agent without a counterexample.
func TestExhaustiveNotices(t *testing.T) {
	def := payouts.Definition()
	walk := func(system json.RawMessage) *properties.ExhaustiveReport {
		rep, err := properties.Explore(def, properties.WithExhaustive(), properties.WithConfig(model.Config{System: system}),
			properties.WithKinds("late_notice", "rate_limit"), properties.WithMaxFaults(2))
		if err != nil {
			t.Fatal(err)
		}
		return rep.Exhaustive
	}
	rep := walk(payouts.Trusting)
	if !rep.Found || rep.Index != 3 || !slices.Equal(rep.Counterexample.Schedule.Faults, []model.FaultEntry{{Event: model.EvNoticeReceive, Ordinal: 1, Kind: "late_notice"}}) {
		t.Errorf("trusting: %+v", rep)
	}
	rep = walk(nil)
	if rep.Found || !rep.Complete || rep.Schedules != 17 || !slices.Equal(rep.PerSize, []int{1, 4, 12}) || rep.Reached != rep.Faults {
		t.Errorf("correct: %+v", rep)
	}
}
