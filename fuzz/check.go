package fuzz

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/internal/bubble"
	"github.com/faultline/faultline/internal/rerun"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// run runs s against the decoder's system under s's own config, on the
// fixture it names, in a bubble for production code. It returns an error
// for a harness problem and a *model.SystemPanic when the system panicked;
// faults and the system's errors are data in the result.
func (d *Decoder) run(s *model.Schedule) (res *model.Result, err error) {
	d.inRun(func() { res, err = d.runNow(s) })
	return res, err
}

// inRun calls run in the decoder's bubble, or directly on the model path.
func (d *Decoder) inRun(run func()) {
	if d.bubble != nil {
		d.bubble(run)
		return
	}
	run()
}

func (d *Decoder) runNow(s *model.Schedule) (*model.Result, error) {
	factory, err := d.def.Factory(s.Config)
	if err != nil {
		return nil, err
	}
	if fixtureName(d.def, s.Config) != fixtureName(d.def, d.config) {
		fx, err := d.def.Fixture(s.Config.Fixture)
		if err != nil {
			return nil, err
		}
		return model.NewHarness(fx, d.options()).Run(factory, s)
	}
	h, _ := d.pool.Get().(*model.Harness)
	if h == nil {
		h = model.NewHarness(d.fixture, d.options())
	}
	defer d.pool.Put(h)
	return h.Run(factory, s)
}

// Violation is the error Check returns when a run violated an invariant.
// Its message gives the violated invariants, the schedule in canonical
// form and the command that replays it.
type Violation struct {
	Schedule *model.Schedule
	Result   *model.Result
	// def is the system's description, replayTest WithReplayTest's test
	// ("" when none): the replay line comes from them
	def        *model.Definition
	replayTest string
	// jitter is, for production code, the largest difference of one
	// crossing's logical time between the run and its confirming rerun
	// (ms; rerun.Note)
	jitter model.Millis
}

// Error describes the violation and how to replay it.
func (v *Violation) Error() string {
	return v.summary() + replayHint(v.Schedule, v.Result.RunID, v.def, v.replayTest)
}

// summary is the violation's config, verdicts and violated invariants,
// without its schedule and replay route (a Failure gives the shrunk
// schedule's).
func (v *Violation) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "invariant violated: %s, fixture %s, system %s, run verdict %s, claim verdict %s\n",
		v.describe(), v.fixture(), v.def.Name, v.Result.RunVerdict, v.Result.Verdict)
	detail := redactedDetails(v.Result)
	for _, i := range v.Result.Invariants {
		if !i.Held {
			fmt.Fprintf(&b, "  %s: first false after seq %d (%s), reached by %s: %s\n", i.Invariant, i.FirstSeq, i.Event, orNone(i.FaultID), detail[i.Invariant])
		}
	}
	if n := rerun.Note(v.jitter); n != "" {
		fmt.Fprintf(&b, "  %s\n", n)
	}
	return b.String()
}

// replayHint returns the schedule in canonical form and a command, safe
// to copy from indented test output, that saves it to a file and replays
// it: def.ReplayCommand's, else the go test line of test (a test that
// calls properties.Check on the system), else a hint naming the file.
func replayHint(s *model.Schedule, runID string, def *model.Definition, test string) string {
	var b strings.Builder
	canon, compact := canonical(s)
	file := "/tmp/faultline-" + runID + ".json"
	b.WriteString("schedule (canonical form):\n")
	b.Write(canon)
	switch {
	case def.ReplayCommand != "":
		fmt.Fprintf(&b, "replay it on %s:\n  echo %s > %s && %s\n", def.Name, shellQuote(compact), file, fmt.Sprintf(def.ReplayCommand, file))
	case test != "":
		fmt.Fprintf(&b, "replay it on %s: save it (echo %s > %s), then run %s\n", def.Name, shellQuote(compact), file,
			properties.ReplayCommand(test, file))
	default:
		fmt.Fprintf(&b, "replay it on %s: save it (echo %s > %s), then run it through a test of %s as FAULTLINE_REPLAY=%s go test -run '^TestName$' ./pkg (properties.Check, or fuzz.WithReplayTest) or through its own command line's replay %s (package cli)\n",
			def.Name, shellQuote(compact), file, def.Name, file, file)
	}
	return b.String()
}

