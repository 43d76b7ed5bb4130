package fuzz_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
)

// retrier is production code that retries a failed payment at once,
// without looking at its context: after a worker_crash it goes on
// calling its adapter, every call failing, and never returns.
type retrier struct{ rows *[]model.LedgerEntry }

func (r retrier) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	act := model.Action{Actor: task.Actor, Subject: task.Subject, Tenant: task.Tenant, Purpose: task.Purpose, Amount: task.Amount, IdempotencyKey: task.ID}
	for {
		if _, err := env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: task.ID, Action: act}, func(context.Context, model.ToolCall) model.ToolResult {
			*r.rows = append(*r.rows, model.LedgerEntry{Tool: "pay", Key: task.ID, ActionRef: task.ID, Actor: task.Actor, Subject: task.Subject,
				Tenant: task.Tenant, Purpose: task.Purpose, Amount: task.Amount, ReceiptID: "r1"})
			return model.ToolResult{Outcome: model.OutcomeCommitted, Receipt: &model.Receipt{ID: "r1", Key: task.ID}}
		}); err == nil {
			return model.Claim{Verdict: model.ClaimRelease}, nil
		}
	}
}

func (r retrier) ProviderLedger(context.Context) ([]model.LedgerEntry, error) { return *r.rows, nil }

// TestCheckReportsARunawayAfterACrash: a run that goes on calling after
// its worker crashed is the system's failure, named with its schedule,
// not a harness error.
func TestCheckReportsARunawayAfterACrash(t *testing.T) {
	def := &model.Definition{Name: "retrier", Fixtures: []model.Fixture{{Name: "pay", Tasks: []model.Task{{ID: "t1", Actor: "a", Subject: "s", Tenant: "x", Purpose: "p", Amount: 5}}}},
		Configure: func(json.RawMessage) (model.Factory, error) {
			rows := &[]model.LedgerEntry{}
			return func() model.System { return retrier{rows: rows} }, nil
		}, Builtin: []string{model.InvEffectAtMostOnce}}
	d, err := fuzz.NewDecoder(def, fuzz.WithKinds("worker_crash"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Check(&model.Schedule{Version: model.ScheduleVersion, Seed: "runaway", Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "worker_crash"}}})
	want := `the system's run never ended: worker 1 of task t1 crashed at 50 ms (its context cancelled, every adapter call failing with "worker crashed") and made 101 calls through its adapters without returning from System.Run (the bounds: 100 calls, 60000 ms) (the system failed: exit 1), under the schedule:`
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "harness rejected") {
		t.Fatalf("error %v, want it to start %q", err, want)
	}
}
