package callfault_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/faultline/faultline/callfault"
	"github.com/faultline/faultline/model"
)

// shipper is production code: it takes the client call it uses from its
// constructor, and retries a lost reply under the same key.
type shipper struct {
	ship func(context.Context, string) (string, error)
}

func (s shipper) send(ctx context.Context, order string) (string, error) {
	id, err := s.ship(ctx, order)
	if err != nil { // a lost reply: the outcome is unknown, the key makes a retry safe
		id, err = s.ship(ctx, order)
	}
	return id, err
}

// depot is the provider: shipments by order, idempotent.
type depot struct{ rows []model.LedgerEntry }

func (d *depot) ship(_ context.Context, order string) (string, error) {
	for _, r := range d.rows {
		if r.Key == order {
			return r.ReceiptID, nil
		}
	}
	id := fmt.Sprintf("shp-%d", len(d.rows)+1)
	d.rows = append(d.rows, model.LedgerEntry{Tool: "ship", Key: order, ActionRef: order, ReceiptID: id})
	return id, nil
}

// shipSystem wires the wrapped call into the shipper; the oracle reads
// the depot's own rows.
type shipSystem struct{ d *depot }

func (s shipSystem) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	ship, err := callfault.Wrap(env.Calls, callfault.Spec[string, string]{
		Tool:    "ship",
		Key:     func(order string) (string, error) { return order, nil },
		Receipt: func(id string) string { return id },
	}, s.d.ship)
	if err != nil {
		return model.Claim{}, err
	}
	id, err := (shipper{ship: ship}).send(ctx, task.ID)
	if err != nil {
		return model.Claim{Verdict: model.ClaimHold, Reason: err.Error()}, nil
	}
	// the release names the depot's receipt, which the oracle finds in its rows
	return model.Claim{Verdict: model.ClaimRelease, Receipt: id}, nil
}

func (s shipSystem) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return s.d.rows, nil
}

// Example: a lost reply after the depot shipped; the shipper's retry under
// the same key is replayed, and the depot's rows hold one shipment.
func Example() {
	d := &depot{}
	h := model.NewHarness(model.Fixture{Name: "ship", Tasks: []model.Task{{ID: "order-7"}}},
		model.Options{RetryBudget: 1, Builtin: []string{model.InvEffectAtMostOnce, model.InvBudget}})
	res, err := h.Run(func() model.System { return shipSystem{d} }, &model.Schedule{Version: model.ScheduleVersion, Seed: "ship",
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range res.Timeline.Events() {
		fmt.Println(strings.TrimSpace(fmt.Sprint(e.Event, " ", e.Outcome, " ", e.FaultID)))
	}
	fmt.Println("held:", res.Held(), "shipments:", len(d.rows))
	// Output:
	// worker.start
	// tool.commit unknown f1
	// tool.commit committed
	// claim release
	// held: true shipments: 1
}
