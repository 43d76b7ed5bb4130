package model_test

import (
	"context"
	"fmt"

	"github.com/faultline/faultline/model"
)

// closer is a system of one's own: a support agent that closes a ticket
// through a tool, retrying when the outcome is unknown. Its bug: every
// attempt gets a fresh request key, so the provider cannot tell a retry
// from a new request.
type closer struct{}

func (closer) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	a := model.Action{Actor: t.Actor, Subject: t.Subject, Tenant: t.Tenant, Purpose: t.Purpose, IdempotencyKey: t.ID, TraceID: t.Trace}
	for range 1 + t.RetryBudget {
		res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: "tickets.close", RequestKey: env.NewRequestID(), Action: a})
		if err != nil || res.Outcome == model.OutcomeCommitted {
			return model.Claim{Verdict: model.ClaimRelease, Reason: "closed"}, err
		}
	}
	return model.Claim{Verdict: model.ClaimHold, Reason: "outcome unknown"}, nil
}

// Test a system of your own: describe its world, pick the invariants in
// scope (one built-in, one of your own), inject a fault and read where the
// first invariant broke.
func ExampleHarness_ownSystem() {
	fixture := model.Fixture{Name: "tickets",
		Subjects: []model.Subject{{ID: "TCK-9", Tenant: "acme", Status: "open", Version: 1}},
		Tasks:    []model.Task{{ID: "close-TCK-9", Actor: "bot", Subject: "TCK-9", Tenant: "acme", Purpose: "close"}}}
	closedOnce := model.UserInvariant{Name: "closed_once", Owner: "support", Oracle: "ledger_readback",
		Check: func(v model.View) string {
			if n := len(v.Ledger()); n > 1 {
				return fmt.Sprintf("%d close effects", n)
			}
			return ""
		}}
	h := model.NewHarness(fixture, model.Options{Builtin: []string{model.InvBudget}, Invariants: []model.UserInvariant{closedOnce}})
	sched, _ := model.SingleFault("timeout_after_commit", model.Config{})
	res, err := h.Run(func() model.System { return closer{} }, sched)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, inv := range res.Invariants {
		fmt.Printf("%s held=%t first_seq=%d event=%q fault=%q detail=%q\n", inv.Invariant, inv.Held, inv.FirstSeq, inv.Event, inv.FaultID, inv.Detail)
	}
	fmt.Println(res.RunVerdict, res.Terms.Effects)
	// Output:
	// budget held=true first_seq=0 event="" fault="" detail=""
	// recorded_agrees_with_ledger held=true first_seq=0 event="" fault="" detail=""
	// retry_paced held=true first_seq=0 event="" fault="" detail=""
	// closed_once held=false first_seq=3 event="tool.commit" fault="f1" detail="2 close effects"
	// unrecoverable 2
}
