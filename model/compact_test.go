package model_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// checkTimelineReaders fails t unless the per-event readers of tl (Len,
// Name, Ordinal, Task, Detail) agree with its built Events, and a second
// Events returns the same slice.
func checkTimelineReaders(t *testing.T, what string, tl model.Timeline) {
	t.Helper()
	evs := tl.Events()
	if tl.Len() != len(evs) {
		t.Fatalf("%s: Len %d, %d events", what, tl.Len(), len(evs))
	}
	for i, e := range evs {
		if e.Seq != i+1 || tl.Name(i) != e.Event || tl.Ordinal(i) != e.Ordinal || tl.Task(i) != e.Task || tl.Detail(i) != e.Detail {
			t.Fatalf("%s: event %d %+v, readers say %s#%d task %q detail %q", what, i, e, tl.Name(i), tl.Ordinal(i), tl.Task(i), tl.Detail(i))
		}
	}
	if again := tl.Events(); len(evs) > 0 && &again[0] != &evs[0] {
		t.Fatalf("%s: a second Events built the events again", what)
	}
}

// TestTimelineReadersAgree: on every catalogue kind and world event under
// every profile, the readers of the compact record give what the built
// events say.
func TestTimelineReadersAgree(t *testing.T) {
	h := model.NewHarness(copperfin.Copperfin(), model.Options{})
	n := 0
	for _, spec := range append(model.Catalogue(), model.WorldEvents()...) {
		for _, p := range copperfin.Profiles {
			s, err := model.SingleFault(spec.Kind, copperfin.ConfigOfProfile(p))
			if err != nil {
				t.Fatal(err)
			}
			cs, _ := copperfin.ControlsOf(s.Config)
			res, err := h.Run(copperfin.Factory(cs), s)
			if err != nil {
				t.Fatal(err)
			}
			checkTimelineReaders(t, spec.Kind+"/"+string(p), res.Timeline)
			n++
		}
	}
	if n != (len(model.Catalogue())+len(model.WorldEvents()))*3 {
		t.Fatalf("%d runs", n)
	}
}

// TestTimelineKeepsWideValues: numbers past what the compact record holds
// (a deadline of 2^40 ms, a retry budget of 2^33) reach the events
// exactly.
func TestTimelineKeepsWideValues(t *testing.T) {
	const deadline, budget = model.Millis(1) << 40, 1 << 33
	h := model.NewHarness(copperfin.Copperfin(), model.Options{Deadline: deadline, RetryBudget: budget})
	factory, s := benchSchedule(t)
	res, err := h.Run(factory, s)
	if err != nil {
		t.Fatal(err)
	}
	evs := res.Timeline.Events()
	if len(evs) != 27 {
		t.Fatalf("%d events, want 27", len(evs))
	}
	for _, e := range evs {
		if e.DeadlineRemainingMs != deadline-e.At || e.RetryRemaining != budget-max(e.Attempt-1, 0) {
			t.Fatalf("event %d: deadline remaining %d at %d, retry remaining %d at attempt %d", e.Seq, e.DeadlineRemainingMs, e.At, e.RetryRemaining, e.Attempt)
		}
	}
	checkTimelineReaders(t, "wide", res.Timeline)
	// the same run under the default budget and deadline differs in
	// those two fields alone
	plain, err := model.NewHarness(copperfin.Copperfin(), model.Options{}).Run(factory, s)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range plain.Timeline.Events() {
		w := evs[i]
		w.DeadlineRemainingMs, w.RetryRemaining = e.DeadlineRemainingMs, e.RetryRemaining
		if w != e {
			t.Fatalf("event %d: %+v under wide options, %+v under the defaults", i+1, evs[i], e)
		}
	}
}

