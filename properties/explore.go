package properties

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/faultline/faultline/internal/interleaving"
	"github.com/faultline/faultline/internal/rerun"
	"github.com/faultline/faultline/internal/spare"

	"pgregory.net/rapid"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/internal/catalog"
	"github.com/faultline/faultline/model"
)

// Report is the result of one exploration.
type Report struct {
	// Found is true when a schedule broke an invariant in scope.
	Found bool `json:"found"`
	// Checks is the number of schedules rapid drew and ran before the
	// first failure (or in all, when none failed); ChecksToFailure is the
	// 1-based number of the first failing one (0 when none failed).
	Checks          int `json:"checks"`
	ChecksToFailure int `json:"checks_to_failure"`
	// Seed is rapid's seed for the exploration when rapid reported it (0
	// when unknown: rapid reports its seed only on a failure).
	Seed uint64 `json:"seed,omitempty"`
	// Counterexample is the reduced counterexample when Found.
	Counterexample *Counterexample `json:"counterexample,omitempty"`
	// rapidOutput is what rapid reported on the failure: its reproduce
	// command (a -rapid.failfile or -rapid.seed) and the failing draws.
	rapidOutput string `json:"-"`
	// Faults counts the faults and world events the checks scheduled (the
	// Checks schedules; rapid's shrinking and the reduction not counted),
	// Reached those whose event occurrence the run reached and Fired
	// those that also fired. Reached == 0 means the campaign tested no
	// fault at all: inconclusive, however many checks ran.
	Faults  int `json:"faults"`
	Reached int `json:"reached"`
	Fired   int `json:"fired"`
	// Crossed lists the events the checks' runs crossed, in the order of
	// model.AllEvents, for saying what the system did reach when a
	// campaign reached none of its faults.
	Crossed []model.EventName `json:"crossed,omitempty"`
	// Shard and Shards are WithShard's i and n (0 when unsharded). A
	// shard's Checks counts its own checks run, and ChecksToFailure is
	// the failing check's 1-based index in the whole run.
	Shard  int `json:"shard,omitempty"`
	Shards int `json:"shards,omitempty"`
	// Exhaustive is the walk's own report under WithExhaustive (nil
	// otherwise); the fields above are then the walk's.
	Exhaustive *ExhaustiveReport `json:"exhaustive,omitempty"`
	// Walk is the default check's walk phase (nil when it ran none, see
	// WithMaxSchedules); the fields above are the random phase's, or the
	// walk's when it found the counterexample.
	Walk *ExhaustiveReport `json:"walk,omitempty"`
	// CoverageErr is the first error recording a run into the WithCoverage
	// tracker met (nil for none) when a counterexample was found: the
	// counterexample stands (exit 1) and the error goes beside it; the
	// coverage lacks the run it names. A search that has found nothing
	// ends at such an error, Explore's own (exit 2).
	CoverageErr error `json:"-"`
}

// unreached is the number of scheduled faults the checks never reached.
func (r *Report) unreached() int { return r.Faults - r.Reached }

// Inconclusive reports whether the campaign found no counterexample and
// reached none of the faults it scheduled, or reached some but none ever
// fired (an adapter that enacts none of the kinds in scope): either way
// no fault was tested.
func (r *Report) Inconclusive() bool {
	if r.Exhaustive != nil {
		return r.Exhaustive.Inconclusive()
	}
	if r.Walk != nil && r.Walk.Fired > 0 {
		return false // the walk phase tested a fault
	}
	return !r.Found && (r.Reached == 0 || r.Fired == 0 && r.Faults > 0)
}

// InconclusiveMessage says why an inconclusive campaign tested nothing:
// the checks and faults scheduled, and the events the system did cross.
func (r *Report) InconclusiveMessage() string {
	if r.Exhaustive != nil {
		return r.Exhaustive.Summary()
	}
	crossed := make([]string, len(r.Crossed))
	for i, ev := range r.Crossed {
		crossed[i] = string(ev)
	}
	if len(crossed) == 0 {
		crossed = []string{"(none)"}
	}
	if r.Faults == 0 && r.Checks == 0 {
		return "inconclusive: no fault kind in scope can be placed at an event the system crosses, so no fault was scheduled or tested; the events the system crossed: " + strings.Join(crossed, ", ")
	}
	if r.Reached > 0 {
		return fmt.Sprintf("inconclusive: %d of the %d faults scheduled in %d checks were reached but none fired%s", r.Reached, r.Faults, r.Checks, unfiredReason)
	}
	return fmt.Sprintf("inconclusive: none of the %d faults scheduled in %d checks was reached, so no fault was tested; the events the system crossed: %s",
		r.Faults, r.Checks, strings.Join(crossed, ", "))
}

// unfiredReason ends the message of a campaign or walk whose reached
// faults never fired.
const unfiredReason = " (the system's adapters enact none of the kinds in scope at the crossings they reached, or a worker-scoped kind met no worker that ran a second task), so no fault was tested; set Definition.Enacts to the adapters' Kinds(), which every door then draws from, or give a worker-scoped kind fewer workers than tasks"

// Counterexample is a 1-minimal failing schedule and what broke. Its JSON
// form is {"schedule", "shrunk", "invariant", "first_seq", "event",
// "fault_id", "fault_kind", "detail", "timeline", "interleaving",
// "context_switches", "file", "replay", "system"} (MarshalJSON; the tags
// read it back).
type Counterexample struct {
	// Schedule is the reduced schedule, config included.
	Schedule *model.Schedule `json:"schedule"`
	// Shrunk is the schedule as rapid's shrinking left it, before the
	// fault-aware reduction.
	Shrunk *model.Schedule `json:"shrunk"`
	// Violation is the violated invariant (the first in scope to become
	// false), the first crossing after which it was false, the fault that
	// reached it ("" when none had fired) and the oracle's reason;
	// FaultKind is that fault's kind.
	model.Violation
	FaultKind string `json:"fault_kind,omitempty"`
	// Timeline is the reduced run's redacted timeline up to FirstSeq.
	Timeline []model.Event `json:"timeline"`
	// Interleaving and ContextSwitches are, for a concurrent config, the
	// reduced run's picks and context switches (model.Result's); the
	// schedule's config holds the interleaving that replays it.
	Interleaving    []int `json:"interleaving,omitempty"`
	ContextSwitches int   `json:"context_switches,omitempty"`
	// Jitter is, for production code, the largest difference of one
	// crossing's logical time (ms) between a violating run and its
	// confirming rerun, which crossed the same events to the same verdict
	// (global randomness, e.g. a jittered back-off); 0 when none.
	Jitter model.Millis `json:"jitter_ms,omitempty"`
	// File is the schedule file written (with WithFailDir) and
	// Replay the command that replays it.
	File   string `json:"file,omitempty"`
	Replay string `json:"replay"`
	// System names the system explored (its Definition's name; "" without
	// one), which the counterexample file keeps.
	System string `json:"system,omitempty"`
	// stored is set for a schedule replayed from a file as it is, not
	// reduced by this run
	stored bool
}

// counterexampleJSON is Counterexample's JSON form, field by field.
type counterexampleJSON struct {
	Schedule        *model.Schedule `json:"schedule"`
	Shrunk          *model.Schedule `json:"shrunk"`
	Invariant       string          `json:"invariant"`
	FirstSeq        int             `json:"first_seq"`
	Event           model.EventName `json:"event"`
	FaultID         string          `json:"fault_id,omitempty"`
	FaultKind       string          `json:"fault_kind,omitempty"`
	Detail          string          `json:"detail"`
	Timeline        []model.Event   `json:"timeline"`
	Interleaving    []int           `json:"interleaving,omitempty"`
	ContextSwitches int             `json:"context_switches,omitempty"`
	Jitter          model.Millis    `json:"jitter_ms,omitempty"`
	File            string          `json:"file,omitempty"`
	Replay          string          `json:"replay"`
	System          string          `json:"system,omitempty"`
}

// MarshalJSON writes the form the type's comment gives.
func (cx Counterexample) MarshalJSON() ([]byte, error) {
	return json.Marshal(counterexampleJSON{Schedule: cx.Schedule, Shrunk: cx.Shrunk, Invariant: cx.Invariant,
		FirstSeq: cx.FirstSeq, Event: cx.Event, FaultID: cx.FaultID, FaultKind: cx.FaultKind, Detail: cx.Detail,
		Timeline: cx.Timeline, Interleaving: cx.Interleaving, ContextSwitches: cx.ContextSwitches, Jitter: cx.Jitter, File: cx.File,
		Replay: cx.Replay, System: cx.System})
}

