// Package rerun holds the one comparison by which the doors (properties'
// model path and production code alike) find a rerun of one schedule
// nondeterministic.
package rerun

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/model"
)

// Diff returns nil when two runs of one schedule crossed the
// same events (event, ordinal, tool, task, fault, outcome and, when
// timed, logical time), or an error naming the first crossing that
// differs: the one comparison by which a door finds a rerun
// nondeterministic.
func Diff(a, b []model.Event, timed bool) error {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if !same(x, y) || timed && x.At != y.At {
			dx, dy := apart(x, y)
			if !timed {
				return fmt.Errorf("crossing %d was %s#%d (%s)%s, then %s#%d (%s)%s", i+1, x.Event, x.Ordinal, x.Outcome, dx, y.Event, y.Ordinal, y.Outcome, dy)
			}
			return fmt.Errorf("crossing %d was %s#%d (%s)%s at %d ms, then %s#%d (%s)%s at %d ms",
				i+1, x.Event, x.Ordinal, x.Outcome, dx, x.At, y.Event, y.Ordinal, y.Outcome, dy, y.At)
		}
	}
	if len(a) != len(b) {
		return fmt.Errorf("%d crossings, then %d", len(a), len(b))
	}
	return nil
}

// apart returns, for each of x and y, the task, tool and fault of the
// crossing where the two differ (" of task T", " tool U", " fault F"),
// when the two read alike by event, ordinal and outcome, so that they
// show what differs; empty otherwise and where they agree.
func apart(x, y model.Event) (string, string) {
	var dx, dy string
	if x.Event != y.Event || x.Ordinal != y.Ordinal || x.Outcome != y.Outcome {
		return "", ""
	}
	add := func(label, a, b string) {
		if a != b {
			dx += " " + label + " " + quoted(a)
			dy += " " + label + " " + quoted(b)
		}
	}
	add("of task", x.Task, y.Task)
	add("tool", x.Tool, y.Tool)
	add("fault", x.FaultID, y.FaultID)
	return dx, dy
}

