package fuzz

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/faultline/faultline/model"
)

// shrinkWalkRuns is the most runs the walk step of shrinking makes
// (docs/fuzzing.md, "Shrinking").
const shrinkWalkRuns = 2000

// shrunk is what shrinking made of a violating schedule: the schedule and
// its run, and the runs each step made.
type shrunk struct {
	schedule           *model.Schedule
	result             *model.Result
	removal, walkRuns  int
	left               int // the faults removal left
	walkCut, walkFound bool
}

// shrink returns a smallest schedule it can find that violates the same
// invariants as s (whose run res violated them), and its run: removal
// drops faults one at a time and, outside scopeDesigned, lowers ordinals,
// until no change keeps the violation (1-minimal); then walkShrink runs
// the schedules of fewer faults in the walk's order (docs/fuzzing.md,
// "Shrinking"), at most shrinkWalkRuns runs. It is deterministic. It
// returns an error when res violates no invariant.
func (d *Decoder) shrink(s *model.Schedule, res *model.Result) (*shrunk, error) {
	if res == nil || res.Held() {
		return nil, errors.New("fuzz: shrink: the schedule violates no invariant")
	}
	want := violatedSet(res)
	out := &shrunk{schedule: cloneSchedule(s), result: res}
	try := func(c *model.Schedule) bool {
		out.removal++
		r, err := d.run(c)
		if err != nil || violatedSet(r) != want {
			return false
		}
		out.schedule, out.result = c, r
		return true
	}
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(out.schedule.Faults); i++ {
			c := cloneSchedule(out.schedule)
			c.Faults = append(c.Faults[:i], c.Faults[i+1:]...)
			if try(c) {
				changed = true
				i--
			}
		}
		if d.scope == scopeDesigned {
			continue
		}
		for i := range out.schedule.Faults {
			for out.schedule.Faults[i].Ordinal > 1 {
				c := cloneSchedule(out.schedule)
				c.Faults[i].Ordinal--
				if !try(c) {
					break
				}
				changed = true
			}
		}
	}
	out.left = len(out.schedule.Faults)
	d.walkShrink(out, want)
	return out, nil
}

// walkShrink is shrink's walk step over out's schedule's faults: first
// over the faults left alone, then over them and every kind of the
// decoder's scope, at most shrinkWalkRuns runs in all.
func (d *Decoder) walkShrink(out *shrunk, want string) {
	var left []model.FaultEntry
	for _, f := range out.schedule.Faults {
		f.ID, f.Event, f.Ordinal = "", "", 0
		if !slices.Contains(left, f) {
			left = append(left, f)
		}
	}
	all := slices.Clone(left)
	for _, sp := range d.specs() {
		if t := (model.FaultEntry{Kind: sp.Kind}); !slices.Contains(all, t) {
			all = append(all, t)
		}
	}
	for _, tpls := range [][]model.FaultEntry{left, all} {
		if len(out.schedule.Faults) < 2 || out.walkCut {
			return
		}
		d.walkOver(out, want, tpls, left)
	}
}

// walkOver runs the walk of the schedules of fewer faults than out's made
// of tpls (faults without their places), smallest first; it keeps the
// first that violates want and holds a fault of left (one like a fault the
// input kept: a smaller schedule of other faults alone may be another bug
// that breaks the same invariant).
func (d *Decoder) walkOver(out *shrunk, want string, tpls, left []model.FaultEntry) {
	n := len(out.schedule.Faults)
	tpls = slices.Clone(tpls)
	slices.SortStableFunc(tpls, func(a, b model.FaultEntry) int { return cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind)) })
	events := make([][]model.EventName, len(tpls))
	for i, t := range tpls {
		events[i] = d.walkEvents(t, out.schedule.Faults)
	}
	level := [][]model.FaultEntry{{}}
	for size := 0; size < n; size++ {
		var next [][]model.FaultEntry
		seen := map[string]bool{}
		for _, fs := range level {
			keeps := slices.ContainsFunc(fs, func(f model.FaultEntry) bool {
				f.Event, f.Ordinal = "", 0
				return slices.Contains(left, f)
			})
			if size == n-1 && !keeps {
				continue // nothing to find, nothing to extend
			}
			if out.walkRuns >= shrinkWalkRuns {
				out.walkCut = true
				return
			}
			s := cloneSchedule(out.schedule)
			s.Faults = fs
			out.walkRuns++
			r, err := d.run(s)
			if err != nil {
				continue
			}
			if size > 0 && keeps && violatedSet(r) == want {
				out.schedule, out.result, out.walkFound = s, r, true
				return
			}
			if size == n-1 || !r.Held() {
				continue
			}
			counts := crossingCounts(r)
			for ti, t := range tpls {
				for _, ev := range events[ti] {
					for o := 1; o <= counts[ev]; o++ {
						f := t
						f.Event, f.Ordinal = ev, o
						c := canonicalFaults(append(slices.Clone(fs), f))
						if k := fmt.Sprint(c); !seen[k] {
							seen[k] = true
							next = append(next, c)
						}
					}
				}
			}
		}
		level = next
	}
}