// String describes the counterexample for people: what broke where, the
// schedule and how to replay it.
func (cx *Counterexample) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s violated: first false after seq %d (%s)", cx.Invariant, cx.FirstSeq, cx.Event)
	if cx.FaultID != "" {
		fmt.Fprintf(&b, ", reached by %s (%s)", cx.FaultID, cx.FaultKind)
	} else {
		b.WriteString(", with no fault fired")
	}
	fmt.Fprintf(&b, ": %s\n", cx.Detail)
	faults := "faults"
	if len(cx.Schedule.Faults) == 1 {
		faults = "fault"
	}
	label := "minimal schedule"
	if cx.stored {
		label = "schedule as stored, not reduced"
	}
	fmt.Fprintf(&b, "%s (%d %s):\n%s", label, len(cx.Schedule.Faults), faults, model.Format(cx.Schedule))
	if len(cx.Interleaving) > 0 {
		sw := "context switches"
		if cx.ContextSwitches == 1 {
			sw = "context switch"
		}
		fmt.Fprintf(&b, "interleaving (%d %s; the task picked at each scheduling point): %s\n", cx.ContextSwitches, sw, interleaving.Format(cx.Interleaving))
		b.WriteString("timeline (seq, task, event):\n")
		for i, ev := range cx.Timeline {
			mark := ""
			if i > 0 && ev.Task != cx.Timeline[i-1].Task && cx.Timeline[i-1].Event != model.EvClaim {
				mark = "  <- context switch"
			}
			fmt.Fprintf(&b, "  %3d  %-8s %s%s\n", ev.Seq, ev.Task, ev.Event, mark)
		}
	}
	if n := rerun.Note(cx.Jitter); n != "" {
		fmt.Fprintf(&b, "%s\n", n)
	}
	if cx.Replay != "" {
		fmt.Fprintf(&b, "replay: %s\n", cx.Replay)
	}
	return b.String()
}

// Explore explores def as Check does and returns the report instead of
// failing a test: for a caller without a *testing.T (the command line),
// or one that wants the counts: the walk phase, then random draws (see
// Check). WithExhaustive makes it the exhaustive walk alone. An error is bad options, a Definition or config that does not
// apply, or a harness error, never a counterexample. Outside a test
// binary, call testing.Init and flag.Parse first (rapid reads testing's
// flags). See docs/exploration.md.
func Explore(def *model.Definition, opts ...Option) (*Report, error) {
	e, err := open(nil, def, opts)
	if err != nil {
		return nil, err
	}
	if e.set.exh.on {
		return e.exhaustive()
	}
	w, err := e.walkPhase()
	if err != nil {
		return nil, err
	}
	if w != nil && w.Found {
		return e.withCoverageErr(campaignReport(w), nil)
	}
	rep, err := e.campaign(nil)
	if rep != nil {
		rep.Walk = w
	}
	return e.withCoverageErr(rep, err)
}

// campaign is the random exploration of e under the name of parent
// (withName's without one).
func (e *explorer) campaign(parent rapid.TB) (*Report, error) {
	if err := e.survey(); errors.Is(err, errNoSite) {
		return e.noSite(), nil
	} else if err != nil {
		return nil, err
	}
	return e.explore(parent)
}

// errNoSite is survey's error when no kind in scope fits an event the
// clean run crossed: Explore and Check report the campaign inconclusive
// (noSite); Generator and ExplorePair return the error.
var errNoSite = errors.New("properties: no fault kind in scope occurs in this workload")

// noSite is the report of a campaign that could place no fault: no check
// ran, and the events the clean run crossed are named.
func (e *explorer) noSite() *Report {
	rep := &Report{}
	for p, ev := range allEvents {
		if e.crossed[p] {
			rep.Crossed = append(rep.Crossed, ev)
		}
	}
	return rep
}

// errNoChecks is a random phase whose count is rapid's, and rapid would
// run none.
var errNoChecks = errors.New("properties: no check to run: rapid would run 0 checks (-rapid.checks or RAPID_CHECKS, a fifth of it under -short); give a positive count, or WithChecks")

// explore runs rapid over the draw space of e (built by survey) under the
// name of parent, or withName's without one.
func (e *explorer) explore(parent rapid.TB) (*Report, error) {
	name := e.set.name
	if parent != nil {
		name = parent.Name()
	}
	if e.set.loop.owned() {
		return e.exploreOwned(parent, name)
	}
	if rapidChecks() < 1 {
		return nil, errNoChecks
	}
	rec := &recorder{parent: parent, name: name}
	func() {
		defer func() {
			if p := recover(); p != nil && p != errStop {
				panic(p)
			}
		}()
		rapid.Check(rec, e.prop)
	}()
	if e.harnessErr != nil {
		return nil, e.keepFound(e.harnessErr)
	}
	rep := &Report{Checks: e.calls, rapidOutput: strings.Join(rec.msgs, "\n"), Faults: e.faults, Reached: e.reached, Fired: e.fired}
	for p, ev := range allEvents {
		if e.crossed[p] {
			rep.Crossed = append(rep.Crossed, ev)
		}
	}
	if e.firstFail == 0 {
		if rec.failed {
			return nil, fmt.Errorf("properties: rapid failed without a counterexample: %s", rep.rapidOutput)
		}
		return rep, nil
	}
	rep.Found, rep.Checks, rep.ChecksToFailure = true, e.firstFail, e.firstFail
	return e.found(rep)
}

// Generator returns the rapid generator of the schedules Check and
// Explore draw for def, for a property of one's own (a native fuzz target
// through rapid.MakeFuzz). Only the options that shape the draw apply. It
// runs the clean run to learn the sites, so bad options, a harness error
// and a scope whose kinds never occur in the workload are errors. It may
// be used from several goroutines.
func Generator(def *model.Definition, opts ...Option) (*rapid.Generator[*model.Schedule], error) {
	e, err := newExplorer(def, opts)
	if err != nil {
		return nil, err
	}
	return rapid.Custom(e.draw), nil
}

var seedRE = regexp.MustCompile(`-rapid\.seed=(\d+)`)

// explorer holds one exploration's draw space and state.
type explorer struct {
	set     settings
	harness *model.Harness
	// judged is judge's last outcome until it is handed back (handBack)
	judged *model.Result
	kinds  []kindSpace
	// clean is what the clean run of the config crossed: where a drawn
	// schedule's first fault is placed; a later fault is placed in the run
	// of the faults drawn before it (prefix)
	clean sites
	// starts: a worker-scoped kind is in the draw space, so the sites of
	// every run include its worker.start crossings (startsOf)
	starts bool
	// cleanSchedule and cleanTimeline are that clean run's schedule and
	// timeline, and cleanBroke the invariant it broke ("" for none), which
	// confirmClean compares a later run of it with
	cleanSchedule *model.Schedule
	cleanTimeline []model.Event
	cleanBroke    string
	// prefixes are harnesses for those runs, which a generator may make
	// from several goroutines at once
	prefixes sync.Pool
	inScope  map[string]bool
	// ledgerAnyway: recorded_agrees_with_ledger is in scope of a run of the
	// config without notices too (Definition.Scope), so noticeScope keeps it
	ledgerAnyway bool
	// maxAdvance bounds a drawn clock advance, in logical ms: twice the
	// latest capability expiry or deadline of the workload, and never more
	// than the validator accepts (model.MaxClockAdvance)
	maxAdvance int

	// minFaults is the fewest faults a drawn schedule holds: 1 for
	// Explore, 2 for ExplorePair (compositions); 0 when the config runs
	// its tasks concurrently, whose interleaving alone may break an
	// invariant
	minFaults int
	// tasks and points are the workload's tasks and the scheduling points
	// of the clean run, when the config runs two workers or more (points
	// 0: a sequential config, no interleaving drawn)
	tasks, points int
	// tenants: the fixture's tasks have two or more tenants, where a
	// concurrent config draws the shared modifier; noModifier: a
	// sequential draw draws none (ExplorePair's compositions)
	tenants, noModifier bool
	// swarm is whether each draw is a swarm draw (see drawSwarm): on for
	// Explore, Check and Generator with WithSwarm and without WithGuide,
	// off for ExplorePair; swarmEvents is the union of the kinds' fitting
	// events, in model.AllEvents order, which a swarm draw subsets
	swarm       bool
	swarmEvents []model.EventName
	// swarmIndex is each event's index in swarmEvents, by its position in
	// allEvents (-1: not there); swarmClean the clean run's count of each
	// event of swarmEvents
	swarmIndex [maxEvents]int
	swarmClean []int

	calls int
	total int // the checks rapid runs, for WithProgress (0: not looked up yet)
	// owned: faultline runs the loop over checks (exploreOwned), which
	// reports progress itself
	owned bool
	// ranked: the current check's wanted kinds are set (exploreOwned
	// hands a failing check to rapid after ranking for it; the guide
	// draws on each ranking)
	ranked    bool
	firstFail int
	// faults, reached and fired count the fault reports of the checks
	// before shrinking (see Report); crossed is every event their runs
	// crossed
	faults, reached, fired int
	crossed                [maxEvents]bool // by position in allEvents
	last                   *model.Schedule
	lastInv                string
	lastMsg                string // the violation of last, as rapid printed it
	harnessErr             error
	// covErr is the first error recording coverage met (record), covMu
	// guards it
	covErr error
	covMu  sync.Mutex
	// spread is the largest logical-time difference a confirming rerun
	// of production code found (Counterexample.Jitter)
	spread spread
	mu     sync.Mutex // guards harnessErr in draws, and the prefix store
	// prefixSeen holds the prefix runs made so far, by prefixHash (see
	// prefixSites)
	prefixSeen map[uint64]prefixEntry
	// runs counts the runs of the system (see systemRuns)
	runs systemRuns

	// guided exploration (nil guide: unguided): the guide, the counts it
	// reads (the prior record and every check so far), each kind's key
	// (by index into kinds; keyed false for a world event), and the
	// current check's wanted kinds (see rank), as indices into kinds
	guide  *coverage.Guide
	seen   *coverage.Tracker
	keys   []coverage.Key
	keyed  []bool
	wanted []int
	// keyedPos is the index into kinds of each keyed kind, by name
	keyedPos map[string]int
}

