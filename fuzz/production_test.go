package fuzz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/model"
)

// sleepyStore is a provider outside the model, idempotent by key.
type sleepyStore struct{ rows []model.LedgerEntry }

// sleepyAgent backs off 20 ms (the bubble's clock), or the wait a rate
// limit asked for when longer, and retries an unknown outcome, under a
// fresh key when fresh is set.
type sleepyAgent struct {
	st    *sleepyStore
	fresh bool
	// jitter, when set, lengthens each back-off by 1 ms more than the
	// last across runs, as a back-off jittered with global randomness
	// moves
	jitter *int
}

func (a sleepyAgent) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	key := task.ID
	var asked time.Duration // the wait a rate-limited reply asked for
	for i := 0; i < 2; i++ {
		if i > 0 {
			wait := max(20*time.Millisecond, asked)
			if a.jitter != nil {
				*a.jitter++
				wait += time.Duration(*a.jitter) * time.Millisecond
			}
			//faultline:ignore production code on the time package, run in a testing/synctest bubble whose clock is the run's: the replay is deterministic
			time.Sleep(wait)
			if a.fresh {
				key += "'"
			}
		}
		c, err := env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: key, Action: model.Action{Subject: task.Subject, IdempotencyKey: task.ID}},
			func(_ context.Context, call model.ToolCall) model.ToolResult {
				for _, r := range a.st.rows {
					if r.Key == call.RequestKey {
						return model.ToolResult{Outcome: model.OutcomeCommitted, Replayed: true, Receipt: &model.Receipt{ID: r.ReceiptID}}
					}
				}
				id := fmt.Sprint("r", len(a.st.rows)+1)
				a.st.rows = append(a.st.rows, model.LedgerEntry{Tool: "pay", Key: call.RequestKey, Subject: call.Action.Subject, ActionRef: call.Action.IdempotencyKey, ReceiptID: id})
				return model.ToolResult{Outcome: model.OutcomeCommitted, Receipt: &model.Receipt{ID: id}}
			})
		if err != nil {
			return model.Claim{}, err
		}
		asked = time.Duration(c.Result.RetryAfter) * time.Millisecond
		if r := c.Result.Receipt; c.Result.Outcome == model.OutcomeCommitted && r != nil && r.ID != "" {
			return model.Claim{Verdict: model.ClaimRelease, Receipt: r.ID}, nil
		}
	}
	return model.Claim{Verdict: model.ClaimHold}, nil
}

func (a sleepyAgent) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return a.st.rows, nil
}

func sleepyDefinition() *model.Definition {
	return &model.Definition{Name: "sleepy",
		Fixtures: []model.Fixture{{Name: "sleepy", Tasks: []model.Task{{ID: "t1", Subject: "s1"}}}},
		Configure: func(system json.RawMessage) (model.Factory, error) {
			var c struct {
				Fresh bool `json:"fresh"`
			}
			if err := json.Unmarshal(system, &c); err != nil {
				return nil, err
			}
			st := &sleepyStore{}
			return func() model.System { return sleepyAgent{st: st, fresh: c.Fresh} }, nil
		},
		Builtin: []string{model.InvEffectAtMostOnce},
		Clock: func() model.Millis {
			return model.Millis(time.Since(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).Milliseconds())
		},
	}
}

// TestForProductionBody runs For's fuzz body, as f.Fuzz would on its
// seed corpus, on a correct production system: every input holds.
func TestForProductionBody(t *testing.T) {
	body := For(sleepyDefinition(), WithScope("ordinals"), WithFailDir(t.TempDir()))
	for _, b := range [][]byte{{}, {0}, {1}, {0, 1}} {
		t.Run(fmt.Sprint(b), func(t *testing.T) { body(t, b) })
	}
}