// quoted is s, or "none" when s is empty.
func quoted(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// same reports whether x and y are the same crossing, times aside.
func same(x, y model.Event) bool {
	return x.Event == y.Event && x.Ordinal == y.Ordinal && x.Tool == y.Tool && x.Task == y.Task &&
		x.FaultID == y.FaultID && x.Outcome == y.Outcome
}

// Production compares a and b, two runs of s by production code in
// bubbles of their own. They are the same run when they crossed the same
// events with the same outcomes in the same order and reached the same
// verdict (the same invariants violated, each first false at the same
// crossing), whatever their logical times: it then returns the largest
// difference of one crossing's time between them (ms, 0 when none; see
// Note). Otherwise the error every door gives such a rerun names the
// first differing event or the verdicts and, when a crossing's time moved
// first, that crossing, its two times and global randomness as a likely
// cause.
func Production(s *model.Schedule, a, b *model.Result) (model.Millis, error) {
	ta, tb := a.Timeline.Events(), b.Timeline.Events()
	var spread model.Millis
	moved := -1 // the first crossing, of those both runs crossed alike, whose time differs
	for i := 0; i < len(ta) && i < len(tb) && same(ta[i], tb[i]); i++ {
		d := ta[i].At - tb[i].At
		if d < 0 {
			d = -d
		}
		if d > 0 && moved < 0 {
			moved = i
		}
		spread = max(spread, d)
	}
	why := differ(a, b)
	if why == "" {
		return spread, nil
	}
	cause := "production code must take every wait from the time package inside the bubble, use in-process transports, keep no state across runs, read no global randomness and start no goroutine that outlives the run"
	if moved >= 0 {
		x, y := ta[moved], tb[moved]
		cause = fmt.Sprintf("logical times moved first: crossing %d (%s#%d) was at %d ms, then at %d ms; global randomness (math/rand's global source, e.g. a jittered back-off) is a likely cause; %s",
			moved+1, x.Event, x.Ordinal, x.At, y.At, cause)
	}
	return 0, fmt.Errorf("nondeterministic replay: the same schedule (%s) %s; %s", Describe(s), why, cause)
}

// Model compares a and b, two runs of s on the model path, as the doors
// compare a rerun there: the same run when they crossed the same events
// with the same outcomes in the same order, times aside (Diff), and
// reached the same verdict (as Production, which cli's replay --twice
// shares). Otherwise the error names the first differing crossing, with
// each run's logical time there, or the verdicts.
func Model(s *model.Schedule, a, b *model.Result) error {
	why := differ(a, b)
	if why == "" {
		return nil
	}
	return fmt.Errorf("nondeterministic replay: the same schedule (%s) %s; the system must keep no state across runs and read no clock and no global randomness", Describe(s), why)
}

// differ says how two runs of one schedule differ (their events, times
// aside, then their verdicts), "" when they do not.
func differ(a, b *model.Result) string {
	ta, tb := a.Timeline.Events(), b.Timeline.Events()
	if err := Diff(ta, tb, false); err != nil {
		return "crossed different events in two runs: " + timedDiff(ta, tb)
	}
	if v := verdictDiff(a, b); v != "" {
		return "crossed the same events with the same outcomes in two runs but reached another verdict: " + v
	}
	return ""
}

// Describe names s by its seed and its faults' kinds and placements, as
// every nondeterminism message names the schedule it ran twice: seed "s",
// faults: none; or seed "s", faults: tool_timeout at tool.commit#2.
func Describe(s *model.Schedule) string {
	fs := []string{"none"}
	for i, f := range s.Faults {
		fs = append(fs[:i], f.Kind+" at "+f.Placement())
	}
	return fmt.Sprintf("seed %q, faults: %s", s.Seed, strings.Join(fs, ", "))
}

// timedDiff names the first crossing that differs, times aside, with the
// logical time of each run's crossing there.
func timedDiff(a, b []model.Event) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if x, y := a[i], b[i]; !same(x, y) {
			dx, dy := apart(x, y)
			return fmt.Sprintf("crossing %d was %s#%d (%s)%s at %d ms, then %s#%d (%s)%s at %d ms",
				i+1, x.Event, x.Ordinal, x.Outcome, dx, x.At, y.Event, y.Ordinal, y.Outcome, dy, y.At)
		}
	}
	return fmt.Sprintf("%d crossings, then %d", len(a), len(b))
}

// verdictDiff names the first invariant whose result differs between a
// and b (held in one run, or first false at another crossing), "" when
// none does.
func verdictDiff(a, b *model.Result) string {
	at := func(r *model.Result, name string) string {
		ir, ok := r.Invariant(name)
		switch {
		case !ok:
			return "not checked"
		case ir.Held:
			return "held"
		}
		return fmt.Sprintf("first false after crossing %d (%s)", ir.FirstSeq, ir.Event)
	}
	var names []string
	for _, r := range []*model.Result{a, b} {
		for _, ir := range r.Invariants {
			names = append(names, ir.Invariant)
		}
	}
	for _, n := range names {
		if x, y := at(a, n), at(b, n); x != y {
			return fmt.Sprintf("%s %s, then %s", n, x, y)
		}
	}
	return ""
}

// Note is what a report and a counterexample file say of a violation
// whose confirming rerun crossed the same events to the same verdict at
// other logical times, spread ms apart at most; "" for spread 0.
func Note(spread model.Millis) string {
	if spread <= 0 {
		return ""
	}
	return fmt.Sprintf("logical times vary between runs (global randomness, e.g. a jittered back-off): up to %d ms", spread)
}

// Hidden is what a door adds to Production's error when the first of the
// two runs broke an invariant: "; its first run broke INV after seq N
// (EVENT): an invariant was broken once and not alike on the rerun, so
// the system's nondeterminism hides a real violation" (the invariant
// first false); "" when a broke none.
func Hidden(a *model.Result) string {
	var first *model.InvariantResult
	for i, ir := range a.Invariants {
		if !ir.Held && (first == nil || ir.FirstSeq < first.FirstSeq) {
			first = &a.Invariants[i]
		}
	}
	if first == nil {
		return ""
	}
	return fmt.Sprintf("; its first run broke %s after seq %d (%s): an invariant was broken once and not alike on the rerun, so the system's nondeterminism hides a real violation",
		first.Invariant, first.FirstSeq, first.Event)
}
