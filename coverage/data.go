package coverage

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/faultline/faultline/model"
)

// Data is what a coverage file holds: the counts per key of the runs
// recorded, with the schedule that replays a visit and the
// counterexamples found under each key. Merge combines two Data; a
// Tracker fills one.
type Data struct {
	// Runs is the number of results recorded.
	Runs int
	// NotAdjudicated counts results that carried no oracle adjudication
	// (no invariant results or no claim); nothing in them was counted.
	NotAdjudicated int
	// Keys holds an entry per key a recorded fault was scheduled under.
	Keys map[Key]*Entry
	// Unattributed holds counterexamples whose violation no fired fault
	// with a key reached (none, or a world event), one per invariant.
	Unattributed []Counterexample
	// Systems holds, by system name, what each system's recorded runs
	// crossed and what it declares. A version-1 file has none: its runs
	// carry no crossings, and no key of it is reported never crossed.
	Systems map[string]*systemRecord
}

// Entry is one key's record.
type Entry struct {
	// Visits counts the scheduled faults of this key that reached their
	// boundary, fired and were adjudicated by the oracle.
	Visits int
	// NotReached counts scheduled faults of this key whose event
	// occurrence never happened ("scheduled, not reached").
	NotReached int
	// NotFired counts scheduled faults of this key whose event occurred
	// but whose disturbance had nothing to act on.
	NotFired int
	// Schedule is the smallest schedule (see scheduleLess) that visited
	// the key, so a visit replays; nil when Visits is 0.
	Schedule *model.Schedule
	// System names the system whose run Schedule is ("" when unknown, as
	// in a version-1 file).
	System string
	// Counterexamples are the invariant violations reached by a fault of
	// this key, one per invariant, in invariant-name order.
	Counterexamples []Counterexample
}

// Counterexample is an invariant violation found under a key: the
// invariant, how many recorded runs violated it there, and the smallest
// such schedule with where its run first broke the invariant.
type Counterexample struct {
	// Violation is the violated invariant, the timeline seq and event
	// after which it was first false in Schedule's run, and why; its
	// FaultID is not kept (empty: the key names the fault).
	model.Violation
	// Count is the number of recorded runs that violated Invariant under
	// the key (at least 1).
	Count int
	// Schedule is the smallest violating schedule (see scheduleLess); a
	// shrunk counterexample is smaller than the run it came from, so it
	// wins when recorded.
	Schedule *model.Schedule
	// System names the system whose run Schedule is ("" when unknown).
	System string
}

// Visited reports whether the entry has a visit.
func (e *Entry) Visited() bool { return e != nil && e.Visits > 0 }

// KeyCounts returns k's visits and its scheduled faults that were not
// tested (not reached or not fired). It implements Counter.
func (d *Data) KeyCounts(k Key) (visits, untested int) {
	if e := d.Keys[k]; e != nil {
		return e.Visits, e.NotReached + e.NotFired
	}
	return 0, 0
}

// scheduleLess is the total order that picks which schedule a key keeps,
// independent of the order runs were recorded or files merged: fewer
// faults first, then the faults in order by event, ordinal, kind, id,
// target, tool and modifier (correlation, repeat, until, window), then the config (profiles before control lists, then the
// profile or controls, the mutant, the retry budget and deadline overrides
// (unset first) and the join policy), then the seed. Two valid schedules
// are equal under it exactly when model.Format gives the same bytes.
func scheduleLess(a, b *model.Schedule) bool { return compareSchedules(a, b) < 0 }

func compareSchedules(a, b *model.Schedule) int {
	if c := cmp.Compare(len(a.Faults), len(b.Faults)); c != 0 {
		return c
	}
	for i := range a.Faults {
		x, y := a.Faults[i], b.Faults[i]
		if c := cmp.Or(cmp.Compare(x.Event, y.Event), cmp.Compare(x.Ordinal, y.Ordinal),
			cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.ID, y.ID), cmp.Compare(x.Target, y.Target), cmp.Compare(x.Tool, y.Tool),
			cmp.Compare(x.Correlation, y.Correlation), cmp.Compare(x.Repeat, y.Repeat), cmp.Compare(x.Until, y.Until), cmp.Compare(x.WindowMs, y.WindowMs)); c != 0 {
			return c
		}
	}
	ca, cb := a.Config, b.Config
	return cmp.Or(bytes.Compare(ca.SystemJSON(), cb.SystemJSON()), cmp.Compare(ca.Fixture, cb.Fixture),
		compareOptional(ca.RetryBudget, cb.RetryBudget), compareOptional(ca.Deadline, cb.Deadline), cmp.Compare(ca.Join, cb.Join),
		cmp.Compare(a.Seed, b.Seed), cmp.Compare(a.Version, b.Version))
}

// compareOptional orders an unset override before any set one, and set
// ones by value.
func compareOptional[T cmp.Ordered](a, b *T) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return cmp.Compare(*a, *b)
}

