package properties

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/faultline/faultline/internal/catalog"
	"github.com/faultline/faultline/internal/rerun"
	"github.com/faultline/faultline/internal/spare"
	"github.com/faultline/faultline/model"
)

// Bounds of the exhaustive walk's options.
const (
	// defaultMaxSchedules is the most schedules Exhaustive runs unless
	// WithMaxSchedules says otherwise.
	defaultMaxSchedules = 10_000_000
	// maxSchedulesLimit bounds WithMaxSchedules.
	maxSchedulesLimit = 100_000_000
	// defaultWalkBudget is the most schedules the walk phase of the
	// default check runs (WithMaxSchedules sets another), and
	// shortWalkBudget the most under go test -short (docs/exploration.md).
	defaultWalkBudget = 20_000
	shortWalkBudget   = 5_000
	// walkPhaseFaults is the most faults of a schedule the walk phase runs.
	walkPhaseFaults = 2
	// maxWorkers bounds WithWorkers.
	maxWorkers = 256
	// maxSwitchesLimit bounds WithMaxSwitches.
	maxSwitchesLimit = 4
)

// exhaustiveSettings are the options only Exhaustive reads.
type exhaustiveSettings struct {
	on           bool // WithExhaustive
	ownEvents    bool
	workers      int  // 0: one
	maxSchedules int  // 0: defaultMaxSchedules
	maxSet       bool // WithMaxSchedules was given (0: the default check walks nothing)
	noWalk       bool // the default check walks nothing (the tests of the random phase)
	unreduced    bool
	visit        func(*model.Schedule) // called on each schedule run, in order
	// switches is WithMaxSwitches' bound plus one (0: unset, a bound of 1)
	switches int
	// modsLast: a fault with a modifier is a schedule's last placed (the
	// default check's walk phase; see ExhaustiveScope.Modifiers)
	modsLast bool
}

// WithOwnEvents places each kind only at its own event (FaultSpec.Event),
// at every ordinal of it the prefix's run crosses: the designed scope.
// Default: at every event the schedule validator accepts the kind at.
// Only Exhaustive reads it.
func WithOwnEvents() Option {
	return optionFunc(func(s *settings) error { s.exh.ownEvents = true; return nil })
}

// WithWorkers runs the exhaustive walk on n goroutines (1 to maxWorkers;
// default 1), each with its own harness. The report does not depend on n.
// Only Exhaustive reads it.
func WithWorkers(n int) Option {
	return optionFunc(func(s *settings) error {
		if n < 1 || n > maxWorkers {
			return fmt.Errorf("properties: workers %d must be between 1 and %d", n, maxWorkers)
		}
		s.exh.workers = n
		return nil
	})
}

// WithMaxSchedules caps the schedules an exhaustive walk runs (0 to
// maxSchedulesLimit). Under WithExhaustive (default defaultMaxSchedules;
// 0 is an error) a walk that reaches the cap is incomplete: inconclusive,
// never a pass. In the default check it is the budget of the walk phase
// (default defaultWalkBudget, shortWalkBudget under -short; 0: no walk).
// See docs/exploration.md, "The default check".
func WithMaxSchedules(n int) Option {
	return optionFunc(func(s *settings) error {
		if n < 0 || n > maxSchedulesLimit {
			return fmt.Errorf("properties: max schedules %d must be between 0 and %d", n, maxSchedulesLimit)
		}
		s.exh.maxSchedules, s.exh.maxSet = n, true
		return nil
	})
}

// WithMaxSwitches bounds the context switches of the interleavings a
// concurrent exhaustive walk enumerates (0 to maxSwitchesLimit; default
// 1; 0 runs the default order alone). Their number grows about as the
// scheduling points to the power of the bound. Only Exhaustive reads it,
// and only for a concurrent config.
func WithMaxSwitches(n int) Option {
	return optionFunc(func(s *settings) error {
		if n < 0 || n > maxSwitchesLimit {
			return fmt.Errorf("properties: max switches %d must be between 0 and %d", n, maxSwitchesLimit)
		}
		s.exh.switches = n + 1
		return nil
	})
}

// withoutReduction makes the walk run every list of placements as
// generated, without putting its faults in canonical order or skipping
// duplicates: the unreduced walk the reduced one is compared with.
func withoutReduction() Option {
	return optionFunc(func(s *settings) error { s.exh.unreduced = true; return nil })
}

// withVisit calls f on each schedule the walk runs, in enumeration
// order (the tests' view of what was enumerated).
func withVisit(f func(*model.Schedule)) Option {
	return optionFunc(func(s *settings) error { s.exh.visit = f; return nil })
}

// ExhaustiveScope is what an exhaustive walk enumerated over.
type ExhaustiveScope struct {
	// Fixture is the workload's name and Config the config of every
	// schedule (fixture included).
	Fixture string       `json:"fixture"`
	Config  model.Config `json:"config"`
	// Kinds are the fault kinds and world events in scope, in catalogue
	// order then the world events', and World whether world events were.
	Kinds []string `json:"kinds"`
	World bool     `json:"world_events"`
	// Placement is "own event" (WithOwnEvents: each kind at its own
	// event) or "any event" (every event the validator accepts it at).
	Placement string `json:"placement"`
	// Interleavings is, for a concurrent config, how many interleavings
	// each fault schedule ran under: the default order and every one with
	// at most MaxSwitches context switches (see Exhaustive); 0 for a
	// sequential config.
	Interleavings int `json:"interleavings,omitempty"`
	// MaxSwitches is their bound (WithMaxSwitches).
	MaxSwitches int `json:"max_switches,omitempty"`
	// ClockAdvances are the lengths, in logical ms, a clock_advance in
	// scope is placed with: 1000 (its default) and then each timing
	// boundary of the run (see Exhaustive); empty when clock_advance is
	// not in scope.
	ClockAdvances []model.Millis `json:"clock_advances,omitempty"`
	// modifiers are the correlation modifiers placed (see Modifiers),
	// onlyOne those left out for want of workers or tenants; lastOnly:
	// only on the fault placed last
	modifiers, onlyOne []model.Correlation
	lastOnly           bool
}

