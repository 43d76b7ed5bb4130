package properties_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// jitterSource is a process-wide jitter source, as math/rand's global one
// is: every run draws the next value, so a run and its rerun wait other
// times. Unlike math/rand's, its sequence is fixed, so figures are exact.
type jitterSource struct {
	mu sync.Mutex
	n  int64
}

// next returns a jitter in [1, 40] ms, another on every call.
func (j *jitterSource) next() time.Duration {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.n++
	return time.Duration(1+j.n*17%40) * time.Millisecond
}

// pacer is production code that pays through its provider's client
// (env.Calls) on the time package. Each worker starts after a jittered
// delay; after a rate limit it waits the wait asked for plus a jitter,
// and writes a checkpoint as it starts backing off. durable records there
// the time before which the next attempt may not go, so a worker resumed
// after a restart still waits; without it the wait lives in the worker
// only, and a resumed worker retries once its start delay is over.
type pacer struct {
	rows    *[]model.LedgerEntry
	jitter  *jitterSource
	durable bool
}

func (p pacer) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	cp, _, err := env.Store.Load(ctx, task.ID)
	if err != nil {
		return model.Claim{}, err
	}
	if cp.State == "paid" {
		return model.Claim{Verdict: model.ClaimRelease, Receipt: cp.Data["receipt"]}, nil
	}
	var notBefore time.Time
	if v, ok := cp.Data["not_before"]; ok {
		n, _ := strconv.ParseInt(v, 10, 64)
		notBefore = time.UnixMilli(n)
	}
	//faultline:ignore production code on the time package, run in a testing/synctest bubble whose clock is the run's
	time.Sleep(p.jitter.next())
	seq := cp.Seq
	save := func(state string, attempts int, receipt string) error {
		seq++
		c := model.Checkpoint{Seq: seq, State: state, Attempt: attempts}
		if receipt != "" {
			c.CompletedEffects, c.Data = []string{task.ID}, map[string]string{"receipt": receipt}
		}
		//faultline:ignore production code on the time package, run in a testing/synctest bubble whose clock is the run's
		if p.durable && time.Until(notBefore) > 0 {
			c.Data = map[string]string{"not_before": strconv.FormatInt(notBefore.UnixMilli(), 10)}
		}
		return env.Store.Save(ctx, c)
	}
	for attempt := cp.Attempt; attempt <= 2; attempt++ {
		if err := save("sending", attempt+1, ""); err != nil { // the attempt is reserved before it is sent
			return model.Claim{}, err
		}
		//faultline:ignore production code on the time package, run in a testing/synctest bubble whose clock is the run's
		time.Sleep(time.Until(notBefore))
		c, err := env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: task.ID, Action: model.Action{Subject: task.Subject, IdempotencyKey: task.ID}},
			func(_ context.Context, call model.ToolCall) model.ToolResult {
				for _, r := range *p.rows {
					if r.Key == call.RequestKey {
						return model.ToolResult{Outcome: model.OutcomeCommitted, Replayed: true, Receipt: &model.Receipt{ID: r.ReceiptID}}
					}
				}
				id := fmt.Sprint("r", len(*p.rows)+1)
				*p.rows = append(*p.rows, model.LedgerEntry{Tool: "pay", Key: call.RequestKey, Subject: call.Action.Subject, ActionRef: call.Action.IdempotencyKey, ReceiptID: id})
				return model.ToolResult{Outcome: model.OutcomeCommitted, Receipt: &model.Receipt{ID: id}}
			})
		if err != nil {
			return model.Claim{}, err
		}
		res := c.Result
		if res.Class == model.ClassRateLimited {
			//faultline:ignore production code on the time package, run in a testing/synctest bubble whose clock is the run's
			notBefore = time.Now().Add(time.Duration(res.RetryAfter)*time.Millisecond + p.jitter.next())
			if err := save("backing_off", attempt+1, ""); err != nil {
				return model.Claim{}, err
			}
			continue
		}
		if r := res.Receipt; res.Outcome == model.OutcomeCommitted && r != nil && r.ID != "" {
			if err := save("paid", attempt+1, r.ID); err != nil {
				return model.Claim{}, err
			}
			return model.Claim{Verdict: model.ClaimRelease, Receipt: r.ID}, nil
		}
	}
	return model.Claim{Verdict: model.ClaimHold, Reason: "not confirmed"}, nil
}

func (p pacer) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return append([]model.LedgerEntry(nil), *p.rows...), nil
}

// pacerDefinition is the pacer as production code, durable or not, with
// a fresh provider per run and one jitter source for every run.
func pacerDefinition(durable bool, jitter *jitterSource) *model.Definition {
	return &model.Definition{Name: "pacer",
		Fixtures: []model.Fixture{{Name: "pacer", Tasks: []model.Task{{ID: "pay-1", Subject: "acct-1"}}}},
		Configure: func(json.RawMessage) (model.Factory, error) {
			rows := &[]model.LedgerEntry{}
			return func() model.System { return pacer{rows: rows, jitter: jitter, durable: durable} }, nil
		},
		Builtin: []string{model.InvEffectAtMostOnce, model.InvBudget},
		Clock:   properties.BubbleClock,
	}
}