// cloneSchedule returns a deep copy of s (its faults and its config's
// override pointers included).
func cloneSchedule(s *model.Schedule) *model.Schedule {
	if s == nil {
		return nil
	}
	c := *s
	c.Faults = append([]model.FaultEntry{}, s.Faults...)
	c.Config.System = append([]byte(nil), s.Config.System...)
	if s.Config.RetryBudget != nil {
		v := *s.Config.RetryBudget
		c.Config.RetryBudget = &v
	}
	if s.Config.Deadline != nil {
		v := *s.Config.Deadline
		c.Config.Deadline = &v
	}
	return &c
}

// Clone returns a deep copy of d.
func (d *Data) Clone() *Data {
	out := &Data{Runs: d.Runs, NotAdjudicated: d.NotAdjudicated, Keys: make(map[Key]*Entry, len(d.Keys))}
	for k, e := range d.Keys {
		out.Keys[k] = e.clone()
	}
	out.Unattributed = cloneCounterexamples(d.Unattributed)
	if len(d.Systems) > 0 {
		out.Systems = make(map[string]*systemRecord, len(d.Systems))
		for n, r := range d.Systems {
			out.Systems[n] = r.clone()
		}
	}
	return out
}

func (e *Entry) clone() *Entry {
	c := *e
	c.Schedule = cloneSchedule(e.Schedule)
	c.Counterexamples = cloneCounterexamples(e.Counterexamples)
	return &c
}

func cloneCounterexamples(cs []Counterexample) []Counterexample {
	if len(cs) == 0 {
		return nil
	}
	out := make([]Counterexample, len(cs))
	for i, c := range cs {
		c.Schedule = cloneSchedule(c.Schedule)
		out[i] = c
	}
	// keep the list in invariant order even if a caller built it unsorted
	slices.SortStableFunc(out, func(a, b Counterexample) int { return cmp.Compare(a.Invariant, b.Invariant) })
	return out
}

// Merge returns the combination of a and b: counts add, each key keeps the
// smaller of the two schedules (equal ones the smaller system name), and
// counterexamples of one invariant under one key add their counts and keep
// the smaller schedule (with its seq, event, detail and system; equal
// schedules keep the smaller seq, event, detail, system). Each system's
// runs add, and its crossed events and not-applicable boundaries are
// united. Merge is associative and commutative, Merge(a, a) doubles every
// count of a and keeps every set, and merging the files of separate runs
// equals recording all their runs in one Tracker. Neither input is
// changed.
func Merge(a, b *Data) *Data {
	out := a.Clone()
	out.add(b)
	return out
}

// add merges b into d (b is not changed and not aliased).
func (d *Data) add(b *Data) {
	d.Runs += b.Runs
	d.NotAdjudicated += b.NotAdjudicated
	if d.Keys == nil {
		d.Keys = map[Key]*Entry{}
	}
	for k, be := range b.Keys {
		e := d.Keys[k]
		if e == nil {
			d.Keys[k] = be.clone()
			continue
		}
		e.Visits += be.Visits
		e.NotReached += be.NotReached
		e.NotFired += be.NotFired
		if be.Schedule != nil && (e.Schedule == nil ||
			cmp.Or(compareSchedules(be.Schedule, e.Schedule), cmp.Compare(be.System, e.System)) < 0) {
			e.Schedule, e.System = cloneSchedule(be.Schedule), be.System
		}
		for _, c := range be.Counterexamples {
			e.Counterexamples = addCounterexample(e.Counterexamples, c)
		}
	}
	for _, c := range b.Unattributed {
		d.Unattributed = addCounterexample(d.Unattributed, c)
	}
	for n, br := range b.Systems {
		if d.Systems == nil {
			d.Systems = map[string]*systemRecord{}
		}
		if r := d.Systems[n]; r != nil {
			r.add(br)
		} else {
			d.Systems[n] = br.clone()
		}
	}
}

// addCounterexample merges c into cs (kept sorted by invariant name).
func addCounterexample(cs []Counterexample, c Counterexample) []Counterexample {
	i, found := slices.BinarySearchFunc(cs, c.Invariant, func(x Counterexample, inv string) int { return cmp.Compare(x.Invariant, inv) })
	if !found {
		c.Schedule = cloneSchedule(c.Schedule)
		return slices.Insert(cs, i, c)
	}
	x := &cs[i]
	x.Count += c.Count
	if cmp.Or(compareSchedules(c.Schedule, x.Schedule), cmp.Compare(c.FirstSeq, x.FirstSeq),
		cmp.Compare(c.Event, x.Event), cmp.Compare(c.Detail, x.Detail), cmp.Compare(c.System, x.System)) < 0 {
		x.Schedule = cloneSchedule(c.Schedule)
		x.FirstSeq, x.Event, x.Detail, x.System = c.FirstSeq, c.Event, c.Detail, c.System
	}
	return cs
}