// walkEvents are the events the walk step places t at: every event the
// kind fits in scopeAnywhere, else its own event and the events the faults
// of fs like it sat at.
func (d *Decoder) walkEvents(t model.FaultEntry, fs []model.FaultEntry) []model.EventName {
	var out []model.EventName
	sp, _ := model.Spec(t.Kind)
	for _, ev := range allEvents {
		own := sp.Event == ev
		for _, f := range fs {
			g := f
			g.ID, g.Event, g.Ordinal = "", "", 0
			own = own || g == t && f.Event == ev
		}
		// worker.start: a worker-scoped kind's own (nothing else acts there)
		wide := d.scope == scopeAnywhere && fits(d.config, t.Kind, ev) && (ev != model.EvWorkerStart || sp.WorkerScoped)
		if own || wide {
			out = append(out, ev)
		}
	}
	return out
}

// crossingCounts is how often res's run crossed each event.
func crossingCounts(res *model.Result) map[model.EventName]int {
	out := model.Crossings(res)
	tl := res.Timeline
	for i := range tl.Len() {
		if tl.Name(i) == model.EvWorkerStart {
			out[model.EvWorkerStart] = max(out[model.EvWorkerStart], tl.Ordinal(i))
		}
	}
	return out
}

// canonicalFaults returns fs in one order for every order of the same
// faults when no two of them can act at one crossing (by event, ordinal
// and kind order), else fs as it is: the order of faults that meet is the
// order they compose in.
func canonicalFaults(fs []model.FaultEntry) []model.FaultEntry {
	for i := range fs {
		for j := i + 1; j < len(fs); j++ {
			if fs[i].Event == fs[j].Event && (fs[i].Ordinal == fs[j].Ordinal || fs[i].Correlation != "" || fs[j].Correlation != "") {
				return fs
			}
		}
	}
	slices.SortStableFunc(fs, func(a, b model.FaultEntry) int {
		return cmp.Or(cmp.Compare(slices.Index(allEvents, a.Event), slices.Index(allEvents, b.Event)),
			cmp.Compare(a.Ordinal, b.Ordinal), cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind)))
	})
	return fs
}

// kindOrder is a kind's place in the order the decoder's sites list kinds.
func kindOrder(kind string) int {
	for i, sp := range kindSpecs(model.Config{Notices: true}, &model.Fixture{Fleet: &model.Fleet{}}) {
		if sp.Kind == kind {
			return i
		}
	}
	return len(model.Catalogue()) + 1000
}

// String says what shrinking ran: "removal 3 runs, 3 faults left; walk
// 269 runs, found 2 faults" (or "nothing smaller", or "cut at 2000
// runs").
func (s *shrunk) String() string {
	word := "faults"
	if s.left == 1 {
		word = "fault"
	}
	out := fmt.Sprintf("removal %d runs, %d %s left", s.removal, s.left, word)
	switch {
	case s.walkRuns == 0:
		return out
	case s.walkFound:
		return out + fmt.Sprintf("; walk %d runs, found %d faults", s.walkRuns, len(s.schedule.Faults))
	case s.walkCut:
		return out + fmt.Sprintf("; walk cut at %d runs", s.walkRuns)
	}
	return out + fmt.Sprintf("; walk %d runs, nothing smaller", s.walkRuns)
}
