package model_test

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestRunIDIsAFunctionOfTheCanonicalSchedule: schedules with one canonical
// form (Format) have one run id, whatever the harness ran before and
// however the system part is spelt; a change to any field Format writes
// changes it.
func TestRunIDIsAFunctionOfTheCanonicalSchedule(t *testing.T) {
	factory := copperfin.Factory(0)
	one, zero, ms := 1, 0, model.Millis(1500)
	base := func() *model.Schedule {
		return &model.Schedule{Version: 2, Seed: "id", Config: copperfin.ConfigOfProfile(copperfin.ProfileTyped),
			Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}}}
	}
	id := func(h *model.Harness, s *model.Schedule) string {
		t.Helper()
		res, err := h.Run(factory, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range res.Timeline.Events() {
			if e.RunID != res.RunID {
				t.Fatalf("event %d carries run id %q, the run is %q", e.Seq, e.RunID, res.RunID)
			}
		}
		return res.RunID
	}
	fresh := func(s *model.Schedule) string {
		return id(model.NewHarness(copperfin.Copperfin(), model.Options{}), s)
	}
	want := fresh(base())
	if !regexp.MustCompile(`^run-[0-9a-f]{16}$`).MatchString(want) {
		t.Fatalf("run id %q is not run- and 16 hex digits", want)
	}
	// the same canonical schedule, spelt otherwise
	spaced := base()
	spaced.Config.System = json.RawMessage(`{ "profile" : "typed" }`)
	v1 := base()
	v1.Version = 1
	parsed, err := model.ParseSchedule(model.Format(base()))
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*model.Schedule{"spaced system part": spaced, "version 1": v1, "parsed from Format": parsed} {
		if got := fresh(s); got != want {
			t.Errorf("%s: run id %s, want %s", name, got, want)
		}
	}
	empty, none := base(), base()
	empty.Faults, none.Faults = []model.FaultEntry{}, nil
	empty.Config.System, none.Config.System = json.RawMessage(`{}`), nil
	if a, b := fresh(empty), fresh(none); a != b {
		t.Errorf("an empty and a missing fault list and system part: run ids %s and %s", a, b)
	}
	// every field changes it
	changes := map[string]func(*model.Schedule){
		"seed":         func(s *model.Schedule) { s.Seed = "id2" },
		"system":       func(s *model.Schedule) { s.Config = copperfin.ConfigOfProfile(copperfin.ProfileBaseline) },
		"retry budget": func(s *model.Schedule) { s.Config.RetryBudget = &one },
		"budget zero":  func(s *model.Schedule) { s.Config.RetryBudget = &zero },
		"deadline":     func(s *model.Schedule) { s.Config.Deadline = &ms },
		"join":         func(s *model.Schedule) { s.Config.Join = model.JoinPolicy("best_effort") },
		"fixture":      func(s *model.Schedule) { s.Config.Fixture = "copperfin" },
		"fault id":     func(s *model.Schedule) { s.Faults[0].ID = "x" },
		"ordinal":      func(s *model.Schedule) { s.Faults[0].Ordinal = 2 },
		"kind":         func(s *model.Schedule) { s.Faults[0].Kind = "rate_limit" },
		"tool":         func(s *model.Schedule) { s.Faults[0].Tool = "refund" },
		"no fault":     func(s *model.Schedule) { s.Faults = nil },
		"second fault": func(s *model.Schedule) {
			s.Faults = append(s.Faults, model.FaultEntry{Event: model.EvToolCommit, Ordinal: 2, Kind: "rate_limit"})
		},
	}
	seen := map[string]string{want: "base"}
	h := model.NewHarness(copperfin.Copperfin(), model.Options{})
	for name, change := range changes {
		s := base()
		change(s)
		got := id(h, s)
		if other, ok := seen[got]; ok {
			t.Errorf("%s: run id %s is also %s's", name, got, other)
		}
		seen[got] = name
		// one harness's cache gives what a fresh harness gives
		if f := fresh(s); f != got {
			t.Errorf("%s: run id %s after other runs, %s on a fresh harness", name, got, f)
		}
		if back := id(h, base()); back != want {
			t.Errorf("after %s: the base schedule's run id is %s, want %s", name, back, want)
		}
	}
}

