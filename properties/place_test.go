package properties_test

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/faultline/faultline/internal/archiver"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestDrawsPlaceFaultsWhereTheRunGoes: on the archiver (two checkpoint
// writes and one tool call on a clean run), every fault a draw holds sits
// at an event the run under the faults before it crossed, at an ordinal
// that run reached: the first at the clean run's events (never the
// reference system's checkpoint.write#3, never a second tool.commit), a
// later one at a retry's second tool.commit only when an earlier fault
// made the agent retry. Over 300 swarm draws exactly 485 faults are placed
// after the first, 62 of them at the retry's tool.commit#2 (a swarm that
// leaves out tool.commit#1 puts every later commit fault at the retry, and
// a composed entry may sit at a crossing the earlier faults made); over
// 300 draws without a swarm, 276 and 11.
func TestDrawsPlaceFaultsWhereTheRunGoes(t *testing.T) {
	for _, c := range []struct {
		swarm          bool
		later, retried int
	}{{true, 485, 62}, {false, 276, 11}} {
		later, retried := drawPlacements(t, c.swarm)
		if later != c.later || retried != c.retried {
			t.Errorf("swarm %t: %d faults placed after the first, %d at a retry's tool.commit#2; want %d and %d", c.swarm, later, retried, c.later, c.retried)
		}
	}
}

// drawPlacements checks the placements of 300 draws on the archiver and
// returns the faults placed after the first and those at tool.commit#2.
func drawPlacements(t *testing.T, swarm bool) (int, int) {
	t.Helper()
	def := archiver.Definition()
	cfg := model.Config{System: json.RawMessage(`{}`)}
	opts := []properties.Option{properties.WithConfig(cfg), properties.WithMaxFaults(3),
		properties.WithKinds("tool_timeout", "timeout_after_commit", "reject_before_commit", "stale_checkpoint", "worker_restart", "checkpoint_rollback", "worker_crash")}
	if swarm {
		opts = append(opts, properties.WithSwarm())
	}
	gen, err := properties.Generator(def, opts...)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]map[model.EventName]int{}
	crossings := func(faults []model.FaultEntry) map[model.EventName]int {
		key := string(model.Format(&model.Schedule{Version: model.ScheduleVersion, Config: cfg, Faults: faults}))
		if c, ok := runs[key]; ok {
			return c
		}
		res, err := def.Run(&model.Schedule{Version: model.ScheduleVersion, Config: cfg, Faults: append([]model.FaultEntry{}, faults...)}, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		runs[key] = model.Crossings(res)
		return runs[key]
	}
	clean := crossings(nil)
	if clean[model.EvCheckpointWrite] != 2 || clean[model.EvToolCommit] != 1 {
		t.Fatalf("clean run crossings %v", clean)
	}
	later, retried := 0, 0
	for i := 0; i < 300; i++ {
		s := gen.Example(i)
		for k, f := range s.Faults {
			c := crossings(s.Faults[:k])
			if c[f.Event] < f.Ordinal {
				t.Fatalf("draw %d: fault %d at %s, but the run of the faults before it crossed %s %d times:\n%s", i, k, f.Placement(), f.Event, c[f.Event], model.Format(s))
			}
			if k == 0 && (f.Event == model.EvToolCommit && f.Ordinal != 1 || f.Event == model.EvCheckpointWrite && f.Ordinal > 2) {
				t.Fatalf("draw %d: first fault at %s, past the clean run", i, f.Placement())
			}
			if k > 0 {
				later++
				if f.Event == model.EvToolCommit && f.Ordinal == 2 {
					retried++
				}
			}
		}
	}
	return later, retried
}

// TestCheckFindsThePlantedBugOnItsOwnPlacements: the archiver's planted
// bug (a fresh key per retry) is found by a single fault placed on its own
// run, and the fixed agent passes with every kind in scope reached.
func TestCheckFindsThePlantedBugOnItsOwnPlacements(t *testing.T) {
	rapidFlags(t, 100, 1)
	def := archiver.Definition()
	rep, err := properties.Explore(def, properties.WithConfig(model.Config{System: archiver.Planted}))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Found || rep.Counterexample.Invariant != archiver.InvArchivedOnce || len(rep.Counterexample.Schedule.Faults) != 1 {
		t.Fatalf("found %t: %v", rep.Found, rep.Counterexample)
	}
	fixed, err := properties.Explore(def, properties.WithConfig(model.Config{System: json.RawMessage(`{}`)}))
	if err != nil || fixed.Found || fixed.Reached == 0 {
		t.Fatalf("the fixed agent: %v %+v", err, fixed)
	}
}

// TestCheckOfASystemThatCrossesNoFaultEvent: a system that crosses no
// event a fault kind sits at (it never calls a tool, never checkpoints)
// gets no fault placed: Explore reports the campaign inconclusive with no
// check run, and Check fails with that message, naming the events it did
// cross, instead of passing or reporting an option error.
func TestCheckOfASystemThatCrossesNoFaultEvent(t *testing.T) {
	rapidFlags(t, 10, 1)
	def := archiver.Definition()
	def.Configure = func(json.RawMessage) (model.Factory, error) { return func() model.System { return idleSystem{} }, nil }
	opts := []properties.Option{properties.WithConfig(model.Config{System: json.RawMessage(`{}`)})}
	rep, err := properties.Explore(def, opts...)
	if err != nil {
		t.Fatal(err)
	}
	want := "inconclusive: no fault kind in scope can be placed at an event the system crosses, so no fault was scheduled or tested; the events the system crossed: worker.start"
	if !rep.Inconclusive() || rep.Checks != 0 || rep.Faults != 0 || rep.InconclusiveMessage() != want {
		t.Fatalf("report %+v: %s", rep, rep.InconclusiveMessage())
	}
	tb := &recordingTB{name: "TestIdle"}
	properties.CheckTB(tb, nil, def, append(opts, properties.WithFailDir(t.TempDir()))...)
	if !tb.failed || len(tb.errors) != 1 || !strings.Contains(tb.errors[0], want) || !strings.Contains(tb.errors[0], "exit 3") {
		t.Fatalf("Check: %v", tb.errors)
	}
	if _, err := properties.Generator(def, opts...); err == nil || err.Error() != "properties: no fault kind in scope occurs in this workload" {
		t.Errorf("Generator: %v", err)
	}
}

// TestGeneratorDrawsTheSameFromSeveralGoroutines: the draws' runs of
// their earlier faults share a store and pooled harnesses; drawing from
// four goroutines at once gives what one draws alone.
func TestGeneratorDrawsTheSameFromSeveralGoroutines(t *testing.T) {
	def := archiver.Definition()
	gen := func() *rapid.Generator[*model.Schedule] {
		g, err := properties.Generator(def, properties.WithConfig(model.Config{System: json.RawMessage(`{}`)}))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	alone, shared := gen(), gen()
	want := make([]string, 40)
	for i := range want {
		want[i] = string(model.Format(alone.Example(i)))
	}
	got := make([]string, len(want))
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(got); i += 4 {
				got[i] = string(model.Format(shared.Example(i)))
			}
		}()
	}
	wg.Wait()
	if !slices.Equal(got, want) {
		t.Fatal("concurrent draws differ from serial ones")
	}
}
