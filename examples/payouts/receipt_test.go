package payouts_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/faultline/faultline/callfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// The payouts client as production code: it pays a seller through a
// payouts API's client call (wrapped by callfault) and tells its user
// "paid " and the payout's receipt. The provider's own store is its table
// of payouts, which the oracle reads (model.Observed), so every run checks
// recorded_agrees_with_ledger: a release must name a receipt of the task
// that the table holds.

// payoutAPI is the provider: payouts by request key, idempotent.
type payoutAPI struct{ rows []model.LedgerEntry }

type payReq struct {
	Key, Seller string
	Cents       int64
}

type payResp struct{ Receipt string }

func (p *payoutAPI) pay(_ context.Context, r payReq) (payResp, error) {
	for _, e := range p.rows {
		if e.Key == r.Key {
			return payResp{e.ReceiptID}, nil
		}
	}
	id := fmt.Sprintf("po_%d", len(p.rows)+1)
	p.rows = append(p.rows, model.LedgerEntry{Tool: "payouts.pay", Key: r.Key, ActionRef: r.Key, Subject: r.Seller, Amount: r.Cents, ReceiptID: id})
	return payResp{id}, nil
}

// paySpec renders each fault as the API's client shows it: a reply
// without its receipt (partial_success_response) or with the receipt
// field renamed (output_drift) decodes to an empty receipt and no error.
var paySpec = callfault.Spec[payReq, payResp]{
	Tool: "payouts.pay",
	Key:  func(r payReq) (string, error) { return r.Key, nil },
	Action: func(r payReq, key string) model.Action {
		return model.Action{IdempotencyKey: key, Subject: r.Seller, Amount: r.Cents}
	},
	Receipt:      func(r payResp) string { return r.Receipt },
	StripReceipt: func(payResp) payResp { return payResp{} },
	Drift:        func(payResp) payResp { return payResp{} },
}

// payClient is the client; checked is the defence: an answer without a
// receipt proves nothing, so it asks again under the same key (the
// provider answers with the payout it holds) and holds when that too
// names none.
type payClient struct {
	api     *payoutAPI
	checked bool
}

func (c payClient) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	pay, err := callfault.Wrap(env.Calls, paySpec, c.api.pay)
	if err != nil {
		return model.Claim{}, err
	}
	req := payReq{Key: task.ID + ":pay", Seller: task.Subject, Cents: task.Amount}
	resp, err := pay(ctx, req)
	if errors.Is(err, model.ErrWorkerCrashed) {
		return model.Claim{}, err
	}
	if c.checked && err == nil && resp.Receipt == "" {
		resp, err = pay(ctx, req)
	}
	if err != nil || c.checked && resp.Receipt == "" {
		return model.Claim{Verdict: model.ClaimHold, Reason: "payout not confirmed"}, nil
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "paid " + resp.Receipt, Receipt: resp.Receipt}, nil
}

func (c payClient) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return c.api.rows, nil
}

// clientDefinition is the client as production code (a Clock: every run
// in a synctest bubble), with the one built-in invariant that applies
// beside the ledger check: one payout per task.
func clientDefinition(checked bool) *model.Definition {
	return &model.Definition{
		Name:     "payout_client",
		Fixtures: []model.Fixture{{Name: "payout", Tasks: []model.Task{{ID: "po-9", Subject: "S-9", Amount: 12000}}}},
		Configure: func(json.RawMessage) (model.Factory, error) {
			api := &payoutAPI{} // the provider's state, which survives a restart
			return func() model.System { return payClient{api: api, checked: checked} }, nil
		},
		Builtin: []string{model.InvEffectAtMostOnce},
		Clock:   properties.BubbleClock,
	}
}

// TestEmptyReceiptCounterfactual: after partial_success_response or
// output_drift the client that trusts the answer says "paid " with an
// empty receipt while the provider holds po_1; recorded_agrees_with_ledger
// fails at the claim, and exploration finds it and shrinks it to that one
// fault. The client that checks the receipt asks again under the same key
// and releases with po_1: every invariant holds over the same schedules
// and over an exploration of every kind the call renders.
func TestEmptyReceiptCounterfactual(t *testing.T) {
	for _, kind := range []string{"partial_success_response", "output_drift"} {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "receipt",
			Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: kind}}}
		for _, checked := range []bool{false, true} {
			def := clientDefinition(checked)
			var res *model.Result
			var err error
			synctest.Test(t, func(*testing.T) { res, err = def.Run(s, model.Options{}) })
			if err != nil {
				t.Fatal(err)
			}
			r, ok := res.Invariant(model.InvRecordedAgreesWithLedger)
			names := []string{}
			for _, inv := range res.Invariants {
				names = append(names, inv.Invariant)
			}
			if !ok || !slices.Equal(names, []string{model.InvEffectAtMostOnce, model.InvRecordedAgreesWithLedger, "retry_paced"}) || res.Faults[0].Fired != 1 {
				t.Fatalf("%s: invariants %v, fault %+v", kind, names, res.Faults[0])
			}
			c := res.Claims[0]
			if !checked {
				if r.Held || r.Event != model.EvClaim || r.FaultID != "f1" || r.Detail != "release with an empty receipt (Claim.Receipt: the receipt id the provider answered); the provider's ledger holds po_1 for the task" ||
					c.Verdict != model.ClaimRelease || c.Reason != "paid " {
					t.Errorf("%s, trusting client: %+v, claim %+v", kind, r, c)
				}
				continue
			}
			if !res.Held() || c.Verdict != model.ClaimRelease || c.Reason != "paid po_1" {
				t.Errorf("%s, checking client: %+v, claim %+v", kind, res.Invariants, c)
			}
		}
	}
	opts := []properties.Option{properties.WithKinds(paySpec.Kinds()...), properties.WithoutWorldEvents(), properties.WithSeed(1), properties.WithChecks(20)}
	rep, err := properties.Explore(clientDefinition(false), opts...)
	if err != nil || !rep.Found || rep.Counterexample.Invariant != model.InvRecordedAgreesWithLedger || len(rep.Counterexample.Schedule.Faults) != 1 ||
		!slices.Contains([]string{"partial_success_response", "output_drift"}, rep.Counterexample.Schedule.Faults[0].Kind) {
		t.Fatalf("trusting client explored: %+v %v", rep.Counterexample, err)
	}
	t.Logf("trusting client: %s at check %d, %s", rep.Counterexample.Schedule.Faults[0].Kind, rep.ChecksToFailure, rep.Counterexample.Detail)
	if rep, err := properties.Explore(clientDefinition(true), opts...); err != nil || rep.Found {
		t.Fatalf("checking client explored: %+v %v", rep.Counterexample, err)
	}
}
