package assay

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// System is a system under test as the evidence instruments see it: a name
// for reports, a factory of instances for a control set and, optionally, a
// factory of instances with a seeded defect. Any system built on model.Env
// fits (a wrapper around the reference system, a user's own).
type System struct {
	Name    string
	Factory func(copperfin.Controls) model.Factory
	// Mutant builds the system under a control set with the seeded defect
	// named mutant (a model.FaultSpec.Mutant: the defect that lacks the
	// behaviour defending against the kind, the harness practice). It returns an error
	// naming an unknown defect. nil when the system has no seeded defects:
	// a study over kinds whose defence is a behaviour rather than a control
	// then returns an error, since it cannot run their counterfactual pairs.
	Mutant func(cs copperfin.Controls, mutant string) (model.Factory, error)
}

// Reference returns the reference system: the Copperfin refund workflow of
// reference/copperfin, with its seeded defects (copperfin.Mutants).
func Reference() System {
	return System{Name: "copperfin", Factory: copperfin.Factory, Mutant: copperfin.NewFactory}
}

// factory returns sys's factory for controls cs and the seeded defect
// mutant ("" for none), or an error when sys cannot build the defect.
func (sys System) factory(cs copperfin.Controls, mutant string) (model.Factory, error) {
	if mutant == "" {
		return sys.Factory(cs), nil
	}
	if sys.Mutant == nil {
		return nil, fmt.Errorf("%w: system %s has no seeded defects, so it cannot run the mutant %q", ErrBadConfig, sys.Name, mutant)
	}
	f, err := sys.Mutant(cs, mutant)
	if err != nil {
		return nil, fmt.Errorf("%w: system %s: %v", ErrBadConfig, sys.Name, err)
	}
	return f, nil
}

// StudyConfig declares a study before it runs (the paper, the eight-step
// assay): the system, its base setup (options, including the declared stop
// conditions, and fixture), the profiles, the trial plan (trials, seed,
// compat), the configurations (Variation) and the release envelope.
type StudyConfig struct {
	// Name labels the study in reports ("reference", "variation").
	Name   string
	System System
	Base   Setup
	// Profiles are the control profiles studied, in report order.
	Profiles []copperfin.Profile
	// Trials is the number of trials per profile, at least 1.
	Trials int
	// Seed seeds the trial plan: the paper's LCG draws each trial's fault
	// kind (as [Run] does) and, when Variation has more than one
	// configuration, a separate splitmix64 stream seeded with the same
	// value draws its configuration.
	Seed int64
	// Compat restricts the plan to the paper's ten modes; without it the
	// plan draws from the whole catalogue.
	Compat    bool
	Variation Variation
	Envelope  Envelope
}

