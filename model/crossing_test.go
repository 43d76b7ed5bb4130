package model_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
)

// store is a provider outside the model: a key-value table of charges that
// the system reaches only through its own client, and the oracle reads
// through ProviderLedger.
type store struct {
	rows     []model.LedgerEntry
	byKey    bool // idempotent by request key
	shrink   bool // from the third read on, ProviderLedger returns nothing (a broken readback)
	readErr  error
	receipts int
	reads    int
}

func (s *store) charge(call model.ToolCall) model.ToolResult {
	if s.byKey {
		for _, r := range s.rows {
			if r.Key == call.RequestKey {
				return model.ToolResult{Outcome: model.OutcomeCommitted, Replayed: true, Receipt: &model.Receipt{ID: r.ReceiptID, Key: r.Key}}
			}
		}
	}
	s.receipts++
	id := "ch_" + string(rune('0'+s.receipts))
	a := call.Action
	s.rows = append(s.rows, model.LedgerEntry{Tool: call.Tool, Key: call.RequestKey, ActionRef: a.IdempotencyKey,
		Actor: a.Actor, Subject: a.Subject, Tenant: a.Tenant, Purpose: a.Purpose, Amount: a.Amount, Trace: a.TraceID, ReceiptID: id})
	return model.ToolResult{Outcome: model.OutcomeCommitted, Receipt: &model.Receipt{ID: id, Key: call.RequestKey, Subject: a.Subject, Amount: a.Amount}}
}

// agent is production code's shape: it calls its client and retries an
// unknown outcome once, under a stable key or (the bug) a fresh one.
type agent struct {
	st       *store
	freshKey bool
}

func (a agent) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	act := model.Action{Actor: task.Actor, Subject: task.Subject, Tenant: task.Tenant, Purpose: task.Purpose,
		Amount: task.Amount, IdempotencyKey: task.ID + ":charge", TraceID: task.Trace}
	key := task.ID + ":charge"
	for attempt := 0; attempt < 2; attempt++ {
		if a.freshKey && attempt > 0 {
			key += "-retry"
		}
		c, err := env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: key, Action: act},
			func(_ context.Context, call model.ToolCall) model.ToolResult { return a.st.charge(call) })
		if err != nil {
			return model.Claim{}, err
		}
		if c.Result.Outcome == model.OutcomeCommitted && c.Result.Receipt != nil {
			return model.Claim{Verdict: model.ClaimRelease, Receipt: c.Result.Receipt.ID}, nil
		}
	}
	return model.Claim{Verdict: model.ClaimHold, Reason: "unknown outcome"}, nil
}

func (a agent) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	if a.st.readErr != nil {
		return nil, a.st.readErr
	}
	a.st.reads++
	if a.st.shrink && a.st.reads > 2 {
		return nil, nil
	}
	return a.st.rows, nil
}

var liveFixture = model.Fixture{Name: "live", Tasks: []model.Task{{ID: "inv-1", Actor: "agent", Subject: "acct-9", Tenant: "t", Purpose: "invoice", Amount: 300}}}