// TestRunAllocatesLittleMoreThanTerms: the detailed path (Run: timeline,
// reports, run id) allocates exactly once more than the assay's path
// (Terms) on the benchmarks' schedule: the Result with its lists,
// timeline header, compact record and the record's strings, in one
// smallStore. It allocated 63 more while it encoded the schedule as JSON
// for the run id on every run, 23 more while it built every event in
// full, and 3 more while the record and its strings had storage of their
// own. Reading the timeline's names and ordinals (what the coverage
// tracker and the explorers read on every run) allocates nothing.
func TestRunAllocatesLittleMoreThanTerms(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector changes allocation counts; go test ./... runs this")
	}
	factory, s := benchSchedule(t)
	h := model.NewHarness(copperfin.Copperfin(), model.Options{})
	run := testing.AllocsPerRun(200, func() {
		if _, err := h.Run(factory, s); err != nil {
			t.Fatal(err)
		}
	})
	terms := testing.AllocsPerRun(200, func() {
		if _, err := h.Terms(factory, s); err != nil {
			t.Fatal(err)
		}
	})
	if run-terms != 1 {
		t.Errorf("Run allocates %.0f times a run, Terms %.0f: %.0f more, want 1", run, terms, run-terms)
	}
	res, err := h.Run(factory, s)
	if err != nil {
		t.Fatal(err)
	}
	reads := testing.AllocsPerRun(200, func() {
		tl := res.Timeline
		for i := range tl.Len() {
			_, _ = tl.Name(i), tl.Ordinal(i)
		}
	})
	if reads != 0 || res.Timeline.Len() != 27 {
		t.Errorf("reading the %d events' names and ordinals allocates %.0f times, want 0", res.Timeline.Len(), reads)
	}
}

// TestTaskOffsetsChangeNoResult: the per-task lookups that start at the
// task's own records give the results the whole-ledger scans give, for
// every catalogue kind and world event at its first two ordinals, under
// every profile and every mutant on the three-task workload, and under every
// profile on six tasks on distinct subjects.
func TestTaskOffsetsChangeNoResult(t *testing.T) {
	if raceDetector {
		t.Skip("runs in one goroutine: nothing for the race detector; go test ./... runs it")
	}
	var kinds []model.FaultSpec
	kinds = append(append(kinds, model.Catalogue()...), model.WorldEvents()...)
	var cfgs []model.Config
	for _, p := range copperfin.Profiles {
		cfgs = append(cfgs, copperfin.ConfigOfProfile(p))
	}
	for _, m := range copperfin.Mutants() {
		cfgs = append(cfgs, copperfin.WithMutant(copperfin.ConfigOfProfile(copperfin.ProfileTyped), string(m.Name)))
	}
	runs := 0
	for fi, f := range []model.Fixture{copperfin.CopperfinBatch(), taskFixture(6)} {
		for ci, cfg := range cfgs {
			if fi > 0 && ci >= len(copperfin.Profiles) {
				break
			}
			// one factory a harness: the policy_cached mutant's cache
			// lives in its factory and outlasts a run
			factory, err := copperfin.Configured(cfg)
			if err != nil {
				t.Fatal(err)
			}
			factory2, err := copperfin.Configured(cfg)
			if err != nil {
				t.Fatal(err)
			}
			indexed := model.NewHarness(f, model.Options{})
			scanned := model.NewHarness(f, model.Options{})
			model.DisableTaskOffsets(scanned)
			for _, k := range kinds {
				for ord := 1; ord <= 2; ord++ {
					s := &model.Schedule{Version: 2, Seed: "offsets", Config: cfg,
						Faults: []model.FaultEntry{{Event: k.Event, Ordinal: ord, Kind: k.Kind}}}
					a, err := indexed.Run(factory, s)
					if err != nil {
						t.Fatal(err)
					}
					b, err := scanned.Run(factory2, s)
					if err != nil {
						t.Fatal(err)
					}
					ja, _ := json.Marshal(a)
					jb, _ := json.Marshal(b)
					if string(ja) != string(jb) {
						t.Fatalf("%s, %s: %s at %s#%d: the results differ:\n%s", f.Name, cfg, k.Kind, k.Event, ord, cmp.Diff(string(jb), string(ja)))
					}
					runs++
				}
			}
		}
	}
	if want := (2*len(copperfin.Profiles) + len(copperfin.Mutants())) * (len(model.Catalogue()) + len(model.WorldEvents())) * 2; runs != want {
		t.Fatalf("compared %d runs, want %d", runs, want)
	}
}

