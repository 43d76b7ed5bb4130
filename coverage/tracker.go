package coverage

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
	"syscall"

	"github.com/faultline/faultline/internal/catalog"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/model"
)

// Tracker records coverage from run results. It is safe for concurrent
// use: the assay's workers, parallel tests and fuzz workers may share one.
// What it keeps does not depend on the order results arrive (see
// scheduleLess).
type Tracker struct {
	u    *Universe
	name string
	// the system's declarations: NotApplicable and Replay
	decl systemRecord
	mu   sync.Mutex
	d    Data
	// names and events are the invariant and event names Record has
	// checked already
	names  map[string]bool
	events map[model.EventName]bool
	// fixture looks up a run's fixture (def.Fixture); fixtures caches it
	// by name, and drawable are the universe's kinds of
	// model.CacheAndWorkerKinds, drawn by workload (catalog.DrawnByDefault)
	fixture  func(string) (model.Fixture, error)
	fixtures map[string]*model.Fixture
	drawable []model.FaultSpec
}

// NewTracker returns an empty tracker over universe u (nil means
// Default()) that records runs of the system def describes: each run
// counts under def.Name with the events it crossed, and def's
// NotApplicable boundaries and ReplayCommand go into the coverage file.
// Each run's fixture (def.Fixture) tells which kinds outside the
// catalogue the default search draws there (catalog.DrawnByDefault). An error names a nil def, a name that
// breaks CheckInvariantName's rule, a boundary that is not one of
// model.AllBoundaries or is listed twice, or an invalid ReplayCommand
// (one %s, where the schedule file's path goes).
func NewTracker(u *Universe, def *model.Definition) (*Tracker, error) {
	if u == nil {
		u = Default()
	}
	if err := checkDefinition(u, def); err != nil {
		return nil, err
	}
	enacts := catalog.Enacts(def) // with the kinds the harness enacts on every path
	return &Tracker{u: u, name: def.Name, decl: systemRecord{NotApplicable: union(nil, def.NotApplicable), Replay: def.ReplayCommand,
		Enacts: enacts, NotApplicableKeys: maps.Clone(def.NotApplicableKeys)},
		d: Data{Keys: map[Key]*Entry{}}, fixture: def.Fixture, fixtures: map[string]*model.Fixture{},
		drawable: slices.DeleteFunc(model.CacheAndWorkerKinds(), func(sp model.FaultSpec) bool { _, ok := u.KindKey(sp.Kind); return !ok })}, nil
}

// Universe returns the tracker's universe.
func (t *Tracker) Universe() *Universe { return t.u }

// Record counts one run under the tracker's system: each scheduled fault
// by its kind's key as a visit (reached, fired, adjudicated), "scheduled,
// not reached" or "reached, not fired"; the events its timeline crossed;
// each violated invariant as a counterexample under the key of the fault
// that reached it, or unattributed. A model kind outside the universe's
// catalogue (server_error, ...) counts under its spec's key, reported
// outside the catalogue when no catalogue kind has it. World events and
// notice kinds outside the universe are skipped. It returns an error, and
// counts nothing, for a result a file could not hold (docs/coverage.md,
// "The Go API", lists them). It has the shape of assay.Config.Observe.
func (t *Tracker) Record(res *model.Result) error {
	if res == nil {
		return errors.New("coverage: record: nil result")
	}
	if res.Schedule == nil {
		return errors.New("coverage: record: the result has no schedule")
	}
	// a run schedules a few faults: their keys on the stack
	var kb [4]Key
	var kd [4]bool
	n := len(res.Faults)
	keys, keyed := kb[:min(n, len(kb))], kd[:min(n, len(kd))]
	if n > len(kb) {
		keys, keyed = make([]Key, n), make([]bool, n)
	}
	for i, f := range res.Faults {
		k, ok := t.u.KindKey(f.Kind)
		if !ok && (worldEvent[f.Kind] || noticeKind[f.Kind]) {
			continue
		}
		switch {
		case !ok:
			// a kind outside the universe's catalogue (server_error,
			// forked_run, ...): its spec's key, which the universe's
			// figures leave out when no kind of it has the key
			sp, err := model.Spec(f.Kind)
			if err != nil {
				return fmt.Errorf("coverage: record: fault %s: kind %q is not in the coverage universe, nor a kind of the model", f.ID, f.Kind)
			}
			k = keyOf(sp)
			if f.Correlation != "" && f.Correlation != k.Correlation {
				if !slices.Contains(sp.Correlations, f.Correlation) {
					return fmt.Errorf("coverage: record: fault %s: kind %q does not take the correlation %q", f.ID, f.Kind, f.Correlation)
				}
				k.Correlation = f.Correlation
			}
		case f.Correlation != "":
			if k, ok = t.u.kindKeyOf(f.Kind, f.Correlation); !ok {
				return fmt.Errorf("coverage: record: fault %s: kind %q under correlation %q has no key in the coverage universe", f.ID, f.Kind, f.Correlation)
			}
		}
		if f.Oracle != k.Oracle {
			return fmt.Errorf("coverage: record: fault %s (%s) reports oracle %q, but its spec names %q", f.ID, f.Kind, f.Oracle, k.Oracle)
		}
		keys[i], keyed[i] = k, true
	}
	// the names crossed, each once (a run crosses a few names many times)
	var cb [24]model.EventName
	crossed := cb[:0]
	tl := res.Timeline
	for i := range tl.Len() {
		if n := tl.Name(i); !slices.Contains(crossed, n) {
			crossed = append(crossed, n)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	// each name is checked once in the tracker's life (a walk records
	// thousands of runs of the same few names), before anything counts
	if t.names == nil {
		t.names, t.events = map[string]bool{}, map[model.EventName]bool{}
	}
	for _, inv := range res.Invariants {
		if !t.names[inv.Invariant] {
			if err := CheckInvariantName(inv.Invariant); err != nil {
				return fmt.Errorf("coverage: record: %w", err)
			}
			t.names[inv.Invariant] = true
		}
	}
	for _, ev := range crossed {
		if !t.events[ev] {
			if err := checkEventName(ev); err != nil {
				return fmt.Errorf("coverage: record: timeline: %w", err)
			}
			t.events[ev] = true
		}
	}
	d := &t.d
	d.Runs++
	if d.Systems == nil {
		d.Systems = map[string]*systemRecord{}
	}
	sr := d.Systems[t.name]
	undrawn := t.undrawn(res)
	if sr == nil {
		sr = t.decl.clone()
		sr.Undrawn = undrawn
		d.Systems[t.name] = sr
	} else if len(sr.Undrawn) > 0 {
		sr.Undrawn = intersect(sr.Undrawn, undrawn)
	}
	sr.Runs++
	if c := res.Schedule.Config.Concurrency; c != nil && c.Workers >= 2 {
		sr.Concurrent++
	}
	if res.Timeline.Len() > 0 {
		sr.Traced++
		if !subset(crossed, sr.Crossed) {
			sr.Crossed = union(sr.Crossed, crossed) // sorted
		}
	}
	if len(res.Invariants) == 0 || len(res.Claims) == 0 {
		d.NotAdjudicated++
		return nil
	}
	visited := make([]bool, len(res.Faults))
	for i, f := range res.Faults {
		if !keyed[i] {
			continue
		}
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
			if e.Schedule == nil || cmp.Or(compareSchedules(res.Schedule, e.Schedule), cmp.Compare(t.name, e.System)) < 0 {
				e.Schedule, e.System = cloneSchedule(res.Schedule), t.name
			}
		}
	}
	for _, inv := range res.Invariants {
		if inv.Held {
			continue
		}
		v := inv.Violation
		v.FaultID = ""
		c := Counterexample{Violation: v, Count: 1, Schedule: res.Schedule, System: t.name}
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

// noticeKind holds the kinds of model.NoticeKinds, which a universe
// without them (Default) skips as it skips world events.
var noticeKind = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range model.NoticeKinds() {
		m[s.Kind] = true
	}
	return m
}()

// worldEvent holds the kinds of model.WorldEvents.
var worldEvent = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range model.WorldEvents() {
		m[s.Kind] = true
	}
	return m
}()

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

// TB is what FlushAfter needs of a *testing.T, *testing.B or *testing.F.
type TB interface {
	Helper()
	Cleanup(func())
	Errorf(format string, args ...any)
}

// flushClass names the class of a failed flush as the exit-code table
// does: an operating-system error is I/O (exit 4); a file that does not
// read or was recorded under another declaration of the system is bad
// input (exit 2).
func flushClass(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) && !errors.Is(err, fileio.ErrBadInput) {
		return "exit 4, an I/O or internal error"
	}
	return "exit 2, bad input"
}