func liveRun(t *testing.T, st *store, fresh bool, faults ...model.FaultEntry) *model.Result {
	t.Helper()
	h := model.NewHarness(liveFixture, model.Options{Builtin: []string{model.InvEffectAtMostOnce, model.InvRightSubject, model.InvBudget}})
	res, err := h.Run(func() model.System { return agent{st: st, freshKey: fresh} },
		&model.Schedule{Version: model.ScheduleVersion, Seed: "live", Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCallsCommitCounterfactual: timeout_after_commit through Calls.Commit
// on a provider the model does not own. Against an idempotent provider,
// the agent that retries under a fresh key charges twice and
// effect_at_most_once, read from the provider's own rows, breaks at the
// second commit; under a stable key it holds.
func TestCallsCommitCounterfactual(t *testing.T) {
	lost := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}
	bad := &store{byKey: true}
	res := liveRun(t, bad, true, lost)
	inv, _ := res.Invariant(model.InvEffectAtMostOnce)
	if inv.Held || inv.Event != model.EvToolCommit || inv.FaultID != "f1" || inv.Detail != "second ledger effect for task inv-1" {
		t.Fatalf("fresh key: effect_at_most_once %+v, want broken at the second tool.commit by f1", inv)
	}
	if len(bad.rows) != 2 || res.Faults[0].Fired != 1 || !res.Faults[0].Reached {
		t.Fatalf("fresh key: %d rows, fault %+v", len(bad.rows), res.Faults[0])
	}
	good := &store{byKey: true}
	res = liveRun(t, good, false, lost)
	if !res.Held() || len(good.rows) != 1 || res.RunVerdict != model.Recovered && res.RunVerdict != model.ContainedFailure {
		t.Fatalf("stable key: held %v, %d rows, verdict %s", res.Held(), len(good.rows), res.RunVerdict)
	}
	// the timeline holds the harness's and the adapter's crossings
	var evs []string
	for _, e := range res.Timeline.Events() {
		evs = append(evs, string(e.Event)+"/"+e.Outcome)
	}
	if got := strings.Join(evs, " "); got != "worker.start/ tool.commit/unknown tool.commit/committed claim/release" {
		t.Fatalf("timeline %s", got)
	}
}

// TestCallsCommitWithholds: a fault that withholds the request never calls
// send, and Committed says so.
func TestCallsCommitWithholds(t *testing.T) {
	st := &store{byKey: true}
	h := model.NewHarness(liveFixture, model.Options{Builtin: []string{model.InvEffectAtMostOnce}})
	var got []model.Committed
	sys := sysFunc{run: func(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
		for i := 0; i < 2; i++ {
			c, err := env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: "k", Action: model.Action{Subject: task.Subject, IdempotencyKey: "k"}},
				func(_ context.Context, call model.ToolCall) model.ToolResult { return st.charge(call) })
			if err != nil {
				return model.Claim{}, err
			}
			got = append(got, c)
		}
		return model.Claim{Verdict: model.ClaimHold}, nil
	}, st: st}
	_, err := h.Run(func() model.System { return sys }, &model.Schedule{Version: model.ScheduleVersion, Seed: "w",
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_before_send"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Sent || len(got[0].Fired) != 1 || got[0].Fired[0] != "timeout_before_send" ||
		got[0].Result.Outcome != model.OutcomeUnknown || !got[1].Sent || len(got[1].Fired) != 0 || len(st.rows) != 1 {
		t.Fatalf("got %+v, rows %d", got, len(st.rows))
	}
}

type sysFunc struct {
	run func(context.Context, model.Env, model.Task) (model.Claim, error)
	st  *store
}

func (s sysFunc) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	return s.run(ctx, env, task)
}

func (s sysFunc) ProviderLedger(context.Context) ([]model.LedgerEntry, error) { return s.st.rows, nil }

// TestCallsEnterStep: a non-commit crossing names the faults armed at it;
// one the adapter enacts fires (a checkpoint kind then restarts the
// worker: Done returns ErrWorkerCrashed and a fresh instance runs the
// task), one it cannot stays unfired and the run is inconclusive.
func TestCallsEnterStep(t *testing.T) {
	st := &store{}
	for _, enact := range []bool{true, false} {
		h := model.NewHarness(liveFixture, model.Options{Builtin: []string{}})
		var armed []string
		sys := sysFunc{st: st, run: func(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
			for i := 0; i < 2; i++ {
				s, err := env.Calls.Enter(ctx, model.EvCheckpointWrite)
				if err != nil {
					return model.Claim{}, err
				}
				armed = append(armed, strings.Join(s.Faults(), ","))
				if enact && len(s.Faults()) > 0 {
					if err := s.Fire(s.Faults()[0]); err != nil {
						return model.Claim{}, err
					}
				}
				if err := s.Fire("memory_loss"); err == nil {
					t.Error("Fire of a kind not armed: no error")
				}
				if err := s.Done("ok", "row 1"); err != nil {
					return model.Claim{}, err
				}
				if err := s.Done("ok", ""); err == nil {
					t.Error("second Done: no error")
				}
			}
			return model.Claim{Verdict: model.ClaimHold}, nil
		}}
		res, err := h.Run(func() model.System { return sys }, &model.Schedule{Version: model.ScheduleVersion, Seed: "s",
			Faults: []model.FaultEntry{{Event: model.EvCheckpointWrite, Ordinal: 2, Kind: "stale_checkpoint"}}})
		if err != nil {
			t.Fatal(err)
		}
		f := res.Faults[0]
		want := "|stale_checkpoint"
		if enact {
			want += "||" // the restarted instance's two writes
		}
		if strings.Join(armed, "|") != want || !f.Reached {
			t.Fatalf("armed %q, fault %+v", armed, f)
		}
		evs := res.Timeline.Events()
		if enact && (f.Fired != 1 || f.FiredAt != 3 || evs[2].FaultID != "f1" || evs[2].Detail != "row 1" ||
			evs[3].Event != model.EvWorkerCrash || evs[3].Detail != "worker restarted after checkpoint.write#2 (stale_checkpoint)" ||
			evs[4].Event != model.EvWorkerStart || evs[4].Worker != 2) {
			t.Fatalf("enacted: fault %+v, events %+v", f, evs)
		}
		if !enact && (f.Fired != 0 || res.RunVerdict != model.Inconclusive) {
			t.Fatalf("not enacted: fault %+v, verdict %s", f, res.RunVerdict)
		}
	}
}

// TestCallsErrors: the contract's violations are errors that name them.
func TestCallsErrors(t *testing.T) {
	h := model.NewHarness(liveFixture, model.Options{Builtin: []string{}})
	clean := &model.Schedule{Version: model.ScheduleVersion, Seed: "e"}
	for name, tc := range map[string]struct {
		sys  model.System
		want string
	}{
		"not observed": {sys: plain{}, want: "does not implement model.Observed"},
		"shrank":       {sys: agent{st: &store{shrink: true}}, want: "fewer entries than an earlier read"},
		"read error":   {sys: agent{st: &store{readErr: errors.New("table gone")}}, want: "provider ledger: table gone"},
	} {
		_, err := h.Run(func() model.System { return tc.sys }, clean)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", name, err, tc.want)
		}
	}
	st := &store{}
	var ev model.EventName
	sys := sysFunc{st: st, run: func(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
		_, err := env.Calls.Enter(ctx, ev)
		return model.Claim{Verdict: model.ClaimHold}, err
	}}
	failing := sysFunc{st: st, run: func(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
		env.Calls.Fail(nil)
		env.Calls.Fail(errors.New("mcpfault: tool delete: no idempotency key in the arguments"))
		env.Calls.Fail(errors.New("second"))
		return model.Claim{Verdict: model.ClaimRelease}, nil // the system swallowed it
	}}
	if _, err := h.Run(func() model.System { return failing }, clean); err == nil || err.Error() != "mcpfault: tool delete: no idempotency key in the arguments" {
		t.Errorf("Fail: run error %v", err)
	}
	direct := sysFunc{st: st, run: func(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
		_, err := env.Tool.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: "k"})
		return model.Claim{Verdict: model.ClaimHold}, err
	}}
	if _, err := h.Run(func() model.System { return direct }, clean); err == nil || !strings.Contains(err.Error(), "commits through an adapter (env.Calls.Commit)") {
		t.Errorf("Env.Tool.Commit of an observed system: %v", err)
	}
	for e, want := range map[model.EventName]string{model.EvToolCommit: "through Commit", "no.such": `"no.such" is not an event`} {
		ev = e
		if _, err := h.Run(func() model.System { return sys }, clean); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Enter(%s): %v, want %q", e, err, want)
		}
	}
}