// TestManyTasksRunAlike: on n copies of the reference task on distinct
// subjects, every task of a clean typed run recovers with the crossings the
// single task makes, however many tasks came before it.
func TestManyTasksRunAlike(t *testing.T) {
	cfg := copperfin.ConfigOfProfile(copperfin.ProfileTyped)
	factory, err := copperfin.Configured(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := &model.Schedule{Version: 2, Seed: "many", Config: cfg, Faults: []model.FaultEntry{}}
	one, err := model.NewHarness(taskFixture(1), model.Options{}).Run(factory, s)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	res, err := model.NewHarness(taskFixture(n), model.Options{}).Run(factory, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tasks) != n || res.RunVerdict != model.Recovered || res.Terms.Effects != n {
		t.Fatalf("%d tasks, run verdict %s, %d effects; want %d, recovered, %d", len(res.Tasks), res.RunVerdict, res.Terms.Effects, n, n)
	}
	per := len(one.Timeline.Events())
	if len(res.Timeline.Events()) != n*per {
		t.Fatalf("%d events for %d tasks, want %d each", len(res.Timeline.Events()), n, per)
	}
	for i, tv := range res.Tasks {
		if tv.RunVerdict != model.Recovered {
			t.Errorf("task %d: %s", i, tv.RunVerdict)
		}
		for j := range per {
			a, b := one.Timeline.Events()[j], res.Timeline.Events()[i*per+j]
			if a.Event != b.Event || a.Outcome != b.Outcome || b.Task != res.Tasks[i].Task {
				t.Fatalf("task %d, crossing %d: %s %s of %s, the single task's is %s %s", i, j, b.Event, b.Outcome, b.Task, a.Event, a.Outcome)
			}
		}
	}
}

// lookupKeeper appends evidence and looks its trace up after each append,
// keeping every slice Lookup returned and changing the first (an element
// set, then an append): it records what each kept slice holds at the end
// of its run.
type lookupKeeper struct{ got *[][]string }

func (k lookupKeeper) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	var kept [][]model.EvidenceRecord
	for _, d := range []string{"a", "b", "c"} {
		if _, err := env.Evidence.Append(ctx, model.EvidenceRecord{Kind: "decision", Trace: task.Trace, Detail: d}); err != nil {
			return model.Claim{}, err
		}
		recs, err := env.Evidence.Lookup(ctx, task.Trace)
		if err != nil {
			return model.Claim{}, err
		}
		if len(kept) == 0 {
			recs[0].Detail = "changed"
			recs = append(recs, model.EvidenceRecord{Detail: "appended"})
		}
		kept = append(kept, recs)
	}
	*k.got = (*k.got)[:0]
	for _, recs := range kept {
		var ds []string
		for _, r := range recs {
			ds = append(ds, r.Detail)
		}
		*k.got = append(*k.got, ds)
	}
	return model.Claim{Verdict: model.ClaimHold, Reason: "looked up"}, nil
}

// TestLookupPartsAreTheRunsOwn: the records each Lookup returns stay as
// they were returned (or as the system changed them) for the rest of the
// run, whatever the later lookups return, in every run of a harness; a change to one never reaches the evidence
// ledger or another lookup's records.
func TestLookupPartsAreTheRunsOwn(t *testing.T) {
	var got [][]string
	h := model.NewHarness(copperfin.Copperfin(), model.Options{})
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "keep"}
	want := [][]string{{"changed", "appended"}, {"a", "b"}, {"a", "b", "c"}}
	for i := range 3 {
		if _, err := h.Terms(func() model.System { return lookupKeeper{&got} }, s); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("run %d: the kept lookups hold %q, want %q", i+1, got, want)
		}
	}
}

// TestTrialReadsDoNotAllocate: on the trial path (Terms) a readback and
// an evidence lookup return parts of storage that runs share (each part
// handed out once), as do a commit's receipt, a join's branches and a
// checkpoint's completed effects; composing a commit's fault hooks, a
// state read and the reference system's checkpoint and join arguments do
// not allocate either, so the benchmark schedule's trial allocates 3
// times a run (9 when each run allocated its reads' storage and each
// receipt, join and checkpoint its own, 15 when each of those allocated,
// 16 when each read allocated its result).
func TestTrialReadsDoNotAllocate(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector changes allocation counts; go test ./... runs this")
	}
	factory, s := benchSchedule(t)
	h := model.NewHarness(copperfin.Copperfin(), model.Options{})
	terms := testing.AllocsPerRun(200, func() {
		if _, err := h.Terms(factory, s); err != nil {
			t.Fatal(err)
		}
	})
	if terms > 3 {
		t.Errorf("Terms allocates %.0f times a run, want at most 3", terms)
	}
}

// TestKeptLookupsOutliveTheirRun: records a system keeps past its run (in
// its factory) stay as they were when the harness's next runs look up
// other records: no run reuses another run's storage.
func TestKeptLookupsOutliveTheirRun(t *testing.T) {
	var first [][]string
	h := model.NewHarness(copperfin.Copperfin(), model.Options{})
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "keep"}
	if _, err := h.Terms(func() model.System { return lookupKeeper{&first} }, s); err != nil {
		t.Fatal(err)
	}
	var kept []model.EvidenceRecord
	if _, err := h.Terms(func() model.System { return recordKeeper{&kept} }, s); err != nil {
		t.Fatal(err)
	}
	var later [][]string
	for range 3 {
		if _, err := h.Terms(func() model.System { return lookupKeeper{&later} }, s); err != nil {
			t.Fatal(err)
		}
	}
	if len(kept) != 1 || kept[0].Detail != "kept" {
		t.Fatalf("the record kept from an earlier run now holds %+v", kept)
	}
}

// recordKeeper appends one record and keeps the slice its lookup returns.
type recordKeeper struct{ kept *[]model.EvidenceRecord }

func (k recordKeeper) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	if _, err := env.Evidence.Append(ctx, model.EvidenceRecord{Kind: "decision", Trace: task.Trace, Detail: "kept"}); err != nil {
		return model.Claim{}, err
	}
	recs, err := env.Evidence.Lookup(ctx, task.Trace)
	if err != nil {
		return model.Claim{}, err
	}
	*k.kept = recs
	return model.Claim{Verdict: model.ClaimHold, Reason: "kept"}, nil
}
