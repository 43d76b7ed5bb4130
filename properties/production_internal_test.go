package properties

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/model"
)

// payStore is a provider outside the model: it keeps its own rows and,
// like most payment APIs, dedups by request key.
type payStore struct{ rows []model.LedgerEntry }

func (p *payStore) charge(call model.ToolCall) model.ToolResult {
	for _, r := range p.rows {
		if r.Key == call.RequestKey {
			return model.ToolResult{Outcome: model.OutcomeCommitted, Replayed: true, Receipt: &model.Receipt{ID: r.ReceiptID, Key: r.Key}}
		}
	}
	a := call.Action
	id := "ch-" + string(rune('a'+len(p.rows)))
	p.rows = append(p.rows, model.LedgerEntry{Tool: call.Tool, Key: call.RequestKey, ActionRef: a.IdempotencyKey, Actor: a.Actor,
		Subject: a.Subject, Tenant: a.Tenant, Purpose: a.Purpose, Amount: a.Amount, ReceiptID: id})
	return model.ToolResult{Outcome: model.OutcomeCommitted, Receipt: &model.Receipt{ID: id, Key: call.RequestKey}}
}

// payAgent is production code's shape: its client runs the call on a
// goroutine of its own with a timeout, and it backs off 50 ms (real
// time functions: the bubble's clock) before it retries an unknown
// outcome, under a fresh key when fresh is set (the bug).
type payAgent struct {
	st    *payStore
	fresh bool
	// flaky, when set, makes every other run of the process cross one
	// more commit: state that leaks across runs, a nondeterministic
	// replay
	flaky *atomic.Int64
	// jitter, when set, lengthens every back-off by 1 ms more than the
	// last across runs, as a back-off jittered with global randomness
	// moves: the same events, other times
	jitter *atomic.Int64
}

func (a payAgent) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	act := model.Action{Actor: task.Actor, Subject: task.Subject, Tenant: task.Tenant, Purpose: task.Purpose, Amount: task.Amount, IdempotencyKey: task.ID}
	send := func(ctx context.Context, call model.ToolCall) model.ToolResult {
		done := make(chan model.ToolResult, 1)
		go func() {
			//faultline:ignore production code on the time package, run in a testing/synctest bubble whose clock is the run's: the replay is deterministic
			time.Sleep(5 * time.Millisecond) // the provider's latency
			done <- a.st.charge(call)
		}()
		select {
		case r := <-done:
			return r
		//faultline:ignore production code on the time package, run in a testing/synctest bubble whose clock is the run's: the replay is deterministic
		case <-time.After(time.Second):
			return model.ToolResult{Outcome: model.OutcomeUnknown, Class: model.ClassTimeout}
		}
	}
	key := task.ID + ":pay"
	tries := 2
	if a.flaky != nil && a.flaky.Add(1)%2 == 0 {
		tries = 3
	}
	for i := 0; i < tries; i++ {
		if i > 0 {
			wait := 50 * time.Millisecond
			if a.jitter != nil {
				wait += time.Duration(a.jitter.Add(1)) * time.Millisecond
			}
			//faultline:ignore production code on the time package, run in a testing/synctest bubble whose clock is the run's: the replay is deterministic
			time.Sleep(wait)
			if a.fresh {
				key = task.ID + ":pay:" + string(rune('0'+i))
			}
		}
		c, err := env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: key, Action: act}, send)
		if err != nil {
			return model.Claim{}, err
		}
		// a committed answer without the provider's receipt proves
		// nothing: the agent retries under the same key
		if r := c.Result.Receipt; c.Result.Outcome == model.OutcomeCommitted && r != nil && r.ID != "" && a.flaky == nil {
			return model.Claim{Verdict: model.ClaimRelease, Receipt: r.ID}, nil
		}
	}
	return model.Claim{Verdict: model.ClaimHold}, nil
}

func (a payAgent) ProviderLedger(context.Context) ([]model.LedgerEntry, error) { return a.st.rows, nil }

// payDefinition is a production system: the store is opened inside each
// run (Configure is called in the run's bubble).
func payDefinition(flaky *atomic.Int64) *model.Definition {
	return &model.Definition{
		Name:     "pay",
		Fixtures: []model.Fixture{{Name: "pay", Tasks: []model.Task{{ID: "inv-7", Actor: "agent", Subject: "acct-1", Tenant: "t", Purpose: "invoice", Amount: 120}}}},
		Configure: func(system json.RawMessage) (model.Factory, error) {
			var c struct {
				Fresh bool `json:"fresh"`
			}
			if err := json.Unmarshal(system, &c); err != nil {
				return nil, err
			}
			st := &payStore{}
			return func() model.System { return payAgent{st: st, fresh: c.Fresh, flaky: flaky} }, nil
		},
		Builtin: []string{model.InvEffectAtMostOnce, model.InvRightSubject, model.InvBudget},
		Clock:   BubbleClock,
	}
}