// plain calls the provider through Calls but offers no readback.
type plain struct{}

func (plain) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	_, err := env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: "k"}, func(context.Context, model.ToolCall) model.ToolResult {
		return model.ToolResult{Outcome: model.OutcomeRejected}
	})
	return model.Claim{Verdict: model.ClaimHold}, err
}

// TestCallsClock: in a run of production code the World's clock is
// Options.Clock's advance since the run started (read first, at 1000 ms),
// never going back.
func TestCallsClock(t *testing.T) {
	now := model.Millis(0)
	ticks := []model.Millis{1000, 1005, 1250, 1100, 1900}
	h := model.NewHarness(liveFixture, model.Options{Builtin: []string{}, Clock: func() model.Millis {
		if len(ticks) > 0 {
			now, ticks = ticks[0], ticks[1:]
		}
		return now
	}})
	st := &store{byKey: true}
	res, err := h.Run(func() model.System { return agent{st: st} }, &model.Schedule{Version: model.ScheduleVersion, Seed: "c"})
	if err != nil {
		t.Fatal(err)
	}
	var at []model.Millis
	for _, e := range res.Timeline.Events() {
		at = append(at, e.At)
	}
	if len(at) != 3 || at[0] != 5 || at[1] != 250 || at[2] != 250 {
		t.Fatalf("times %v, rows %+v", at, st.rows)
	}
}

