package model_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/faultline/faultline/model"
)

// TestTokenBudget: the tokens an adapter reports at its crossings
// (Step.Tokens, 40 per model reply here, three replies) are checked by
// the budget invariant against the fixture task's TokenBudget: 120 of
// 100 breaks it at the third reply's crossing, and the record states
// both; a budget of 120 holds, and a task with no budget is checked and
// recorded as before.
func TestTokenBudget(t *testing.T) {
	sys := sysFunc{st: &store{}, run: func(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
		for range 3 {
			s, err := env.Calls.Enter(ctx, model.EvProposal)
			if err != nil {
				return model.Claim{}, err
			}
			s.Tokens = 40
			if err := s.Done("ok", "tool_use"); err != nil {
				return model.Claim{}, err
			}
		}
		return model.Claim{Verdict: model.ClaimHold, Reason: "nothing to do"}, nil
	}}
	for _, c := range []struct {
		budget int
		want   string
	}{{100, "false after seq 4 (proposal): 120 model tokens exceed the token budget of 100; record 120 of 100"},
		{120, "held; record 120 of 120"}, {0, "held; record 0 of 0"}} {
		fx := liveFixture
		fx.Tasks = []model.Task{fx.Tasks[0]}
		fx.Tasks[0].TokenBudget = c.budget
		h := model.NewHarness(fx, model.Options{Builtin: []string{model.InvBudget}})
		res, err := h.Run(func() model.System { return sys }, &model.Schedule{Version: model.ScheduleVersion, Seed: "tokens"})
		if err != nil {
			t.Fatal(err)
		}
		got := "held"
		for _, i := range res.Invariants {
			if i.Invariant == model.InvBudget && !i.Held {
				got = fmt.Sprintf("false after seq %d (%s): %s", i.FirstSeq, i.Event, i.Detail)
			}
		}
		b := res.Record().Budget
		if got += fmt.Sprintf("; record %d of %d", b.Tokens, b.TokenBudget); got != c.want {
			t.Errorf("token budget %d: %s, want %s", c.budget, got, c.want)
		}
	}
}