// String names the scope for people: "kinds a, b; world events off;
// placement any event; fixture F; not enumerated: ..." (NotEnumerated).
func (s ExhaustiveScope) String() string {
	w := "off"
	if s.World {
		w = "on"
	}
	out := fmt.Sprintf("kinds %s; world events %s; placement %s; fixture %s", strings.Join(s.Kinds, ", "), w, s.Placement, s.Fixture)
	if len(s.ClockAdvances) > 0 {
		out += "; " + s.clockAdvancesText()
	}
	if s.Interleavings > 0 {
		out += "; " + s.interleavingsText()
	}
	return out + "; " + s.Modifiers()
}

// Modifiers says which correlation modifiers the walk placed, on any
// fault whose kind takes them (a schedule of k faults with m modified
// runs after those of k faults, under its interleaving, with fewer), and
// what it left out: "modifiers on any fault repeated (2 crossings),
// persistent (to the run's end); not enumerated: synchronized (one
// worker), shared (one tenant), other repeat counts, until events and
// windows". The default check's walk phase, to bound its cost, places
// them on the last fault placed ("modifiers on the last fault ..."; not
// enumerated: "faults placed after a modified one").
func (s ExhaustiveScope) Modifiers() string {
	if len(s.modifiers)+len(s.onlyOne) == 0 {
		return "modifiers none (no kind in scope takes one)"
	}
	var on []string
	for _, c := range s.modifiers {
		on = append(on, string(c)+modifierNote[c])
	}
	out := "modifiers none"
	if len(on) > 0 {
		out = "modifiers on any fault " + strings.Join(on, ", ")
		if s.lastOnly {
			out = "modifiers on the last fault " + strings.Join(on, ", ")
		}
	}
	out += "; not enumerated: "
	for _, c := range s.onlyOne {
		if c == model.Correlation("synchronized") {
			out += "synchronized (one worker), "
		} else {
			out += "shared (one tenant), "
		}
	}
	if s.lastOnly && len(on) > 0 {
		out += "faults placed after a modified one, "
	}
	return out + "other repeat counts, until events and windows"
}

// modifierNote is the parameter the walk gives each modifier.
var modifierNote = map[model.Correlation]string{
	"repeated":     " (2 crossings)",
	"persistent":   " (to the run's end)",
	"synchronized": " (the default window)",
	"shared":       "",
}

// clockAdvancesText names the lengths a clock_advance is placed with:
// "clock advances 1000, 2000, 120000 ms".
func (s ExhaustiveScope) clockAdvancesText() string {
	ns := make([]string, len(s.ClockAdvances))
	for i, d := range s.ClockAdvances {
		ns[i] = strconv.FormatInt(int64(d), 10)
	}
	return "clock advances " + strings.Join(ns, ", ") + " ms"
}

// interleavingsText says how many interleavings a concurrent walk ran
// each fault schedule under: "79 interleavings (at most one context
// switch)".
func (s ExhaustiveScope) interleavingsText() string {
	bound := "at most one context switch"
	switch s.MaxSwitches {
	case 0:
		bound = "the default order alone"
	case 1:
	default:
		bound = fmt.Sprintf("at most %d context switches", s.MaxSwitches)
	}
	return fmt.Sprintf("%d interleavings (%s)", s.Interleavings, bound)
}

// ExhaustiveReport is the result of an exhaustive walk (WithExhaustive).
type ExhaustiveReport struct {
	// Found is true when a schedule broke an invariant in scope;
	// Counterexample is then the first such schedule in enumeration order
	// (no smaller one breaks any, by construction) and Index its 1-based
	// position in that order (in the whole enumeration, for a shard: the
	// first among the shard's own schedules).
	Found          bool            `json:"found"`
	Index          int             `json:"index,omitempty"`
	Counterexample *Counterexample `json:"counterexample,omitempty"`
	// Complete is true when the walk ran every schedule of at most
	// MaxFaults faults of its scope (or stopped at a counterexample);
	// false when it reached Cap first: then it proves nothing.
	Complete bool `json:"complete"`
	// MaxFaults is K, Cap the most schedules the walk would run.
	MaxFaults int `json:"max_faults"`
	Cap       int `json:"cap"`
	// Schedules is N, the schedules run (up to and including the
	// counterexample), and PerSize[k] those of k faults (k = 0 to
	// MaxFaults; 0 is the clean run).
	Schedules int   `json:"schedules"`
	PerSize   []int `json:"per_size"`
	// Faults, Reached and Fired count the faults of those schedules, the
	// ones their runs reached and the ones that also fired.
	Faults  int `json:"faults"`
	Reached int `json:"reached"`
	Fired   int `json:"fired"`
	// Scope is what was enumerated.
	Scope ExhaustiveScope `json:"scope"`
	// Shard and Shards are WithShard's i and n (0 when unsharded): then
	// Schedules, PerSize and the fault counts are the shard's own
	// schedules', and Complete says the whole enumeration was passed.
	Shard  int `json:"shard,omitempty"`
	Shards int `json:"shards,omitempty"`
	// total is, for a walk cut by its cap, the schedules of its
	// enumeration known when it stopped: all of them when exact (the cut
	// came in the largest size), else a lower bound
	total int
	exact bool
}

