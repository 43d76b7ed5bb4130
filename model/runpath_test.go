package model_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// runOutputsDigest and runOutputsRuns pin what TestRunOutputsUnchanged
// hashes: the outputs of every run below as the run path gave them when
// the digest was taken. A change to the run path that changes any
// result, its JSON, its timeline, its provider history or its run record
// changes the digest. With false_success and envelope_as_success left
// out, the 4110 runs before them hash to the digest pinned then
// (aa9ad447...): adding them changed no earlier output. A claim the
// deadline forced leaves its task timed_out in the timeline, where it
// said failed; the record's redaction of task ids and actors (beside
// subjects, capabilities and traces) hides them in the record (4bc04fa4...
// before both); a resumed worker holds an effect no decision wrote
// (four runs: one more evidence.lookup). The runs of duplicate_tool_call,
// model_refusal, refusal_as_done and duplicate_call_executed follow, then
// the corpus file retry-storm-jittered.json (one run). Every run then
// checks recorded_agrees_with_ledger, as runs of production code did
// (0c00de43... before): each result, record and verdict that reports it moves.
// After the merges of retry_paced, span_carry_over (the corpus file
// span-carried-by-worker.json) and the five proposal kinds of the 35-kind
// catalogue: 35 setups (3 profiles x 4 workloads, 23 mutants) x 40 kinds
// (35 catalogue, 5 world events) x 4 runs, and 16 corpus files: 5616 runs
// (4915 before, c1c0fd2f...). A fault report carries its entry's target
// and a placement shows it ("memory.read#1[approval]"): the two corpus
// files with a target (memory-loss-hold.json, best-effort-join-degraded.json)
// move in their result's JSON and their record's "at" (ced4309f... before).
const (
	runOutputsDigest = "654eac15a6b8ab38c1fe167fb4bf25ece948557857657a1515ebb00714405bd3"
	runOutputsRuns   = 5616
)

// hashRun writes every output of one run of s on h into d: the error, or
// the Result's JSON, its timeline as %+v prints it, its provider history,
// its run record's JSON and what the timeline's per-event readers say;
// and checks that the Terms path of th gives the run's terms.
func hashRun(t *testing.T, d hash.Hash, h, th *model.Harness, factory model.Factory, s *model.Schedule) {
	t.Helper()
	res, err := h.Run(factory, s)
	if err != nil {
		fmt.Fprintf(d, "error %v\n", err)
		return
	}
	j, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	d.Write(j)
	fmt.Fprintf(d, "\n%+v\n%+v\n%v %s\n", res.Timeline, res.Provider, res.Held(), res.DescribeConfig())
	rec, err := json.Marshal(res.Record())
	if err != nil {
		t.Fatal(err)
	}
	d.Write(rec)
	tl := res.Timeline
	for i := range tl.Len() {
		fmt.Fprintf(d, "%s#%d %s %s|", tl.Name(i), tl.Ordinal(i), tl.Task(i), tl.Detail(i))
	}
	terms, err := th.Terms(factory, s)
	if err != nil || terms != res.Terms {
		t.Fatalf("%s: Terms gives %+v, %v; Run %+v", model.Format(s), terms, err, res.Terms)
	}
}

// TestRunOutputsUnchanged runs every catalogue kind and world event at
// its first two ordinals, alone and after a timeout_after_commit at the
// first commit, under every profile on the reference workload, the
// three-task workload, three concurrent workers and wide budgets, and
// under every mutant; then every schedule of reference/corpus/ under its own
// config. The hash of all their outputs is pinned: the run path may
// become cheaper, but no output of it may change.
func TestRunOutputsUnchanged(t *testing.T) {
	if testing.Short() {
		t.Skip("runs some thousands of schedules")
	}
	if raceDetector {
		t.Skip("some thousands of runs, each in one goroutine but the concurrent workers' (TestConcurrentReplayDeterministic runs those under the detector); go test ./... runs this test")
	}
	kinds := append(model.Catalogue(), model.WorldEvents()...)
	type setup struct {
		name    string
		fixture model.Fixture
		opts    model.Options
		cfg     model.Config
	}
	var setups []setup
	for _, p := range copperfin.Profiles {
		cfg := copperfin.ConfigOfProfile(p)
		conc := cfg
		conc.Concurrency = &model.Concurrency{Workers: 3, Seed: "digest"}
		setups = append(setups,
			setup{"copperfin " + string(p), copperfin.Copperfin(), model.Options{}, cfg},
			setup{"batch " + string(p), copperfin.CopperfinBatch(), model.Options{}, cfg},
			setup{"concurrent " + string(p), copperfin.CopperfinBatch(), model.Options{}, conc},
			setup{"wide " + string(p), copperfin.Copperfin(), model.Options{Deadline: model.Millis(1) << 40, RetryBudget: 1 << 33}, cfg})
	}
	for _, m := range copperfin.Mutants() {
		setups = append(setups, setup{"mutant " + string(m.Name), copperfin.Copperfin(), model.Options{},
			copperfin.WithMutant(copperfin.ConfigOfProfile(copperfin.ProfileTyped), string(m.Name))})
	}
	d := sha256.New()
	runs := 0
	for _, su := range setups {
		factory, err := copperfin.Configured(su.cfg)
		if err != nil {
			t.Fatal(err)
		}
		h := model.NewHarness(su.fixture, su.opts)
		fmt.Fprintf(d, "== %s\n", su.name)
		for _, k := range kinds {
			for ord := 1; ord <= 2; ord++ {
				for _, after := range []bool{false, true} {
					s := &model.Schedule{Version: model.ScheduleVersion, Seed: "digest", Config: su.cfg,
						Faults: []model.FaultEntry{{Event: k.Event, Ordinal: ord, Kind: k.Kind}}}
					if k.Event == model.EvNoticeReceive {
						s.Config.Notices = true
					}
					if after {
						s.Faults = append([]model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}}, s.Faults...)
					}
					hashRun(t, d, h, h, factory, s)
					runs++
				}
			}
		}
	}
	files, err := filepath.Glob(filepath.Join("..", "reference", "corpus", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("corpus files %v, %v", files, err)
	}
	slices.Sort(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := model.ParseSchedule(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		factory, err := copperfin.Configured(s.Config)
		if err != nil {
			t.Fatal(err)
		}
		fx := copperfin.Copperfin()
		if s.Config.Fixture != "" {
			if fx, err = copperfin.FixtureNamed(s.Config.Fixture); err != nil {
				t.Fatal(err)
			}
		}
		fmt.Fprintf(d, "== %s\n", filepath.Base(f))
		// each on a harness of its own, as replay runs it
		hashRun(t, d, model.NewHarness(fx, model.Options{}), model.NewHarness(fx, model.Options{}), factory, s)
		runs++
	}
	got := hex.EncodeToString(d.Sum(nil))
	if got != runOutputsDigest || runs != runOutputsRuns {
		t.Errorf("%d runs hash to %s; pinned: %d runs, %s", runs, got, runOutputsRuns, runOutputsDigest)
	}
}