// TestProductionExploreInBubble: production code that sleeps and runs
// goroutines, explored with every run in a synctest bubble: the fresh-key
// bug is found and shrunk to one lost reply, the timeline records the
// bubble's times (the first commit at 5 ms of provider latency after the
// start, the retry after a 50 ms backoff), and the correct agent holds.
func TestProductionExploreInBubble(t *testing.T) {
	def := payDefinition(nil)
	opts := []Option{withBubble(t), WithKinds("timeout_after_commit"),
		WithoutWorldEvents(), WithConfig(model.Config{System: json.RawMessage(`{"fresh":true}`)})}
	b, err := resolve(def, append(opts, withName("bubble")))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := b.campaign(t)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Found {
		t.Fatalf("fresh key: no counterexample in %d checks", rep.Checks)
	}
	cx := rep.Counterexample
	if cx.Invariant != model.InvEffectAtMostOnce || len(cx.Schedule.Faults) != 1 || cx.Schedule.Faults[0].Event != model.EvToolCommit || cx.Schedule.Faults[0].Ordinal != 1 {
		t.Fatalf("counterexample %s", cx)
	}
	var at []string
	for _, ev := range cx.Timeline {
		at = append(at, string(ev.Event)+"@"+time.Duration(ev.At*model.Millis(time.Millisecond)).String())
	}
	if got := strings.Join(at, " "); !strings.HasPrefix(got, "worker.start@0s tool.commit@0s tool.commit@55ms") {
		t.Fatalf("timeline times %s", got)
	}
	e, err := resolve(def, append(opts[:len(opts)-1], WithConfig(model.Config{System: json.RawMessage(`{}`)})))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.survey(); err != nil {
		t.Fatal(err)
	}
	ok, err := e.explore(t)
	if err != nil || ok.Found {
		t.Fatalf("stable key: %v, %+v", err, ok.Counterexample)
	}
}

// TestProductionNondeterministicReplay: a system whose crossings depend
// on state leaking across runs is reported as a nondeterministic replay
// at its first violating run, not shrunk.
func TestProductionNondeterministicReplay(t *testing.T) {
	def := payDefinition(&atomic.Int64{})
	e, err := resolve(def, []Option{withBubble(t), WithConfig(model.Config{System: json.RawMessage(`{"fresh":true}`)})})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.run(&model.Schedule{Version: model.ScheduleVersion, Seed: "n", Config: e.set.config,
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}}})
	// the whole message: the schedule, the rule production code breaks,
	// and the violation its first run found
	want := `properties: nondeterministic replay: the same schedule (seed "n", faults: timeout_after_commit at tool.commit#1) crossed different events in two runs: crossing 4 was claim#0 (hold) at 60 ms, then tool.commit#3 (committed) at 110 ms; ` +
		"production code must take every wait from the time package inside the bubble, use in-process transports, keep no state across runs, read no global randomness and start no goroutine that outlives the run; " +
		"its first run broke effect_at_most_once after seq 3 (tool.commit): an invariant was broken once and not alike on the rerun, so the system's nondeterminism hides a real violation: the system under test is not deterministic"
	if !errors.Is(err, ErrNondeterministic) || err.Error() != want {
		t.Fatalf("err %v", err)
	}
}