// Inconclusive reports whether the walk proved nothing: no counterexample,
// and it did not finish, reached no scheduled fault, or reached some but
// none ever fired (an adapter that enacts none of the kinds in scope), as
// Report.Inconclusive says of a random campaign.
func (r *ExhaustiveReport) Inconclusive() bool {
	return !r.Found && (!r.Complete || r.Reached == 0 || r.Fired == 0)
}

// UnfiredText says, of a walk whose reached faults never fired, what
// Report.InconclusiveMessage says of such a random campaign: "48 of the 48
// faults they scheduled were reached but none fired (...), so no fault
// was tested; narrow the kinds to those the adapters enact (their
// Kinds())".
func (r *ExhaustiveReport) UnfiredText() string {
	return fmt.Sprintf("%d of the %d faults they scheduled were reached but none fired%s", r.Reached, r.Faults, unfiredReason)
}

// Sizes says how many schedules of each size ran: "1 of 0 faults, 30 of
// 1, 912 of 2".
func (r *ExhaustiveReport) Sizes() string {
	parts := make([]string, len(r.PerSize))
	for k, n := range r.PerSize {
		if k == 0 {
			parts[k] = fmt.Sprintf("%d of 0 faults", n)
		} else {
			parts[k] = fmt.Sprintf("%d of %d", n, k)
		}
	}
	return strings.Join(parts, ", ")
}

// Summary is the report's verdict line: the bounded proof ("no
// counterexample among N schedules of at most K faults"), the incomplete
// walk, the inconclusive one (no scheduled fault reached, or none fired),
// or the counterexample's position, with the scope.
func (r *ExhaustiveReport) Summary() string {
	switch {
	case r.Found:
		return fmt.Sprintf("counterexample: schedule %d of the walk, %d faults (%s; %s)", r.Index, len(r.Counterexample.Schedule.Faults), r.Sizes(), r.Scope)
	case !r.Complete:
		return fmt.Sprintf("incomplete: the walk reached its cap of %d schedules before it ran every schedule of at most %d faults; no counterexample among those %d, which proves nothing (%s; %s)",
			r.Cap, r.MaxFaults, r.Schedules, r.Sizes(), r.Scope)
	case r.Reached == 0:
		return fmt.Sprintf("inconclusive: no counterexample among %d schedules of at most %d faults, but no scheduled fault was reached (%s; %s)", r.Schedules, r.MaxFaults, r.Sizes(), r.Scope)
	case r.Fired == 0:
		return fmt.Sprintf("inconclusive: no counterexample among %d schedules of at most %d faults; %s (%s; %s)", r.Schedules, r.MaxFaults, r.UnfiredText(), r.Sizes(), r.Scope)
	}
	return fmt.Sprintf("no counterexample among %d schedules of at most %d faults (%s; %s)", r.Schedules, r.MaxFaults, r.Sizes(), r.Scope)
}

// WithExhaustive makes Explore and Check the bounded-exhaustive walk
// instead of random draws: every schedule of up to WithMaxFaults faults and world
// events, smallest first, each fault at a crossing the run of the faults
// before it reached and with each modifier its kind takes (see
// ExhaustiveScope.Modifiers), stopping at the first that breaks an invariant in
// scope (minimal by construction) or ending in a bounded proof over the
// scope. Its report is Report.Exhaustive. WithCoverage, WithGuide,
// WithSeed and WithChecks do not apply. See docs/exploration.md.
func WithExhaustive() Option {
	return optionFunc(func(s *settings) error { s.exh.on = true; return nil })
}

// exhaustive runs the walk of e and reports it as Explore does.
func (e *explorer) exhaustive() (*Report, error) {
	w, err := e.walkReport()
	if err != nil {
		return nil, err
	}
	return &Report{Found: w.Found, Counterexample: w.Counterexample, Faults: w.Faults, Reached: w.Reached, Fired: w.Fired,
		Shard: w.Shard, Shards: w.Shards, Exhaustive: w}, nil
}

// walkReport runs the exhaustive walk of e.
func (e *explorer) walkReport() (*ExhaustiveReport, error) {
	switch {
	case e.set.tracker != nil:
		return nil, errors.New("properties: WithCoverage does not apply to an exhaustive walk")
	case e.set.guide != nil:
		return nil, errors.New("properties: WithGuide does not apply to an exhaustive walk: it draws nothing")
	case e.set.loop.seedSet || e.set.loop.checks > 0:
		return nil, errors.New("properties: WithSeed and WithChecks do not apply to an exhaustive walk: it draws nothing")
	case e.set.exh.maxSet && e.set.exh.maxSchedules == 0:
		return nil, errors.New("properties: WithMaxSchedules(0) leaves an exhaustive walk nothing to run: give at least 1")
	}
	return e.runWalk()
}

// runWalk runs the exhaustive walk of e, its options checked.
func (e *explorer) runWalk() (*ExhaustiveReport, error) {
	if e.set.config.Notices {
		// the clean run tells whether the system reads its notices (noticeScope)
		clean, err := e.run(&model.Schedule{Version: model.ScheduleVersion, Seed: "clean", Config: e.set.config, Faults: []model.FaultEntry{}})
		if err != nil {
			return nil, err
		}
		e.markCrossed(clean)
		e.noticeScope()
	}
	w, err := newWalk(e)
	if err != nil {
		return nil, err
	}
	rep, err := w.walk()
	if rep != nil {
		for len(rep.PerSize) < e.set.maxFaults+1 {
			rep.PerSize = append(rep.PerSize, 0)
		}
	}
	return rep, err
}