// kindSpace is where one kind can be drawn: the events it fits, its own
// event and designed ordinal, and its targets.
type kindSpace struct {
	kind string
	// fitting lists every event the kind can be injected at that a survey
	// clean run crossed, its own event first (rapid draws small indices
	// more often); a draw keeps those the run it is placed in crossed
	fitting []model.EventName
	// fittingPos holds the position in allEvents of each event of fitting
	fittingPos []uint8
	// own and designed are the kind's own event and designed ordinal
	// (FaultSpec.Event and Ordinal): its default placement, at the last
	// crossing of own when the run crossed it fewer times (model.Place)
	own      model.EventName
	ownPos   int // own's position in allEvents
	designed int
	targets  []string // the survey's; empty: no target
	// memory and branch: the targets are the memory keys read or branches
	// run in the run the fault is placed in
	memory, branch bool
	clock          bool // the target is a clock advance drawn in 1..maxAdvance
	phase          bool // the target is a transport fault's phase (transportTargets)
	world          bool
	// corrs are the correlation modifiers the kind takes
	// (FaultSpec.Correlations), drawn for a concurrent config (see
	// drawCorrelated); single are those of them that act on one task
	// (repeated, persistent), drawn for a sequential one (drawModifier)
	corrs, single []model.Correlation
}

// sites is what one run crossed, for placing the next fault in it: how
// often it crossed each event (model.Crossings) and the distinct details
// of the crossings (memory keys, branch names) in order of first
// crossing.
type sites struct {
	counts  eventCounts
	details map[model.EventName][]string
	// order is the run's crossings of allEvents in timeline order, for
	// drawing a composed entry near an earlier one (see drawComposed);
	// set for the explorer's runs only (orderOf), nil in the walk's
	order []crossing
}

// eventCounts is a run's number of crossings of each event of allEvents
// (the highest ordinal it reached), by the event's position there.
type eventCounts [maxEvents]int

// maxEvents bounds allEvents (checked when the package starts).
const maxEvents = 32

// crossing is one crossing of a run: the event, as an index into
// allEvents, and its ordinal.
type crossing struct {
	ev uint8
	o  uint16
}

// orderOf returns the crossings of allEvents in res, in timeline order.
func orderOf(res *model.Result) []crossing {
	tl := res.Timeline
	out := make([]crossing, 0, tl.Len())
	for i := range tl.Len() {
		x, n := tl.EventIndex(i), tl.Ordinal(i)
		if x < 0 || n <= 0 || n > 1<<16-1 {
			continue
		}
		out = append(out, crossing{uint8(x), uint16(n)})
	}
	return out
}

// eventPos is ev's index in allEvents (-1 when absent): allEvents is
// model.AllEvents and then model.EvNoticeReceive, the order of
// Timeline.EventIndex.
func eventPos(ev model.EventName) int {
	if p, ok := eventPosOf[ev]; ok {
		return p
	}
	return -1
}

// eventPosOf maps each event of allEvents to its index.
var eventPosOf = func() map[model.EventName]int {
	m := make(map[model.EventName]int, len(allEvents))
	for i, ev := range allEvents {
		m[ev] = i
	}
	return m
}()

// positions in allEvents that sitesOf tests
var (
	workerStart = eventPos(model.EvWorkerStart)
	memoryRead  = eventPos(model.EvMemoryRead)
	branchRun   = eventPos(model.EvBranchRun)
)

func init() {
	if len(allEvents) > maxEvents {
		panic("properties: allEvents outgrew eventCounts")
	}
	evs := make([]model.Event, len(allEvents))
	for i, ev := range allEvents {
		evs[i].Event = ev
	}
	tl := model.TimelineOf(evs)
	for i, ev := range allEvents {
		if tl.EventIndex(i) != i {
			panic("properties: allEvents out of step with Timeline.EventIndex at " + string(ev))
		}
	}
}

// sitesOf returns the sites of res: the counts model.Crossings gives (of
// the events of allEvents) and the memory keys and branch names crossed.
func sitesOf(res *model.Result) sites {
	var ss sites
	tl := res.Timeline
	for i := range tl.Len() {
		p, n := tl.EventIndex(i), tl.Ordinal(i)
		if p < 0 || p == workerStart || n <= 0 {
			continue // claim is not in allEvents
		}
		ss.counts[p] = max(ss.counts[p], n)
		if p != memoryRead && p != branchRun {
			continue // only these events' details are targets
		}
		ev := allEvents[p]
		if d := tl.Detail(i); d != "" && !slices.Contains(ss.details[ev], d) {
			if ss.details == nil {
				ss.details = map[model.EventName][]string{}
			}
			ss.details[ev] = append(ss.details[ev], d)
		}
	}
	return ss
}

// startsOf is the number of worker.start crossings of res: the sites of
// a worker-scoped kind, which sitesOf leaves out (no other kind is placed
// there), added where such a kind is in scope (walk and draws alike).
func startsOf(res *model.Result) int {
	n := 0
	tl := res.Timeline
	for i := range tl.Len() {
		if tl.EventIndex(i) == workerStart {
			n = max(n, tl.Ordinal(i))
		}
	}
	return n
}

// crossed appends to buf the positions in allEvents of k's events that ss
// crossed, in k's order.
func (k *kindSpace) crossed(buf []uint8, ss *sites) []uint8 {
	for _, p := range k.fittingPos {
		if ss.counts[p] > 0 {
			buf = append(buf, p)
		}
	}
	return buf
}

// crosses reports whether ss crossed an event of k's.
func (k *kindSpace) crosses(ss *sites) bool {
	for _, p := range k.fittingPos {
		if ss.counts[p] > 0 {
			return true
		}
	}
	return false
}

// newExplorer builds the draw space from the clean run of the options'
// config and, when also names more configs, of each of them: a kind is in
// the draw space when it fits an event one of those clean runs crossed;
// where each fault is placed comes from the run it is placed in (draw).
func newExplorer(def *model.Definition, opts []Option, also ...model.Config) (*explorer, error) {
	e, err := open(nil, def, opts)
	if err != nil {
		return nil, err
	}
	if err := e.survey(also...); err != nil {
		return nil, err
	}
	return e, nil
}

// open is the path every door shares: it refuses an invalid Definition,
// applies opts, builds the harness, refuses a scope in which no invariant
// is checked and, for production code (def.Clock set), bubbles each run
// in one of bt's (when there is a test) and refuses a clean run that
// reports no crossing. It runs nothing else: the draw space comes with
// survey.
func open(bt *testing.T, def *model.Definition, opts []Option) (*explorer, error) {
	e, err := resolve(def, opts)
	if err != nil {
		return nil, err
	}
	if def.Clock == nil {
		return e, nil
	}
	if bt != nil {
		e.set.bubble = bubbler(bt)
	}
	if err := e.preflight(); err != nil {
		return nil, err
	}
	return e, nil
}

