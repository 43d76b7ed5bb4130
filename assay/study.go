package assay

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/faultline/faultline/internal/catalog"

	"github.com/faultline/faultline/model"
)

// StudyConfig declares a study before it runs (the paper, the eight-step
// assay): the base setup (options, including the declared stop
// conditions, and fixture), the named configurations studied (profiles),
// the trial plan, the configurations of the variation and the envelope.
type StudyConfig struct {
	// Name labels the study in reports ("base", "variation").
	Name string
	Base Setup
	// Profiles are the named configurations studied, in report order;
	// nil: the definition's Configs (or the one default, {}).
	Profiles []model.NamedConfig
	// Trials is the number of trials per profile, at least 1.
	Trials int
	// Seed seeds the trial plan: the paper's LCG draws each trial's fault
	// kind (as [Run] does) and, when Variation has more than one
	// configuration, a splitmix64 stream seeded alike draws its
	// configuration.
	Seed int64
	// Compat restricts the plan to the paper's ten modes and the
	// invariants to the paper's set (model.Options.Compat).
	Compat    bool
	Variation Variation
	Envelope  Envelope
	// Roles are the remediation class of each control a diagnosis may add
	// (nil: every control of the definition, with no class).
	Roles map[string]Remediation
	// observe, when set, sees each distinct run's result once (the
	// dossier records the runs' coverage through it).
	observe func(*model.Result)
}

// validate returns an error wrapping ErrBadConfig that names the first bad
// field.
func (c *StudyConfig) validate() error {
	if c.Trials < 1 {
		return fmt.Errorf("%w: trials must be at least 1, got %d", ErrBadConfig, c.Trials)
	}
	if err := c.Variation.validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	if err := c.Envelope.validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	if err := c.Base.Options.Stop.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	return nil
}

// ScheduleRef identifies one schedule a study ran: the SHA-256 of its
// canonical encoding (model.Format) and a readable label.
type ScheduleRef struct {
	SHA256 string `json:"sha256"`
	Seed   string `json:"seed"`
	Config string `json:"config"`
	Faults string `json:"faults"`
}

// BaselineRun summarises the matched no-fault run of a profile under a
// configuration: the baseline every intervention is compared with.
type BaselineRun struct {
	Profile    string             `json:"profile"`
	Config     string             `json:"config"`
	Runs       int                `json:"runs"`
	Violated   []string           `json:"violated"`
	Claim      model.ClaimVerdict `json:"claim"`
	RunVerdict model.RunVerdict   `json:"run_verdict"`
	Effects    int                `json:"effects"`
}

// StopCount counts runs a declared stop condition ended.
type StopCount struct {
	Profile   string `json:"profile"`
	Condition string `json:"condition"`
	Runs      int    `json:"runs"`
}

// PairStop is a run of a counterfactual pair that a declared stop
// condition ended: the pair (profile, configuration, kind), the side ("on",
// "off", or "off without C" for a nominated control removed alone), the
// condition, and the invariants the oracle had found violated by then (a
// stop never hides a violation recorded at or before its crossing).
type PairStop struct {
	Profile   string   `json:"profile"`
	Config    string   `json:"config"`
	Kind      string   `json:"kind"`
	Side      string   `json:"side"`
	Condition string   `json:"condition"`
	Violated  []string `json:"violated"`
}

