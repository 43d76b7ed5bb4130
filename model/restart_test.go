package model_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/hang"
	"github.com/faultline/faultline/model"
)

// resumer is production code that charges once and then records the
// charge at checkpoint.write; blind, on a restart it resumes without
// reading what survives and charges under a key of its own instance (the
// blind-resume bug), else under the task's key. ctxErr and deferErr are
// what the crashed instance saw after its call failed: its context's
// error and its defer's call.
type resumer struct {
	st       *store
	blind    bool
	instance int
	ctxErr   *error
	deferErr *error
}

func (a resumer) Run(ctx context.Context, env model.Env, task model.Task) (claim model.Claim, err error) {
	defer func() {
		if err != nil {
			*a.ctxErr, *a.deferErr = ctx.Err(), env.Calls.Err()
		}
	}()
	key := task.ID + ":charge"
	if a.blind {
		key += "@" + string(rune('0'+a.instance))
	}
	act := model.Action{Actor: task.Actor, Subject: task.Subject, Tenant: task.Tenant, Purpose: task.Purpose, Amount: task.Amount, IdempotencyKey: task.ID + ":charge"}
	if _, err := env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: key, Action: act},
		func(_ context.Context, call model.ToolCall) model.ToolResult { return a.st.charge(call) }); err != nil {
		return model.Claim{}, err
	}
	step, err := env.Calls.Enter(ctx, model.EvCheckpointWrite)
	if err != nil {
		return model.Claim{}, err
	}
	if err := step.Done("ok", "charged"); err != nil {
		return model.Claim{}, err
	}
	return model.Claim{Verdict: model.ClaimRelease}, nil
}

func (a resumer) ProviderLedger(context.Context) ([]model.LedgerEntry, error) { return a.st.rows, nil }

// TestProductionRestart: worker_crash at the commit and worker_restart
// at the checkpoint write crash the instance (its context cancelled, its
// call and its defer's failing) and a fresh one runs the task against the
// provider that survives. The blind resumer charges twice and
// effect_at_most_once breaks at the second commit; the resumer under the
// task's key holds.
func TestProductionRestart(t *testing.T) {
	for _, f := range []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "worker_crash"},
		{Event: model.EvCheckpointWrite, Ordinal: 1, Kind: "worker_restart"}} {
		for _, blind := range []bool{true, false} {
			st := &store{byKey: true}
			var ctxErr, deferErr error
			n := 0
			h := model.NewHarness(liveFixture, model.Options{Builtin: []string{model.InvEffectAtMostOnce}})
			res, err := h.Run(func() model.System {
				n++
				return resumer{st: st, blind: blind, instance: n, ctxErr: &ctxErr, deferErr: &deferErr}
			}, &model.Schedule{Version: model.ScheduleVersion, Seed: "restart", Faults: []model.FaultEntry{f}})
			if err != nil {
				t.Fatal(err)
			}
			var evs []string
			for _, e := range res.Timeline.Events() {
				evs = append(evs, string(e.Event)+"/"+e.Outcome)
			}
			inv, _ := res.Invariant(model.InvEffectAtMostOnce)
			if n != 2 || res.Faults[0].Fired != 1 || !errors.Is(ctxErr, context.Canceled) || !errors.Is(deferErr, model.ErrWorkerCrashed) {
				t.Fatalf("%s blind %v: %d instances, fault %+v, ctx %v, defer %v", f.Kind, blind, n, res.Faults[0], ctxErr, deferErr)
			}
			want := 1
			if blind {
				want = 2
			}
			if len(st.rows) != want || inv.Held == blind || blind && (inv.Event != model.EvToolCommit || inv.FaultID != "f1") {
				t.Fatalf("%s blind %v: %d rows, %+v, timeline %s", f.Kind, blind, len(st.rows), inv, strings.Join(evs, " "))
			}
		}
	}
}

// instanceStore keeps its provider in the instance: each instance the
// factory returns has a store of its own.
type instanceStore struct{ resumer }

// TestProductionRestartInstanceState: a provider whose state lives in the
// System instance is named at the first restart, as a harness error.
func TestProductionRestartInstanceState(t *testing.T) {
	var e1, e2 error
	h := model.NewHarness(liveFixture, model.Options{Builtin: []string{model.InvEffectAtMostOnce}})
	_, err := h.Run(func() model.System {
		return instanceStore{resumer{st: &store{byKey: true}, ctxErr: &e1, deferErr: &e2}}
	}, &model.Schedule{Version: model.ScheduleVersion, Seed: "restart", Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "worker_crash"}}})
	want := "model: the restarted worker of task inv-1 reads 0 provider ledger entries where the crashed one left 1: the provider's state lives in the System instance"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want it to start %q", err, want)
	}
}

// looper goes on calling its adapters after its worker crashed.
type looper struct{ st *store }

func (a looper) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	for {
		if _, err := env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: "k"},
			func(_ context.Context, call model.ToolCall) model.ToolResult { return a.st.charge(call) }); err == nil {
			return model.Claim{Verdict: model.ClaimRelease}, nil
		}
	}
}

func (a looper) ProviderLedger(context.Context) ([]model.LedgerEntry, error) { return a.st.rows, nil }

// TestProductionRestartRunaway: an instance that keeps calling after its
// crash ends the run as one that never ended, at the 101st call.
func TestProductionRestartRunaway(t *testing.T) {
	st := &store{byKey: true}
	h := model.NewHarness(liveFixture, model.Options{Builtin: []string{model.InvEffectAtMostOnce}})
	_, err := h.Run(func() model.System { return looper{st: st} },
		&model.Schedule{Version: model.ScheduleVersion, Seed: "runaway", Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "worker_crash"}}})
	b := (*hang.Blocked)(nil)
	want := "the system's run never ended: worker 1 of task inv-1 crashed at 50 ms (its context cancelled, every adapter call failing with \"worker crashed\") and made 101 calls through its adapters without returning from System.Run (the bounds: 100 calls, 60000 ms)"
	if !errors.As(err, &b) || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

// sleeper goes on calling after its crash, a second of the run's clock
// between calls (the clock is now, which it advances itself).
type sleeper struct {
	st  *store
	now *model.Millis
}

func (a sleeper) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	for {
		if _, err := env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: "k"},
			func(_ context.Context, call model.ToolCall) model.ToolResult { return a.st.charge(call) }); err == nil {
			return model.Claim{Verdict: model.ClaimRelease}, nil
		}
		*a.now += 1000
	}
}

func (a sleeper) ProviderLedger(context.Context) ([]model.LedgerEntry, error) { return a.st.rows, nil }

// TestProductionRestartRunawayClock: an instance still calling more than
// 60,000 ms after its crash, on the Definition's clock, ends the run as
// one that never ended, before the call bound.
func TestProductionRestartRunawayClock(t *testing.T) {
	st, now := &store{byKey: true}, model.Millis(0)
	h := model.NewHarness(liveFixture, model.Options{Builtin: []string{model.InvEffectAtMostOnce}, Clock: func() model.Millis { return now }})
	_, err := h.Run(func() model.System { return sleeper{st: st, now: &now} },
		&model.Schedule{Version: model.ScheduleVersion, Seed: "runaway", Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "worker_crash"}}})
	b := (*hang.Blocked)(nil)
	want := "the system's run never ended: worker 1 of task inv-1 crashed at 0 ms (its context cancelled, every adapter call failing with \"worker crashed\") and still called its adapters 61000 logical ms later without returning from System.Run (the bounds: 100 calls, 60000 ms)"
	if !errors.As(err, &b) || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}