// FlushAfter flushes the tracker into the coverage file at path when tb
// and its subtests end (tb.Cleanup), and fails tb when the flush fails,
// with the runs not recorded, the cause and its class (exit 4, an I/O
// error, or exit 2, bad input); a flush error is never dropped. It
// is the per-test form of Main; an empty path records nothing.
func (t *Tracker) FlushAfter(tb TB, path string) {
	tb.Helper()
	if path == "" {
		return
	}
	tb.Cleanup(func() {
		n := t.Data().Runs
		if err := t.FlushTo(path); err != nil {
			tb.Errorf("coverage: %s not recorded (%s): %v", runs(n), flushClass(err), err)
		}
	})
}

// Main runs a test binary's tests and, when path is not empty, flushes t
// to the coverage file at path; it returns the exit code for os.Exit: the
// tests' code, or 1 when they passed but the flush failed. A failed flush
// is never silent: Main writes a FAIL line to standard error naming the
// file, the runs that were not recorded and the cause (a file that does
// not read, say, or a folder that cannot be written), so the package
// fails even though its tests printed PASS. A TestMain records coverage
// in one line:
//
//	func TestMain(m *testing.M) { os.Exit(coverage.Main(m, os.Getenv("FAULTLINE_COVERAGE"), tracker)) }
func Main(m interface{ Run() int }, path string, t *Tracker) int {
	code := m.Run()
	if path == "" {
		return code
	}
	if t == nil {
		fmt.Fprintln(os.Stderr, "FAIL: coverage: nothing recorded: Main was given no tracker (did NewTracker return an error?) (exit 2)")
		return 2
	}
	if err := t.FlushTo(path); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: coverage: %s not recorded (the tests' own result is above; %s): %v\n",
			runs(t.Data().Runs), flushClass(err), err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// undrawn returns, sorted, the kinds of t.drawable the default search does
// not draw on res's fixture and config (catalog.DrawnByDefault) and res
// did not schedule; nil when its fixture is unknown (every kind counts as
// drawn). The caller holds t.mu.
func (t *Tracker) undrawn(res *model.Result) []string {
	name := res.Schedule.Config.Fixture
	fx, ok := t.fixtures[name]
	if !ok {
		if f, err := t.fixture(name); err == nil {
			fx = &f
		}
		t.fixtures[name] = fx
	}
	if fx == nil {
		return nil
	}
	var out []string
	for _, sp := range t.drawable {
		scheduled := slices.ContainsFunc(res.Schedule.Faults, func(f model.FaultEntry) bool { return f.Kind == sp.Kind })
		if !scheduled && !catalog.DrawnByDefault(fx, res.Schedule.Config, sp) {
			out = append(out, sp.Kind)
		}
	}
	slices.Sort(out)
	return out
}