// Study is the evidence of one study: every figure names its profile and
// configuration, and comes from the runs of the trial plan (or, for pairs
// and diagnoses, from the matched runs they describe).
type Study struct {
	Name           string        `json:"name"`
	System         string        `json:"system"`
	Trials         int           `json:"trials"`
	Seed           int64         `json:"seed"`
	Compat         bool          `json:"compat"`
	Configurations []string      `json:"configurations"`
	Signatures     []Signature   `json:"signatures"`
	Aggregates     []Aggregate   `json:"aggregates"`
	Placements     []Placement   `json:"placements"`
	Pairs          []Pair        `json:"pairs"`
	Coefficients   []Coefficient `json:"coefficients"`
	Diagnoses      []Diagnosis   `json:"diagnoses"`
	Holds          []Hold        `json:"holds"`
	WorstConfigs   []WorstConfig `json:"worst_configs,omitempty"`
	Baselines      []BaselineRun `json:"baselines"`
	Stops          []StopCount   `json:"stops"`
	// PairStops are the runs of counterfactual pairs a declared stop
	// condition ended (trial runs are counted in Stops).
	PairStops []PairStop    `json:"pair_stops"`
	Schedules []ScheduleRef `json:"schedules"`
	// Runs is the number of distinct model runs executed (see runner).
	Runs int `json:"runs"`
	// Fingerprints are behavioural fingerprints of the study's runs, one
	// per change trigger (see Fingerprint).
	Fingerprints map[string]string `json:"fingerprints"`
}

// cell accumulates the trials of one profile × kind × configuration.
type cell struct {
	counts       Counts
	wrong        int
	contract     int // trials that violated a contractInvariants entry
	stopped      int
	unreached    int            // trials whose one fault's event was never reached
	violated     map[string]int // per invariant name
	baseViolated map[string]int
	baseRuns     int
	example      *model.Result
}

// add counts one intervention run of the cell: its outcome terms, the
// invariants it violated (wrong-subject and recovery-contract violations
// apart, as the envelope's hard invariants count them), whether a stop
// ended it, and the first run as the cell's example. [Tally] counts an
// assay's trials with it too, so a lab run and the audit place alike.
func (c *cell) add(res *model.Result) {
	if c.violated == nil {
		c.violated, c.baseViolated = map[string]int{}, map[string]int{}
	}
	c.counts.add(res.Terms)
	broke := false
	for _, inv := range res.Invariants {
		if !inv.Held {
			c.violated[inv.Invariant]++
			if inv.Invariant == model.InvRightSubject {
				c.wrong++
			}
			broke = broke || slices.Contains(contractInvariants, inv.Invariant)
		}
	}
	if broke {
		c.contract++
	}
	if res.Stopped != nil {
		c.stopped++
	}
	if len(res.Faults) == 1 && !res.Faults[0].Reached {
		c.unreached++
	}
	if c.example == nil {
		c.example = res
	}
}

// runner executes a study's runs and remembers every schedule it ran.
//
// A run is a pure function of its schedule, configuration and system (the
// model has no wall clock and no global randomness; two runs of one
// schedule give equal results), so the runner executes each distinct
// (configuration, control set, schedule) once and counts its result for
// every trial of the plan that draws it: the figures equal those of
// executing every trial (a test checks this against [Run], which does).
type runner struct {
	cfg       *StudyConfig
	sys       *system
	configs   []configuration
	harnesses []*model.Harness
	// unprovable marks the configurations whose scope cannot yield
	// Verified (a narrowed Builtin; docs/vocabulary.md, Terms).
	unprovable []bool
	schedules  map[string]ScheduleRef
	hashes     map[*model.Schedule]string
	memo       map[memoKey]*model.Result
	// planned marks the runs the plan and the specs determine before any
	// run: the trial runs (intervention and no-fault) and the arms of
	// every pair. Runs chosen from outcomes (the searches for carriers and
	// interrupting controls) are not planned; the change-trigger
	// fingerprints hash planned runs only, so a trigger fires when the
	// same planned run behaves differently, not because an outcome
	// elsewhere chose other runs to try.
	planned map[memoKey]bool
}

type memoKey struct {
	config   int
	controls ctls
	schedule string
}

func newRunner(sys *system, cfg *StudyConfig) *runner {
	r := &runner{cfg: cfg, sys: sys, configs: cfg.Variation.configurations(), schedules: map[string]ScheduleRef{},
		hashes: map[*model.Schedule]string{}, memo: map[memoKey]*model.Result{}, planned: map[memoKey]bool{}}
	for _, c := range r.configs {
		s := c.apply(sys.setup(cfg.Base))
		s.Options.Compat = s.Options.Compat || cfg.Compat
		opts := sys.def.Options(s.Options)
		r.harnesses = append(r.harnesses, model.NewHarness(s.Fixture, opts))
		r.unprovable = append(r.unprovable, opts.Builtin != nil)
	}
	return r
}