// TestTimelineJSON: a Timeline encodes as its events, the zero Timeline
// as null and an empty one as []; HTML escaping is the encoder's choice,
// as for the events themselves; decoding gives the events back.
func TestTimelineJSON(t *testing.T) {
	evs := []model.Event{{RunID: "run-1", Seq: 1, Event: model.EvClaim, Detail: "a <b> & c"}}
	type wrap struct {
		T model.Timeline `json:"timeline"`
		E []model.Event  `json:"events"`
	}
	for _, escape := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(escape)
		enc.SetIndent("", "  ")
		if err := enc.Encode(wrap{model.TimelineOf(evs), evs}); err != nil {
			t.Fatal(err)
		}
		var back struct {
			T json.RawMessage `json:"timeline"`
			E json.RawMessage `json:"events"`
		}
		if err := json.Unmarshal(b.Bytes(), &back); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back.T, back.E) || bytes.Contains(back.T, []byte("<b>")) != !escape {
			t.Fatalf("escape %v: timeline %s, events %s", escape, back.T, back.E)
		}
	}
	for _, c := range []struct {
		tl   model.Timeline
		want string
	}{{model.Timeline{}, "null"}, {model.TimelineOf(nil), "null"}, {model.TimelineOf([]model.Event{}), "[]"}} {
		if b, err := json.Marshal(c.tl); err != nil || string(b) != c.want {
			t.Fatalf("%v: %s, %v; want %s", c.tl, b, err, c.want)
		}
	}
	var tl model.Timeline
	if err := json.Unmarshal([]byte(`[{"seq":1,"event":"context.order","ordinal":1}]`), &tl); err != nil {
		t.Fatal(err)
	}
	if tl.Len() != 1 || tl.Name(0) != model.EvContextSubject || tl.Events()[0].Ordinal != 1 {
		t.Fatalf("decoded %+v", tl.Events())
	}
	if err := json.Unmarshal([]byte(`{"seq":1}`), &tl); err == nil {
		t.Fatal("an object decoded as a timeline")
	}
}

// TestTimelineReadConcurrently: goroutines reading one run's timeline all
// get the one built slice (the race detector checks the build).
func TestTimelineReadConcurrently(t *testing.T) {
	factory, s := benchSchedule(t)
	res, err := model.NewHarness(copperfin.Copperfin(), model.Options{}).Run(factory, s)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([][]model.Event, 4)
	for i := range got {
		wg.Go(func() { got[i] = res.Timeline.Events() })
	}
	wg.Wait()
	for _, g := range got[1:] {
		if len(g) != 27 || &g[0] != &got[0][0] {
			t.Fatalf("%d events, built apart", len(g))
		}
	}
}

// TestEvidenceRefAfterAWorldEvent: a world event armed at an evidence
// crossing is recorded right after it, before the ledger's reference is
// set, so the reference lands on the world event (the last recorded), as
// it always has; the world event's outcome has no code in the compact
// record, which then keeps that event whole.
func TestEvidenceRefAfterAWorldEvent(t *testing.T) {
	factory, s := benchSchedule(t)
	s.Faults = []model.FaultEntry{{Event: model.EvEvidenceDecision, Ordinal: 1, Kind: "clock_advance"}}
	res, err := model.NewHarness(copperfin.Copperfin(), model.Options{}).Run(factory, s)
	if err != nil {
		t.Fatal(err)
	}
	evs := res.Timeline.Events()
	i := slices.IndexFunc(evs, func(e model.Event) bool { return e.Event == model.EvWorld })
	if i < 1 || evs[i-1].Event != model.EvEvidenceDecision || evs[i-1].EvidenceRef != "" ||
		evs[i].EvidenceRef != "ev-1" || evs[i].Outcome != "clock_advance" || evs[i].FaultID != "f1" || evs[i].Actor != "world" || evs[i].Seq != i+1 {
		t.Fatalf("world event at %d: %+v after %+v", i, evs[max(i, 1)], evs[max(i, 1)-1])
	}
	checkTimelineReaders(t, "world after evidence", res.Timeline)
}