// errNoWalkKind is newWalk's error when no kind is in scope: the walk
// phase of the default check then runs nothing, and the random phase
// reports the campaign inconclusive.
var errNoWalkKind = errors.New("properties: no fault kind or world event in scope")

// exKind is one kind in the walk's scope.
type exKind struct {
	code       byte // index into walkKinds
	kind       string
	events     []int // indices into model.AllEvents, in that order
	persistent bool
	// corrs are the correlation modifiers placed with it (placed.corr)
	corrs  []model.Correlation
	target model.EventName // whose details are its targets ("" none)
	// advances are a clock advance's targets: the default (1000 ms) and
	// the config's timing boundaries (see clockTargets)
	advances []string
}

// placed is one fault of a schedule in the walk: codes for its kind and
// event, its ordinal and target, and corr: 0 for the kind's own
// correlation, else 1 + the index of its modifier in exKind.corrs.
type placed struct {
	kind    byte
	event   byte
	corr    byte
	ordinal int
	target  string
}

// walkState is one exhaustive walk.
type walkState struct {
	e      *explorer
	kinds  []exKind
	byCode []*exKind // by kind code
	cap    int
	rep    *ExhaustiveReport
	// ils are a concurrent walk's interleavings (see Exhaustive), the
	// default order (nil) first; nil for a sequential walk
	ils [][]int
	// starts: a kind in scope is placed at worker.start, whose crossings
	// sitesOf leaves out
	starts bool
}

// join is the walk's key of the schedule of fs under interleaving il:
// key(fs) for a sequential walk, prefixed by il for a concurrent one.
func (w *walkState) join(il int, fs []placed) string {
	if w.ils == nil {
		return key(fs)
	}
	return string(binary.AppendUvarint(nil, uint64(il))) + key(fs)
}

// split decodes a key of join.
func (w *walkState) split(k string) (int, []placed) {
	if w.ils == nil {
		return 0, unkey(k)
	}
	il, n := binary.Uvarint([]byte(k))
	return int(il), unkey(k[n:])
}

// interleavings lists a concurrent walk's interleavings (see Exhaustive):
// nil for a sequential config, an error for one that sets its own.
func (w *walkState) interleavings() error {
	set := w.e.set
	c := set.config.Concurrency
	if c == nil || c.Workers < 2 || len(set.fixture.Tasks) < 2 {
		return nil
	}
	if c.Seed != "" || len(c.Interleaving) > 0 {
		return errors.New("properties: an exhaustive walk enumerates the interleavings itself: leave the config's concurrency seed and interleaving unset")
	}
	clean := func(il []int) ([]int, error) {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "exhaustive", Config: set.config, Faults: []model.FaultEntry{}}
		s.Config.Concurrency = cloneConcurrency(c)
		s.Config.Concurrency.Interleaving = il
		res, err := w.e.run(s)
		if err != nil {
			return nil, err
		}
		return res.Interleaving, nil
	}
	picks, err := clean(nil)
	if err != nil {
		return err
	}
	bound := 1
	if set.exh.switches > 0 {
		bound = set.exh.switches - 1
	}
	type node struct{ il, picks []int }
	w.ils = [][]int{nil}
	seen := map[string]bool{fmt.Sprint(picks): true}
	frontier := []node{{nil, picks}}
	for depth := 0; depth < bound && len(frontier) > 0; depth++ {
		var next []node
		for _, f := range frontier {
			for i := len(f.il); i < len(f.picks); i++ {
				for task := 1; task <= len(set.fixture.Tasks); task++ {
					if task == f.picks[i] {
						continue
					}
					il := append(slices.Clone(f.picks[:i]), task)
					got, err := clean(il)
					if err != nil {
						return err
					}
					if k := fmt.Sprint(got); !seen[k] {
						seen[k] = true
						w.ils = append(w.ils, il)
						next = append(next, node{il, got})
					}
				}
			}
		}
		frontier = next
	}
	return nil
}

// walkKinds are every kind and world event a walk may place, in the order
// their codes are given: the catalogue, the world events, the kinds of
// the provider's notices (placed only under a config with notices), and
// the kinds outside the catalogue (placed when WithKinds names them, or
// where they can act: drawnByDefault).
var walkKinds = func() []model.FaultSpec {
	return append(append(append(append(model.Catalogue(), model.WorldEvents()...), model.NoticeKinds()...), model.CacheAndWorkerKinds()...), familyKinds...)
}()

// transportTargets are a transport kind's targets: before commit (none)
// and after it.
var transportTargets = []string{"", "after_commit"}

// takesCommitPhase reports whether the schedule validator accepts kind at
// tool.commit with the target after_commit and refuses any other target:
// a kind that strikes before or after the provider commits (server_error,
// network_error), placed at both (transportTargets). The model decides,
// not a list of names here.
func takesCommitPhase(kind string) bool {
	with := func(target string) error {
		s := model.Schedule{Version: model.ScheduleVersion, Config: model.Config{},
			Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: kind, Target: target}}}
		return s.Validate()
	}
	return with(transportTargets[1]) == nil && with("any other target") != nil
}

// isCacheWorkerKind reports whether kind is one of
// model.CacheAndWorkerKinds, which a walk or an exploration places only
// when WithKinds names it, or where it can act (drawnByDefault).
func isCacheWorkerKind(kind string) bool {
	is := func(sp model.FaultSpec) bool { return sp.Kind == kind }
	return slices.ContainsFunc(model.CacheAndWorkerKinds(), is) || isFamilyKind(kind)
}