// canonical returns s in canonical form and that form on one line.
func canonical(s *model.Schedule) ([]byte, string) {
	canon := model.Format(s)
	var compact bytes.Buffer
	if err := json.Compact(&compact, canon); err != nil {
		panic(fmt.Sprintf("fuzz: compacting a canonical schedule: %v", err)) // Format writes valid JSON
	}
	return canon, compact.String()
}

// fixtureName is the fixture a config names, the definition's default
// when none.
func fixtureName(d *model.Definition, c model.Config) string {
	if c.Fixture == "" && d != nil && len(d.Fixtures) > 0 {
		return d.Fixtures[0].Name
	}
	return c.Fixture
}

// describe names the violating schedule's config in its system's terms.
func (v *Violation) describe() string { return describeConfig(v.def, v.Schedule.Config) }

// describe names cfg in the decoder's system's terms.
func (d *Decoder) describe(cfg model.Config) string { return describeConfig(d.def, cfg) }

// describeConfig names cfg in def's terms (Definition.DescribeConfig), or
// as model.Config.String when def is nil or refuses it.
func describeConfig(def *model.Definition, cfg model.Config) string {
	if def == nil {
		return cfg.String()
	}
	s, err := def.DescribeConfig(cfg)
	if err != nil {
		return cfg.String()
	}
	return s
}

// fixture names the fixture the violating run ran on.
func (v *Violation) fixture() string { return fixtureName(v.def, v.Schedule.Config) }

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func orNone(s string) string {
	if s == "" {
		return "no fault"
	}
	return s
}

// Check runs s and returns its result, with a *Violation error when an
// invariant was violated, or another error for a harness problem or, for
// production code, a violating run whose rerun crossed other events
// (nondeterministic, as properties finds it). Every run it makes is
// counted in the decoder's Reach.
func (d *Decoder) Check(s *model.Schedule) (*model.Result, error) {
	res, err := d.run(s)
	if sp := (*model.SystemPanic)(nil); errors.As(err, &sp) {
		return nil, fmt.Errorf("%w (a failure of the system, as a violation is), under the schedule:\n%s\n%s", err, model.Format(s), sp.Stack)
	}
	if b := (*bubble.Blocked)(nil); errors.As(err, &b) {
		return nil, fmt.Errorf("%w (the system failed: exit 1), under the schedule:\n%s", err, model.Format(s))
	}
	if err != nil {
		return nil, fmt.Errorf("harness rejected a schedule: %w\n%s", err, model.Format(s))
	}
	d.reach.Observe(res)
	var jitter model.Millis
	if !res.Held() && d.bubble != nil {
		// production code: a violation stands only when a rerun in a
		// bubble of its own crosses the same events with the same
		// outcomes to the same verdict (its logical times may differ)
		again, err := d.run(s)
		if err != nil {
			return nil, fmt.Errorf("harness rejected a schedule on its second run: %w\n%s", err, model.Format(s))
		}
		if jitter, err = rerun.Production(s, res, again); err != nil {
			return nil, fmt.Errorf("fuzz: %w%s", err, rerun.Hidden(res))
		}
	}
	if !res.Held() {
		return res, &Violation{Schedule: s, Result: res, def: d.def, replayTest: d.replayTest, jitter: jitter}
	}
	return res, nil
}

