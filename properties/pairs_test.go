package properties_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// pairFails replays s under off (s's config) and under on, and reports
// whether off violates inv while on holds every invariant.
func pairFails(t *testing.T, s *model.Schedule, on model.Config, inv string) bool {
	t.Helper()
	if replayInvariant(t, s, inv).Held {
		return false
	}
	o := *s
	o.Config = on
	for _, i := range model.Invariants {
		if !replayInvariant(t, &o, i.Name).Held {
			return false
		}
	}
	return true
}

// assertPairMinimal checks that w is a composition witness, 1-minimal as a
// pair: off violates its invariant and on holds every one, and dropping
// any one or any two faults or moving one to an earlier ordinal breaks
// that.
func assertPairMinimal(t *testing.T, w *properties.PairWitness) {
	t.Helper()
	on := w.On.Config
	if len(w.Off.Faults) < 2 || !cmp.Equal(w.Off.Faults, w.On.Faults) || !pairFails(t, w.Off, on, w.Invariant) {
		t.Fatalf("not a composition witness: %+v", w)
	}
	n := len(w.Off.Faults)
	for i := 0; i < n; i++ {
		s := *w.Off
		s.Faults = slices.Delete(slices.Clone(s.Faults), i, i+1)
		if pairFails(t, &s, on, w.Invariant) {
			t.Errorf("not 1-minimal as a pair: without fault %d (%s) it still holds", i, w.Off.Faults[i].Kind)
		}
		for j := i + 1; j < n; j++ {
			s := *w.Off
			s.Faults = slices.Delete(slices.Delete(slices.Clone(s.Faults), j, j+1), i, i+1)
			if pairFails(t, &s, on, w.Invariant) {
				t.Errorf("without faults %d and %d it still holds", i, j)
			}
		}
		for o := 1; o < w.Off.Faults[i].Ordinal; o++ {
			s := *w.Off
			s.Faults = slices.Clone(s.Faults)
			s.Faults[i].Ordinal = o
			if pairFails(t, &s, on, w.Invariant) {
				t.Errorf("not 1-minimal as a pair: fault %d (%s) at ordinal %d still holds", i, s.Faults[i].Kind, o)
			}
		}
		if w.Off.Faults[i].Target != "" {
			t.Errorf("fault %d has a target %q: a weaker one was not checked", i, w.Off.Faults[i].Target)
		}
	}
}