// setup returns base with the definition's default fixture when base names
// none.
func (s *system) setup(base Setup) Setup {
	if len(base.Fixture.Tasks) == 0 {
		base.Fixture = s.def.Fixtures[0]
	}
	return base
}

// scheduleHash returns the SHA-256 of s's canonical encoding.
func scheduleHash(s *model.Schedule) string {
	sum := sha256.Sum256(model.Format(s))
	return hex.EncodeToString(sum[:])
}

// run runs s (whose config is a's) in configuration ci and records s. The
// result is shared: callers must not modify it.
func (r *runner) run(ci int, a arm, s *model.Schedule) (*model.Result, error) {
	return r.exec(ci, a, s, false)
}

// runPlanned is run for a planned run (see runner.planned).
func (r *runner) runPlanned(ci int, a arm, s *model.Schedule) (*model.Result, error) {
	return r.exec(ci, a, s, true)
}

func (r *runner) exec(ci int, a arm, s *model.Schedule, planned bool) (*model.Result, error) {
	h, ok := r.hashes[s]
	if !ok {
		h = scheduleHash(s)
		r.hashes[s] = h
	}
	key := memoKey{ci, a.cs, h}
	if planned {
		r.planned[key] = true
	}
	if res, ok := r.memo[key]; ok {
		return res, nil
	}
	if _, ok := r.schedules[h]; !ok {
		conf, err := r.sys.def.DescribeConfig(s.Config)
		if err != nil {
			conf = s.Config.String()
		}
		if a.mutant != "" {
			conf += " mutant " + a.mutant
		}
		faults := "none"
		if len(s.Faults) > 0 {
			faults = ""
			for i, f := range s.Faults {
				if i > 0 {
					faults += ", "
				}
				faults += f.Kind + "@" + f.Placement()
			}
		}
		r.schedules[h] = ScheduleRef{SHA256: h, Seed: s.Seed, Config: conf, Faults: faults}
	}
	res, err := r.sys.runOn(r.harnesses[ci], s)
	if err != nil {
		return nil, err
	}
	if r.cfg.observe != nil {
		r.cfg.observe(res)
	}
	r.memo[key] = res
	return res, nil
}

// runOn runs s on h with the system configured from s's config.
func (s *system) runOn(h *model.Harness, sched *model.Schedule) (*model.Result, error) {
	f, err := s.def.Factory(sched.Config)
	if err != nil {
		return nil, &errFactory{sys: s.def.Name, err: err}
	}
	return h.Run(f, sched)
}

// single returns kind's single-fault schedule under a.
func (s *system) single(kind string, a arm) (*model.Schedule, error) {
	cfg, err := s.config(a)
	if err != nil {
		return nil, err
	}
	return model.SingleFault(kind, cfg)
}

// noFault returns the empty schedule under a: the matched baseline.
func (s *system) noFault(a arm) (*model.Schedule, error) {
	cfg, err := s.config(a)
	if err != nil {
		return nil, err
	}
	return &model.Schedule{Version: model.ScheduleVersion, Seed: "no-fault", Config: cfg, Faults: []model.FaultEntry{}}, nil
}

func (r *runner) scheduleRefs() []ScheduleRef {
	out := make([]ScheduleRef, 0, len(r.schedules))
	for _, s := range r.schedules {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SHA256 < out[j].SHA256 })
	return out
}

