package dispatch_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/faultline/faultline/examples/dispatch"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestDefaultSearchFindsForkedRun: the default search of the unfenced
// booker, from scratch, finds a forked run at the walk's schedule 146
// (144 before do_not_retry was drawn at every tool.commit, 136 before
// server_error and network_error were: their one-fault schedules come
// first):
// the job forked at its plan's checkpoint, the second worker books the
// pickup again after its stale booking checkpoint withdrew the first's
// booking (recorded_agrees_with_ledger at seq 11, then
// effect_at_most_once at 12). The fenced booker, on the same schedule, takes
// the head's word and holds; over the walk of every single fault too (177 schedules, 175
// before do_not_retry was drawn, 167 before the transport kinds).
// (Over the whole default search, 16,871 schedules and 100 draws, it
// holds as well: scripts/dispatch-forks.sh.)
func TestDefaultSearchFindsForkedRun(t *testing.T) {
	rep, err := properties.Explore(dispatch.Definition(dispatch.Booker{}))
	if err != nil {
		t.Fatal(err)
	}
	cx := rep.Counterexample
	if !rep.Found || rep.Walk == nil || rep.Walk.Index != 146 || cx.Invariant != model.InvRecordedAgreesWithLedger || cx.FirstSeq != 11 {
		t.Fatalf("unfenced: found %v, walk %+v, %+v", rep.Found, rep.Walk, cx)
	}
	if f := cx.Schedule.Faults; len(f) != 1 || f[0].Kind != "forked_run" || f[0].Event != model.EvCheckpointWrite || f[0].Ordinal != 1 {
		t.Fatalf("unfenced: schedule %+v", f)
	}
	h := model.NewHarness(dispatch.Fixture(), model.Options{Builtin: dispatch.Definition(dispatch.Booker{}).Builtin})
	for _, c := range []struct {
		b    dispatch.Booker
		want []string
	}{
		{dispatch.Booker{}, []string{"effect_at_most_once@12", "recorded_agrees_with_ledger@11"}},
		{dispatch.Booker{Fenced: true}, nil},
	} {
		res, err := h.Run(func() model.System { return c.b }, cx.Schedule)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range res.Invariants {
			if !r.Held {
				got = append(got, r.Invariant+"@"+strconv.Itoa(r.FirstSeq))
			}
		}
		if len(got) != len(c.want) || len(got) > 0 && (got[0] != c.want[0] || got[1] != c.want[1]) || res.Faults[0].Fired != 1 {
			t.Errorf("%+v: %v, fired %d", c.b, got, res.Faults[0].Fired)
		}
	}
	walk, err := properties.Explore(dispatch.Definition(dispatch.Booker{Fenced: true}), properties.WithExhaustive(), properties.WithMaxFaults(1))
	if err != nil {
		t.Fatal(err)
	}
	if w := walk.Exhaustive; w.Found || !w.Complete || w.Schedules != 177 {
		t.Errorf("fenced walk: %+v", w)
	}
}

// TestFencedHoldsOverTheDefaultSearch (FAULTLINE_HEAVY=1, about 2 CPU-s;
// scripts/dispatch-forks.sh): the fenced booker holds over the whole
// default search, forked_run drawn: the walk's 16,871 schedules of up to
// two faults (16,473 before do_not_retry was drawn, 14,941 before server_error and
// network_error were), then 100 random draws.
func TestFencedHoldsOverTheDefaultSearch(t *testing.T) {
	if os.Getenv("FAULTLINE_HEAVY") != "1" {
		t.Skip("FAULTLINE_HEAVY=1 runs it")
	}
	rep, err := properties.Explore(dispatch.Definition(dispatch.Booker{Fenced: true}))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Found || rep.Walk == nil || !rep.Walk.Complete || rep.Walk.Schedules != 16871 || rep.Checks != 100 {
		t.Fatalf("fenced: found %v, checks %d, walk %+v", rep.Found, rep.Checks, rep.Walk)
	}
	t.Logf("fenced: walk of %d schedules (%d faults fired), then %d draws: every invariant holds", rep.Walk.Schedules, rep.Walk.Fired, rep.Checks)
}