// TestProductionJitterIsTheSameRun: an agent whose back-off moves 1 ms
// between runs (as a back-off jittered with global randomness does)
// crosses the same events to the same verdict when its violating run is
// run again: the violation is reported, shrunk and stored, and the report
// and the counterexample file say by how much the times varied.
func TestProductionJitterIsTheSameRun(t *testing.T) {
	def := payDefinition(nil)
	conf, jitter := def.Configure, &atomic.Int64{}
	def.Configure = func(system json.RawMessage) (model.Factory, error) {
		f, err := conf(system)
		if err != nil {
			return nil, err
		}
		return func() model.System { a := f().(payAgent); a.jitter = jitter; return a }, nil
	}
	dir := t.TempDir()
	b, err := resolve(def, []Option{withBubble(t), WithKinds("timeout_after_commit"), WithoutWorldEvents(), WithFailDir(dir),
		WithConfig(model.Config{System: json.RawMessage(`{"fresh":true}`)}), withName("jitter")})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := b.campaign(t)
	if err != nil {
		t.Fatal(err)
	}
	const note = "logical times vary between runs (global randomness, e.g. a jittered back-off): up to 1 ms"
	cx := rep.Counterexample
	if !rep.Found || cx.Invariant != model.InvEffectAtMostOnce || len(cx.Schedule.Faults) != 1 || cx.Jitter != 1 || !strings.Contains(cx.String(), note+"\n") {
		t.Fatalf("found %v, counterexample %+v\n%s", rep.Found, cx, cx)
	}
	data, err := os.ReadFile(strings.TrimSuffix(cx.File, ".json") + ".counterexample.json")
	if err != nil {
		t.Fatal(err)
	}
	ce, err := corpus.ParseCounterexample(data)
	if err != nil || ce.Jitter != note || !bytes.Contains(data, []byte(`"jitter": "`+note+`"`)) {
		t.Fatalf("counterexample file (%v): %s", err, data)
	}
}

// TestProductionUnwrapped: a production system whose clients are not
// wrapped crosses nothing, and the preflight says so.
func TestProductionUnwrapped(t *testing.T) {
	def := &model.Definition{Name: "bare", Fixtures: []model.Fixture{{Name: "bare", Tasks: []model.Task{{ID: "x"}}}},
		Configure: func(json.RawMessage) (model.Factory, error) {
			return func() model.System { return bare{} }, nil
		}}
	e, err := resolve(def, []Option{withBubble(t)})
	if err != nil {
		t.Fatal(err)
	}
	err = e.preflight()
	if err == nil || !strings.Contains(err.Error(), "system bare reported no crossing in its clean run") {
		t.Fatalf("err %v", err)
	}
}

type bare struct{}

func (bare) Run(context.Context, model.Env, model.Task) (model.Claim, error) {
	return model.Claim{Verdict: model.ClaimRelease}, nil
}

// leaky starts a goroutine that outlives its run, blocked forever.
type leaky struct{ payAgent }

func (l leaky) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	block := make(chan struct{})
	go func() { <-block }() // never released
	return l.payAgent.Run(ctx, env, task)
}

// bubbledPay is an exploration of the pay agent, each run in a bubble of
// t, its agent wrapped by wrap.
func bubbledPay(t *testing.T, wrap func(payAgent) model.System) *explorer {
	t.Helper()
	def := payDefinition(nil)
	conf := def.Configure
	def.Configure = func(system json.RawMessage) (model.Factory, error) {
		f, err := conf(system)
		if err != nil {
			return nil, err
		}
		return func() model.System { return wrap(f().(payAgent)) }, nil
	}
	e, err := resolve(def, []Option{withBubble(t)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestProductionLeakedGoroutine: a goroutine that outlives the run ends
// its bubble in a deadlock, reported as a nondeterministic replay naming
// the rule, not as a panic of the test binary.
func TestProductionLeakedGoroutine(t *testing.T) {
	e := bubbledPay(t, func(a payAgent) model.System { return leaky{a} })
	_, err := e.run(&model.Schedule{Version: model.ScheduleVersion, Seed: "l", Config: e.set.config, Faults: []model.FaultEntry{}})
	if err == nil || !strings.Contains(err.Error(), "nondeterministic replay: the run's bubble ended in") || !strings.Contains(err.Error(), "outlived the run") {
		t.Fatalf("err %v", err)
	}
}

// hanging does its task's work, then waits on its context, which the
// harness never cancels: its run never ends.
type hanging struct{ payAgent }

func (h hanging) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	if _, err := h.payAgent.Run(ctx, env, task); err != nil {
		return model.Claim{}, err
	}
	<-ctx.Done()
	return model.Claim{}, ctx.Err()
}

// TestProductionBlockedRun: a run whose System.Run never returns ends its
// bubble in a deadlock too, reported as the system's failure naming the
// schedule that hung, not as a goroutine that outlived the run.
func TestProductionBlockedRun(t *testing.T) {
	e := bubbledPay(t, func(a payAgent) model.System { return hanging{a} })
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "h", Config: e.set.config, Faults: []model.FaultEntry{}}
	_, err := e.run(s)
	be := (*blockedError)(nil)
	if !errors.As(err, &be) || be.Schedule != s || strings.Contains(err.Error(), "outlived") ||
		!strings.HasSuffix(err.Error(), ": the system's run never ended: System.Run blocked on something no crossing and no timer releases (the bubble ended in \"deadlock: all goroutines in bubble are blocked\")") {
		t.Fatalf("err %v", err)
	}
}