// drawnByDefault reports whether a walk or an exploration under set
// places sp of model.CacheAndWorkerKinds or familyKinds without WithKinds
// naming it: catalog.DrawnByDefault, the rule coverage counts by too.
func drawnByDefault(set *settings, sp model.FaultSpec) bool {
	return catalog.DrawnByDefault(&set.fixture, set.config, sp)
}

func newWalk(e *explorer) (*walkState, error) {
	set := e.set
	w := &walkState{e: e, byCode: make([]*exKind, len(walkKinds)), cap: set.exh.maxSchedules}
	if w.cap == 0 {
		w.cap = defaultMaxSchedules
	}
	scope := ExhaustiveScope{Fixture: set.fixture.Name, Config: set.config, World: set.world, Placement: "any event", lastOnly: set.exh.modsLast}
	if set.exh.ownEvents {
		scope.Placement = "own event"
	}
	c := set.config.Concurrency
	workers := c != nil && c.Workers >= 2 && len(set.fixture.Tasks) >= 2
	tenants := false
	for _, t := range set.fixture.Tasks {
		tenants = tenants || t.Tenant != set.fixture.Tasks[0].Tenant
	}
	var mods, onlyOne []model.Correlation
	for code, sp := range walkKinds {
		if sp.World && !set.world || sp.Event == model.EvNoticeReceive && !set.config.Notices ||
			isCacheWorkerKind(sp.Kind) && !slices.Contains(set.kinds, sp.Kind) && !drawnByDefault(&set, sp) {
			continue
		}
		if set.kinds != nil && !slices.Contains(set.kinds, sp.Kind) || !catalog.Enacted(set.def, sp.Kind) {
			continue // outside the scope, or a kind the path cannot enact (Definition.Enacts)
		}
		if set.domains != nil && !slices.Contains(set.domains, sp.Domain) {
			continue
		}
		k := exKind{code: byte(code), kind: sp.Kind, persistent: sp.Correlation == model.Correlation("persistent")}
		for _, c := range sp.Correlations {
			if c == "synchronized" && !workers || c == "shared" && !tenants {
				if !slices.Contains(onlyOne, c) {
					onlyOne = append(onlyOne, c)
				}
				continue
			}
			k.corrs = append(k.corrs, c)
			if !slices.Contains(mods, c) {
				mods = append(mods, c)
			}
		}
		for i, ev := range allEvents {
			if set.exh.ownEvents && ev != sp.Event {
				continue
			}
			// worker.start: a worker-scoped kind's own (the harness
			// reaches nothing else there)
			if fits(sp.Kind, ev) && (i != workerStart || sp.WorkerScoped) {
				k.events = append(k.events, i)
				w.starts = w.starts || i == workerStart
			}
		}
		switch {
		case sp.Kind == "memory_loss":
			k.target = model.EvMemoryRead
		case sp.Kind == "branch_failure":
			k.target = model.EvBranchRun
		case takesCommitPhase(sp.Kind):
			k.advances = transportTargets
		case sp.Kind == "clock_advance":
			// the default first, as the schedule format writes it (no target)
			scope.ClockAdvances = clockTargets(set.config, set.harness, set.fixture)
			k.advances = []string{""}
			for _, a := range scope.ClockAdvances[1:] {
				k.advances = append(k.advances, strconv.FormatInt(int64(a), 10))
			}
		}
		w.kinds = append(w.kinds, k)
		scope.Kinds = append(scope.Kinds, sp.Kind)
	}
	if len(w.kinds) == 0 {
		return nil, errNoWalkKind
	}
	// in AllCorrelations' order
	for _, c := range model.AllCorrelations {
		if slices.Contains(mods, c) {
			scope.modifiers = append(scope.modifiers, c)
		}
		if slices.Contains(onlyOne, c) {
			scope.onlyOne = append(scope.onlyOne, c)
		}
	}
	for i := range w.kinds {
		w.byCode[w.kinds[i].code] = &w.kinds[i]
	}
	if err := w.interleavings(); err != nil {
		return nil, err
	}
	scope.Interleavings = len(w.ils)
	if w.ils != nil {
		scope.MaxSwitches = 1
		if set.exh.switches > 0 {
			scope.MaxSwitches = set.exh.switches - 1
		}
	}
	w.rep = &ExhaustiveReport{MaxFaults: set.maxFaults, Cap: w.cap, PerSize: make([]int, 0, set.maxFaults+1), Scope: scope}
	return w, nil
}

// eventIndex maps an event to its index in model.AllEvents.
var eventIndex = func() map[model.EventName]int {
	m := map[model.EventName]int{}
	for i, ev := range allEvents {
		m[ev] = i
	}
	return m
}()

// key encodes faults: the schedule's identity in the walk (its config is
// fixed, so equal keys are equal model.Format bytes and the converse).
func key(fs []placed) string {
	b := make([]byte, 0, 8*len(fs))
	for _, f := range fs {
		b = append(b, f.kind, f.event, f.corr)
		b = binary.AppendUvarint(b, uint64(f.ordinal))
		b = binary.AppendUvarint(b, uint64(len(f.target)))
		b = append(b, f.target...)
	}
	return string(b)
}

// unkey decodes a key.
func unkey(k string) []placed {
	var fs []placed
	b := []byte(k)
	for len(b) > 0 {
		f := placed{kind: b[0], event: b[1], corr: b[2]}
		b = b[3:]
		o, n := binary.Uvarint(b)
		b = b[n:]
		l, n := binary.Uvarint(b)
		b = b[n:]
		f.ordinal, f.target = int(o), string(b[:l])
		b = b[l:]
		fs = append(fs, f)
	}
	return fs
}

