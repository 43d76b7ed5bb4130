package rerun_test

import (
	"context"
	"testing"

	"github.com/faultline/faultline/internal/rerun"
	"github.com/faultline/faultline/model"
)

// committer commits n times, each an effect of the task's one action,
// then releases.
type committer struct {
	n    int
	rows *[]model.LedgerEntry
}

func (c committer) ProviderLedger(context.Context) ([]model.LedgerEntry, error) { return *c.rows, nil }

func (c committer) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	for range c.n {
		_, err := env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: task.ID, Action: model.Action{IdempotencyKey: task.ID}},
			func(_ context.Context, call model.ToolCall) model.ToolResult {
				*c.rows = append(*c.rows, model.LedgerEntry{Tool: "pay", Key: call.RequestKey, ActionRef: task.ID})
				return model.ToolResult{Outcome: model.OutcomeCommitted, Receipt: &model.Receipt{ID: "r"}}
			})
		if err != nil {
			return model.Claim{}, err
		}
	}
	return model.Claim{Verdict: model.ClaimRelease}, nil
}

// run runs committer{n} with a clock that adds step ms at each reading.
func run(t *testing.T, n int, step model.Millis) *model.Result {
	t.Helper()
	var now model.Millis
	var rows []model.LedgerEntry
	h := model.NewHarness(model.Fixture{Name: "f", Tasks: []model.Task{{ID: "t"}}},
		model.Options{Builtin: []string{model.InvEffectAtMostOnce}, Clock: func() model.Millis { now += step; return now }})
	res, err := h.Run(func() model.System { return committer{n, &rows} }, &model.Schedule{Version: model.ScheduleVersion, Seed: "s", Faults: []model.FaultEntry{}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestProduction: times alone moving is the same run, with the largest
// difference (crossings at 10, 20, 30 ms, then 13, 26, 39 ms: 9 ms);
// another event is nondeterminism naming it and, when one moved before
// it, the crossing whose time moved first, with its two times.
func TestProduction(t *testing.T) {
	s := &model.Schedule{Seed: "s"}
	if spread, err := rerun.Production(s, run(t, 1, 10), run(t, 1, 13)); err != nil || spread != 9 {
		t.Fatalf("times alone: spread %d, %v", spread, err)
	}
	if spread, err := rerun.Production(s, run(t, 1, 10), run(t, 1, 10)); err != nil || spread != 0 {
		t.Fatalf("the same run: spread %d, %v", spread, err)
	}
	const rule = "; production code must take every wait from the time package inside the bubble, use in-process transports, keep no state across runs, read no global randomness and start no goroutine that outlives the run"
	for _, c := range []struct {
		a, b *model.Result
		want string
	}{
		{run(t, 1, 10), run(t, 2, 13), `nondeterministic replay: the same schedule (seed "s", faults: none) crossed different events in two runs: crossing 3 was claim#0 (release) at 30 ms, then tool.commit#2 (committed) at 39 ms; logical times moved first: crossing 1 (worker.start#1) was at 10 ms, then at 13 ms; global randomness (math/rand's global source, e.g. a jittered back-off) is a likely cause` + rule},
		{run(t, 2, 10), run(t, 1, 10), `nondeterministic replay: the same schedule (seed "s", faults: none) crossed different events in two runs: crossing 3 was tool.commit#2 (committed) at 30 ms, then claim#0 (release) at 30 ms` + rule},
	} {
		if _, err := rerun.Production(s, c.a, c.b); err == nil || err.Error() != c.want {
			t.Errorf("got  %v\nwant %s", err, c.want)
		}
	}
	if n := rerun.Note(9); n != "logical times vary between runs (global randomness, e.g. a jittered back-off): up to 9 ms" || rerun.Note(0) != "" {
		t.Fatal(n)
	}
}

// TestDiffNamesWhatDiffers: two crossings alike by event, ordinal and
// outcome but of other tasks (two workers' sleeps taken in another order)
// are told apart by their tasks; crossings that agree on task, tool and
// fault read as before.
func TestDiffNamesWhatDiffers(t *testing.T) {
	a := []model.Event{{Event: "clock.sleep", Ordinal: 1, Outcome: "ok", Task: "send-1", At: 10}}
	b := []model.Event{{Event: "clock.sleep", Ordinal: 1, Outcome: "ok", Task: "send-2", At: 10}}
	if err := rerun.Diff(a, b, false); err == nil || err.Error() != `crossing 1 was clock.sleep#1 (ok) of task send-1, then clock.sleep#1 (ok) of task send-2` {
		t.Errorf("untimed: %v", err)
	}
	b[0].Task, b[0].Tool, b[0].At = "send-1", "mail.send", 12
	if err := rerun.Diff(a, b, true); err == nil || err.Error() != `crossing 1 was clock.sleep#1 (ok) tool none at 10 ms, then clock.sleep#1 (ok) tool mail.send at 12 ms` {
		t.Errorf("timed: %v", err)
	}
	b[0].Tool = ""
	if err := rerun.Diff(a, b, true); err == nil || err.Error() != `crossing 1 was clock.sleep#1 (ok) at 10 ms, then clock.sleep#1 (ok) at 12 ms` {
		t.Errorf("times alone: %v", err)
	}
}

// TestModel: a rerun on the model path is the same run when it crossed
// the same events to the same verdict, times aside (10 ms steps, then
// 13); another event is named with each run's time there, and the same
// events judged otherwise (a dropped invariant result) name the verdicts.
func TestModel(t *testing.T) {
	s := &model.Schedule{Seed: "s", Faults: []model.FaultEntry{{Kind: "tool_timeout", Event: model.EvToolCommit, Ordinal: 1}}}
	if err := rerun.Model(s, run(t, 2, 10), run(t, 2, 13)); err != nil {
		t.Fatalf("times alone: %v", err)
	}
	const head = `nondeterministic replay: the same schedule (seed "s", faults: tool_timeout at tool.commit#1) `
	const rule = "; the system must keep no state across runs and read no clock and no global randomness"
	if err := rerun.Model(s, run(t, 2, 10), run(t, 1, 10)); err == nil || err.Error() != head+"crossed different events in two runs: crossing 3 was tool.commit#2 (committed) at 30 ms, then claim#0 (release) at 30 ms"+rule {
		t.Errorf("another event: %v", err)
	}
	a, b := run(t, 2, 10), run(t, 2, 10)
	b.Invariants = nil
	if err := rerun.Model(s, a, b); err == nil || err.Error() != head+"crossed the same events with the same outcomes in two runs but reached another verdict: effect_at_most_once first false after crossing 3 (tool.commit), then not checked"+rule {
		t.Errorf("another verdict: %v", err)
	}
}

// TestHidden: a first run that committed twice broke effect_at_most_once
// at its second commit (crossing 3), which Hidden names; one whose
// invariants all held (none left) adds nothing.
func TestHidden(t *testing.T) {
	if got := rerun.Hidden(run(t, 2, 10)); got != "; its first run broke effect_at_most_once after seq 3 (tool.commit): an invariant was broken once and not alike on the rerun, so the system's nondeterminism hides a real violation" {
		t.Errorf("broke: %q", got)
	}
	held := run(t, 1, 10)
	held.Invariants = nil
	if got := rerun.Hidden(held); got != "" {
		t.Errorf("held: %q", got)
	}
}