// resolve validates def, applies opts and builds the harness of the
// exploration, without running anything.
func resolve(def *model.Definition, opts []Option) (*explorer, error) {
	if err := def.Validate(); err != nil {
		return nil, fmt.Errorf("properties: %w", err)
	}
	set := defaults()
	set.def = def
	for _, o := range opts {
		if err := o.apply(&set); err != nil {
			return nil, err
		}
	}
	if err := set.resolve(); err != nil {
		return nil, err
	}
	set.config.Fixture = set.fixture.Name
	e := &explorer{set: set, harness: model.NewHarness(set.fixture, set.harness), inScope: map[string]bool{}, minFaults: 1,
		swarm: set.swarm && set.guide == nil}
	if err := def.Check(set.config, set.harness); err != nil {
		return nil, fmt.Errorf("properties: %w", err)
	}
	// the model decides what a run checks (Definition.Scope); every
	// invariant of it counts (see noticeScope for the one exception)
	// over the exploration's fixture, which a test may give outside
	// def.Fixtures
	own := *def
	own.Fixtures = []model.Fixture{set.fixture}
	scope, err := own.Scope(set.config, set.harness)
	if err != nil {
		return nil, fmt.Errorf("properties: harness: %w", err)
	}
	for _, name := range scope {
		e.inScope[name] = set.invariants == nil || slices.Contains(set.invariants, name)
	}
	if set.config.Notices {
		quiet := set.config
		quiet.Notices = false
		without, err := own.Scope(quiet, set.harness)
		if err != nil {
			return nil, fmt.Errorf("properties: harness: %w", err)
		}
		e.ledgerAnyway = slices.Contains(without, model.InvRecordedAgreesWithLedger)
	}
	if !e.checksAnInvariant() {
		return nil, fmt.Errorf("properties: system %s: no invariant in scope: the invariants the options name leave none of those its runs check, so every run would pass whatever the system does", def.Name)
	}
	return e, nil
}

// checksAnInvariant reports whether a run of e checks at least one
// invariant that counts (Definition.Scope, narrowed by withInvariants).
func (e *explorer) checksAnInvariant() bool {
	for _, in := range e.inScope {
		if in {
			return true
		}
	}
	return false
}

// survey builds the draw space of e from the clean run of its config and
// of each config in also (see newExplorer).
func (e *explorer) survey(also ...model.Config) error {
	set := e.set
	// the clean run tells which events occur, how often, and with which
	// memory keys and branch names
	counts := map[model.EventName]int{}
	details := map[model.EventName][]string{}
	starts, cleanStarts := 0, 0 // worker.start crossings, sites of worker-scoped kinds only
	for i, cfg := range append([]model.Config{set.config}, also...) {
		cfg.Fixture = set.fixture.Name
		cs := &model.Schedule{Version: model.ScheduleVersion, Seed: "clean", Config: cfg, Faults: []model.FaultEntry{}}
		e.runs.survey.Add(1)
		clean, err := e.run(cs)
		if sp := (*model.SystemPanic)(nil); errors.As(err, &sp) {
			return &panicError{Schedule: cs, Panic: sp} // with no fault at all
		}
		if err != nil {
			return err
		}
		ss := sitesOf(clean)
		starts = max(starts, startsOf(clean))
		e.markCrossed(clean)
		if i == 0 {
			ss.order = orderOf(clean)
			e.clean = ss // the sites of every drawn schedule's first fault
			cleanStarts = startsOf(clean)
			e.cleanSchedule, e.cleanTimeline = cloneSchedule(cs), clean.Timeline.Events()
			if ir, bad := e.violation(clean); bad {
				e.cleanBroke = ir.Invariant
			}
			if c := cfg.Concurrency; c != nil && c.Workers > 1 && len(set.fixture.Tasks) > 1 {
				e.tasks, e.points = len(set.fixture.Tasks), len(clean.Interleaving)
				e.tenants = slices.ContainsFunc(set.fixture.Tasks, func(t model.Task) bool { return t.Tenant != set.fixture.Tasks[0].Tenant })
				if e.minFaults == 1 {
					e.minFaults = 0
				}
			}
		}
		for p, k := range ss.counts {
			if k > 0 {
				counts[allEvents[p]] = max(counts[allEvents[p]], k)
			}
		}
		for ev, ds := range ss.details {
			for _, d := range ds {
				if !slices.Contains(details[ev], d) {
					details[ev] = append(details[ev], d)
				}
			}
		}
	}
	e.noticeScope()
	var maxAdvance model.Millis = 2000
	if set.config.Deadline != nil {
		maxAdvance = *set.config.Deadline
	}
	for _, c := range set.fixture.Capabilities {
		maxAdvance = max(maxAdvance, c.Expiry)
	}
	e.maxAdvance = int(model.MaxClockAdvance)
	if maxAdvance < model.MaxClockAdvance/2 { // no overflow for a far expiry
		e.maxAdvance = int(2 * maxAdvance)
	}
	specs := model.Catalogue()
	if set.world {
		specs = append(specs, model.WorldEvents()...)
	}
	if set.config.Notices {
		specs = append(specs, model.NoticeKinds()...)
	}
	for _, sp := range append(model.CacheAndWorkerKinds(), familyKinds...) {
		if slices.Contains(set.kinds, sp.Kind) || drawnByDefault(&set, sp) { // named, worker-scoped where a worker runs several tasks, a fleet kind on a fleet, a kind where the fixture declares its workload, server_error, network_error and do_not_retry anywhere
			specs = append(specs, sp)
		}
	}
	for _, sp := range specs {
		if set.kinds != nil && !slices.Contains(set.kinds, sp.Kind) || !catalog.Enacted(set.def, sp.Kind) {
			continue // outside the scope, or a kind the path cannot enact (Definition.Enacts)
		}
		if set.domains != nil && !slices.Contains(set.domains, sp.Domain) {
			continue
		}
		ks := kindSpace{kind: sp.Kind, own: sp.Event, ownPos: eventPos(sp.Event), designed: max(sp.Ordinal, 1), world: sp.World, corrs: sp.Correlations}
		for _, c := range sp.Correlations {
			if c == model.Correlation("repeated") || c == model.Correlation("persistent") {
				ks.single = append(ks.single, c)
			}
		}
		// the kind's own event first: rapid draws small indices more often
		for _, ev := range append([]model.EventName{sp.Event}, allEvents...) {
			n := counts[ev]
			if ev == model.EvWorkerStart && sp.WorkerScoped {
				n = starts // a worker-scoped kind's own site, as the walk places it
			}
			if slices.Contains(ks.fitting, ev) || n == 0 || !fits(sp.Kind, ev) {
				continue
			}
			ks.fitting = append(ks.fitting, ev)
			ks.fittingPos = append(ks.fittingPos, uint8(eventPos(ev)))
		}
		if len(ks.fitting) == 0 {
			continue // the kind's events never occur in this workload
		}
		switch {
		case sp.Kind == "memory_loss":
			ks.targets, ks.memory = append([]string{""}, details[model.EvMemoryRead]...), true
		case sp.Kind == "branch_failure":
			ks.targets, ks.branch = append([]string{""}, details[model.EvBranchRun]...), true
		case sp.Kind == "clock_advance":
			ks.clock = true
		case takesCommitPhase(sp.Kind):
			ks.targets, ks.phase = transportTargets, true
		}
		e.kinds = append(e.kinds, ks)
	}
	if len(e.kinds) == 0 {
		return errNoSite
	}
	e.starts = slices.ContainsFunc(e.kinds, func(k kindSpace) bool { return slices.Contains(k.fitting, model.EvWorkerStart) })
	if e.starts {
		e.clean.counts[workerStart] = cleanStarts
	}
	for p, ev := range allEvents {
		e.swarmIndex[p] = -1
		if slices.ContainsFunc(e.kinds, func(k kindSpace) bool { return slices.Contains(k.fitting, ev) }) {
			e.swarmIndex[p] = len(e.swarmEvents)
			e.swarmEvents = append(e.swarmEvents, ev)
			e.swarmClean = append(e.swarmClean, e.clean.counts[p])
		}
	}
	if set.guide != nil {
		u := coverage.Default()
		// the guide's own count of the keys drawn: its system's name is
		// never written anywhere
		seen, err := coverage.NewTracker(u, &model.Definition{Name: "explore"})
		if err != nil {
			return err
		}
		e.guide, e.seen = coverage.NewGuide(u, set.guide.seed), seen
		if set.guide.prior != nil {
			e.seen.Add(set.guide.prior)
		}
		for _, k := range e.kinds {
			key, ok := u.KindKey(k.kind)
			e.keys, e.keyed = append(e.keys, key), append(e.keyed, ok)
		}
	}
	return nil
}