// CheckDeterminism replays s twice, on a reused and a fresh harness, and
// returns an error with go-cmp's diff when the normalised timelines, fault
// reports, invariant results, claims, terms or verdicts differ. For
// production code the two runs are compared as every door compares a
// rerun: events, outcomes and verdict, without logical times.
func (d *Decoder) CheckDeterminism(s *model.Schedule) error {
	a, err := d.run(s)
	if err != nil {
		return fmt.Errorf("harness rejected a schedule: %w\n%s", err, model.Format(s))
	}
	fx, err := d.def.Fixture(s.Config.Fixture)
	if err != nil {
		return err
	}
	var b *model.Result
	d.inRun(func() {
		var factory model.Factory
		if factory, err = d.def.Factory(s.Config); err == nil {
			b, err = model.NewHarness(fx, d.options()).Run(factory, s)
		}
	})
	if err != nil {
		return fmt.Errorf("harness rejected a schedule on its second run: %w", err)
	}
	if d.bubble != nil {
		// production code: the same run whatever its logical times (a
		// jittered back-off), as every door compares a rerun
		if _, err := rerun.Production(s, a, b); err != nil {
			return fmt.Errorf("%w\n%s", err, replayHint(s, a.RunID, d.def, d.replayTest))
		}
		return nil
	}
	type view struct {
		RunID      string
		Timeline   []model.Event
		Faults     []model.FaultReport
		Invariants []model.InvariantResult
		Claims     []model.TaskClaim
		Terms      model.Terms
		Verdict    model.ClaimVerdict
		RunVerdict model.RunVerdict
	}
	va := view{a.RunID, model.Normalize(a.Timeline.Events()), a.Faults, a.Invariants, a.Claims, a.Terms, a.Verdict, a.RunVerdict}
	vb := view{b.RunID, model.Normalize(b.Timeline.Events()), b.Faults, b.Invariants, b.Claims, b.Terms, b.Verdict, b.RunVerdict}
	if reflect.DeepEqual(va, vb) {
		return nil
	}
	if diff := cmp.Diff(va, vb); diff != "" {
		return fmt.Errorf("two replays of one schedule differ (-first +second):\n%s\n%s", diff, replayHint(s, a.RunID, d.def, d.replayTest))
	}
	return nil
}

// CheckRoundTrip checks the strict schedule decoder on data: when
// model.ParseSchedule rejects data it returns nil (rejection is a correct
// answer); when it accepts, the canonical encoding must decode to an equal
// schedule (compared with go-cmp) and encode to the same bytes again.
// ParseSchedule panicking is not caught: it is the failure it looks for.
func CheckRoundTrip(data []byte) error {
	s, err := model.ParseSchedule(data)
	if err != nil {
		return nil
	}
	canon := model.Format(s)
	s2, err := model.ParseSchedule(canon)
	if err != nil {
		return fmt.Errorf("the canonical form of an accepted schedule does not decode: %v\ninput %q\ncanonical:\n%s", err, data, canon)
	}
	if diff := cmp.Diff(s, s2); diff != "" {
		return fmt.Errorf("ParseSchedule(Format(s)) != s (-s +reparsed):\n%s\ninput %q", diff, data)
	}
	if again := model.Format(s2); !bytes.Equal(again, canon) {
		return fmt.Errorf("encoding is not stable:\n%s\n%s\ninput %q", canon, again, data)
	}
	return nil
}

func violatedSet(res *model.Result) string {
	var names []string
	for _, i := range res.Invariants {
		if !i.Held {
			names = append(names, i.Invariant)
		}
	}
	return strings.Join(names, ",")
}

func cloneSchedule(s *model.Schedule) *model.Schedule {
	c := *s
	c.Faults = append([]model.FaultEntry{}, s.Faults...)
	return &c
}

// reach counts a campaign's runs, the faults they scheduled, those reached
// and those fired, and the events the runs crossed. Safe for concurrent
// use; the zero value is ready.
type reach struct {
	runs, faults, reached, fired atomic.Int64
	crossed                      atomic.Uint64 // bit i: allEvents[i]
}

