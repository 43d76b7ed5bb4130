package properties

import (
	"slices"
	"testing"

	"github.com/faultline/faultline/model"
)

// codeOf is the walk's code of kind.
func codeOf(t *testing.T, kind string) byte {
	t.Helper()
	i := slices.IndexFunc(walkKinds, func(s model.FaultSpec) bool { return s.Kind == kind })
	if i < 0 {
		t.Fatalf("no kind %s", kind)
	}
	return byte(i)
}

// TestCanonicalOrder: faults at crossings that cannot coincide commute
// (every order has one canonical form); two at one crossing, or a
// persistent fault and one at a later ordinal of its event, keep their
// order (each order is its own schedule); the key round-trips.
func TestCanonicalOrder(t *testing.T) {
	w := &walkState{byCode: make([]*exKind, len(walkKinds))}
	for i, sp := range walkKinds {
		w.byCode[i] = &exKind{code: byte(i), kind: sp.Kind, persistent: sp.Correlation == model.Correlation("persistent")}
	}
	commit, proposal := byte(eventIndex[model.EvToolCommit]), byte(eventIndex[model.EvProposal])
	at := func(kind string, ev byte, ord int) placed {
		return placed{kind: codeOf(t, kind), event: ev, ordinal: ord}
	}
	timeout1, timeout2 := at("tool_timeout", commit, 1), at("tool_timeout", commit, 2)
	swap := at("subject_swap", proposal, 1)
	budget1, budget2 := at("budget_exhaustion", commit, 1), at("budget_exhaustion", commit, 2)
	lost := placed{kind: codeOf(t, "memory_loss"), event: byte(eventIndex[model.EvMemoryRead]), ordinal: 1, target: "approval"}
	same := func(a, b []placed) bool { return key(w.canonical(a)) == key(w.canonical(b)) }
	for _, c := range []struct {
		a, b []placed
		want bool
	}{
		{[]placed{timeout2, swap}, []placed{swap, timeout2}, true},                   // different events
		{[]placed{timeout2, timeout1}, []placed{timeout1, timeout2}, true},           // one event, different ordinals
		{[]placed{timeout1, lost, swap}, []placed{swap, timeout1, lost}, true},       // three independent
		{[]placed{timeout1, swap}, []placed{swap, timeout1}, true},                   // ...
		{[]placed{timeout1, budget1}, []placed{budget1, timeout1}, false},            // one crossing
		{[]placed{timeout2, budget1}, []placed{budget1, timeout2}, false},            // budget persists to #2
		{[]placed{timeout1, budget2}, []placed{budget2, timeout1}, true},             // #1 is before budget
		{[]placed{budget1, swap, timeout2}, []placed{swap, budget1, timeout2}, true}, // the swap commutes with both
	} {
		if got := same(c.a, c.b); got != c.want {
			t.Errorf("%v and %v: the same schedule %t, want %t", c.a, c.b, got, c.want)
		}
	}
	if got := w.canonical([]placed{timeout2, swap, timeout1}); !slices.Equal(got, []placed{swap, timeout1, timeout2}) {
		t.Errorf("canonical order %v", got)
	}
	if got := w.canonical([]placed{timeout2, budget1, swap}); !slices.Equal(got, []placed{swap, timeout2, budget1}) {
		t.Errorf("canonical order keeping a persistent fault after the fault it meets: %v", got)
	}
	fs := []placed{lost, timeout2, {kind: 0, event: 3, ordinal: 300, target: "x"}}
	if got := unkey(key(fs)); !slices.Equal(got, fs) {
		t.Errorf("key round trip: %v", got)
	}
}

// TestClockTargets: a clock advance is placed at the default and at each
// timing boundary once, ascending: a deadline of the default's length is
// the default, an expiry already past (0 or less) is none, two equal
// expiries are one, a boundary past MaxClockAdvance is placed as
// MaxClockAdvance, and the config's deadline overrides the options'.
func TestClockTargets(t *testing.T) {
	fx := model.Fixture{Capabilities: []model.Capability{{Expiry: 7000}, {Expiry: 0}, {Expiry: -5}, {Expiry: 7000}, {Expiry: model.MaxClockAdvance + 10}}}
	longest := model.MaxClockAdvance
	for _, c := range []struct {
		cfg  model.Config
		opts model.Options
		want []model.Millis
	}{
		{model.Config{}, model.Options{}, []model.Millis{1000, 2000, 7000, longest}},
		{model.Config{}, model.Options{Deadline: 1000}, []model.Millis{1000, 7000, longest}},
		{model.Config{Deadline: ptr(model.Millis(3333))}, model.Options{Deadline: 4444}, []model.Millis{1000, 3333, 7000, longest}},
		{model.Config{}, model.Options{Deadline: 9000}, []model.Millis{1000, 7000, 9000, longest}},
	} {
		if got := clockTargets(c.cfg, c.opts, fx); !slices.Equal(got, c.want) {
			t.Errorf("%+v, %+v: %v, want %v", c.cfg.Deadline, c.opts.Deadline, got, c.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