// noticeScope takes recorded_agrees_with_ledger out of scope when only
// the notices put it there and the system's clean run never read one
// (crossed no notice.receive): such a system does not consume the
// provider's notices, and the notice kinds, which never reach it, leave
// the campaign inconclusive rather than a violation of the clean run. The
// invariant stays in scope when a run without notices checks it too
// (every run with another invariant in scope but for Options.Compat:
// Definition.Scope), and when the harness options or withInvariants name it.
func (e *explorer) noticeScope() {
	set := e.set
	if !set.config.Notices || e.ledgerAnyway || e.crossed[eventPos(model.EvNoticeReceive)] || slices.Contains(set.invariants, model.InvRecordedAgreesWithLedger) ||
		slices.ContainsFunc(set.harness.Invariants, func(u model.UserInvariant) bool { return u.Name == model.InvRecordedAgreesWithLedger }) {
		return
	}
	e.inScope[model.InvRecordedAgreesWithLedger] = false
}

// fits reports whether kind can be attached to ev, by asking the schedule
// validator.
func fits(kind string, ev model.EventName) bool {
	s := model.Schedule{Version: model.ScheduleVersion, Config: model.Config{},
		Faults: []model.FaultEntry{{Event: ev, Ordinal: 1, Kind: kind}}}
	return s.Validate() == nil
}

// run runs s through the public path: a factory built from the schedule's
// config, the harness over the exploration's fixture.
func (e *explorer) run(s *model.Schedule) (*model.Result, error) {
	var f model.Factory
	var err error
	if werr := e.within(func() { f, err = e.sys(s.Config) }); werr != nil {
		err = werr
	}
	if err != nil {
		return nil, fmt.Errorf("properties: building the system for %s: %w", e.describe(s.Config), err)
	}
	res, err := e.harnessRun(e.harness, f, s)
	if errors.Is(err, ErrNondeterministic) { // a verdict on the system, not the harness's error
		return nil, onSchedule(fmt.Errorf("properties: %w", err), s)
	}
	if err != nil {
		return nil, onSchedule(fmt.Errorf("properties: harness: %w", err), s)
	}
	return res, nil
}

// violationOf is violation of a result that may be nil (no violation).
func (e *explorer) violationOf(res *model.Result) (model.InvariantResult, bool) {
	if res == nil {
		return model.InvariantResult{}, false
	}
	return e.violation(res)
}

// violation returns the invariant in scope that became false first, or
// false when every invariant in scope held.
func (e *explorer) violation(res *model.Result) (model.InvariantResult, bool) {
	var first model.InvariantResult
	found := false
	for _, i := range res.Invariants {
		if !i.Held && e.inScope[i.Invariant] && (!found || i.FirstSeq < first.FirstSeq) {
			first, found = i, true
		}
	}
	return first, found
}

// draw draws one schedule of minFaults to maxFaults faults and world
// events, each placed in the run of those drawn before it, so every fault
// sits at an event that run crossed, at an ordinal it reached: at its
// default placement (model.Place) three times in four (half the time in a
// swarm draw), otherwise anywhere it fits. A swarm draw first draws the
// check's swarm (drawSwarm) and may compose a later entry with the
// earlier ones (drawComposed). The prefix runs are deterministic, so the
// draws stay a function of rapid's. docs/exploration.md has the details.
func (e *explorer) draw(t *rapid.T) *model.Schedule {
	var n int
	var sw swarmDraw
	var kbuf [64]int
	if e.swarm {
		n = e.drawSwarm(t, &sw, kbuf[:0])
	} else {
		n = intRange(e.minFaults, e.set.maxFaults).Draw(t, "faults")
	}
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "explore", Config: e.set.config, Faults: make([]model.FaultEntry, 0, n)}
	ss := &e.clean
	if e.points > 0 {
		// the interleaving first: the faults are placed in runs under it
		s.Config.Concurrency = e.drawInterleaving(t)
		if n > 0 && len(s.Config.Concurrency.Interleaving) > 0 {
			var err error
			if ss, err = e.prefixSites(s); err != nil {
				e.fail(err)
				t.Fatalf("%v", err)
			}
		}
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			var err error
			if ss, err = e.prefixSites(s); err != nil {
				e.fail(err)
				t.Fatalf("%v", err)
			}
		}
		var ki int
		if e.swarm && i > 0 {
			if f, ok := e.drawComposed(t, &sw, s.Faults, ss); ok {
				s.Faults = append(s.Faults, f)
				continue
			}
		}
		if e.swarm {
			ki = e.availableIn(&sw, e.drawKindOf(t, len(sw.kinds)), ss)
		} else {
			ki = e.available(e.drawKind(t), ss)
		}
		if ki < 0 {
			break
		}
		k := &e.kinds[ki]
		var evb [maxEvents]uint8
		evs := k.crossed(evb[:0], ss) // positions in allEvents
		f := model.FaultEntry{Kind: k.kind}
		def := 0
		if int(evs[0]) == k.ownPos {
			def = min(k.designed, ss.counts[k.ownPos])
			if e.swarm && !sw.allows(e.swarmIndex[k.ownPos], def) {
				def = 0
			}
		}
		if def > 0 {
			f.Event, f.Ordinal = k.own, def
		}
		if def == 0 || intRange(0, 3).Draw(t, "placement") >= e.defaultOdds() {
			p := evs[intRange(0, len(evs)-1).Draw(t, "event")]
			f.Event = allEvents[p]
			if e.swarm {
				f.Ordinal = sw.drawOrdinal(t, e.swarmIndex[p], ss.counts[p])
			} else {
				f.Ordinal = intRange(1, ss.counts[p]).Draw(t, "ordinal")
			}
		}
		e.drawTarget(t, k, &f, ss)
		s.Faults = append(s.Faults, f)
	}
	if e.points > 0 {
		e.drawCorrelated(t, s)
	} else {
		e.drawModifier(t, s)
	}
	return s
}

// drawModifier draws, for a sequential config, after everything else (so
// a schedule drawn without one is the one drawn before modifiers were),
// whether s's last fault, when its kind takes a modifier that acts on one
// task (repeated, persistent), carries one: one time in four, evenly
// which (repeat 2 to 4; persistent to the run's end). Only the last: each
// earlier fault's modifier would change the run a later one was placed
// in. No draw is made when the kind takes none, nor for ExplorePair. It
// shrinks toward none; the reducer drops a modifier the violation does
// not need.
func (e *explorer) drawModifier(t *rapid.T, s *model.Schedule) {
	if len(s.Faults) == 0 {
		return
	}
	f := &s.Faults[len(s.Faults)-1]
	k := e.kindOf(f.Kind)
	if k == nil || len(k.single) == 0 || e.noModifier || intRange(0, 3).Draw(t, "modifier") < 3 {
		return
	}
	f.Correlation = k.single[intRange(0, len(k.single)-1).Draw(t, "correlation")]
	if f.Correlation == model.Correlation("repeated") {
		f.Repeat = intRange(2, 4).Draw(t, "repeat")
	}
}

// kindOf returns the draw space of kind (nil when it is not in scope).
func (e *explorer) kindOf(kind string) *kindSpace {
	for i := range e.kinds {
		if e.kinds[i].kind == kind {
			return &e.kinds[i]
		}
	}
	return nil
}

// drawTarget draws f's target when k takes one: a clock advance (evenly
// in 1..maxAdvance in a swarm draw, where rapid's own draw would give
// advances of at most an eighth of the range seven times in ten), or a
// memory key or branch name of the run f is placed in (ss).
func (e *explorer) drawTarget(t *rapid.T, k *kindSpace, f *model.FaultEntry, ss *sites) {
	switch {
	case k.clock && e.swarm:
		f.Target = strconv.Itoa(1 + drawEven(t, e.maxAdvance, "advance_ms"))
	case k.clock:
		f.Target = strconv.Itoa(intRange(1, e.maxAdvance).Draw(t, "advance_ms"))
	case k.phase:
		f.Target = transportTargets[intRange(0, len(transportTargets)-1).Draw(t, "phase")]
	case k.memory || k.branch:
		ev := model.EvMemoryRead
		if k.branch {
			ev = model.EvBranchRun
		}
		// "" (no target), then the run's details
		ds := ss.details[ev]
		if i := intRange(0, len(ds)).Draw(t, "target"); i > 0 {
			f.Target = ds[i-1]
		}
	}
}

