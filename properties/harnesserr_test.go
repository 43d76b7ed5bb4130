package properties_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// glued is production code with a bug in its glue and one in itself: a
// lost reply to task t1's payment makes its glue fail the run (a harness
// error), and one to t2's makes it retry under a fresh key (a second
// payment: effect_at_most_once).
type glued struct{ rows *[]model.LedgerEntry }

func (g glued) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	key := task.ID
	for attempt := 0; attempt < 2; attempt++ {
		act := model.Action{Actor: task.Actor, Subject: task.Subject, Tenant: task.Tenant, Purpose: task.Purpose, Amount: task.Amount, IdempotencyKey: key}
		c, err := env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: key, Action: act}, func(_ context.Context, call model.ToolCall) model.ToolResult {
			for _, e := range *g.rows {
				if e.Key == call.RequestKey {
					return model.ToolResult{Outcome: model.OutcomeCommitted, Receipt: &model.Receipt{ID: e.ReceiptID, Key: e.Key}}
				}
			}
			id := "r" + string(rune('1'+len(*g.rows)))
			*g.rows = append(*g.rows, model.LedgerEntry{Tool: "pay", Key: call.RequestKey, ActionRef: call.RequestKey, Actor: task.Actor, Subject: task.Subject,
				Tenant: task.Tenant, Purpose: task.Purpose, Amount: task.Amount, ReceiptID: id})
			return model.ToolResult{Outcome: model.OutcomeCommitted, Receipt: &model.Receipt{ID: id, Key: call.RequestKey}}
		})
		if err != nil {
			return model.Claim{}, err
		}
		if c.Result.Outcome == model.OutcomeCommitted {
			return model.Claim{Verdict: model.ClaimRelease, Receipt: c.Result.Receipt.ID}, nil
		}
		if task.ID == "t1" {
			env.Calls.Fail(errors.New("glue: the reply of t1 is lost"))
			return model.Claim{}, nil
		}
		key = task.ID + "-again"
	}
	return model.Claim{Verdict: model.ClaimHold}, nil
}

func (g glued) ProviderLedger(context.Context) ([]model.LedgerEntry, error) { return *g.rows, nil }

func gluedDef() *model.Definition {
	task := func(id string) model.Task {
		return model.Task{ID: id, Actor: "a", Subject: "s-" + id, Tenant: "x", Purpose: "p", Amount: 5}
	}
	def := define(func(model.Config) (model.Factory, error) {
		rows := &[]model.LedgerEntry{}
		return func() model.System { return glued{rows: rows} }, nil
	}, model.Fixture{Name: "pay", Tasks: []model.Task{task("t1"), task("t2")}})
	def.Builtin, def.Clock = []string{model.InvEffectAtMostOnce}, properties.BubbleClock
	return def
}

// TestCheckHarnessErrorNamesItsSchedule: a harness error of the walk
// prints its schedule and stores it under harness/ (which no later run
// replays on its own) with its replay line.
func TestCheckHarnessErrorNamesItsSchedule(t *testing.T) {
	dir := t.TempDir()
	tb := &recordingTB{name: "TestGlue"}
	properties.CheckTB(tb, t, gluedDef(), properties.WithKinds("timeout_after_commit"), properties.WithFailDir(dir))
	ents, _ := os.ReadDir(filepath.Join(dir, "harness"))
	if len(tb.errors) != 1 || len(ents) != 1 {
		t.Fatalf("errors %q, files %v", tb.errors, ents)
	}
	path := filepath.Join(dir, "harness", ents[0].Name())
	want := "properties: harness: glue: the reply of t1 is lost (a harness error, not a verdict on the system), under the schedule\n"
	if msg := tb.errors[0]; !strings.HasPrefix(msg, want) || !strings.Contains(msg, `"kind": "timeout_after_commit"`) || !strings.Contains(msg, `"ordinal": 1`) ||
		!strings.Contains(msg, "\nreplay: FAULTLINE_REPLAY="+path+" go test -run '^TestGlue$'") {
		t.Fatalf("message %q", msg)
	}
}

// TestCheckKeepsTheViolationBeforeAHarnessError: rapid finds the double
// payment at t2's payment (tool.commit#2, where a swarm draw, which
// leaves out the default placement half the time, puts the fault at
// seed 2; the default draw puts it at t1's); shrinking moves the fault to
// t1's, where the glue fails the run. The violation is reported with the
// schedule it was found on, stored and replayable, then the harness error.
func TestCheckKeepsTheViolationBeforeAHarnessError(t *testing.T) {
	dir := t.TempDir()
	tb := &recordingTB{name: "TestGlue"}
	opts := []properties.Option{properties.WithKinds("timeout_after_commit"), properties.WithFailDir(dir),
		properties.WithMaxSchedules(0), properties.WithSeed(2), properties.WithMaxFaults(1), properties.WithSwarm()}
	properties.CheckTB(tb, t, gluedDef(), opts...)
	ents, _ := os.ReadDir(dir)
	if len(tb.errors) != 2 || len(ents) != 2 || !strings.HasPrefix(ents[0].Name(), "cx-unreduced-") || ents[1].Name() != "harness" {
		t.Fatalf("errors %q, files %v", tb.errors, ents)
	}
	path := filepath.Join(dir, ents[0].Name())
	want := "properties: counterexample (an invariant violated, exit 1): effect_at_most_once violated after seq 6 (tool.commit), reached by f1: second ledger effect for task t2\n" +
		"schedule as found, not reduced: shrinking stopped at the harness error below, on another schedule\n"
	if msg := tb.errors[0]; !strings.HasPrefix(msg, want) || !strings.Contains(msg, `"ordinal": 2,`) ||
		!strings.Contains(msg, "\nreplay: FAULTLINE_REPLAY="+path+" go test -run '^TestGlue$'") {
		t.Fatalf("violation %q", msg)
	}
	if msg := tb.errors[1]; !strings.HasPrefix(msg, "properties: harness: glue: the reply of t1 is lost (a harness error, not a verdict on the system), under the schedule\n") || !strings.Contains(msg, `"ordinal": 1,`) {
		t.Fatalf("harness error %q", msg)
	}
	again := &recordingTB{name: "TestGlue"}
	properties.CheckTB(again, t, gluedDef(), opts...)
	if len(again.errors) != 1 || !strings.HasPrefix(again.errors[0], "properties: counterexample stored by an earlier run in "+path+", replayed before any exploration (an invariant violated, exit 1): ") {
		t.Fatalf("the stored violation, replayed: %q", again.errors)
	}
}