// plan draws each trial's kind (the paper's LCG, as Run draws it) and
// configuration (splitmix64, only when there is more than one).
func plan(trials int, seed int64, compat bool, nconfigs int) (kinds []model.FaultSpec, kindPlan, configPlan []int) {
	perDomain := make([][]int, len(model.Domains))
	for di, d := range model.Domains {
		for _, n := range catalog.Kinds(d, compat) {
			spec, _ := model.Spec(n)
			perDomain[di] = append(perDomain[di], len(kinds))
			kinds = append(kinds, spec)
		}
	}
	lcg := newLCG(seed)
	sm := splitmix64{state: uint64(seed)}
	kindPlan = make([]int, trials)
	configPlan = make([]int, trials)
	for i := range kindPlan {
		ks := perDomain[i%len(model.Domains)]
		kindPlan[i] = ks[lcg.choice(len(ks))]
		if nconfigs > 1 {
			configPlan[i] = sm.choice(nconfigs)
		}
	}
	return kinds, kindPlan, configPlan
}

// label names a profile's controls in reports: the control list ("none"
// for the empty set), or the config's description for a system whose
// controls cannot be varied.
func (s *system) label(p profile) string {
	if s.canArm() {
		return s.str(p.cs)
	}
	d, err := s.def.DescribeConfig(model.Config{System: p.system})
	if err != nil {
		return string(p.system)
	}
	return d
}

// base is the arm a profile's own runs use.
func (s *system) base(p profile) arm {
	if s.canArm() {
		return arm{cs: p.cs, mutant: p.mutant}
	}
	return arm{raw: p.system}
}