// drawCorrelated draws, for a concurrent config, what a sequential draw
// leaves out, after everything else (so the draws before it are the ones
// a sequential config makes): for each fault whose kind takes correlation
// modifiers, none (the kind's own correlation) or one of them, with its
// parameter (repeat 2 to 4; persistent to the run's end; synchronized in
// the default window; shared, over one tenant, stands for none), then
// whether the scheduler's picks past the interleaving are seeded, and by
// which seed. Each shrinks toward none: the reducer drops a modifier and
// a seed that the violation does not need (see counterexample).
func (e *explorer) drawCorrelated(t *rapid.T, s *model.Schedule) {
	for i := range s.Faults {
		f := &s.Faults[i]
		var corrs []model.Correlation
		for _, k := range e.kinds {
			if k.kind == f.Kind {
				corrs = k.corrs
			}
		}
		if len(corrs) == 0 {
			continue
		}
		c := intRange(0, len(corrs)).Draw(t, "correlation")
		if c == 0 {
			continue
		}
		if corrs[c-1] == model.Correlation("shared") && !e.tenants {
			continue // one tenant: shared acts as no modifier
		}
		f.Correlation = corrs[c-1]
		if f.Correlation == model.Correlation("repeated") {
			f.Repeat = intRange(2, 4).Draw(t, "repeat")
		}
	}
	if intRange(0, 1).Draw(t, "scheduler_seeded") == 1 {
		s.Config.Concurrency.Seed = strconv.Itoa(intRange(1, 1<<16).Draw(t, "scheduler_seed"))
	}
}

// drawInterleaving draws the interleaving of a concurrent config, before
// the faults (which are then placed in runs under it): up to four runs of
// scheduling points, each a task and a length up to the clean run's points
// (rapid shrinks toward fewer and shorter runs, our reducer toward fewer
// context switches; see reduceInterleaving).
func (e *explorer) drawInterleaving(t *rapid.T) *model.Concurrency {
	c := cloneConcurrency(e.set.config.Concurrency)
	c.Interleaving = nil
	runs := intRange(0, 4).Draw(t, "interleaving_runs")
	for i := 0; i < runs; i++ {
		task := intRange(1, e.tasks).Draw(t, "interleaving_task")
		n := intRange(1, e.points).Draw(t, "interleaving_points")
		for j := 0; j < n && len(c.Interleaving) < model.MaxInterleaving; j++ {
			c.Interleaving = append(c.Interleaving, task)
		}
	}
	return c
}

// swarmDraw is one check's swarm: the kinds its entries are drawn from
// (indices into kinds, in scope order) and, for each event of
// swarmEvents, the ordinals of the clean run's crossings of it they may
// be placed at (bit o-1 for ordinal o; a later ordinal, which only an
// earlier fault makes, is always allowed).
type swarmDraw struct {
	kinds []int
	ords  [maxEvents]uint64
	clean []int // the clean run's count of each event of swarmEvents
}

// allows reports whether sw lets an entry sit at ordinal o of event i
// (an index into swarmEvents).
func (sw *swarmDraw) allows(i, o int) bool {
	return i < 0 || o > sw.clean[i] || o > 64 || sw.ords[i]&(1<<(o-1)) != 0
}

// drawOrdinal draws an ordinal of event i from 1 to n among those sw
// allows (evenly; every one when it allows none).
func (sw *swarmDraw) drawOrdinal(t *rapid.T, i, n int) int {
	ok := 0
	for o := 1; o <= n; o++ {
		if sw.allows(i, o) {
			ok++
		}
	}
	if ok == 0 {
		return intRange(1, n).Draw(t, "ordinal")
	}
	j := intRange(0, ok-1).Draw(t, "ordinal")
	for o := 1; ; o++ {
		if sw.allows(i, o) {
			if j == 0 {
				return o
			}
			j--
		}
	}
}

// defaultOdds is how many of four draws place an entry at its kind's
// default placement when the swarm allows it: three without a swarm, two
// (one half) with one, which puts more entries at the later crossings of
// an event (a later task's commit).
func (e *explorer) defaultOdds() int {
	if e.swarm {
		return 2
	}
	return 3
}

// drawSwarm draws a check's swarm (Groce et al., "Swarm Testing"): the
// number of entries (maxFaults three times in four, otherwise from
// minFaults up, each size half as likely as the one below), then leaves
// out each kind in scope and each ordinal of the clean run's crossings of
// swarmEvents with probability one half. An empty set of kinds stands for
// all. Each flag shrinks toward fewer entries and leaving nothing out.
func (e *explorer) drawSwarm(t *rapid.T, sw *swarmDraw, kinds []int) int {
	n := e.minFaults
	if n < e.set.maxFaults && intRange(0, 3).Draw(t, "composition") > 0 {
		n = e.set.maxFaults
	} else {
		for n < e.set.maxFaults && boolGen.Draw(t, "more_faults") {
			n++
		}
	}
	sw.kinds, sw.clean = kinds, e.swarmClean
	for i := range e.kinds {
		if !boolGen.Draw(t, "swarm_omit_kind") {
			sw.kinds = append(sw.kinds, i)
		}
	}
	if len(sw.kinds) == 0 {
		for i := range e.kinds {
			sw.kinds = append(sw.kinds, i)
		}
	}
	for i := range e.swarmEvents {
		for o := 1; o <= min(sw.clean[i], 64); o++ {
			if !boolGen.Draw(t, "swarm_omit_ordinal") {
				sw.ords[i] |= 1 << (o - 1)
			}
		}
	}
	return n
}

// availableIn is available within the swarm sw: the kind at position p of
// sw.kinds, or the first after it there (cyclically), with an event in
// ss; when no kind of the swarm has one, the kind available in the whole
// scope from the same kind on; -1 when no kind in scope has an event in
// ss.
func (e *explorer) availableIn(sw *swarmDraw, p int, ss *sites) int {
	for j := range sw.kinds {
		i := sw.kinds[(p+j)%len(sw.kinds)]
		if e.kinds[i].crosses(ss) {
			return i
		}
	}
	return e.available(sw.kinds[p], ss)
}

// available returns ki, or the first kind after it in scope (cyclically),
// with an event ss crossed; -1 when no kind in scope has one.
func (e *explorer) available(ki int, ss *sites) int {
	for j := range e.kinds {
		i := (ki + j) % len(e.kinds)
		if e.kinds[i].crosses(ss) {
			return i
		}
	}
	return -1
}

// prefixSites runs s as drawn so far (its faults before the one being
// drawn) and returns what that run crossed. Runs are deterministic, so
// the sites of a prefix are kept (up to maxPrefixes of them; then the
// store starts over): draws and rapid's shrinking share their prefixes.
// They are kept by two independent 64-bit hashes of the prefix (its
// config's concurrency and its faults, see prefixHash): two prefixes
// share sites only if they share both hashes, a chance of 2^-128 a pair.
func (e *explorer) prefixSites(s *model.Schedule) (*sites, error) {
	h, check := prefixHash(s, prefixSeeds[0]), prefixHash(s, prefixSeeds[1])
	e.mu.Lock()
	p, ok := e.prefixSeen[h]
	e.mu.Unlock()
	if ok && p.check == check {
		return p.ss, nil
	}
	ss, err := e.runPrefix(s)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	if e.prefixSeen == nil || len(e.prefixSeen) >= maxPrefixes {
		e.prefixSeen = map[uint64]prefixEntry{}
	}
	e.prefixSeen[h] = prefixEntry{check, ss}
	e.mu.Unlock()
	return ss, nil
}

// prefixEntry is one prefix run's sites and the prefix's second hash.
type prefixEntry struct {
	check uint64
	ss    *sites
}

// prefixSeeds seed prefixHash's two hashes (a hash is never output, nor
// iterated).
var prefixSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// prefixHash hashes under seed what a prefix run of s depends on beyond
// the exploration: its concurrency and its faults' kinds, events,
// ordinals, targets and tools (a prefix is drawn without modifiers).
func prefixHash(s *model.Schedule, seed maphash.Seed) uint64 {
	x := maphash.String(seed, "") ^ uint64(len(s.Faults))
	mix := func(v uint64) { x = bits.RotateLeft64((x^v)*0x9e3779b97f4a7c15, 31) }
	if c := s.Config.Concurrency; c != nil {
		mix(uint64(c.Workers) + 1<<40)
		mix(maphash.String(seed, c.Seed))
		for _, t := range c.Interleaving {
			mix(uint64(t))
		}
		mix(uint64(len(c.Interleaving)))
	}
	for i := range s.Faults {
		f := &s.Faults[i]
		mix(maphash.String(seed, f.Kind))
		mix(maphash.String(seed, string(f.Event)))
		mix(uint64(f.Ordinal))
		mix(maphash.String(seed, f.Target))
		mix(maphash.String(seed, f.Tool))
	}
	return x
}