// meet reports whether a and b can act at one crossing, so that their
// order in the schedule is the order they compose in: the same event and
// ordinal, or a persistent fault and a fault at its ordinal or later.
func (w *walkState) meet(a, b placed) bool {
	if a.event != b.event {
		return false
	}
	// every modifier hits crossings at its ordinal or later only (as a
	// persistent fault may)
	pa, pb := w.byCode[a.kind].persistent || a.corr > 0, w.byCode[b.kind].persistent || b.corr > 0
	switch {
	case pa && pb:
		return true
	case pa:
		return b.ordinal >= a.ordinal
	case pb:
		return a.ordinal >= b.ordinal
	}
	return a.ordinal == b.ordinal
}

// before orders placements by event, ordinal, kind and target.
func before(a, b placed) bool {
	if a.event != b.event {
		return a.event < b.event
	}
	if a.ordinal != b.ordinal {
		return a.ordinal < b.ordinal
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	if a.target != b.target {
		return a.target < b.target
	}
	return a.corr < b.corr
}

// canonical returns the canonical order of fs: the least order by before
// that keeps every two faults that meet in their order in fs (the
// lexicographic normal form of fs under commutation of the faults that
// never meet), so every order of one set of placements has one form.
func (w *walkState) canonical(fs []placed) []placed {
	out := make([]placed, 0, len(fs))
	done := make([]bool, len(fs))
	for len(out) < len(fs) {
		best := -1
		for i := range fs {
			if done[i] {
				continue
			}
			free := true
			for j := 0; j < i && free; j++ {
				free = done[j] || !w.meet(fs[j], fs[i])
			}
			if free && (best < 0 || before(fs[i], fs[best])) {
				best = i
			}
		}
		done[best] = true
		out = append(out, fs[best])
	}
	return out
}

// schedule is the schedule of fs under the walk's config and, for a
// concurrent walk, its interleaving il.
func (w *walkState) schedule(il int, fs []placed) *model.Schedule {
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "exhaustive", Config: w.e.set.config, Faults: make([]model.FaultEntry, len(fs))}
	if w.ils != nil {
		s.Config.Concurrency = cloneConcurrency(s.Config.Concurrency)
		s.Config.Concurrency.Interleaving = slices.Clone(w.ils[il])
	}
	for i, f := range fs {
		s.Faults[i] = model.FaultEntry{Event: allEvents[f.event], Ordinal: f.ordinal, Kind: walkKinds[f.kind].Kind, Target: f.target}
		if f.corr > 0 {
			c := w.byCode[f.kind].corrs[f.corr-1]
			s.Faults[i].Correlation = c
			if c == model.Correlation("repeated") {
				s.Faults[i].Repeat = 2
			}
		}
	}
	return s
}

// sites returns the placements res's run offers the next fault, in the
// walk's order: its crossings of each event (model.Crossings, and
// worker.start for a kind placed there) and the memory keys and branch
// names it crossed, each with the kind's own correlation; then the same
// with each of its modifiers.
func (w *walkState) sites(res *model.Result) []placed {
	ss := sitesOf(res)
	crossed, details := ss.counts, ss.details
	if w.starts {
		crossed[workerStart] = startsOf(res)
	}
	var out []placed
	for _, k := range w.kinds {
		targets := []string{""}
		if k.target != "" {
			targets = append(targets, details[k.target]...)
		}
		if k.advances != nil {
			targets = k.advances
		}
		for _, ev := range k.events {
			for o := 1; o <= crossed[ev]; o++ {
				for _, t := range targets {
					out = append(out, placed{kind: k.code, event: byte(ev), ordinal: o, target: t})
				}
			}
		}
	}
	for i := range len(out) {
		for c := range w.byCode[out[i].kind].corrs {
			p := out[i]
			p.corr = byte(c + 1)
			out = append(out, p)
		}
	}
	return out
}

