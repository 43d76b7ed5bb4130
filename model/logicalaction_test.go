package model_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/faultline/faultline/model"
)

// canceller is a two-tool agent: it cancels a subscription through
// subs.cancel, then refunds it through payments.refund, each call under
// its own request key and its own Action.IdempotencyKey, retrying an
// unknown outcome within the task's budget. freshKey retries the refund
// under a new key (and a new action key) each attempt: the common bug.
type canceller struct{ freshKey bool }

func (c canceller) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	a := model.Action{Actor: t.Actor, Subject: t.Subject, Tenant: t.Tenant, Purpose: t.Purpose, Amount: t.Amount, TraceID: t.Trace}
	grant, err := env.Authority.Approve(ctx, t, a)
	if err != nil {
		return model.Claim{Verdict: model.ClaimDeny, Reason: "not approved"}, nil
	}
	a.CapabilityID, a.CapabilityExpiry = grant.ID, grant.Expiry
	var receipts []string
	for _, tool := range []string{"subs.cancel", "payments.refund"} {
		var res model.ToolResult
		for attempt := range 1 + t.RetryBudget {
			key := t.ID + ":" + tool
			if c.freshKey && attempt > 0 {
				key = fmt.Sprintf("%s+retry%d", key, attempt)
			}
			a.IdempotencyKey = key //faultline:ignore the fresh-key retry is the planted bug this test catches
			if res, err = env.Tool.Commit(ctx, model.ToolCall{Tool: tool, RequestKey: key, Action: a}); err != nil {
				return model.Claim{}, err
			}
			if res.Outcome != model.OutcomeUnknown {
				break
			}
		}
		if res.Outcome != model.OutcomeCommitted || res.Receipt == nil {
			return model.Claim{Verdict: model.ClaimHold, Reason: tool + " not proven"}, nil
		}
		receipts = append(receipts, res.Receipt.Key)
	}
	if err := env.Store.Save(ctx, model.Checkpoint{Seq: 1, WorkflowVersion: 1, State: "refunded", CompletedEffects: receipts}); err != nil {
		return model.Claim{}, err
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "cancelled and refunded"}, nil
}

func cancelFixture(once bool) model.Fixture {
	return model.Fixture{Name: "subs", OncePerSubject: once,
		Subjects: []model.Subject{{ID: "SUB-42", Tenant: "acme", Status: "active", Version: 1}},
		Capabilities: []model.Capability{{ID: "cap-cancel", Actor: "agent", Subject: "SUB-42", Tenant: "acme", Purpose: "cancel",
			Amount: 12, Expiry: 60_000}},
		Tasks: []model.Task{{ID: "cancel-SUB-42", Actor: "agent", Subject: "SUB-42", Tenant: "acme", Purpose: "cancel", Amount: 12,
			Capability: "cap-cancel"}}}
}