// maxPrefixes is the most prefix runs an explorer keeps the sites of.
const maxPrefixes = 1 << 14

// runPrefix runs s on a harness of its own and returns its sites.
func (e *explorer) runPrefix(s *model.Schedule) (*sites, error) {
	h, _ := e.prefixes.Get().(*model.Harness)
	if h == nil {
		h = model.NewHarness(e.set.fixture, e.set.harness)
	}
	defer e.prefixes.Put(h)
	e.runs.prefix.Add(1)
	var f model.Factory
	var err error
	if werr := e.within(func() { f, err = e.sys(s.Config) }); werr != nil {
		err = werr
	}
	if err != nil {
		return nil, fmt.Errorf("properties: building the system for %s: %w", e.describe(s.Config), err)
	}
	res, err := e.harnessRun(h, f, s)
	if err != nil {
		if sp := (*model.SystemPanic)(nil); errors.As(err, &sp) {
			c := *s
			c.Faults = slices.Clone(s.Faults)
			return nil, &panicError{Schedule: &c, Panic: sp}
		}
		return nil, onSchedule(fmt.Errorf("properties: harness, on the run a fault is placed in: %w", err), s)
	}
	ss := sitesOf(res)
	if e.starts {
		ss.counts[workerStart] = startsOf(res)
	}
	ss.order = orderOf(res)
	spare.Result(h, res) // the sites keep nothing of res
	return &ss, nil
}

// fail records the first harness error of a draw, for explore to return,
// or the smallest schedule that made the system panic (see panicError).
func (e *explorer) fail(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	pe, panicked := err.(*panicError)
	old, oldPanicked := e.harnessErr.(*panicError)
	if e.harnessErr == nil || panicked && oldPanicked && len(pe.Schedule.Faults) < len(old.Schedule.Faults) {
		e.harnessErr = err
	}
}

// drawKind draws the kind of one entry of a draw without a swarm, as an
// index into kinds. Unguided (and guided, one time in four), drawKindOf
// draws it. Guided, rapid draws a position in the check's wanted kinds,
// which shrinks toward the most wanted.
func (e *explorer) drawKind(t *rapid.T) int {
	if e.guide != nil && len(e.wanted) > 0 && intRange(0, 3).Draw(t, "guided") < 3 {
		return e.wanted[intRange(0, len(e.wanted)-1).Draw(t, "wanted")]
	}
	return e.drawKindOf(t, len(e.kinds))
}

// drawEven draws an integer in [0, n) evenly (to within 1 in 8n), from
// fair bits: rapid's integer draws favour small values (an IntRange of
// 4000 values gives the first 500 about seven draws in ten). It shrinks
// toward 0; n <= 1 draws nothing and gives 0.
func drawEven(t *rapid.T, n int, label string) int {
	if n <= 1 {
		return 0
	}
	var u uint64
	for b := bits.Len(uint(n-1)) + 3; b > 0; b-- {
		u <<= 1
		if boolGen.Draw(t, label) {
			u |= 1
		}
	}
	return int(u % uint64(n))
}

// drawKindOf draws a position among nk kinds: the sum of two of rapid's
// draws modulo nk, which spreads them, though not evenly (rapid favours
// small integers: over 32 kinds the first eighth comes about 1.6 times as
// often as the last).
func (e *explorer) drawKindOf(t *rapid.T, nk int) int {
	return (intRange(0, nk-1).Draw(t, "kind") + intRange(0, nk-1).Draw(t, "kind_spread")) % nk
}

// rank sets the check's wanted kinds from the guide's ranking of the
// counts seen so far: the kinds in scope whose key has the fewest visits,
// one kind a key (the best ranked), most wanted first.
func (e *explorer) rank() {
	if e.keyedPos == nil {
		e.keyedPos = map[string]int{}
		for i, k := range e.kinds {
			if e.keyed[i] {
				e.keyedPos[k.kind] = i
			}
		}
	}
	pos := e.keyedPos
	e.wanted = e.wanted[:0]
	least := -1
	for _, kind := range e.guide.Rank(e.seen) {
		i, ok := pos[kind]
		if !ok {
			continue
		}
		v, _ := e.seen.KeyCounts(e.keys[i])
		if least < 0 {
			least = v
		}
		if v > least {
			break
		}
		if !slices.ContainsFunc(e.wanted, func(w int) bool { return e.keys[w] == e.keys[i] }) {
			e.wanted = append(e.wanted, i)
		}
	}
}

// record records res into the WithCoverage tracker, if any, and keeps
// the first error it meets (coverageErr): a recording error never hides
// a counterexample found (prop, replay), it goes beside it.
func (e *explorer) record(res *model.Result) error {
	if e.set.tracker == nil {
		return nil
	}
	err := e.set.tracker.Record(res)
	if f := e.set.recordFault; err == nil && f != nil {
		err = f(res)
	}
	if err != nil {
		err = fmt.Errorf("properties: recording coverage: %w", err)
		e.covMu.Lock()
		if e.covErr == nil {
			e.covErr = err
		}
		e.covMu.Unlock()
		return err
	}
	return nil
}

// coverageErr returns the first error record met, nil for none.
func (e *explorer) coverageErr() error {
	e.covMu.Lock()
	defer e.covMu.Unlock()
	return e.covErr
}

// withCoverageErr is the end of every door's search: a counterexample
// found carries the recording error beside it (Report.CoverageErr); a
// search that found none ends with it (a harness error, exit 2).
func (e *explorer) withCoverageErr(rep *Report, err error) (*Report, error) {
	cerr := e.coverageErr()
	switch {
	case err != nil || cerr == nil || rep == nil:
		return rep, err
	case rep.Found:
		rep.CoverageErr = cerr
		return rep, nil
	}
	return nil, cerr
}

// prop is the property rapid checks: every invariant in scope holds after
// every crossing of a run of the drawn schedule.
func (e *explorer) prop(t *rapid.T) {
	e.calls++
	if e.firstFail == 0 && e.set.progress != nil && !e.owned {
		// a check, not a re-run of rapid's shrinking: reported when it
		// ends, failing (rapid's Fatalf panics) or not
		defer e.progress(e.calls)
	}
	guiding := e.guide != nil && e.firstFail == 0
	if guiding {
		// from the first failure on, the order stays that check's, so
		// rapid's shrinking maps the same draws to the same kinds
		if e.ranked {
			e.ranked = false // exploreOwned ranked for this check already
		} else {
			e.rank()
		}
	}
	s := e.draw(t)
	res, err := e.run(s)
	if err == nil {
		// a recording error ends a search that found nothing (a harness
		// error); from the first violation on it is kept beside it
		if rerr := e.record(res); rerr != nil && e.firstFail == 0 {
			if _, bad := e.violation(res); !bad {
				err = rerr
			}
		}
	}
	if err == nil && guiding {
		err = e.seen.Record(res)
	}
	var sp *model.SystemPanic
	if errors.As(err, &sp) {
		// a failure of the system: rapid shrinks it like a violation,
		// and the smallest schedule that panicked is the campaign's
		e.fail(&panicError{Schedule: s, Panic: sp})
		t.Fatalf("%v\n%s", sp, model.Format(s))
	}
	if err != nil {
		e.harnessErr = err
		t.Fatalf("%v", err)
	}
	if e.firstFail == 0 {
		e.count(res)
	}
	inv, bad := e.violation(res)
	if !bad {
		if e.set.tracker == nil {
			// nothing keeps res (the guide's tracker counts keys, and
			// copies what it keeps): the next run reuses its storage
			spare.Result(e.harness, res)
		}
		return
	}
	if e.firstFail == 0 {
		e.firstFail = e.calls
	}
	e.last, e.lastInv = s, inv.Invariant
	by := "no fault fired"
	if inv.FaultID != "" {
		by = "reached by " + inv.FaultID
	}
	e.lastMsg = fmt.Sprintf("%s violated after seq %d (%s), %s: %s", inv.Invariant, inv.FirstSeq, inv.Event, by, inv.Detail)
	t.Fatalf("%s\n%s", e.lastMsg, model.Format(s))
}

// count adds one check's fault reports and crossed events to the
// campaign's counts.
func (e *explorer) count(res *model.Result) {
	for _, f := range res.Faults {
		e.faults++
		if f.Reached {
			e.reached++
			if f.Fired > 0 {
				e.fired++
			}
		}
	}
	e.markCrossed(res)
}