// TestBudgetTakesTheClockAfterTheCommit: the budget invariant compares the
// clock after a commit (CommitCost after its start) with the deadline: a
// commit that starts CommitCost before the deadline holds, one that ends a
// millisecond past it breaks budget, although Env.Now() before it was
// within the deadline.
func TestBudgetTakesTheClockAfterTheCommit(t *testing.T) {
	st := &store{}
	var startAt model.Millis // the commit's start, after the task's
	sys := sysFunc{st: st, run: func(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
		startAt = env.Now() - task.Started
		act := model.Action{Actor: task.Actor, Subject: task.Subject, Tenant: task.Tenant, Purpose: task.Purpose, Amount: task.Amount, IdempotencyKey: task.ID}
		if _, err := env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: task.ID, Action: act},
			func(_ context.Context, call model.ToolCall) model.ToolResult { return st.charge(call) }); err != nil {
			return model.Claim{}, err
		}
		return model.Claim{Verdict: model.ClaimRelease}, nil
	}}
	budget := func(deadline model.Millis) model.InvariantResult {
		t.Helper()
		st.rows = nil
		h := model.NewHarness(liveFixture, model.Options{Builtin: []string{model.InvBudget}, Deadline: deadline})
		res, err := h.Run(func() model.System { return sys }, &model.Schedule{Version: model.ScheduleVersion, Seed: "b", Faults: []model.FaultEntry{}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Invariants[0]
	}
	if inv := budget(100000); !inv.Held || startAt <= 0 {
		t.Fatalf("measuring run: %+v, commit at %d ms", inv, startAt)
	}
	end := startAt + model.CommitCost
	if inv := budget(end); !inv.Held {
		t.Errorf("a commit ending at the deadline: %+v", inv)
	}
	want := fmt.Sprintf("tool call at %d ms, after the %d ms deadline", end, end-1)
	if inv := budget(end - 1); inv.Held || inv.Detail != want {
		t.Errorf("a commit ending a millisecond past the deadline: %+v, want %q", inv, want)
	}
}

// TestEffectOutsideAnAdapter: an effect that appears in the provider's
// ledger at a crossing other than a commit was made by a call no adapter
// reported (an unwrapped client): the run is a harness error naming the
// crossing and the key, never a green run that tested nothing. The same
// charge made through Calls.Commit is the counterfactual: it is checked.
func TestEffectOutsideAnAdapter(t *testing.T) {
	for _, wrapped := range []bool{true, false} {
		st := &store{}
		sys := sysFunc{st: st, run: func(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
			call := model.ToolCall{Tool: "pay", RequestKey: task.ID + ":charge", Action: model.Action{Actor: task.Actor,
				Subject: task.Subject, Tenant: task.Tenant, Purpose: task.Purpose, Amount: task.Amount, IdempotencyKey: task.ID}}
			if wrapped {
				if _, err := env.Calls.Commit(ctx, call, func(_ context.Context, c model.ToolCall) model.ToolResult { return st.charge(c) }); err != nil {
					return model.Claim{}, err
				}
			} else {
				st.charge(call) // a client the adapters do not wrap
			}
			s, err := env.Calls.Enter(ctx, model.EvCheckpointWrite)
			if err != nil {
				return model.Claim{}, err
			}
			if err := s.Done("ok", "row 1"); err != nil {
				return model.Claim{}, err
			}
			return model.Claim{Verdict: model.ClaimHold}, nil
		}}
		h := model.NewHarness(liveFixture, model.Options{Builtin: []string{model.InvEffectAtMostOnce}})
		res, err := h.Run(func() model.System { return sys }, &model.Schedule{Version: model.ScheduleVersion, Seed: "s"})
		if wrapped {
			if err != nil || res.Err() != nil {
				t.Fatalf("wrapped: %v, %v", err, res.Err())
			}
			continue
		}
		want := `provider ledger: 1 new effect(s) (first key "inv-1:charge") appeared at checkpoint.write, not at a tool.commit: a call made an effect without crossing an adapter`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("unwrapped: err %v, want it to contain %q", err, want)
		}
	}
}

// TestUnpacedWithoutAClock: production code that retries after a rate
// limit's retry-after, run without a Clock, ends in a harness error: its
// waits are not on the run's clock, so retry_paced could compare nothing
// and would pass having tested nothing. The same run with a Clock is
// judged: the retry at once is a violation.
func TestUnpacedWithoutAClock(t *testing.T) {
	st := &store{}
	sys := sysFunc{st: st, run: func(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
		act := model.Action{Actor: task.Actor, Subject: task.Subject, Tenant: task.Tenant, Purpose: task.Purpose, Amount: task.Amount, IdempotencyKey: task.ID}
		for range 2 {
			c, err := env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: task.ID, Action: act},
				func(_ context.Context, call model.ToolCall) model.ToolResult { return st.charge(call) })
			if err != nil {
				return model.Claim{}, err
			}
			if c.Result.Outcome == model.OutcomeCommitted {
				return model.Claim{Verdict: model.ClaimRelease}, nil
			}
		}
		return model.Claim{Verdict: model.ClaimHold}, nil
	}}
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "p", Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "rate_limit"}}}
	_, err := model.NewHarness(liveFixture, model.Options{Builtin: []string{model.InvEffectAtMostOnce}}).Run(func() model.System { return sys }, s)
	if err == nil || !strings.Contains(err.Error(), "retry_paced: production code (a System that implements model.Observed) retried after the provider asked it to wait") {
		t.Fatalf("without a Clock: %v", err)
	}
	st.rows = nil
	var now model.Millis
	res, err := model.NewHarness(liveFixture, model.Options{Builtin: []string{model.InvEffectAtMostOnce}, Clock: func() model.Millis { now += 5; return now }}).Run(func() model.System { return sys }, s)
	if err != nil {
		t.Fatal(err)
	}
	if inv, _ := res.Invariant("retry_paced"); inv.Held {
		t.Errorf("with a Clock: %+v", res.Invariants)
	}
}
