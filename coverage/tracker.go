package coverage

import (
	"errors"
	"fmt"
	"sync"

	"github.com/faultline/faultline/model"
)

// Tracker records coverage from run results. It is safe for concurrent
// use: the assay's workers, parallel tests and fuzz workers may share one.
// What it keeps does not depend on the order results arrive (see
// ScheduleLess).
type Tracker struct {
	u  *Universe
	mu sync.Mutex
	d  Data
}

// NewTracker returns an empty tracker over universe u (nil means
// Default()).
func NewTracker(u *Universe) *Tracker {
	if u == nil {
		u = Default()
	}
	return &Tracker{u: u, d: Data{Keys: map[Key]*Entry{}}}
}

// Universe returns the tracker's universe.
func (t *Tracker) Universe() *Universe { return t.u }

// Record counts one run. For each scheduled fault, by its kind's key:
//
//   - reached its event and fired, in a run the oracle adjudicated (it has
//     invariant results and a claim): a visit; the key keeps the smaller of
//     its schedule and res.Schedule;
//   - its event occurrence never happened: "scheduled, not reached";
//   - reached but did not fire: "reached, not fired".
//
// Each violated invariant becomes a counterexample under the key of the
// fault the oracle says reached it (InvariantResult.FaultID), or an
// unattributed one when no fired fault did. A result without adjudication
// counts only in Data.NotAdjudicated. Record returns an error, and counts
// nothing, for a nil result, a result without a schedule, a fault kind the
// universe does not know, or a fault report whose oracle differs from its
// kind's spec. The schedule is copied when kept; the result is not
// retained. Record has the shape of assay.Config.Observe.
func (t *Tracker) Record(res *model.Result) error {
	if res == nil {
		return errors.New("coverage: record: nil result")
	}
	if res.Schedule == nil {
		return errors.New("coverage: record: the result has no schedule")
	}
	keys := make([]Key, len(res.Faults))
	for i, f := range res.Faults {
		k, ok := t.u.KindKey(f.Kind)
		if !ok {
			return fmt.Errorf("coverage: record: fault %s: kind %q is not in the coverage universe's catalogue", f.ID, f.Kind)
		}
		if f.Oracle != k.Oracle {
			return fmt.Errorf("coverage: record: fault %s (%s) reports oracle %q, but its spec names %q", f.ID, f.Kind, f.Oracle, k.Oracle)
		}
		keys[i] = k
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	d := &t.d
	d.Runs++
	if len(res.Invariants) == 0 || len(res.Claims) == 0 {
		d.NotAdjudicated++
		return nil
	}
	visited := make([]bool, len(res.Faults))
	for i, f := range res.Faults {
		e := d.Keys[keys[i]]
		if e == nil {
			e = &Entry{}
			d.Keys[keys[i]] = e
		}
		switch {
		case !f.Reached:
			e.NotReached++
		case f.Fired == 0:
			e.NotFired++
		default:
			visited[i] = true
			e.Visits++
			if e.Schedule == nil || ScheduleLess(res.Schedule, e.Schedule) {
				e.Schedule = cloneSchedule(res.Schedule)
			}
		}
	}
	for _, inv := range res.Invariants {
		if inv.Held {
			continue
		}
		c := Counterexample{Invariant: inv.Name, Count: 1, Schedule: res.Schedule,
			FirstSeq: inv.FirstSeq, Event: inv.Event, Detail: inv.Detail}
		at := -1
		for i, f := range res.Faults {
			if inv.FaultID != "" && f.ID == inv.FaultID && visited[i] {
				at = i
			}
		}
		if at < 0 {
			d.Unattributed = addCounterexample(d.Unattributed, c)
			continue
		}
		e := d.Keys[keys[at]]
		e.Counterexamples = addCounterexample(e.Counterexamples, c)
	}
	return nil
}

// Add merges d into the tracker (as Merge does).
func (t *Tracker) Add(d *Data) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.d.add(d)
}

// Data returns a copy of what the tracker has recorded.
func (t *Tracker) Data() *Data {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.d.Clone()
}

// KeyCounts returns k's visits and its scheduled faults that were not
// tested (not reached or not fired). It implements Counter, so a Guide can
// read a live tracker.
func (t *Tracker) KeyCounts(k Key) (visits, untested int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.d.KeyCounts(k)
}

// FlushTo merges what the tracker has recorded into the coverage file at
// path (see MergeIntoFile: created when missing, locked against other
// processes, written atomically) and empties the tracker, so calling it
// again never counts a run twice. On error the tracker keeps its data.
func (t *Tracker) FlushTo(path string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := MergeIntoFile(path, &t.d); err != nil {
		return err
	}
	t.d = Data{Keys: map[Key]*Entry{}}
	return nil
}

// Main runs a test binary's tests and, when path is not empty, flushes t
// to the coverage file at path; it returns the exit code for os.Exit (the
// tests' code, or 1 when they passed but the flush failed, with the error
// on standard error). A TestMain records coverage in one line:
//
//	func TestMain(m *testing.M) { os.Exit(coverage.Main(m, os.Getenv("FAULTLINE_COVERAGE"), tracker)) }
func Main(m interface{ Run() int }, path string, t *Tracker) int {
	code := m.Run()
	if path == "" {
		return code
	}
	if err := t.FlushTo(path); err != nil {
		fmt.Fprintln(stderr, "coverage:", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}