// markCrossed adds the events of allEvents res crossed to e.crossed.
func (e *explorer) markCrossed(res *model.Result) {
	tl := res.Timeline
	for i := range tl.Len() {
		if p := tl.EventIndex(i); p >= 0 {
			e.crossed[p] = true
		}
	}
}

// panicError is the error Check, Explore and Exhaustive end with when the
// system's code panicked in a run: Schedule is the smallest schedule
// found that made it panic (a replayable schedule: faultline replay, or
// FAULTLINE_REPLAY with the file), Panic where and why. A failure of the
// system (exit 1), not of the harness.
type panicError struct {
	Schedule *model.Schedule
	Panic    *model.SystemPanic
}

// Error is the panic's message and the schedule in the file format.
func (p *panicError) Error() string {
	return fmt.Sprintf("properties: %v, under the schedule:\n%s", p.Panic, model.Format(p.Schedule))
}

// Unwrap returns the *model.SystemPanic.
func (p *panicError) Unwrap() error { return p.Panic }

// errStop is what the recorder panics with to stop rapid after a failure.
var errStop = errors.New("properties: stop")

// recorder is the rapid.TB the exploration runs under: it records rapid's
// failure messages instead of failing a test, forwards logs but rapid's
// draws to the parent test (if any) and takes the parent's name, so
// rapid's fail file for that test keeps working.
type recorder struct {
	parent rapid.TB
	name   string
	failed bool
	msgs   []string
}

func (r *recorder) Helper()       {}
func (r *recorder) Name() string  { return r.name }
func (r *recorder) Failed() bool  { return r.failed }
func (r *recorder) Fail()         { r.failed = true }
func (r *recorder) FailNow()      { r.failed = true; panic(errStop) }
func (r *recorder) SkipNow()      { panic(errStop) }
func (r *recorder) Log(a ...any)  { r.Logf("%s", fmt.Sprint(a...)) }
func (r *recorder) Skip(a ...any) { r.Log(a...); r.SkipNow() }
func (r *recorder) Skipf(format string, a ...any) {
	r.Logf(format, a...)
	r.SkipNow()
}
func (r *recorder) Logf(format string, a ...any) {
	// rapid logs each draw of the failing check: the counterexample
	// names the schedule they made, so they are not passed on
	if r.parent != nil && !strings.HasPrefix(format, "[rapid] draw") {
		r.parent.Logf(format, a...)
	}
}
func (r *recorder) Errorf(format string, a ...any) {
	r.failed = true
	r.msgs = append(r.msgs, fmt.Sprintf(format, a...))
}
func (r *recorder) Error(a ...any) { r.Errorf("%s", fmt.Sprint(a...)) }
func (r *recorder) Fatalf(format string, a ...any) {
	r.Errorf(format, a...)
	r.FailNow()
}
func (r *recorder) Fatal(a ...any) { r.Fatalf("%s", fmt.Sprint(a...)) }

// found completes the report of a campaign that failed: the seed rapid
// printed, the counterexample of the last failing schedule, reduced, and
// its files when the exploration writes them.
func (e *explorer) found(rep *Report) (*Report, error) {
	if m := seedRE.FindStringSubmatch(rep.rapidOutput); m != nil {
		rep.Seed, _ = strconv.ParseUint(m[1], 10, 64)
	}
	cx, err := e.counterexample(e.last, e.lastInv)
	if err != nil {
		return nil, e.keepFound(err)
	}
	if err := e.confirmClean(); err != nil {
		return nil, err
	}
	if e.set.failDir != "" {
		if err := WriteCounterexample(e.set.failDir, cx, rep, e.set.replay); err != nil {
			return nil, err
		}
	}
	rep.Counterexample = cx
	return rep, nil
}

// allEvents are the events a fault may be placed at, in the order the
// draws and the walk take them: model.AllEvents, then notice.receive,
// which only a run whose provider sends notices crosses (so the sites of
// every run without notices are those of model.AllEvents).
var allEvents = append(slices.Clone(model.AllEvents), model.EvNoticeReceive)

// drawComposed draws, one time in four, a later entry of a swarm draw as
// part of a composition with the entries before it (prev, whose run is
// ss): at a crossing of theirs or one of the nearCrossings after it (the
// system's answer to the fault), or at a crossing their run made that the
// clean run lacks; its kind fits that event, and is a world event half
// the time when the swarm holds both. false: the entry is drawn as any
// other. Each draw shrinks toward false (docs/exploration.md).
func (e *explorer) drawComposed(t *rapid.T, sw *swarmDraw, prev []model.FaultEntry, ss *sites) (model.FaultEntry, bool) {
	if intRange(0, 3).Draw(t, "composed") < 3 {
		return model.FaultEntry{}, false
	}
	type site struct{ p, o int } // position in allEvents, ordinal
	var abuf [64]site
	anchors := abuf[:0]
	if boolGen.Draw(t, "composed_near") {
		// the crossings at and just after an earlier entry's in its run:
		// the system's answer to that fault (a retry, a recovery, the
		// checkpoint written after it), where a second fault meets it
		for _, f := range prev {
			p := slices.Index(ss.order, crossing{uint8(eventPos(f.Event)), uint16(f.Ordinal)})
			if p < 0 {
				continue
			}
			for _, c := range ss.order[p:min(p+nearCrossings+1, len(ss.order))] {
				if a := (site{int(c.ev), int(c.o)}); !slices.Contains(anchors, a) {
					anchors = append(anchors, a)
				}
			}
		}
	}
	if len(anchors) == 0 {
		for _, f := range prev {
			if p := eventPos(f.Event); p >= 0 && ss.counts[p] >= f.Ordinal && !slices.Contains(anchors, site{p, f.Ordinal}) {
				anchors = append(anchors, site{p, f.Ordinal})
			}
		}
		for p := range allEvents {
			for o := e.clean.counts[p] + 1; o <= ss.counts[p]; o++ {
				if !slices.Contains(anchors, site{p, o}) {
					anchors = append(anchors, site{p, o})
				}
			}
		}
	}
	if len(anchors) == 0 {
		return model.FaultEntry{}, false
	}
	a := anchors[intRange(0, len(anchors)-1).Draw(t, "anchor")]
	ev := allEvents[a.p]
	var cbuf, wbuf [64]int
	cands, world := cbuf[:0], wbuf[:0]
	for _, i := range sw.kinds {
		k := &e.kinds[i]
		if slices.Contains(k.fittingPos, uint8(a.p)) && !slices.ContainsFunc(prev, func(f model.FaultEntry) bool {
			return f.Kind == k.kind && f.Event == ev && f.Ordinal == a.o
		}) {
			cands = append(cands, i)
			if k.world {
				world = append(world, i)
			}
		}
	}
	if len(cands) == 0 {
		return model.FaultEntry{}, false
	}
	if len(world) > 0 && len(world) < len(cands) && boolGen.Draw(t, "composed_world") {
		cands = world
	}
	k := &e.kinds[cands[e.drawKindOf(t, len(cands))]]
	f := model.FaultEntry{Kind: k.kind, Event: ev, Ordinal: a.o}
	e.drawTarget(t, k, &f, ss)
	return f, true
}

// nearCrossings is how many crossings after an earlier entry's a composed
// entry's near anchors reach (see drawComposed).
const nearCrossings = 4

// Draws build their generators once: a generator of rapid is immutable,
// and building one for every draw was a fourteenth of a check.
var (
	boolGen = rapid.Bool()
	ranges  = struct {
		sync.Mutex
		m map[[2]int]*rapid.Generator[int]
	}{m: map[[2]int]*rapid.Generator[int]{}}
)

// maxRanges bounds the generators intRange keeps.
const maxRanges = 1 << 12

// smallRanges holds intRange's generators of lo 0 or 1 and hi up to
// smallHi, read without the lock.
var smallRanges [2][smallHi + 1]atomic.Pointer[rapid.Generator[int]]

// smallHi is the highest hi of smallRanges.
const smallHi = 255

// intRange returns rapid.IntRange(lo, hi), built once for each range.
func intRange(lo, hi int) *rapid.Generator[int] {
	if lo >= 0 && lo <= 1 && hi >= lo && hi <= smallHi {
		p := &smallRanges[lo][hi]
		if g := p.Load(); g != nil {
			return g
		}
		g := rapid.IntRange(lo, hi)
		p.CompareAndSwap(nil, g)
		return p.Load()
	}
	k := [2]int{lo, hi}
	ranges.Lock()
	defer ranges.Unlock()
	g, ok := ranges.m[k]
	if !ok {
		g = rapid.IntRange(lo, hi)
		if len(ranges.m) < maxRanges {
			ranges.m[k] = g
		}
	}
	return g
}