// TestExplorePairFindsCompositions: for the pair typed against typed
// without one control, pair exploration from a fixed seed finds a fixed
// ordered composition of two faults, neither of which shows the pair
// alone, and reduces it as a pair to a 1-minimal schedule. Without the
// evidence gate, a malformed reply and a reply on another trace leave the
// record without the refund the provider made
// (recorded_agrees_with_ledger); without state_precondition, a state
// version change at the commit and a timeout there let the retried commit
// act on the stale version. (With the catalogue's 35 kinds
// refresh_context's witness of 30, a worker crash then a cross-source
// conflict, still shows the pair but is not among seed 1's 3000 draws, 269
// of them single faults; seeds 4 and 8 find a crash then that conflict.)
func TestExplorePairFindsCompositions(t *testing.T) {
	oneGoroutine(t)
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	cases := []struct {
		control         copperfin.Control
		draws           int
		draw, singles   int
		faults          []model.FaultEntry
		invariant, kind string
		seq             int
		event           model.EventName
		onVerdict       model.RunVerdict
	}{
		// without the gate, a reply on another trace then a timeout at
		// the commit leave the record without the refund the provider
		// made: draw 69, one single, since do_not_retry is drawn here too
		// (draw 18 with server_error and network_error, a malformed reply
		// then the trace; draw 35 with the 35 kinds paired the trace with
		// a timeout after the commit; with 30, draw 155 with a drifted
		// reply; before the ledger was checked, draw 256 found
		// provable_outcome's witness)
		{copperfin.EvidenceGate, 300, 69, 1, []model.FaultEntry{
			{Event: model.EvToolCommit, Ordinal: 1, Kind: "break_trace_lineage"},
			{Event: model.EvToolCommit, Ordinal: 1, Kind: "tool_timeout"}},
			model.InvRecordedAgreesWithLedger, "tool_timeout", 27, model.EvClaim, model.ContainedFailure},
		// draw 4,428 of seed 1, 263 of them single faults, a version change
		// and a timeout before the send (draw 2,916, 179 singles, before
		// do_not_retry was drawn here, so 4,500 draws, not 3,000; draw
		// 2,154, 124 singles, with a tool_timeout before server_error and
		// network_error were drawn;
		// refresh_context's witness was draw 656 with 30 kinds; see above)
		{copperfin.StatePrecondition, 4500, 4428, 263, []model.FaultEntry{
			{Event: model.EvToolCommit, Ordinal: 1, Kind: "state_version_change"},
			{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_before_send"}},
			model.InvCurrentEntitlement, "state_version_change", 24, model.EvToolCommit, model.ContainedFailure},
	}
	for _, tc := range cases {
		t.Run(string(tc.control), func(t *testing.T) {
			on, off := copperfin.ConfigOfControls(typed), copperfin.ConfigOfControls(typed.Without(tc.control))
			rep, err := explorePair(copperfin.Configured, on, off, 1, tc.draws)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Found || rep.Draws != tc.draw || rep.Singles != tc.singles || rep.Seed != 1 {
				t.Fatalf("found %t after %d draws, %d singles", rep.Found, rep.Draws, rep.Singles)
			}
			w := rep.Witness
			if diff := cmp.Diff(tc.faults, w.Off.Faults); diff != "" || w.Draw != tc.draw || w.Invariant != tc.invariant || w.FaultKind != tc.kind ||
				w.FirstSeq != tc.seq || w.Event != tc.event || w.OnVerdict != tc.onVerdict {
				t.Errorf("witness %s %s %d %s on %s (-want +got faults):\n%s", w.Invariant, w.FaultKind, w.FirstSeq, w.Event, w.OnVerdict, diff)
			}
			if ctl(w.Off.Config) != typed.Without(tc.control) || ctl(w.On.Config) != typed || len(w.Drawn.Faults) < 2 {
				t.Errorf("configs %s / %s, drawn %d faults", w.Off.Config, w.On.Config, len(w.Drawn.Faults))
			}
			// every fault is needed: neither shows the pair alone
			assertPairMinimal(t, w)
			// a pure function of its arguments
			again, err := explorePair(copperfin.Configured, on, off, 1, tc.draws)
			if err != nil || !cmp.Equal(rep, again) {
				t.Errorf("a second exploration differs: %v\n%s", err, cmp.Diff(rep, again))
			}
		})
	}
}

// TestExplorePairNone: with the pair's two sides equal nothing can be a
// witness; every draw is run and reported.
func TestExplorePairNone(t *testing.T) {
	cfg := copperfin.ConfigOfProfile(copperfin.ProfileTyped)
	rep, err := explorePair(copperfin.Configured, cfg, cfg, 5, 50)
	if err != nil || rep.Found || rep.Draws != 50 || rep.Singles != 0 || rep.Witness != nil {
		t.Fatalf("%+v %v", rep, err)
	}
}

// TestExplorePairBadOptions: options that do not apply to a pair, a
// composition bound below two and no draws are errors naming the problem.
func TestExplorePairBadOptions(t *testing.T) {
	cfg := copperfin.ConfigOfProfile(copperfin.ProfileTyped)
	for _, tc := range []struct {
		draws int
		opts  []properties.Option
		want  string
	}{
		{0, nil, "at least 1 draw"},
		{10, []properties.Option{properties.WithConfig(cfg)}, "WithConfig does not apply"},
		{10, []properties.Option{properties.WithFailDir(t.TempDir())}, "WithFailDir does not apply to a pair exploration"},
		{10, []properties.Option{properties.WithExhaustive()}, "WithExhaustive does not apply to a pair exploration"},
		{10, []properties.Option{properties.WithMaxFaults(1)}, "at least 2 faults"},
	} {
		if _, err := explorePair(copperfin.Configured, cfg, cfg, 1, tc.draws, tc.opts...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d draws %v: %v", tc.draws, tc.opts, err)
		}
	}
	bad := copperfin.Settings{Profile: "nope"}.Config()
	if _, err := explorePair(copperfin.Configured, bad, cfg, 1, 10); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown profile: %v", err)
	}
}
