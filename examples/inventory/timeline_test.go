package inventory_test

import (
	"testing"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
)

// TestTimelineOfTheAgent: on the inventory agent, every single-fault run's
// timeline reads the same through its per-event readers as through its
// built events, and a run allocates a fixed few times more than its
// terms alone: the timeline is recorded compactly and built when read.
func TestTimelineOfTheAgent(t *testing.T) {
	h := harness()
	factory := inventory.Factory(inventory.Defended, inventory.Planted)
	cands, err := candidates(h, factory)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range cands {
		s := &model.Schedule{Version: model.ScheduleVersion, Config: model.Config{}, Faults: []model.FaultEntry{f}}
		res := mustRun(t, h, factory, s)
		tl := res.Timeline
		evs := tl.Events()
		if tl.Len() != len(evs) || len(evs) == 0 {
			t.Fatalf("%s: Len %d, %d events", f.Placement(), tl.Len(), len(evs))
		}
		for i, e := range evs {
			if tl.Name(i) != e.Event || tl.Ordinal(i) != e.Ordinal || tl.Task(i) != e.Task || tl.Detail(i) != e.Detail || e.RunID != res.RunID {
				t.Fatalf("%s: event %+v, readers say %s#%d %q %q", f.Placement(), e, tl.Name(i), tl.Ordinal(i), tl.Task(i), tl.Detail(i))
			}
		}
	}
	if raceDetector {
		return
	}
	s := &model.Schedule{Version: model.ScheduleVersion, Config: model.Config{}, Faults: []model.FaultEntry{cands[0]}}
	run := testing.AllocsPerRun(100, func() { mustRun(t, h, factory, s) })
	terms := testing.AllocsPerRun(100, func() {
		if _, err := h.Terms(factory, s); err != nil {
			t.Fatal(err)
		}
	})
	// the Result (with its lists of one task and one fault, the
	// timeline's record and its strings), which holds the agent's eleven
	// invariants (its five own, the four built-ins it selects,
	// recorded_agrees_with_ledger and retry_paced: 11 since both merged,
	// each branch counted 10) itself (it holds up to eleven: full)
	if res := mustRun(t, h, factory, s); run-terms != 1 || len(res.Invariants) != 11 {
		t.Fatalf("Run allocates %.0f times, Terms %.0f: want 1 more (%d invariants)", run, terms, len(res.Invariants))
	}
}