// TestProductionTargetInBubble: the buggy production system's input,
// run in bubbles, fails with the shrunk one-fault schedule, and its
// timeline is on the bubble's clock (the retry 20 ms after the start).
func TestProductionTargetInBubble(t *testing.T) {
	cfg := model.Config{System: json.RawMessage(`{"fresh":true}`)}
	tgt, err := NewTarget(sleepyDefinition(), WithConfig(cfg), WithScope("ordinals"), WithFailDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	// the clean run, which places the sites, comes with the first input
	if tgt.d.sites != nil || tgt.checkProduction(t, nil) != nil || tgt.d.sites == nil {
		t.Fatalf("sites before the first input %v", tgt.d.sites)
	}
	var fail *Failure
	site := -1
	for i, s := range tgt.Decoder().Sites() {
		if s.Kind == "timeout_after_commit" && s.Ordinal == 1 {
			site = i
		}
	}
	if site < 0 {
		t.Fatalf("no timeout_after_commit site in %v", tgt.Decoder().Sites())
	}
	err = tgt.checkProduction(t, []byte{byte(site)})
	if !errors.As(err, &fail) {
		t.Fatalf("err %v", err)
	}
	if fail.Invariant != model.InvEffectAtMostOnce || len(fail.Schedule.Faults) != 1 {
		t.Fatalf("failure %v", fail)
	}
	res := fail.Result
	if at := res.Timeline.Events()[2].At; res.Timeline.Events()[2].Event != model.EvToolCommit || at != 20 {
		t.Fatalf("second commit %+v", res.Timeline.Events()[2])
	}
}

// TestProductionTargetJitter: a buggy production system whose back-off
// moves 1 ms between runs still fails with the shrunk schedule, not a
// nondeterministic replay: its rerun crossed the same events to the same
// verdict. The failure and the fail folder's counterexample file say how
// far the times moved.
func TestProductionTargetJitter(t *testing.T) {
	def, jitter := sleepyDefinition(), new(int)
	conf := def.Configure
	def.Configure = func(system json.RawMessage) (model.Factory, error) {
		f, err := conf(system)
		if err != nil {
			return nil, err
		}
		return func() model.System { a := f().(sleepyAgent); a.jitter = jitter; return a }, nil
	}
	dir := t.TempDir()
	tgt, err := NewTarget(def, WithConfig(model.Config{System: json.RawMessage(`{"fresh":true}`)}), WithScope("ordinals"), WithFailDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := tgt.checkProduction(t, nil); err != nil {
		t.Fatal(err)
	}
	site := slices.IndexFunc(tgt.Decoder().Sites(), func(s Site) bool { return s.Kind == "timeout_after_commit" && s.Ordinal == 1 })
	var fail *Failure
	if err := tgt.checkProduction(t, []byte{byte(site)}); !errors.As(err, &fail) {
		t.Fatalf("err %v", err)
	}
	const note = "logical times vary between runs (global randomness, e.g. a jittered back-off): up to 1 ms"
	if fail.Invariant != model.InvEffectAtMostOnce || len(fail.Schedule.Faults) != 1 || !strings.Contains(fail.Error(), "  "+note+"\n") {
		t.Fatalf("failure %v", fail)
	}
	data, err := os.ReadFile(strings.TrimSuffix(fail.File, ".json") + ".counterexample.json")
	if err != nil {
		t.Fatal(err)
	}
	if cx, err := corpus.ParseCounterexample(data); err != nil || cx.Jitter != note {
		t.Fatalf("counterexample file (%v): %s", err, data)
	}
}

// TestProductionTargetDone: the campaign rule holds for production code
// as for the model path (one Done): inputs whose faults sit where the
// system never goes (memory.read, at the catalogue's sites) tested
// nothing, and Done says so naming the events crossed; a reached and
// fired fault makes it nil; a target whose inputs never ran scheduled
// no fault.
func TestProductionTargetDone(t *testing.T) {
	tgt, err := NewTarget(sleepyDefinition(), WithCatalogueSites(), WithKinds("memory_loss"))
	if err != nil {
		t.Fatal(err)
	}
	if err := tgt.Done(); err == nil || err.Error() != "inconclusive: the 0 runs scheduled no fault, so no fault was tested (add seed inputs that decode to faults); the events the system crossed: (none)" {
		t.Fatalf("Done before any input: %v", err)
	}
	if err := tgt.checkProduction(t, []byte{0}); err != nil {
		t.Fatal(err)
	}
	if err := tgt.Done(); err == nil || err.Error() != "inconclusive: none of the 1 faults scheduled in 1 runs was reached, so no fault was tested; the events the system crossed: tool.commit, worker.start" {
		t.Fatalf("Done: %v", err)
	}
	reached, err := NewTarget(sleepyDefinition(), WithScope("ordinals"))
	if err != nil {
		t.Fatal(err)
	}
	if err := reached.checkProduction(t, []byte{0}); err != nil {
		t.Fatal(err)
	}
	if err := reached.Done(); err != nil {
		t.Fatalf("Done after a reached fault: %v", err)
	}
	if err := reached.Check([]byte{0}); err == nil || err.Error() != "fuzz: sleepy is production code: its inputs run in testing/synctest bubbles of their t, through Target.Fuzz" {
		t.Errorf("Check of production code: %v", err)
	}
}

// fakeF is the part of *testing.F Campaign uses, running the body on
// seeds as go test runs them, each in a subtest of t.
type fakeF struct {
	t        *testing.T
	seeds    [][]byte
	cleanups []func()
	errs     []string
}

func (f *fakeF) Helper()           {}
func (f *fakeF) Fatal(args ...any) { f.errs = append(f.errs, "fatal: "+fmt.Sprint(args...)) }
func (f *fakeF) Error(args ...any) { f.errs = append(f.errs, fmt.Sprint(args...)) }
func (f *fakeF) Cleanup(c func())  { f.cleanups = append(f.cleanups, c) }
func (f *fakeF) Fuzz(ff any) {
	body := ff.(func(*testing.T, []byte))
	for _, b := range f.seeds {
		f.t.Run(fmt.Sprint(b), func(t *testing.T) { body(t, b) })
	}
	for _, c := range f.cleanups {
		c()
	}
}

// TestCampaignFailsWhatReachedNothing: the one-call entry fails a
// production campaign whose seeds reached no fault (its only kind sits
// at an event the system never crosses), naming the events it crossed,
// and passes one whose seeds reached and fired a fault; a Definition the
// entries refuse fails f at once.
func TestCampaignFailsWhatReachedNothing(t *testing.T) {
	f := &fakeF{t: t, seeds: [][]byte{{0}, {1}}}
	campaign(f, sleepyDefinition(), []Option{WithCatalogueSites(), WithKinds("memory_loss")})
	if want := "inconclusive: none of the 2 faults scheduled in 2 runs was reached, so no fault was tested; the events the system crossed: tool.commit, worker.start"; len(f.errs) != 1 || f.errs[0] != want {
		t.Fatalf("errors %q, want %q", f.errs, want)
	}
	f = &fakeF{t: t, seeds: [][]byte{{0}}}
	campaign(f, sleepyDefinition(), []Option{WithScope("ordinals")})
	if len(f.errs) != 0 {
		t.Fatalf("a reached fault: errors %q", f.errs)
	}
	f = &fakeF{t: t}
	campaign(f, nil, nil)
	if len(f.errs) != 1 || !strings.HasPrefix(f.errs[0], "fatal: ") {
		t.Fatalf("nil Definition: errors %q", f.errs)
	}
}