// Validate returns an error wrapping ErrBadConfig that names the first bad
// field.
func (c *StudyConfig) Validate() error {
	switch {
	case c.System.Factory == nil:
		return fmt.Errorf("%w: no system factory", ErrBadConfig)
	case len(c.Profiles) == 0:
		return fmt.Errorf("%w: no profile", ErrBadConfig)
	case c.Trials < 1:
		return fmt.Errorf("%w: trials must be at least 1, got %d", ErrBadConfig, c.Trials)
	case len(c.Base.Fixture.Tasks) == 0:
		return fmt.Errorf("%w: the fixture has no task", ErrBadConfig)
	}
	for _, p := range c.Profiles {
		if _, err := copperfin.ProfileControls(p); err != nil {
			return fmt.Errorf("%w: %v", ErrBadConfig, err)
		}
	}
	if c.System.Mutant == nil {
		for _, spec := range model.Catalogue() {
			if _, mutant := copperfin.Defences(spec.Kind); mutant != "" && (spec.Paper || !c.Compat) {
				return fmt.Errorf("%w: system %s has no seeded defects (System.Mutant), but the counterfactual pair of %s needs the mutant %s; restrict the plan to the paper's modes (Compat) or give the system its defects",
					ErrBadConfig, c.System.Name, spec.Kind, mutant)
			}
		}
	}
	if err := c.Variation.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	if err := c.Envelope.Validate(); err != nil {
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
	contract     int // trials that violated a ContractInvariants entry
	stopped      int
	violated     []int // per model.Invariants entry
	baseViolated []int
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
		c.violated = make([]int, len(model.Invariants))
		c.baseViolated = make([]int, len(model.Invariants))
	}
	c.counts.Add(res.Terms)
	broke := false
	for j, inv := range res.Invariants {
		if !inv.Held {
			c.violated[j]++
			if inv.Invariant == model.InvRightSubject {
				c.wrong++
			}
			broke = broke || slices.Contains(ContractInvariants, inv.Invariant)
		}
	}
	if broke {
		c.contract++
	}
	if res.Stopped != nil {
		c.stopped++
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
	configs   []Configuration
	harnesses []*model.Harness
	schedules map[string]ScheduleRef
	hashes    map[*model.Schedule]string
	memo      map[memoKey]*model.Result
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
	controls copperfin.Controls
	schedule string
}

func newRunner(cfg *StudyConfig) *runner {
	r := &runner{cfg: cfg, configs: cfg.Variation.Configurations(), schedules: map[string]ScheduleRef{},
		hashes: map[*model.Schedule]string{}, memo: map[memoKey]*model.Result{}, planned: map[memoKey]bool{}}
	for _, c := range r.configs {
		s := c.Apply(cfg.Base)
		r.harnesses = append(r.harnesses, model.NewHarness(s.Fixture, s.Options))
	}
	return r
}

// scheduleHash returns the SHA-256 of s's canonical encoding.
func scheduleHash(s *model.Schedule) string {
	sum := sha256.Sum256(model.Format(s))
	return hex.EncodeToString(sum[:])
}

// run runs s under controls cs (and s's seeded defect, if any) in
// configuration ci and records s. The result is shared: callers must not
// modify it.
func (r *runner) run(ci int, cs copperfin.Controls, s *model.Schedule) (*model.Result, error) {
	return r.exec(ci, cs, s, false)
}

// runPlanned is run for a planned run (see runner.planned).
func (r *runner) runPlanned(ci int, cs copperfin.Controls, s *model.Schedule) (*model.Result, error) {
	return r.exec(ci, cs, s, true)
}

func (r *runner) exec(ci int, cs copperfin.Controls, s *model.Schedule, planned bool) (*model.Result, error) {
	h, ok := r.hashes[s]
	if !ok {
		h = scheduleHash(s)
		r.hashes[s] = h
	}
	key := memoKey{ci, cs, h}
	if planned {
		r.planned[key] = true
	}
	if res, ok := r.memo[key]; ok {
		return res, nil
	}
	if _, ok := r.schedules[h]; !ok {
		conf := copperfin.Describe(s.Config)
		if copperfin.MutantOf(s.Config) != "" {
			conf += " mutant " + copperfin.MutantOf(s.Config)
		}
		faults := "none"
		if len(s.Faults) > 0 {
			faults = ""
			for i, f := range s.Faults {
				if i > 0 {
					faults += ", "
				}
				faults += fmt.Sprintf("%s@%s#%d", f.Kind, f.Event, f.Ordinal)
			}
		}
		r.schedules[h] = ScheduleRef{SHA256: h, Seed: s.Seed, Config: conf, Faults: faults}
	}
	f, err := r.cfg.System.factory(cs, copperfin.MutantOf(s.Config))
	if err != nil {
		return nil, err
	}
	res, err := r.harnesses[ci].Run(f, s)
	if err != nil {
		return nil, err
	}
	r.memo[key] = res
	return res, nil
}

// single returns kind's single-fault schedule under cs.
func single(kind string, cs copperfin.Controls) *model.Schedule {
	s, err := model.SingleFault(kind, copperfin.ConfigOfControls(cs))
	if err != nil {
		panic("assay: catalogue kind without a schedule: " + err.Error()) // kinds come from the catalogue
	}
	return s
}

// noFault returns the empty schedule under cs: the matched baseline.
func noFault(cs copperfin.Controls) *model.Schedule {
	return &model.Schedule{Version: model.ScheduleVersion, Seed: "no-fault", Config: copperfin.ConfigOfControls(cs), Faults: []model.FaultEntry{}}
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
		for _, n := range model.KindsOf(d, compat) {
			spec, _ := model.Spec(n)
			perDomain[di] = append(perDomain[di], len(kinds))
			kinds = append(kinds, spec)
		}
	}
	lcg := NewLCG(seed)
	sm := splitmix64{state: uint64(seed)}
	kindPlan = make([]int, trials)
	configPlan = make([]int, trials)
	for i := range kindPlan {
		ks := perDomain[i%len(model.Domains)]
		kindPlan[i] = ks[lcg.Choice(len(ks))]
		if nconfigs > 1 {
			configPlan[i] = sm.choice(nconfigs)
		}
	}
	return kinds, kindPlan, configPlan
}