// clockTargets returns the clock advances the walk places, in logical
// ms: the default 1000 and then, ascending, each timing boundary of the
// run whose length differs from it: the tasks' deadline (cfg's, else the
// harness options', 2000 when neither sets one) and each capability's
// expiry in fx (one already past at the start, 0 or less, is none). An
// advance of a boundary's length at any crossing after the run starts
// passes it: a deadline measured from a task's start or a restart, an
// expiry. A boundary past MaxClockAdvance, the most one advance may be,
// is placed as MaxClockAdvance.
func clockTargets(cfg model.Config, opts model.Options, fx model.Fixture) []model.Millis {
	d := opts.Deadline
	if cfg.Deadline != nil {
		d = *cfg.Deadline
	}
	if d == 0 {
		d = 2000
	}
	bounds := []model.Millis{d}
	for _, c := range fx.Capabilities {
		bounds = append(bounds, min(c.Expiry, model.MaxClockAdvance))
	}
	bounds[0] = min(bounds[0], model.MaxClockAdvance)
	slices.Sort(bounds)
	out := []model.Millis{1000}
	for _, b := range bounds {
		if b >= 1 && !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}

// outcome is what one schedule's run told the walk.
type outcome struct {
	err                    error
	bad                    bool
	inv                    model.InvariantResult
	faults, reached, fired int
	children               []string      // keys of the schedules it extends to
	mods                   []byte        // each child's faults with a modifier
	il                     int           // the interleaving it ran under
	timeline               []model.Event // the run's, when bad (found confirms it)
}

// check runs the schedule of key k on h and, when children is true,
// computes the keys of its extensions.
func (w *walkState) check(h *model.Harness, k string, children bool) outcome {
	il, fs := w.split(k)
	s := w.schedule(il, fs)
	var f model.Factory
	var err error
	if werr := w.e.within(func() { f, err = w.e.sys(s.Config) }); werr != nil {
		err = werr
	}
	if err != nil {
		return outcome{err: fmt.Errorf("properties: building the system for %s: %w", w.e.describe(s.Config), err)}
	}
	res, err := w.e.harnessRun(h, f, s)
	if sp := (*model.SystemPanic)(nil); errors.As(err, &sp) {
		// the first schedule in the walk's order that makes the system
		// panic: minimal, as a counterexample is
		return outcome{err: &panicError{Schedule: s, Panic: sp}}
	}
	if err != nil {
		return outcome{err: onSchedule(fmt.Errorf("properties: harness: %w", err), s)}
	}
	o := outcome{il: il}
	o.inv, o.bad = w.e.violation(res)
	// the default check's walk records its runs as the random phase does
	// (WithCoverage; the exhaustive walk refuses it): an error ends a walk
	// that found nothing, and is kept beside a counterexample
	if rerr := w.e.record(res); rerr != nil && !o.bad {
		return outcome{err: onSchedule(rerr, s)}
	}
	if o.bad {
		o.timeline = res.Timeline.Events()
	}
	for _, fr := range res.Faults {
		o.faults++
		if fr.Reached {
			o.reached++
			if fr.Fired > 0 {
				o.fired++
			}
		}
	}
	// every fault takes each modifier of its kind (see Modifiers); the
	// walk runs the schedules of one size by how many faults carry one.
	// In the default check's walk phase a modified fault is the last
	// placed: its schedule extends to nothing.
	modified := 0
	for _, f := range fs {
		if f.corr > 0 {
			modified++
		}
	}
	if children && !o.bad && (modified == 0 || !w.e.set.exh.modsLast) {
		next := make([]placed, len(fs)+1)
		copy(next, fs)
		for _, site := range w.sites(res) {
			next[len(fs)] = site
			c := next
			if !w.e.set.exh.unreduced {
				c = w.canonical(next)
			}
			o.children = append(o.children, w.join(il, c))
			m := byte(modified)
			if site.corr > 0 {
				m++
			}
			o.mods = append(o.mods, m)
		}
	}
	if !o.bad {
		// nothing keeps res (the sites copy what they keep): the
		// worker's next run reuses its storage
		spare.Result(h, res)
	}
	return o
}

// chunk is how many schedules the walk hands its workers at a time.
const chunk = 512

// walk runs the levels in order. Sharded (WithShard i of n), the
// schedule at 1-based position j of the enumeration is the shard's when
// (j-1) mod n = i-1: the walk runs every schedule of fewer than
// WithMaxFaults faults (their runs give the sites of the next size), and
// of the largest size only its own; it counts, reports and stops at its
// own schedules alone. A schedule of another shard that breaks an
// invariant extends to nothing, as in the unsharded walk, which stops
// there.
func (w *walkState) walk() (*ExhaustiveReport, error) {
	rep := w.rep
	shard, shards := max(w.e.set.loop.shard, 1), max(w.e.set.loop.shards, 1)
	rep.Shard, rep.Shards = w.e.set.loop.shard, w.e.set.loop.shards
	mine := func(pos int) bool { return pos%shards == shard-1 } // pos 0-based
	workers := max(w.e.set.exh.workers, 1)
	harnesses := make([]*model.Harness, workers)
	harnesses[0] = w.e.harness
	for i := 1; i < workers; i++ {
		harnesses[i] = model.NewHarness(w.e.set.fixture, w.e.set.harness)
	}
	pos := 0              // the schedules of the whole enumeration passed so far
	level := []string{""} // the clean run (under each interleaving)
	// from[i] is the index in prev, the level before, of the schedule
	// whose run gave level[i] its last fault's site (nil for the clean
	// runs): found runs it again
	var prev []string
	var from []int32
	if w.ils != nil {
		level = level[:0]
		for il := range w.ils {
			level = append(level, w.join(il, nil))
		}
	}
	for size := 0; size <= w.e.set.maxFaults; size++ {
		levelStart := pos
		rep.PerSize = append(rep.PerSize, 0)
		children := size < w.e.set.maxFaults
		var next nextLevel
		seen := map[string]bool{}
		for start := 0; start < len(level); start += chunk {
			end := min(start+chunk, len(level))
			if room := w.cap - pos; end-start > room {
				end = start + room
			}
			// the chunk's schedules to run: all of them, but for the
			// largest size of a shard only the shard's
			var run []int
			for i := start; i < end; i++ {
				if children || mine(pos+i-start) {
					run = append(run, i)
				}
			}
			outs := make([]outcome, end-start)
			var wg sync.WaitGroup
			idx := make(chan int)
			for g := 0; g < workers; g++ {
				wg.Add(1)
				go func(h *model.Harness) {
					defer wg.Done()
					for i := range idx {
						outs[i-start] = w.check(h, level[i], children)
					}
				}(harnesses[g])
			}
			for _, i := range run {
				idx <- i
			}
			close(idx)
			wg.Wait()
			for i := range outs {
				o, own := outs[i], mine(pos)
				pos++
				if o.err != nil {
					return nil, o.err
				}
				if !own {
					if !o.bad {
						w.extend(&next, seen, o, start+i)
					}
					continue
				}
				rep.Schedules++
				rep.PerSize[size]++
				if w.e.set.exh.visit != nil {
					w.e.set.exh.visit(w.schedule(w.split(level[start+i])))
				}
				rep.Faults, rep.Reached, rep.Fired = rep.Faults+o.faults, rep.Reached+o.reached, rep.Fired+o.fired
				if o.bad {
					w.progress(0, true)
					parent, ok := "", from != nil
					if ok {
						parent = prev[from[start+i]]
					}
					return w.found(level[start+i], parent, ok, o, pos)
				}
				w.extend(&next, seen, o, start+i)
				pending := len(level) - (start + i + 1) + next.len()
				if shards > 1 {
					pending = (pending + shards - 1) / shards
				}
				w.progress(pending, false)
			}
			if end < min(start+chunk, len(level)) {
				rep.total, rep.exact = levelStart+len(level), !children
				if children {
					rep.total += next.len()
				}
				return rep, nil // the cap, with schedules left: incomplete
			}
		}
		prev = level
		level, from = next.flatten()
		if len(level) == 0 {
			break
		}
	}
	rep.Complete = true
	return rep, nil
}

// nextLevel is the next size's schedules as they are found, by
// interleaving and then by how many of their faults carry a modifier
// (keys[il][m]), each with the index of the schedule whose run gave its
// last fault's site (from[il][m]): the next level is their concatenation
// in that order, so under each interleaving the schedules with fewer
// modifiers run first.
type nextLevel struct {
	keys [][][]string
	from [][][]int32
	n    int
}

// len is the schedules of the next level found so far.
func (n *nextLevel) len() int { return n.n }

// flatten returns the next level and its parents, in the walk's order.
func (n *nextLevel) flatten() ([]string, []int32) {
	keys, from := make([]string, 0, n.n), make([]int32, 0, n.n)
	for il := range n.keys {
		for m := range n.keys[il] {
			keys, from = append(keys, n.keys[il][m]...), append(from, n.from[il][m]...)
		}
	}
	return keys, from
}

// add appends key k, of interleaving il with m modified faults, whose
// parent is the schedule at index parent of its level.
func (n *nextLevel) add(il, m int, k string, parent int) {
	for len(n.keys) <= il {
		n.keys, n.from = append(n.keys, nil), append(n.from, nil)
	}
	for len(n.keys[il]) <= m {
		n.keys[il], n.from[il] = append(n.keys[il], nil), append(n.from[il], nil)
	}
	n.keys[il][m], n.from[il][m] = append(n.keys[il][m], k), append(n.from[il][m], int32(parent))
	n.n++
}

// extend adds to next the children of o, the run of the schedule at
// index parent of its level, not yet seen at their size (all of them,
// unreduced).
func (w *walkState) extend(next *nextLevel, seen map[string]bool, o outcome, parent int) {
	for i, c := range o.children {
		if !w.e.set.exh.unreduced {
			if seen[c] {
				continue
			}
			seen[c] = true
		}
		next.add(o.il, int(o.mods[i]), c, parent)
	}
}

// found describes the counterexample of key k, whose run o broke an
// invariant, after a run through the public replay path. It first
// confirms it: that run must give the walk's timeline again, and the
// schedule of key parent (when hasParent: the one whose run gave k's
// last fault its site, which held every invariant; a clean run has none)
// must hold them again, else the system is not deterministic (state kept
// across runs would otherwise be blamed on k's faults).
func (w *walkState) found(k, parent string, hasParent bool, o outcome, index int) (*ExhaustiveReport, error) {
	rep := w.rep
	inv := o.inv.Invariant
	s := w.schedule(w.split(k))
	res, err := w.e.replay(s)
	if err != nil {
		return nil, err
	}
	if why := rerun.Diff(o.timeline, res.Timeline.Events(), false); why != nil {
		return nil, fmt.Errorf("properties: the walk's schedule %d broke %s after seq %d (%s), and run again to confirm it crossed other events: %s%s (state kept across runs, a clock or global randomness): %w",
			index, inv, o.inv.FirstSeq, o.inv.Event, why, runNote(w.e, res), ErrNondeterministic)
	}
	if hasParent {
		ps := w.schedule(w.split(parent))
		pres, err := w.e.replay(ps)
		if err != nil {
			return nil, err
		}
		if ir, bad := w.e.violation(pres); bad {
			what := "the clean run"
			if n := len(ps.Faults); n > 0 {
				what = fmt.Sprintf("the schedule of %d of its %d faults", n, len(s.Faults))
			}
			return nil, fmt.Errorf("properties: the walk's schedule %d broke %s, but %s, which held every invariant when the walk ran it, broke %s after seq %d (%s) when run again to confirm the counterexample (state kept across runs, a clock or global randomness): %w",
				index, inv, what, ir.Invariant, ir.FirstSeq, ir.Event, ErrNondeterministic)
		}
	}
	rep.Found, rep.Complete, rep.Index = true, true, index
	// s is reported as the walk ran it, seed and all: the seed string is
	// an input of the run (Env.Rand's streams), so a new label would make
	// it another schedule, one the walk never ran
	if res, err = w.e.replay(s); err != nil {
		return nil, err
	}
	ir, _ := res.Invariant(inv)
	if ir.Held {
		return nil, brokeOnce(fmt.Sprintf("the walk's schedule %d", index), s, inv, fmt.Sprintf(" after seq %d (%s)", o.inv.FirstSeq, o.inv.Event))
	}
	cx := describe(s, res, ir)
	cx.Shrunk, cx.Replay, cx.Jitter = cloneSchedule(s), fmt.Sprintf(w.e.set.replay, "SCHEDULE.json"), w.e.spread.get()
	if w.e.set.failDir != "" {
		if err := WriteCounterexample(w.e.set.failDir, cx, &Report{Found: true, Checks: rep.Index, ChecksToFailure: rep.Index}, w.e.set.replay); err != nil {
			return nil, err
		}
	}
	rep.Counterexample = cx
	return rep, nil
}
