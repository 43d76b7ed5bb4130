package model_test

import (
	"encoding/json"
	"runtime"
	"slices"
	"strings"
	"testing"

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
	for _, e := range res.Timeline {
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
// record is byte-identical on repeat and whatever GOMAXPROCS is.
func TestConcurrentReplayDeterministic(t *testing.T) {
	scheds := []*model.Schedule{
		concurrent(&model.Concurrency{Workers: 2, Interleaving: []int{1, 1, 2}}),
		concurrent(&model.Concurrency{Workers: 2, Seed: "s1"}),
		concurrent(&model.Concurrency{Workers: 2, Interleaving: []int{2, 1, 2, 1}, Seed: "s2"}),
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, s := range scheds {
		var want []byte
		for _, procs := range []int{1, 2, 8, 1, 2, 8} {
			runtime.GOMAXPROCS(procs)
			b, err := json.Marshal(runClerks(t, s).Record())
			if err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = b
				continue
			}
			if string(b) != string(want) {
				t.Fatalf("%s: the record under GOMAXPROCS %d differs:\n%s\n%s", s.Config.Concurrency, procs, b, want)
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
	if got := s.Config.HarnessString(); got != "concurrency: 2 workers, interleaving 1x2 2, seed x" {
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