// TestPacingOnProductionCode: production code with a jittered back-off.
// properties.Check, with no count or mode option (its kinds: the rate
// limit, the timeout and the restart), finds from scratch the
// restart that forgets the back-off: a rate limit, then a worker restart
// at the checkpoint written as the worker starts backing off; the
// resumed worker retries after its start delay alone and breaks
// retry_paced. The violating run was run again, waited other jitters, and
// crossed the same events to the same verdict (internal/rerun's rule for
// production code): the counterexample notes how far times moved. The
// durable pacer holds over the same search.
func TestPacingOnProductionCode(t *testing.T) {
	scope := func() []properties.Option {
		return []properties.Option{properties.WithKinds("rate_limit", "tool_timeout", "worker_restart"), properties.WithoutWorldEvents(), properties.WithFailDir(t.TempDir())}
	}
	tb := &recordingTB{name: "TestPacingOnProductionCode"}
	properties.CheckTB(tb, t, pacerDefinition(false, &jitterSource{}), scope()...)
	const found = "properties: counterexample at schedule 12 of the walk over the schedules of at most 2 faults (an invariant violated, exit 1): " +
		"retry_paced violated: first false after seq 10 (tool.commit), reached by f2 (worker_restart): attempt 2 of task ref-06bac9a7 sent at 44 ms, " +
		"81 ms early: the provider's retry-after of 100 ms at 25 ms owed a wait until 125 ms, after 1 restart(s)\n"
	const moved = "logical times vary between runs (global randomness, e.g. a jittered back-off): up to 58 ms\n"
	if len(tb.errors) != 1 || !strings.HasPrefix(tb.errors[0], found) || !strings.Contains(tb.errors[0], moved) ||
		!strings.Contains(tb.errors[0], `"kind": "rate_limit"`) || !strings.Contains(tb.errors[0], `"kind": "worker_restart"`) {
		t.Fatalf("forgetful: %q", tb.errors)
	}
	tb = &recordingTB{name: "TestPacingOnProductionCode"}
	properties.CheckTB(tb, t, pacerDefinition(true, &jitterSource{}), scope()...)
	if len(tb.errors) != 0 || len(tb.logs) != 4 || !strings.HasPrefix(tb.logs[0], "properties: walk: every one of 31 schedules of <= 2 faults, no counterexample") ||
		!strings.HasPrefix(tb.logs[2], "properties: no counterexample in 100 checks;") {
		t.Fatalf("durable: %q %q", tb.errors, tb.logs)
	}
}

// TestRestartForgetsBackoff: the reference system's restart_forgets_backoff
// mutant, under the typed profile, explored by default (no count or mode
// option): the walk finds, from scratch, a rate limit at the first commit
// and a worker restart at the checkpoint reserving the retry; the resumed
// worker retries before the back-off its predecessor owed. The same
// schedule holds on the reference system (its checkpoint records the
// back-off), and holds under the paper's invariant set (compat), which has
// no retry_paced.
func TestRestartForgetsBackoff(t *testing.T) {
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	cfg := copperfin.ConfigOfControls(typed)
	def := copperfin.Definition()
	rep, err := properties.Explore(def, properties.WithConfig(copperfin.WithMutant(cfg, string(copperfin.RestartForgetsBackoff))))
	if err != nil || !rep.Found {
		t.Fatalf("%v %+v", err, rep)
	}
	cx := rep.Counterexample
	const detail = "attempt 2 of task ref-db32399f sent at 292 ms, 20 ms early: the provider's retry-after of 100 ms at 212 ms owed a wait until 312 ms, after 1 restart(s)"
	// the walk's schedule 4,649 (4,631 before do_not_retry was drawn
	// here, 4,559 before server_error and network_error were, 4,449 with
	// 30 kinds: each moved more schedules ahead of the same pair)
	if f := cx.Schedule.Faults; cx.Invariant != "retry_paced" || cx.Detail != detail || rep.Walk.Schedules != 4649 || len(f) != 2 ||
		f[0].Kind != "rate_limit" || f[0].Event != model.EvToolCommit || f[0].Ordinal != 1 ||
		f[1].Kind != "worker_restart" || f[1].Event != model.EvCheckpointWrite || f[1].Ordinal != 3 {
		t.Fatalf("walk of %d schedules: %s: %s %+v", rep.Walk.Schedules, cx.Invariant, cx.Detail, cx.Schedule.Faults)
	}
	fx, err := def.Fixture(cx.Schedule.Config.Fixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		mutant string
		compat bool
		held   bool
	}{{"mutant", string(copperfin.RestartForgetsBackoff), false, false}, {"control", "", false, true}, {"mutant, compat", string(copperfin.RestartForgetsBackoff), true, true}} {
		s := *cx.Schedule
		s.Config = copperfin.WithMutant(cfg, c.mutant)
		s.Config.Fixture = fx.Name
		f, err := def.Factory(s.Config)
		if err != nil {
			t.Fatal(err)
		}
		res, err := model.NewHarness(fx, def.Options(model.Options{Compat: c.compat})).Run(f, &s)
		if err != nil || res.Held() != c.held {
			t.Errorf("%s: held %v, want %v (%v)", c.name, res.Held(), c.held, err)
		}
	}
}
