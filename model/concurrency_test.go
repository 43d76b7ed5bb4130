package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/reference/copperfin"

	"github.com/faultline/faultline/examples/lostupdate"
	"github.com/faultline/faultline/model"
)

// concurrent returns the clerks' schedule under c.
func concurrent(c *model.Concurrency) *model.Schedule {
	return &model.Schedule{Version: model.ScheduleVersion, Seed: "lost-update", Config: model.Config{Concurrency: c},
		Faults: []model.FaultEntry{}}
}

func runClerks(t *testing.T, s *model.Schedule) *model.Result {
	t.Helper()
	h := model.NewHarness(lostupdate.Fixture(), lostupdate.Options())
	res, err := h.Run(lostupdate.Factory(), s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func crossers(res *model.Result) string {
	var b strings.Builder
	for _, e := range res.Timeline.Events() {
		b.WriteString(e.Task)
	}
	return b.String()
}

// The clerks hold one after another, and under the default scheduling of
// two workers (each goes on until it ends), which orders them as the
// sequential run does; one preemption (task a read, then task b read and
// wrote, then a wrote) loses b's update.
func TestConcurrentLostUpdate(t *testing.T) {
	seq := runClerks(t, concurrent(nil))
	if !seq.Held() || crossers(seq) != "aaaabbbb" || seq.Interleaving != nil || seq.ContextSwitches != 0 {
		t.Fatalf("sequential: held %v, crossers %s, picks %v", seq.Held(), crossers(seq), seq.Interleaving)
	}
	def := runClerks(t, concurrent(&model.Concurrency{Workers: 2}))
	if !def.Held() || crossers(def) != "aaaabbbb" || def.ContextSwitches != 0 ||
		!slices.Equal(def.Interleaving, []int{1, 1, 1, 1, 2, 2, 2, 2}) {
		t.Fatalf("default: held %v, crossers %s, picks %v, switches %d", def.Held(), crossers(def), def.Interleaving, def.ContextSwitches)
	}
	lost := runClerks(t, concurrent(&model.Concurrency{Workers: 2, Interleaving: []int{1, 1, 2}}))
	ir, _ := lost.Invariant(lostupdate.InvNoLostUpdate)
	if lost.Held() || crossers(lost) != "aabbbbaa" || lost.ContextSwitches != 1 ||
		!slices.Equal(lost.Interleaving, []int{1, 1, 2, 2, 2, 2, 1, 1}) || ir.FirstSeq != 7 || ir.Event != model.EvToolCommit {
		t.Fatalf("lost update: held %v, crossers %s, picks %v, switches %d, %+v", lost.Held(), crossers(lost), lost.Interleaving, lost.ContextSwitches, ir)
	}
	if ir.Detail != "task a wrote counter-1 based on version 0, but 1 write(s) came before it: an update was lost" {
		t.Errorf("detail %q", ir.Detail)
	}
	// the task verdicts are in fixture order, and the violation is a's
	if len(lost.Tasks) != 2 || lost.Tasks[0].Task != "a" || lost.Tasks[0].RunVerdict != model.Unrecoverable || lost.Tasks[1].RunVerdict != model.Recovered {
		t.Errorf("tasks %+v", lost.Tasks)
	}
}

// A concurrent schedule's run is a pure function of the schedule: its
// record is byte-identical on repeat and whatever GOMAXPROCS is, for the
// clerks and for the reference system's three tasks under faults, crashes
// and restarts.
func TestConcurrentReplayDeterministic(t *testing.T) {
	type tc struct {
		f       model.Fixture
		factory model.Factory
		opts    model.Options
		s       *model.Schedule
	}
	var cases []tc
	for _, c := range []*model.Concurrency{
		{Workers: 2, Interleaving: []int{1, 1, 2}},
		{Workers: 2, Seed: "s1"},
		{Workers: 2, Interleaving: []int{2, 1, 2, 1}, Seed: "s2"},
	} {
		cases = append(cases, tc{lostupdate.Fixture(), lostupdate.Factory(), lostupdate.Options(), concurrent(c)})
	}
	for _, name := range []string{"timeout-after-commit.json", "harness-practice-fixture.json", "deadline-after-fresh-restart.json"} {
		s := loadCorpus(t, name)
		s.Config.Fixture = ""
		s.Config.Concurrency = &model.Concurrency{Workers: 3, Seed: name}
		factory, err := copperfin.Configured(s.Config)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{copperfin.CopperfinBatch(), factory, model.Options{}, s})
	}
	// every synchronized modifier of the catalogue, in lockstep and under a
	// seeded scheduler, with the baseline (which the fault breaks)
	for _, ck := range copperfin.Correlated() {
		if ck.Correlation != model.Correlation("synchronized") {
			continue
		}
		for _, seed := range []string{"", "corr"} {
			s, err := copperfin.CorrelatedSchedule(ck.Kind, ck.Correlation, copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
			if err != nil {
				t.Fatal(err)
			}
			if seed != "" {
				s.Config.Concurrency = &model.Concurrency{Workers: 2, Seed: seed}
			}
			cases = append(cases, tc{copperfin.CopperfinTenants(), copperfin.Factory(copperfin.Controls(0)), model.Options{}, s})
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range cases {
		var want []byte
		for _, procs := range []int{1, 2, 8, 1, 2, 8} {
			runtime.GOMAXPROCS(procs)
			res, err := model.NewHarness(c.f, c.opts).Run(c.factory, c.s)
			if err != nil {
				t.Fatal(err)
			}
			if res.ContextSwitches == 0 && len(c.s.Config.Concurrency.Interleaving) == 0 && c.f.Name != "lostupdate" {
				t.Errorf("%s: the seeded run switched no context", c.s.Seed)
			}
			b, err := json.Marshal(res.Record())
			if err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = b
				continue
			}
			if string(b) != string(want) {
				t.Fatalf("%s: the record under GOMAXPROCS %d differs:\n%s\n%s", c.s.Config.Concurrency, procs, b, want)
			}
		}
	}
}

// The concurrency key of the harness part round-trips through the
// schedule format, and a bad one is an error naming it; a file without
// it (every older file) runs sequentially.
func TestConcurrencyFormat(t *testing.T) {
	s := concurrent(&model.Concurrency{Workers: 2, Interleaving: []int{1, 1, 2}, Seed: "x"})
	text := model.Format(s)
	p, err := model.ParseSchedule(text)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Config.Equal(s.Config) || string(model.Format(p)) != string(text) {
		t.Fatalf("round trip:\n%s\n%s", text, model.Format(p))
	}
	if !strings.Contains(string(text), `"concurrency": {`) || !strings.Contains(string(text), `"workers": 2`) {
		t.Errorf("format:\n%s", text)
	}
	if got := model.HarnessString(s.Config); got != "concurrency: 2 workers, interleaving 1x2 2, seed x" {
		t.Errorf("harness string %q", got)
	}
	for in, want := range map[string]string{
		`{"workers": 0}`:                      "schedule: config: concurrency.workers 0 must be between 1 and 1000",
		`{"workers": 2, "interleaving": [0]}`: "schedule: config: concurrency.interleaving[0] is 0: name a task by its position in the fixture, 1 or more",
		`{"workers": 2, "order": [1]}`:        `unknown field "order"`,
	} {
		file := `{"version": 2, "seed": "", "config": {"harness": {"concurrency": ` + in + `}, "system": {}}, "faults": []}`
		_, err := model.ParseSchedule([]byte(file))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
	h := model.NewHarness(lostupdate.Fixture(), lostupdate.Options())
	_, err = h.Run(lostupdate.Factory(), concurrent(&model.Concurrency{Workers: 2, Interleaving: []int{1, 3}}))
	if err == nil || err.Error() != `schedule: config: concurrency.interleaving[1] names task 3, the fixture "lostupdate" has 2` {
		t.Errorf("task past the fixture: %v", err)
	}
	// a concurrent schedule has a run id of its own; a sequential one
	// keeps the id it had
	a, b := runClerks(t, concurrent(nil)), runClerks(t, concurrent(&model.Concurrency{Workers: 1}))
	if a.RunID == b.RunID {
		t.Errorf("run ids %s %s", a.RunID, b.RunID)
	}
}

// Under the default scheduling (each worker goes on until it ends, then
// the first ready task in fixture order) a concurrent run orders its
// crossings as the sequential run does: for every corpus file, on the
// one-task and the three-task fixture, with two and three workers, the
// timeline, invariants, faults, claims, terms and task verdicts are the
// sequential run's, except where a worker-scoped fault
// (FaultSpec.WorkerScoped) hits a later task of a worker that runs
// several: there no sequential run can be the same, as a sequential
// run's every task has a worker of its own. Under seeded policies the
// runs of the reference system (crashes, restarts, stops at the call
// bound) end and replay exactly.
func TestConcurrentDefaultIsSequential(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "reference", "corpus", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("corpus: %v %v", files, err)
	}
	strip := func(res *model.Result) string {
		res.RunID = ""
		tl := make([]model.Event, len(res.Timeline.Events()))
		for i, e := range res.Timeline.Events() {
			e.RunID = ""
			tl[i] = e
		}
		b, err := json.Marshal([]any{tl, res.Invariants, res.Faults, res.Claims, res.Terms, res.Tasks, res.RunVerdict, res.Verdict})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	switches := 0
	for _, f := range []model.Fixture{copperfin.Copperfin(), copperfin.CopperfinBatch()} {
		for _, file := range files {
			s := loadCorpus(t, filepath.Base(file))
			s.Config.Fixture = ""
			cs, err := copperfin.ControlsOf(s.Config)
			if err != nil {
				t.Fatal(err)
			}
			factory, err := copperfin.NewFactory(cs, copperfin.MutantOf(s.Config))
			if err != nil {
				t.Fatal(err)
			}
			h := model.NewHarness(f, model.Options{})
			runIt := func(c *model.Concurrency) *model.Result {
				x := *s
				x.Config.Concurrency = c
				res, err := h.Run(factory, &x)
				if err != nil {
					t.Fatalf("%s on %s: %v", file, f.Name, err)
				}
				return res
			}
			want := strip(runIt(nil))
			for _, w := range []int{2, 3} {
				res := runIt(&model.Concurrency{Workers: w})
				if res.ContextSwitches != 0 {
					t.Errorf("%s on %s, %d workers: %d context switches", file, f.Name, w, res.ContextSwitches)
				}
				scoped := slices.IndexFunc(s.Faults, func(e model.FaultEntry) bool { spec, _ := model.Spec(e.Kind); return spec.WorkerScoped })
				if scoped >= 0 && w < len(f.Tasks) {
					if res.Faults[scoped].Fired == 0 {
						t.Errorf("%s on %s, %d workers: a worker runs a later task, but the worker-scoped fault never fired", file, f.Name, w)
					}
					continue
				}
				if got := strip(res); got != want {
					t.Errorf("%s on %s, %d workers: the run differs from the sequential one:\n%s\n%s", file, f.Name, w, got, want)
				}
			}
			for _, seed := range []string{"a", "b", "c"} {
				c := &model.Concurrency{Workers: 3, Seed: seed}
				first, again := runIt(c), runIt(c)
				if strip(first) != strip(again) || !slices.Equal(first.Interleaving, again.Interleaving) {
					t.Errorf("%s on %s, seed %s: two runs differ", file, f.Name, seed)
				}
				if len(first.Tasks) != len(f.Tasks) {
					t.Errorf("%s on %s, seed %s: %d task verdicts", file, f.Name, seed, len(first.Tasks))
				}
				switches += first.ContextSwitches
			}
		}
	}
	// the seeded policies interleave the three tasks (the one-task
	// fixture has nothing to switch to)
	if switches == 0 {
		t.Error("no seeded run switched context")
	}
}

// A stop condition met in one worker stops the others: their next Env
// call fails, each task ends with the harness's hold, and no task starts
// after the stop.
func TestConcurrentStop(t *testing.T) {
	opts := lostupdate.Options()
	// b's read at 40 ms is the first crossing at or past 35 ms, while a
	// is about to send its write
	opts.Stop = model.Stop{Expiry: 35}
	h := model.NewHarness(lostupdate.Fixture(), opts)
	res, err := h.Run(lostupdate.Factory(), concurrent(&model.Concurrency{Workers: 2, Interleaving: []int{1, 1, 2, 2, 1}}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped == nil || res.Stopped.Condition != model.StopExpiry || res.RunVerdict != model.Inconclusive || len(res.Claims) != 2 {
		t.Fatalf("stopped %+v, verdict %s, claims %+v", res.Stopped, res.RunVerdict, res.Claims)
	}
	for _, c := range res.Claims {
		if c.Verdict != model.ClaimHold || c.Reason != "stopped by a stop condition" {
			t.Errorf("claim %+v", c)
		}
	}
	var tl []string
	for _, e := range res.Timeline.Events() {
		tl = append(tl, e.Task+" "+string(e.Event))
	}
	want := []string{"a worker.start", "a ledger.readback", "b worker.start", "b ledger.readback", "b run.stop", "b claim", "a claim"}
	if !slices.Equal(tl, want) {
		t.Errorf("timeline %v", tl)
	}
}

type panicky struct{}

func (panicky) Run(context.Context, model.Env, model.Task) (model.Claim, error) { panic("boom") }

// A system's panic in a worker's goroutine is the run's error, a
// *model.SystemPanic naming the task and the crossing before it, as in a
// sequential run; the harness runs on.
func TestConcurrentPanic(t *testing.T) {
	h := model.NewHarness(lostupdate.Fixture(), lostupdate.Options())
	for _, s := range []*model.Schedule{concurrent(&model.Concurrency{Workers: 2}), concurrent(nil)} {
		res, err := h.Run(func() model.System { return panicky{} }, s)
		var sp *model.SystemPanic
		if res != nil || !errors.As(err, &sp) || sp.Value != "boom" || sp.Seq != 1 || sp.Event != model.EvWorkerStart ||
			!strings.Contains(sp.Stack, "panicky.Run") || err.Error() != "the system panicked in task "+sp.Task+" after seq 1 (worker.start): boom" {
			t.Fatalf("concurrency %v: result %v, error %v", s.Config.Concurrency, res, err)
		}
	}
	if _, err := h.Run(lostupdate.Factory(), concurrent(nil)); err != nil {
		t.Fatalf("the harness after a panic: %v", err)
	}
}

// deferredReader reads the ledger, and reads it again in a deferred call:
// when the run aborts while it waits at its first read, the harness ends
// its goroutine, and the deferred read must end it too, not run on.
type deferredReader struct{ reads *int }

func (d deferredReader) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	defer func() {
		*d.reads++
		_, _ = env.Ledger.Readback(ctx, model.ReadbackQuery{Subject: t.Subject})
	}()
	if _, err := env.Ledger.Readback(ctx, model.ReadbackQuery{Subject: t.Subject}); err != nil {
		return model.Claim{}, err
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "read"}, nil
}

// When a worker panics while another waits at a crossing, the run's error
// is the panic, the waiting worker's goroutine ends (its deferred crossing
// included), and the harness runs on.
func TestConcurrentAbortWhileWaiting(t *testing.T) {
	h := model.NewHarness(lostupdate.Fixture(), lostupdate.Options())
	reads, made := 0, 0
	factory := func() model.System {
		made++
		if made == 2 {
			return panicky{}
		}
		return deferredReader{reads: &reads}
	}
	// a starts and waits at its read; b starts and panics
	s := concurrent(&model.Concurrency{Workers: 2, Interleaving: []int{1, 2}})
	res, err := h.Run(factory, s)
	var sp *model.SystemPanic
	if res != nil || !errors.As(err, &sp) || sp.Task != "b" || sp.Value != "boom" {
		t.Fatalf("result %v, error %v", res, err)
	}
	if reads != 1 {
		t.Errorf("a's deferred read ran %d times, want 1 (as its goroutine ended)", reads)
	}
	if _, err := h.Run(lostupdate.Factory(), concurrent(&model.Concurrency{Workers: 2})); err != nil {
		t.Fatalf("the harness after the abort: %v", err)
	}
}

// goexiter ends its goroutine, as t.FailNow does.
type goexiter struct{}

func (goexiter) Run(context.Context, model.Env, model.Task) (model.Claim, error) {
	runtime.Goexit()
	return model.Claim{}, nil
}

// When a worker's system ends its goroutine (runtime.Goexit, as t.FailNow
// does), the caller of Run ends too, as in a sequential run, after the
// waiting worker's goroutine ended (its deferred crossing included); the
// harness runs on.
func TestConcurrentGoexit(t *testing.T) {
	h := model.NewHarness(lostupdate.Fixture(), lostupdate.Options())
	reads, made := 0, 0
	factory := func() model.System {
		made++
		if made == 2 {
			return goexiter{}
		}
		return deferredReader{reads: &reads}
	}
	for _, s := range []*model.Schedule{concurrent(&model.Concurrency{Workers: 2, Interleaving: []int{1, 2}}), concurrent(nil)} {
		reads, made = 0, 0
		returned, done := false, make(chan struct{})
		go func() {
			defer close(done)
			_, _ = h.Run(factory, s)
			returned = true
		}()
		<-done
		// a sequential run's first task has ended before the second starts
		if returned || reads != 1 || made != 2 {
			t.Fatalf("concurrency %v: Run returned %v, a's deferred read ran %d times (want 1), %d systems made", s.Config.Concurrency, returned, reads, made)
		}
	}
	if _, err := h.Run(lostupdate.Factory(), concurrent(&model.Concurrency{Workers: 2})); err != nil {
		t.Fatalf("the harness after the exit: %v", err)
	}
}

// The run record's summary names a concurrent run's interleaving.
func TestConcurrentSummary(t *testing.T) {
	rec := runClerks(t, concurrent(&model.Concurrency{Workers: 2, Interleaving: []int{1, 1, 2}})).Record()
	if !strings.Contains(rec.Summary, "Schedule: no fault; interleaving 1x2 2x4 1x2 (1 context switch).") {
		t.Errorf("summary %q", rec.Summary)
	}
	if seq := runClerks(t, concurrent(nil)).Record(); strings.Contains(seq.Summary, "interleaving") || seq.Interleaving != nil {
		t.Errorf("sequential summary %q", seq.Summary)
	}
}

// observedIdle is production code (it reads its provider's ledger) that
// holds at once.
type observedIdle struct{}

func (observedIdle) Run(context.Context, model.Env, model.Task) (model.Claim, error) {
	return model.Claim{Verdict: model.ClaimHold, Reason: "idle"}, nil
}

func (observedIdle) ProviderLedger(context.Context) ([]model.LedgerEntry, error) { return nil, nil }

// Production code cannot be scheduled: its concurrent run is an error
// naming why, and its sequential run is unaffected.
func TestConcurrentRefusesProductionCode(t *testing.T) {
	h := model.NewHarness(lostupdate.Fixture(), lostupdate.Options())
	f := func() model.System { return observedIdle{} }
	_, err := h.Run(f, concurrent(&model.Concurrency{Workers: 2}))
	if err == nil || err.Error() != `schedule: config: concurrent workers (a concurrency config, or a fleet fixture's workers) run model systems only; the system of fixture "lostupdate" is production code (it implements Observed), whose calls the harness cannot hold between crossings` {
		t.Fatalf("error %v", err)
	}
	if _, err := h.Run(f, concurrent(nil)); err != nil {
		t.Fatal(err)
	}
}

// A commit is an invocation and a response: task a sends its write (the
// first tool.commit, counted and charged when sent), task b reads, writes
// and claims while a's reply is out, and a's commit is recorded when its
// reply arrives: after b's, with ordinal 1 to b's 2. The provider acts at
// the response, so a's write is based on version 0 after b's: lost.
func TestConcurrentCommitSpansCrossings(t *testing.T) {
	res := runClerks(t, concurrent(&model.Concurrency{Workers: 2, Interleaving: []int{1, 1, 1, 2}}))
	var got []string
	for _, e := range res.Timeline.Events() {
		got = append(got, fmt.Sprintf("%s %s#%d@%d", e.Task, e.Event, e.Ordinal, e.At))
	}
	want := []string{"a worker.start#1@10", "a ledger.readback#1@20", "b worker.start#2@70", "b ledger.readback#2@80",
		"b tool.commit#2@120", "b claim#0@130", "a tool.commit#1@130", "a claim#0@140"}
	if !slices.Equal(got, want) {
		t.Errorf("timeline\n%v\nwant\n%v", got, want)
	}
	if res.Held() || res.ContextSwitches != 1 {
		t.Errorf("held %v, %d context switches", res.Held(), res.ContextSwitches)
	}
}

// warningClerk is the clerk with a second read after its write, and a
// warning from task b before anything else: b's warning follows a's
// disturbance in time, but is not a's detection.
type warningClerk struct{}

func (warningClerk) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	if t.ID == "b" {
		env.Signals.Warn("noticed", "something")
	}
	c, err := lostupdate.Clerk{}.Run(ctx, env, t)
	if err != nil {
		return c, err
	}
	if _, err := env.Ledger.Readback(ctx, model.ReadbackQuery{Subject: t.Subject}); err != nil {
		return model.Claim{}, err
	}
	return c, nil
}

// In a concurrent run a task is detected by its own warnings after a
// disturbance in its own crossings: task a's rejected write, then task
// b's warning while a still runs, detect neither task, as in the
// sequential run (the fault's report, a run-level fact, counts any
// warning after the fault fired, in both).
func TestConcurrentDetectionIsPerTask(t *testing.T) {
	h := model.NewHarness(lostupdate.Fixture(), lostupdate.Options())
	f := func() model.System { return warningClerk{} }
	for _, c := range []*model.Concurrency{nil, {Workers: 2, Interleaving: []int{1, 1, 1, 1, 2}}} {
		s := concurrent(c)
		s.Faults = []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "reject_before_commit"}}
		res, err := h.Run(f, s)
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, e := range res.Timeline.Events() {
			order = append(order, e.Task+" "+string(e.Event))
		}
		if res.Faults[0].Fired != 1 || !res.Faults[0].Detected || res.Terms.Detected {
			t.Errorf("%v: fault %+v, terms detected %v\n%v", c, res.Faults[0], res.Terms.Detected, order)
		}
		if c != nil && !slices.Equal(order[:6], []string{"a worker.start", "a ledger.readback", "a tool.commit", "b worker.start", "b system.warn", "b ledger.readback"}) {
			t.Errorf("order %v", order)
		}
	}
}

// A run's picks, written into the schedule as its interleaving, replay the
// run: a seeded run of the three-task fixture and its picks without the
// seed give the same timeline and verdicts.
func TestConcurrentPicksReplay(t *testing.T) {
	s := loadCorpus(t, "timeout-after-commit.json")
	s.Config.Fixture = ""
	s.Config.Concurrency = &model.Concurrency{Workers: 3, Seed: "picks"}
	factory, err := copperfin.Configured(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	h := model.NewHarness(copperfin.CopperfinBatch(), model.Options{})
	seeded, err := h.Run(factory, s)
	if err != nil {
		t.Fatal(err)
	}
	x := *s
	x.Config.Concurrency = &model.Concurrency{Workers: 3, Interleaving: seeded.Interleaving}
	again, err := h.Run(factory, &x)
	if err != nil {
		t.Fatal(err)
	}
	strip := func(res *model.Result) string {
		var b strings.Builder
		for _, e := range res.Timeline.Events() {
			e.RunID = ""
			j, _ := json.Marshal(e)
			b.Write(j)
		}
		j, _ := json.Marshal([]any{res.Invariants, res.Tasks, res.Terms, res.Interleaving, res.ContextSwitches})
		b.Write(j)
		return b.String()
	}
	if seeded.ContextSwitches == 0 || strip(seeded) != strip(again) {
		t.Errorf("%d switches; the replay of the picks differs:\n%s\n%s", seeded.ContextSwitches, strip(seeded), strip(again))
	}
}

// TestConcurrentCommitWaitIsNotTheCalls: in a concurrent run a commit
// waits for its turn twice (at its crossing and between its send and its
// reply), and the other workers' time then is not the call's. The
// reference system under typed on the three-task workload commits the
// first refund 40 ms after its last deadline check; switched out there to
// the second task, which takes a 2000 ms clock advance, its reply comes at
// 2384 ms: budget held before only because a 1000 ms advance was too short,
// and held no longer once the exhaustive walk advanced by the deadline's
// length. It holds now; the same schedule under deadline_from_restart, and
// a sequential run of a commit that is late itself, still break budget.
func TestConcurrentCommitWaitIsNotTheCalls(t *testing.T) {
	il := make([]int, 0, 20)
	for range 19 {
		il = append(il, 1)
	}
	il = append(il, 2)
	run := func(cfg model.Config, conc *model.Concurrency, faults []model.FaultEntry) *model.Result {
		t.Helper()
		cfg.Concurrency = conc
		return runSchedule(t, copperfin.CopperfinBatch(), &model.Schedule{Version: model.ScheduleVersion, Seed: "commit-wait", Config: cfg, Faults: faults})
	}
	advance := []model.FaultEntry{{Event: model.EvContextSubject, Ordinal: 2, Kind: "clock_advance", Target: "2000"}}
	typed := copperfin.ConfigOfProfile(copperfin.ProfileTyped)
	res := run(typed, &model.Concurrency{Workers: 2, Interleaving: il}, advance)
	var commit model.Event
	for _, e := range res.Timeline.Events() {
		if e.Event == model.EvToolCommit && e.Task == "refund-O-731" {
			commit = e
			break
		}
	}
	if b, _ := res.Invariant(model.InvBudget); !b.Held || commit.At != 2384 || res.ContextSwitches != 1 {
		t.Fatalf("typed: budget %+v, the first refund's commit at %d ms, %d switches", b, commit.At, res.ContextSwitches)
	}
	// counterfactual: a worker that goes on past its deadline is late by
	// its own time, concurrent or not
	if b, _ := run(copperfin.WithMutant(typed, string(copperfin.DeadlineFromRestart)), &model.Concurrency{Workers: 2, Interleaving: il},
		[]model.FaultEntry{{Event: model.EvCheckpointWrite, Ordinal: 2, Kind: "checkpoint_rollback"}, {Event: model.EvCheckpointWrite, Ordinal: 2, Kind: "clock_advance", Target: "2000"}}).Invariant(model.InvBudget); b.Held {
		t.Errorf("deadline_from_restart, concurrent: budget held")
	}
	if b, _ := run(copperfin.WithMutant(typed, string(copperfin.DeadlineFromRestart)), nil,
		[]model.FaultEntry{{Event: model.EvCheckpointWrite, Ordinal: 2, Kind: "checkpoint_rollback"}, {Event: model.EvCheckpointWrite, Ordinal: 2, Kind: "clock_advance", Target: "2000"}}).Invariant(model.InvBudget); b.Held {
		t.Errorf("deadline_from_restart, sequential: budget held")
	}
}