// TestEffectPerLogicalAction: effect_at_most_once counts effects per
// logical action, a task's tool. A fault-free cancel-plus-refund holds
// (one effect each, terms without a duplicate), with and without
// OncePerSubject; a lost refund reply retried under a fresh key breaks it
// at the second refund, and retried under the same key holds
// (counterfactual pair). The duplicate_effects abort agrees.
func TestEffectPerLogicalAction(t *testing.T) {
	const head = `{"version":1,"seed":"subs","config":{"controls":[]},"faults":[`
	lost := head + `{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit","tool":"payments.refund"}]}`
	opts := model.Options{Builtin: []string{model.InvEffectAtMostOnce, model.InvRightSubject, model.InvBudget}}
	run := func(fx model.Fixture, sys canceller, sched string) *model.Result {
		t.Helper()
		s, err := model.ParseSchedule([]byte(sched))
		if err != nil {
			t.Fatal(err)
		}
		res, err := model.NewHarness(fx, opts).Run(func() model.System { return sys }, s)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// the duplicate_effects abort counts the same way: not at the
	// refund, but at the refund's fresh-key re-send (seq 5)
	opts.Stop = model.Stop{Abort: "duplicate_effects"}
	if res := run(cancelFixture(false), canceller{}, head+`]}`); res.Stopped != nil {
		t.Errorf("fault-free run stopped: %+v", res.Stopped)
	}
	if st := run(cancelFixture(false), canceller{freshKey: true}, lost).Stopped; st == nil || st.Value != 1 || st.Seq != 5 {
		t.Errorf("fresh-key re-send: stop %+v", st)
	}
	opts.Stop = model.Stop{}
	for _, once := range []bool{false, true} {
		for _, sys := range []canceller{{}, {freshKey: true}} {
			res := run(cancelFixture(once), sys, head+`]}`)
			inv, _ := res.Invariant(model.InvEffectAtMostOnce)
			if !inv.Held || res.Terms.DuplicateEffect || res.Terms.Effects != 2 || res.Terms.Verdict != model.ClaimRelease {
				t.Errorf("fault-free, once %v, fresh %v: %+v, terms %+v", once, sys.freshKey, inv, res.Terms)
			}
		}
		fresh := run(cancelFixture(once), canceller{freshKey: true}, lost)
		inv, _ := fresh.Invariant(model.InvEffectAtMostOnce)
		if inv.Held || inv.FirstSeq != 5 || inv.Event != model.EvToolCommit || inv.FaultID != "f1" ||
			inv.Detail != "second ledger effect for task cancel-SUB-42" || !fresh.Terms.DuplicateEffect || fresh.Terms.Effects != 3 {
			t.Errorf("fresh-key refund retry, once %v: %+v, terms %+v", once, inv, fresh.Terms)
		}
		stable := run(cancelFixture(once), canceller{}, lost)
		inv, _ = stable.Invariant(model.InvEffectAtMostOnce)
		if !inv.Held || stable.Terms.DuplicateEffect || stable.Terms.Effects != 2 {
			t.Errorf("same-key refund retry, once %v: %+v, terms %+v", once, inv, stable.Terms)
		}
	}
}

// twoToolClient is production code's shape of the canceller: it calls a
// provider outside the model through Calls.Commit, cancel then refund,
// retrying an unknown outcome once. Keyless sends no idempotency key.
type twoToolClient struct {
	st      *store
	keyless bool
}

func (c twoToolClient) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	for _, tool := range []string{"subs.cancel", "payments.refund"} {
		key := task.ID + ":" + tool
		if c.keyless {
			key = ""
		}
		act := model.Action{Actor: task.Actor, Subject: task.Subject, Tenant: task.Tenant, Purpose: task.Purpose,
			Amount: task.Amount, IdempotencyKey: key}
		done := false
		for range 2 {
			r, err := env.Calls.Commit(ctx, model.ToolCall{Tool: tool, RequestKey: key, Action: act},
				func(_ context.Context, call model.ToolCall) model.ToolResult { return c.st.charge(call) })
			if err != nil {
				return model.Claim{}, err
			}
			if done = r.Result.Outcome == model.OutcomeCommitted; done {
				break
			}
		}
		if !done {
			return model.Claim{Verdict: model.ClaimHold, Reason: tool + " unknown"}, nil
		}
	}
	return model.Claim{Verdict: model.ClaimRelease}, nil
}

func (c twoToolClient) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return c.st.rows, nil
}

// TestEffectPerLogicalActionLive: the production path judges the same
// way. A keyless client's cancel and refund hold; after the refund's
// reply is lost, its keyless re-send breaks effect_at_most_once at the
// second refund, while a keyed client against an idempotent provider
// holds with one row per tool.
func TestEffectPerLogicalActionLive(t *testing.T) {
	lost := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 2, Kind: "timeout_after_commit"}
	run := func(c twoToolClient, faults ...model.FaultEntry) *model.Result {
		t.Helper()
		h := model.NewHarness(liveFixture, model.Options{Builtin: []string{model.InvEffectAtMostOnce, model.InvRightSubject, model.InvBudget}})
		res, err := h.Run(func() model.System { return c }, &model.Schedule{Version: model.ScheduleVersion, Seed: "live2", Faults: faults})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	clean := run(twoToolClient{st: &store{}, keyless: true})
	if inv, _ := clean.Invariant(model.InvEffectAtMostOnce); !inv.Held || clean.Terms.Effects != 2 || clean.Terms.DuplicateEffect {
		t.Errorf("keyless, fault-free: %+v, terms %+v", inv, clean.Terms)
	}
	st := &store{}
	resent := run(twoToolClient{st: st, keyless: true}, lost)
	inv, _ := resent.Invariant(model.InvEffectAtMostOnce)
	if inv.Held || inv.FaultID != "f1" || inv.Event != model.EvToolCommit ||
		inv.Detail != "second ledger effect for task inv-1, sent without an idempotency key" || len(st.rows) != 3 {
		t.Errorf("keyless re-send: %+v, %d rows", inv, len(st.rows))
	}
	st = &store{byKey: true}
	keyed := run(twoToolClient{st: st}, lost)
	if inv, _ := keyed.Invariant(model.InvEffectAtMostOnce); !inv.Held || len(st.rows) != 2 || keyed.Terms.DuplicateEffect {
		t.Errorf("keyed, idempotent provider: %+v, %d rows", inv, len(st.rows))
	}
}