// RunStudy runs cfg on def: for each profile, every trial of the plan (an
// intervention run of the drawn kind in the drawn configuration and its
// matched no-fault run), then the counterfactual pairs of every kind with a
// declared defence (Definition.Defences or Defect; a system without Arm
// has none), the coefficients, the release placements and a diagnosis of
// every counterexample. It returns an error wrapping ErrBadConfig for a
// bad config or definition, or a harness error.
func RunStudy(def *model.Definition, cfg StudyConfig) (*Study, error) {
	sys, err := newSystem(def)
	if err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	profs, err := sys.profiles(cfg.Profiles)
	if err != nil {
		return nil, err
	}
	r := newRunner(sys, &cfg)
	kinds, kindPlan, configPlan := plan(cfg.Trials, cfg.Seed, cfg.Compat, len(r.configs))
	st := &Study{Name: cfg.Name, System: def.Name, Trials: cfg.Trials, Seed: cfg.Seed, Compat: cfg.Compat,
		Signatures: []Signature{}, Aggregates: []Aggregate{}, Placements: []Placement{}, Pairs: []Pair{}, Coefficients: []Coefficient{},
		Diagnoses: []Diagnosis{}, Holds: []Hold{}, Baselines: []BaselineRun{}, Stops: []StopCount{}, PairStops: []PairStop{}}
	for _, c := range r.configs {
		st.Configurations = append(st.Configurations, c.name())
	}
	for _, p := range profs {
		a := sys.base(p)
		label := sys.label(p)
		cells := make([]cell, len(kinds)*len(r.configs))
		scheds := make([]*model.Schedule, len(kinds))
		for k, spec := range kinds {
			if scheds[k], err = sys.single(spec.Kind, a); err != nil {
				return nil, err
			}
		}
		base, err := sys.noFault(a)
		if err != nil {
			return nil, err
		}
		stops := map[string]int{}
		baseExample := make([]*model.Result, len(r.configs))
		baseRuns := make([]int, len(r.configs))
		for i := range kindPlan {
			k, ci := kindPlan[i], configPlan[i]
			c := &cells[k*len(r.configs)+ci]
			res, err := r.runPlanned(ci, a, scheds[k])
			if fe := (*errFactory)(nil); errors.As(err, &fe) {
				return nil, configError(p.name, def.Name, fe.err)
			}
			if err != nil {
				return nil, err
			}
			c.add(res)
			if res.Stopped != nil {
				stops[res.Stopped.Condition]++
			}
			b, err := r.runPlanned(ci, a, base)
			if err != nil {
				return nil, err
			}
			c.baseRuns++
			for _, inv := range b.Invariants {
				if !inv.Held {
					c.baseViolated[inv.Invariant]++
				}
			}
			if b.Stopped != nil {
				stops[b.Stopped.Condition]++
			}
			baseRuns[ci]++
			if baseExample[ci] == nil {
				baseExample[ci] = b
			}
		}
		for ci, b := range baseExample {
			if b == nil {
				continue
			}
			st.Baselines = append(st.Baselines, BaselineRun{Profile: p.name, Config: r.configs[ci].name(), Runs: baseRuns[ci],
				Violated: violatedNames(b), Claim: b.Verdict, RunVerdict: b.RunVerdict, Effects: b.Terms.Effects})
		}
		for _, cond := range sortedKeys(stops) {
			st.Stops = append(st.Stops, StopCount{Profile: p.name, Condition: cond, Runs: stops[cond]})
		}
		var sigs []Signature
		for k, spec := range kinds {
			for ci, conf := range r.configs {
				c := &cells[k*len(r.configs)+ci]
				if c.counts.Trials == 0 {
					continue
				}
				sigs = append(sigs, signatureOf(p.name, label, conf.name(), spec, c, r.unprovable[ci]))
				st.Coefficients = append(st.Coefficients, coefficientsOf(p.name, conf.name(), spec.Kind, invariantNames(c.example), c)...)
				if h := holdOf(p.name, conf.name(), spec.Kind, c); h != nil {
					st.Holds = append(st.Holds, *h)
				}
				if !c.example.Held() {
					d, err := r.diagnose(ci, p.name, conf.name(), c.example, c.counts.Trials)
					if err != nil {
						return nil, err
					}
					st.Diagnoses = append(st.Diagnoses, d)
				}
			}
		}
		st.Signatures = append(st.Signatures, sigs...)
		st.Aggregates = append(st.Aggregates, aggregatesOf(p.name, label, sigs, st.Configurations)...)
		st.Placements = append(st.Placements, cfg.Envelope.Place(p.name, "all", sigs))
		if len(r.configs) > 1 {
			for _, name := range st.Configurations {
				st.Placements = append(st.Placements, cfg.Envelope.Place(p.name, name, filterConfig(sigs, name)))
			}
			st.WorstConfigs = append(st.WorstConfigs, worstConfigs(sigs, st.Configurations)...)
		}
		if !sys.canArm() {
			continue
		}
		for _, spec := range kinds {
			if nominated, mutant := sys.defences(spec.Kind); len(nominated) == 0 && mutant == "" {
				continue
			}
			for ci, conf := range r.configs {
				pr, err := r.pair(ci, conf.name(), p, spec)
				if err != nil {
					return nil, err
				}
				st.Pairs = append(st.Pairs, pr)
			}
		}
	}
	for _, p := range st.Pairs {
		sides := []struct {
			name string
			run  RunSummary
		}{{"on", p.Contrast.On}, {"off", p.Contrast.Off}}
		for _, f := range p.PerControl {
			sides = append(sides, struct {
				name string
				run  RunSummary
			}{"off without " + f.part(), f.Contrast.Off})
		}
		for _, x := range sides {
			if x.run.Stopped != "" {
				st.PairStops = append(st.PairStops, PairStop{Profile: p.Profile, Config: p.Config, Kind: p.Kind, Side: x.name,
					Condition: x.run.Stopped, Violated: x.run.Violated})
			}
		}
	}
	st.Schedules = r.scheduleRefs()
	st.Runs = len(r.memo)
	st.Fingerprints = r.fingerprints()
	return st, nil
}

// invariantNames lists the invariants in scope of a run, in its order.
func invariantNames(res *model.Result) []string {
	out := make([]string, len(res.Invariants))
	for i, inv := range res.Invariants {
		out[i] = inv.Invariant
	}
	return out
}

func violatedNames(res *model.Result) []string {
	out := []string{}
	for _, inv := range res.Invariants {
		if !inv.Held {
			out = append(out, inv.Invariant)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
