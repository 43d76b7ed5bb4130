package model_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/faultline/faultline/model"
)

// twice commits one effect per task; the first task retries an unknown
// outcome under a fresh key (the bug), the second never meets a fault.
type twice struct{}

func (twice) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	a := model.Action{Actor: t.Actor, Subject: t.Subject, Tenant: t.Tenant, Purpose: t.Purpose, IdempotencyKey: t.ID}
	for range 2 {
		//faultline:ignore the planted fresh key per attempt: the defect whose violation the test attributes to its own task
		res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: "deploy", RequestKey: env.NewRequestID(), Action: a})
		if err != nil || res.Outcome == model.OutcomeCommitted {
			return model.Claim{Verdict: model.ClaimRelease}, err
		}
	}
	return model.Claim{Verdict: model.ClaimHold}, nil
}

// TestNarrowedScopeBlamesTheTaskThatBroke: under a narrowed scope, a user
// invariant broken at the first task's crossing makes that task unsafe
// and unrecoverable, and the second task, whose one effect is correct,
// recovered (before, every task after the violation was judged unsafe).
func TestNarrowedScopeBlamesTheTaskThatBroke(t *testing.T) {
	once := model.UserInvariant{Name: "rolled_out_once", Oracle: "ledger_readback", Check: func(v model.View) string {
		per := map[string]int{}
		for _, e := range v.Ledger() {
			if per[e.Subject]++; per[e.Subject] > 1 {
				return fmt.Sprintf("%s rolled out %d times", e.Subject, per[e.Subject])
			}
		}
		return ""
	}}
	f := model.Fixture{Name: "deploys", Tasks: []model.Task{
		{ID: "deploy-api", Actor: "bot", Subject: "api", Tenant: "p", Purpose: "rollout"},
		{ID: "deploy-web", Actor: "bot", Subject: "web", Tenant: "p", Purpose: "rollout"}}}
	h := model.NewHarness(f, model.Options{Builtin: []string{model.InvBudget}, Invariants: []model.UserInvariant{once}})
	res, err := h.Run(func() model.System { return twice{} }, &model.Schedule{Version: model.ScheduleVersion, Seed: "b",
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []model.TaskVerdict{
		{Task: "deploy-api", Claim: model.ClaimUnsafe, RunVerdict: model.Unrecoverable},
		{Task: "deploy-web", Claim: model.ClaimRelease, RunVerdict: model.Recovered},
	}
	if len(res.Tasks) != 2 || res.Tasks[0] != want[0] || res.Tasks[1] != want[1] || res.RunVerdict != model.Unrecoverable {
		t.Fatalf("tasks %+v, run %s", res.Tasks, res.RunVerdict)
	}
}
