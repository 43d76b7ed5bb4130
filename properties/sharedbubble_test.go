package properties_test

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// labels is production code of a print shop: it prints a shipping label
// through env.Calls into a store idempotent by key and, when the reply is
// lost, waits 300 ms (the time package) and prints again, under the same
// key, or under a fresh one when fresh is set (its planted bug).
type labels struct {
	rows  *[]model.LedgerEntry
	fresh bool
}

func (l labels) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	key := t.ID
	for i := range 2 {
		if i > 0 {
			//faultline:ignore production code on the time package, run in a testing/synctest bubble
			time.Sleep(300 * time.Millisecond)
			if l.fresh {
				key += "-again"
			}
		}
		//faultline:ignore the planted bug of the counterfactual pair: fresh retries under a new key
		c, err := env.Calls.Commit(ctx, model.ToolCall{Tool: "print", RequestKey: key, Action: model.Action{Subject: t.Subject, IdempotencyKey: t.ID}},
			func(_ context.Context, call model.ToolCall) model.ToolResult {
				for _, r := range *l.rows {
					if r.Key == call.RequestKey {
						return model.ToolResult{Outcome: model.OutcomeCommitted, Replayed: true, Receipt: &model.Receipt{ID: r.ReceiptID}}
					}
				}
				*l.rows = append(*l.rows, model.LedgerEntry{Tool: "print", Key: call.RequestKey, ActionRef: t.ID, Subject: t.Subject, ReceiptID: "lbl-" + call.RequestKey})
				return model.ToolResult{Outcome: model.OutcomeCommitted, Receipt: &model.Receipt{ID: "lbl-" + call.RequestKey}}
			})
		if err != nil {
			return model.Claim{}, err
		}
		if c.Result.Outcome == model.OutcomeCommitted && c.Result.Receipt != nil {
			return model.Claim{Verdict: model.ClaimRelease, Receipt: c.Result.Receipt.ID}, nil
		}
	}
	return model.Claim{Verdict: model.ClaimHold, Reason: "label not confirmed"}, nil
}

func (l labels) ProviderLedger(context.Context) ([]model.LedgerEntry, error) { return *l.rows, nil }

// labelsDef is the print shop with a deadline of 1000 ms a task, under
// budget and effect_at_most_once; config {"fresh": true} plants the bug.
func labelsDef() *model.Definition {
	def := define(func(c model.Config) (model.Factory, error) {
		var sys struct{ Fresh bool }
		if err := json.Unmarshal(c.System, &sys); err != nil {
			return nil, err
		}
		return func() model.System { return labels{rows: &[]model.LedgerEntry{}, fresh: sys.Fresh} }, nil
	}, model.Fixture{Name: "labels", Tasks: []model.Task{{ID: "ship-P-9", Subject: "P-9"}}})
	def.Builtin, def.Clock = []string{model.InvEffectAtMostOnce, model.InvBudget}, properties.BubbleClock
	return def
}

// TestExploreInOneBubble: properties.Explore of production code inside
// one synctest.Test (the bubble every run shares, whose clock each run's
// 300 ms wait moves on, past the 1000 ms deadline) times each run from
// its own start, as Check's bubble of its own does. The correct shop
// holds over 10 checks (every run's label within the deadline; before,
// a later run's print was past it, a budget violation its confirming
// rerun of the clean run contradicted, reported as nondeterminism); the
// planted one is found: effect_at_most_once after seq 3, the second
// print at 300 ms of its run.
func TestExploreInOneBubble(t *testing.T) {
	deadline := model.Millis(1000)
	for _, fresh := range []bool{false, true} {
		var rep *properties.Report
		var err error
		var elapsed time.Duration
		synctest.Test(t, func(*testing.T) {
			start := time.Now()
			rep, err = properties.Explore(labelsDef(), properties.WithKinds("timeout_after_commit"), properties.WithSeed(1), properties.WithChecks(10),
				properties.WithConfig(model.Config{System: json.RawMessage(`{"fresh": ` + map[bool]string{false: "false", true: "true"}[fresh] + `}`), Deadline: &deadline}))
			elapsed = time.Since(start)
		})
		if err != nil {
			t.Fatalf("fresh %v: %v", fresh, err)
		}
		if elapsed <= time.Duration(deadline)*time.Millisecond {
			t.Errorf("fresh %v: the shared bubble's clock moved %v, not past the deadline: the test tests nothing", fresh, elapsed)
		}
		if !fresh {
			if rep.Found || rep.Checks != 10 || rep.Faults != 17 || rep.Reached != 17 || rep.Fired != 10 {
				t.Errorf("the correct shop: found %v (%v), %d checks, %d faults, %d reached, %d fired", rep.Found, rep.Counterexample, rep.Checks, rep.Faults, rep.Reached, rep.Fired)
			}
			continue
		}
		c := rep.Counterexample
		if !rep.Found || c.Invariant != model.InvEffectAtMostOnce || c.FirstSeq != 3 || len(c.Schedule.Faults) != 1 {
			t.Fatalf("the planted shop: %v", c)
		}
		var at []model.Millis
		for _, ev := range c.Timeline {
			if ev.Event == model.EvToolCommit {
				at = append(at, ev.At)
			}
		}
		if len(at) != 2 || at[0] != 0 || at[1] != 300 {
			t.Errorf("the planted shop's prints at %v ms of its run, want [0 300]", at)
		}
	}
}