// reachCounts is a snapshot of a reach. Fired counts the reached faults
// whose disturbance acted; Crossed lists the events crossed in the order
// of allEvents (Since keeps the later snapshot's).
type reachCounts struct {
	Runs, Faults, Reached, Fired int64
	Crossed                      []model.EventName
}

// eventBit is each event's bit in reach.crossed.
var eventBit = func() map[model.EventName]uint64 {
	m := make(map[model.EventName]uint64, len(allEvents))
	for i, ev := range allEvents {
		m[ev] = 1 << i
	}
	return m
}()

// Observe counts one run.
func (r *reach) Observe(res *model.Result) {
	r.runs.Add(1)
	for _, f := range res.Faults {
		r.faults.Add(1)
		if f.Reached {
			r.reached.Add(1)
			if f.Fired > 0 {
				r.fired.Add(1)
			}
		}
	}
	var bits uint64
	tl := res.Timeline
	for i := range tl.Len() {
		bits |= eventBit[tl.Name(i)]
	}
	if bits&^r.crossed.Load() != 0 {
		r.crossed.Or(bits)
	}
}

// Counts returns the counts so far.
func (r *reach) Counts() reachCounts {
	return reachCounts{Runs: r.runs.Load(), Faults: r.faults.Load(), Reached: r.reached.Load(), Fired: r.fired.Load(), Crossed: eventsOf(r.crossed.Load())}
}

// Since returns the counts made after an earlier snapshot.
func (c reachCounts) Since(start reachCounts) reachCounts {
	return reachCounts{Runs: c.Runs - start.Runs, Faults: c.Faults - start.Faults, Reached: c.Reached - start.Reached, Fired: c.Fired - start.Fired, Crossed: c.Crossed}
}

// Err is nil when a scheduled fault was reached and fired; otherwise the
// inconclusive error (exit 3): no fault scheduled, none reached, or none
// of those reached fired, so nothing was tested. It names the events the
// system crossed. It is the one rule of a campaign (Target.Done), for
// production code (its advice names the adapters; see errOn).
func (c reachCounts) Err() error { return c.errOn(nil) }

// errOn is Err for the system def describes: its advice on faults that
// were reached but never fired fits its path (the adapters' kinds for
// production code, a def with a Clock or nil; the placements for the model
// path, whose harness enacts every kind).
func (c reachCounts) errOn(def *model.Definition) error {
	if c.Reached > 0 && c.Fired > 0 {
		return nil
	}
	if c.Reached > 0 && def != nil && def.Clock == nil {
		return fmt.Errorf("inconclusive: %d of the %d faults scheduled in %d runs were reached but none fired (at the crossings reached, the kinds' disturbances had nothing to act on), so no fault was tested; "+
			"place the kinds where they act (model.SingleFaults places each at its designed crossing) or add seed inputs that decode to such placements", c.Reached, c.Faults, c.Runs)
	}
	if c.Reached > 0 {
		return fmt.Errorf("inconclusive: %d of the %d faults scheduled in %d runs were reached but none fired (the system's adapters enact none of the kinds at the crossings they reached), so no fault was tested; set Definition.Enacts to the adapters' Kinds(), which every door then draws from", c.Reached, c.Faults, c.Runs)
	}
	if c.Faults == 0 {
		return fmt.Errorf("inconclusive: the %d runs scheduled no fault, so no fault was tested (add seed inputs that decode to faults); the events the system crossed: %s", c.Runs, eventList(c.Crossed))
	}
	return fmt.Errorf("inconclusive: none of the %d faults scheduled in %d runs was reached, so no fault was tested; the events the system crossed: %s", c.Faults, c.Runs, eventList(c.Crossed))
}

// options are the harness options of every run: the definition's
// invariants in scope and the definition as the system its records
// describe (model.Definition.Options).
func (d *Decoder) options() model.Options { return d.def.Options(model.Options{}) }
