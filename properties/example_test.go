package properties_test

import (
	"context"
	"fmt"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// blindRefund is a user's own system built on model.Env: it approves, then
// commits the refund and retries an unknown outcome with a fresh request
// key, and never checks anything else.
type blindRefund struct{}

func (blindRefund) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	a := model.Action{Actor: task.Actor, Subject: task.Subject, Tenant: task.Tenant, Purpose: task.Purpose,
		Amount: task.Amount, IdempotencyKey: task.Subject + ":refund", TraceID: task.Trace}
	c, err := env.Authority.Approve(ctx, task, a)
	if err != nil {
		return model.Claim{Verdict: model.ClaimDeny, Reason: "no authority"}, nil
	}
	a.CapabilityID = c.ID
	for attempt := 0; attempt <= task.RetryBudget; attempt++ {
		res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: "refund", RequestKey: env.NewRequestID(), Action: a})
		if err != nil {
			return model.Claim{}, err
		}
		if res.Outcome == model.OutcomeCommitted {
			return model.Claim{Verdict: model.ClaimRelease, Reason: "refunded"}, nil
		}
	}
	return model.Claim{Verdict: model.ClaimHold, Reason: "gave up"}, nil
}

// A user points exploration at their own system: properties.Check(t, ...)
// in a test; here the checker form, Explore, prints what it found. The
// blind retry duplicates the refund when the provider commits and the
// reply is lost.
func Example() {
	// in a test: properties.Check(t, def)
	def := model.Define("refunds", copperfin.Copperfin(), func() model.System { return blindRefund{} })
	def.Builtin = []string{model.InvEffectAtMostOnce}
	rep, err := properties.Explore(def, properties.WithKinds("timeout_after_commit", "subject_swap", "stale_policy"))
	if err != nil {
		fmt.Println(err)
		return
	}
	cx := rep.Counterexample
	fmt.Println(rep.Found, cx.Invariant, cx.Event, cx.FaultKind, len(cx.Schedule.Faults))
	// Output: true effect_at_most_once tool.commit timeout_after_commit 1
}
