package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/faultline/faultline/callfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// The booker as production code: it books through the courier API's
// client call (wrapped by callfault), whose store of pickups the oracle
// reads (model.Observed), and checkpoints the plan and the booking in
// the harness's store. A forked worker is a fresh instance from the
// factory on the same courier.

// courier is the provider: pickups by request key.
type courier struct{ rows []model.LedgerEntry }

type bookReq struct{ Key, Shipment string }

type bookResp struct{ Pickup string }

func (c *courier) book(_ context.Context, r bookReq) (bookResp, error) {
	for _, e := range c.rows {
		if e.Key == r.Key {
			return bookResp{e.ReceiptID}, nil
		}
	}
	id := fmt.Sprintf("pk_%d", len(c.rows)+1)
	c.rows = append(c.rows, model.LedgerEntry{Tool: "courier.book_pickup", Key: r.Key, ActionRef: r.Key, Subject: r.Shipment, ReceiptID: id})
	return bookResp{id}, nil
}

var bookSpec = callfault.Spec[bookReq, bookResp]{
	Tool: "courier.book_pickup",
	Key:  func(r bookReq) (string, error) { return r.Key, nil },
	Action: func(r bookReq, key string) model.Action {
		return model.Action{IdempotencyKey: key, Subject: r.Shipment}
	},
	Receipt: func(r bookResp) string { return r.Pickup },
}

// liveBooker books once a job: planned, then booked. fenced re-reads the
// checkpoint head on resume and takes its word.
type liveBooker struct {
	c      *courier
	fenced bool
}

func (b liveBooker) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	book, err := callfault.Wrap(env.Calls, bookSpec, b.c.book)
	if err != nil {
		return model.Claim{}, err
	}
	cp, resumed, err := env.Store.Load(ctx, t.ID)
	if err != nil {
		return model.Claim{}, err
	}
	if resumed && cp.State == "booked" {
		return model.Claim{Verdict: model.ClaimRelease, Reason: "booked " + cp.Data["pickup"], Receipt: cp.Data["pickup"]}, nil
	}
	if resumed && b.fenced {
		if head, ok, err := env.Store.Load(ctx, t.ID); err != nil {
			return model.Claim{}, err
		} else if ok && head.Seq > cp.Seq {
			return model.Claim{Verdict: model.ClaimRelease, Reason: "booked " + head.Data["pickup"], Receipt: head.Data["pickup"]}, nil
		}
	}
	if !resumed {
		if err := env.Store.Save(ctx, model.Checkpoint{Seq: 1, WorkflowVersion: 1, State: "planned"}); err != nil {
			return model.Claim{}, err
		}
	}
	key := env.NewRequestID()
	resp, err := book(ctx, bookReq{Key: key, Shipment: t.Subject})
	if errors.Is(err, model.ErrWorkerCrashed) {
		return model.Claim{}, err
	}
	if err != nil || resp.Pickup == "" {
		return model.Claim{Verdict: model.ClaimHold, Reason: "pickup not confirmed"}, nil
	}
	if err := env.Store.Save(ctx, model.Checkpoint{Seq: 2, WorkflowVersion: 1, State: "booked", CompletedEffects: []string{key},
		Data: map[string]string{"pickup": resp.Pickup}}); err != nil {
		return model.Claim{}, err
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "booked " + resp.Pickup, Receipt: resp.Pickup}, nil
}

func (b liveBooker) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return b.c.rows, nil
}

func liveDefinition(fenced bool) *model.Definition {
	return &model.Definition{
		Name:     "live_booker",
		Fixtures: []model.Fixture{{Name: "pickup", Tasks: []model.Task{{ID: "pickup-SH-7", Subject: "SH-7"}}, AtLeastOnce: true}},
		Configure: func(json.RawMessage) (model.Factory, error) {
			c := &courier{} // the courier's state, which a forked worker shares
			return func() model.System { return liveBooker{c: c, fenced: fenced} }, nil
		},
		Builtin: []string{model.InvEffectAtMostOnce},
		Clock:   properties.BubbleClock,
	}
}

// TestForkedRunOnProductionCode: on production code the walk of
// forked_run alone (named; its single faults at each checkpoint write)
// finds the fork at its second schedule, the clean run first: the
// second worker, a fresh instance from the factory, books the shipment
// again (effect_at_most_once at seq 9). The fenced booker holds over the
// same walk.
func TestForkedRunOnProductionCode(t *testing.T) {
	opts := []properties.Option{properties.WithExhaustive(), properties.WithKinds("forked_run"),
		properties.WithMaxFaults(1), properties.WithoutWorldEvents()}
	rep, err := properties.Explore(liveDefinition(false), opts...)
	if err != nil {
		t.Fatal(err)
	}
	w := rep.Exhaustive
	if !w.Found || w.Index != 2 || w.Counterexample.Invariant != model.InvEffectAtMostOnce || w.Counterexample.FirstSeq != 9 {
		t.Fatalf("unfenced: %+v", w)
	}
	if f := w.Counterexample.Schedule.Faults; len(f) != 1 || f[0].Kind != "forked_run" || f[0].Ordinal != 1 {
		t.Errorf("unfenced: schedule %+v", f)
	}
	rep, err = properties.Explore(liveDefinition(true), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if w := rep.Exhaustive; w.Found || !w.Complete || w.Schedules != 3 || w.Fired != 2 {
		t.Errorf("fenced: %+v", w)
	}
}
