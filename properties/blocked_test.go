package properties_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// waiter does the checkout agent's work, then waits on its context,
// which the harness never cancels.
type waiter struct{ model.System }

func (w waiter) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	if _, err := w.System.Run(ctx, env, task); err != nil {
		return model.Claim{}, err
	}
	<-ctx.Done()
	return model.Claim{}, ctx.Err()
}

// TestCheckReportsABlockedRun: in a synctest bubble, a system whose run
// never ends fails Check as the system's failure (not a harness error,
// not a leaked goroutine), with the schedule that hung stored and its
// replay line; the next Check replays the stored file first and fails
// the same way.
func TestCheckReportsABlockedRun(t *testing.T) {
	dir := t.TempDir()
	sys := func(model.Config) (model.Factory, error) {
		f := inventory.Factory(inventory.Defended, inventory.Fixed)
		return func() model.System { return waiter{f()} }, nil
	}
	opts := append(checkoutOptions(), properties.WithBubble(t), properties.WithFailDir(dir))
	tb := &recordingTB{name: "TestHang"}
	properties.CheckTB(tb, nil, define(sys, inventory.Fixture()), opts...)
	ents, _ := os.ReadDir(dir)
	if len(tb.errors) != 1 || len(ents) != 1 || !strings.HasPrefix(ents[0].Name(), "blocked-") {
		t.Fatalf("errors %q, files %v", tb.errors, ents)
	}
	path := filepath.Join(dir, ents[0].Name())
	msg := tb.errors[0]
	if !strings.HasPrefix(msg, `properties: the system's run never ended: System.Run blocked on something no crossing and no timer releases (the bubble ended in "deadlock: all goroutines in bubble are blocked"), under the schedule`+"\n") ||
		!strings.Contains(msg, "(the system failed: exit 1) replay: FAULTLINE_REPLAY="+path+" go test -run '^TestHang$'") ||
		strings.Contains(msg, "outlived") || strings.Contains(msg, "harness or option error") {
		t.Fatalf("message %q", msg)
	}
	again := &recordingTB{name: "TestHang"}
	properties.CheckTB(again, nil, define(sys, inventory.Fixture()), opts...)
	if len(again.errors) != 1 || !strings.HasPrefix(again.errors[0], "properties: replaying the schedule stored in "+path+": the system's run never ended") ||
		!strings.HasSuffix(again.errors[0], "(the system failed: exit 1; keep the file)") {
		t.Fatalf("replay of the stored file: %q", again.errors)
	}
}

// retrier is production code that retries a failed payment at once,
// without looking at its context: after a worker_crash it goes on
// calling its adapter, every call failing, and never returns.
type retrier struct{ rows *[]model.LedgerEntry }

func (r retrier) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	act := model.Action{Actor: task.Actor, Subject: task.Subject, Tenant: task.Tenant, Purpose: task.Purpose, Amount: task.Amount, IdempotencyKey: task.ID}
	for {
		_, err := env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: task.ID, Action: act}, func(context.Context, model.ToolCall) model.ToolResult {
			*r.rows = append(*r.rows, model.LedgerEntry{Tool: "pay", Key: task.ID, ActionRef: task.ID, Actor: task.Actor, Subject: task.Subject,
				Tenant: task.Tenant, Purpose: task.Purpose, Amount: task.Amount, ReceiptID: "r1"})
			return model.ToolResult{Outcome: model.OutcomeCommitted, Receipt: &model.Receipt{ID: "r1", Key: task.ID}}
		})
		if err == nil {
			return model.Claim{Verdict: model.ClaimRelease, Receipt: "r1"}, nil
		}
	}
}

func (r retrier) ProviderLedger(context.Context) ([]model.LedgerEntry, error) { return *r.rows, nil }

// TestCheckReportsARunawayAfterACrash: production code that goes on
// calling after the worker_crash cancelled its context is stopped at its
// 101st call and reported as a run that never ended, the system's
// failure, its schedule stored with its replay line.
func TestCheckReportsARunawayAfterACrash(t *testing.T) {
	dir := t.TempDir()
	def := define(func(model.Config) (model.Factory, error) {
		rows := &[]model.LedgerEntry{}
		return func() model.System { return retrier{rows: rows} }, nil
	}, model.Fixture{Name: "pay", Tasks: []model.Task{{ID: "t1", Actor: "a", Subject: "s", Tenant: "x", Purpose: "p", Amount: 5}}})
	def.Builtin, def.Clock = []string{model.InvEffectAtMostOnce}, properties.BubbleClock
	tb := &recordingTB{name: "TestRunaway"}
	properties.CheckTB(tb, t, def, properties.WithKinds("worker_crash"), properties.WithFailDir(dir))
	ents, _ := os.ReadDir(dir)
	if len(tb.errors) != 1 || len(ents) != 1 || !strings.HasPrefix(ents[0].Name(), "blocked-") {
		t.Fatalf("errors %q, files %v", tb.errors, ents)
	}
	want := `properties: the system's run never ended: worker 1 of task t1 crashed at 0 ms (its context cancelled, every adapter call failing with "worker crashed") and made 101 calls through its adapters without returning from System.Run (the bounds: 100 calls, 60000 ms), under the schedule` + "\n"
	if msg := tb.errors[0]; !strings.HasPrefix(msg, want) || !strings.Contains(msg, `"kind": "worker_crash"`) ||
		!strings.Contains(msg, "(the system failed: exit 1) replay: FAULTLINE_REPLAY="+filepath.Join(dir, ents[0].Name())+" go test -run '^TestRunaway$'") {
		t.Fatalf("message %q", msg)
	}
}