// RunStudy runs cfg: for each profile, every trial of the plan (an
// intervention run of the drawn kind in the drawn configuration and its
// matched no-fault run), then the counterfactual pairs of every kind with a
// declared defence (nominated controls or a seeded defect) in every
// configuration, the coefficients, the release placements and a
// diagnosis of every counterexample. It returns an error wrapping
// ErrBadConfig for a bad config, or a harness error.
func RunStudy(cfg StudyConfig) (*Study, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := newRunner(&cfg)
	kinds, kindPlan, configPlan := plan(cfg.Trials, cfg.Seed, cfg.Compat, len(r.configs))
	st := &Study{Name: cfg.Name, System: cfg.System.Name, Trials: cfg.Trials, Seed: cfg.Seed, Compat: cfg.Compat,
		Signatures: []Signature{}, Aggregates: []Aggregate{}, Placements: []Placement{}, Pairs: []Pair{}, Coefficients: []Coefficient{},
		Diagnoses: []Diagnosis{}, Holds: []Hold{}, Baselines: []BaselineRun{}, Stops: []StopCount{}, PairStops: []PairStop{}}
	for _, c := range r.configs {
		st.Configurations = append(st.Configurations, c.Name())
	}
	for _, p := range cfg.Profiles {
		cs, _ := copperfin.ProfileControls(p)
		cells := make([]cell, len(kinds)*len(r.configs))
		scheds := make([]*model.Schedule, len(kinds))
		for k, spec := range kinds {
			scheds[k] = single(spec.Kind, cs)
		}
		base := noFault(cs)
		stops := map[string]int{}
		baseExample := make([]*model.Result, len(r.configs))
		baseRuns := make([]int, len(r.configs))
		for i := range kindPlan {
			k, ci := kindPlan[i], configPlan[i]
			c := &cells[k*len(r.configs)+ci]
			res, err := r.runPlanned(ci, cs, scheds[k])
			if err != nil {
				return nil, err
			}
			c.add(res)
			if res.Stopped != nil {
				stops[res.Stopped.Condition]++
			}
			b, err := r.runPlanned(ci, cs, base)
			if err != nil {
				return nil, err
			}
			c.baseRuns++
			for j, inv := range b.Invariants {
				if !inv.Held {
					c.baseViolated[j]++
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
			st.Baselines = append(st.Baselines, BaselineRun{Profile: string(p), Config: r.configs[ci].Name(), Runs: baseRuns[ci],
				Violated: violatedNames(b), Claim: b.Verdict, RunVerdict: b.RunVerdict, Effects: b.Terms.Effects})
		}
		for _, cond := range sortedKeys(stops) {
			st.Stops = append(st.Stops, StopCount{Profile: string(p), Condition: cond, Runs: stops[cond]})
		}
		var sigs []Signature
		for k, spec := range kinds {
			for ci, conf := range r.configs {
				c := &cells[k*len(r.configs)+ci]
				if c.counts.Trials == 0 {
					continue
				}
				sigs = append(sigs, signatureOf(string(p), cs, conf.Name(), spec, c))
				st.Coefficients = append(st.Coefficients, coefficientsOf(string(p), conf.Name(), spec.Kind, c)...)
				if h := holdOf(string(p), conf.Name(), spec.Kind, c); h != nil {
					st.Holds = append(st.Holds, *h)
				}
				if !c.example.Held() {
					d, err := r.diagnose(ci, string(p), conf.Name(), c.example, c.counts.Trials)
					if err != nil {
						return nil, err
					}
					st.Diagnoses = append(st.Diagnoses, d)
				}
			}
		}
		st.Signatures = append(st.Signatures, sigs...)
		st.Aggregates = append(st.Aggregates, aggregatesOf(string(p), cs, sigs, st.Configurations)...)
		st.Placements = append(st.Placements, cfg.Envelope.Place(string(p), "all", sigs))
		if len(r.configs) > 1 {
			for _, name := range st.Configurations {
				st.Placements = append(st.Placements, cfg.Envelope.Place(string(p), name, filterConfig(sigs, name)))
			}
			st.WorstConfigs = append(st.WorstConfigs, worstConfigs(sigs, st.Configurations)...)
		}
		for _, spec := range kinds {
			if nominated, mutant := copperfin.Defences(spec.Kind); len(nominated) == 0 && mutant == "" {
				continue
			}
			for ci, conf := range r.configs {
				pr, err := r.pair(ci, conf.Name(), string(p), cs, spec)
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
			}{"off without " + f.Part(), f.Contrast.Off})
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
