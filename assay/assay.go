// Package assay turns runs of a system (any model.Definition) under typed
// faults into release evidence: the paper's eight-step assay. Semantics
// live in docs/evidence.md.
//
// Trials:
//
//   - [Run] runs a [Config]'s trials, drawn as the paper's artefact draws
//     them (domains in round robin, its 32-bit LCG picks the kind), into a
//     [Report] of [Counts] per domain, per kind and overall;
//   - a [Tally], given as [Config.Observe], counts one run's trials as a
//     study does and places them in the [Envelope] ([Tally.Place]).
//
// Release evidence ([Gather] an [EvidenceConfig] into [Evidence]: a
// reference [Study] and a variation study over a [Variation] of
// [Dimension]s; [RunStudy] runs one [StudyConfig]):
//
//   - per typed fault and named configuration the [Signature] Q = (detect,
//     contain, recover, prove, serve), each a [Term] with its Wilson
//     [Interval], pooled [Aggregate]s keeping the worst critical class;
//   - the [Placement] of each profile in a [Region] of the [Envelope];
//   - the counterfactual containment [Pair]s of every kind with a declared
//     defence (Definition.Defences, Defect; sides built with
//     Definition.Arm), [ContrastOf] for any schedule, and the
//     [CompositionPairs] witnesses of ordered compositions;
//   - transfer [Coefficient]s, a [Diagnosis] of every counterexample,
//     unresolved [Hold]s, the runs a stop ended ([StopCount], [PairStop]);
//   - [Evidence.WriteText] and [Evidence.WriteMarkdown] print it.
//
// The fault [Dossier]: [BuildDossier], [WriteDossier] and [DiffDossiers]
// make, write and compare it with its change triggers.
package assay

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/faultline/faultline/internal/catalog"

	"github.com/faultline/faultline/model"
)

// lcg is the paper artefact's 32-bit linear congruential generator:
// state' = (1664525*state + 1013904223) mod 2^32, random = state/2^32.
type lcg struct{ state uint32 }

// newLCG seeds the generator with seed mod 2^32 (as the artefact's
// seed & 0xFFFFFFFF, so negative seeds wrap the same way).
func newLCG(seed int64) *lcg { return &lcg{state: uint32(uint64(seed) & 0xFFFFFFFF)} }

// random returns the next value in [0,1).
func (l *lcg) random() float64 {
	l.state = 1664525*l.state + 1013904223
	return float64(l.state) / 4294967296.0
}

// choice returns an index in [0,n) as the artefact's choice does:
// min(n-1, int(random*n)). It panics when n is 0 (programmer misuse).
func (l *lcg) choice(n int) int {
	if n <= 0 {
		panic("assay: choice of an empty sequence")
	}
	return min(n-1, int(l.random()*float64(n)))
}

// Config selects an assay run.
type Config struct {
	// Profile labels the configuration in output ("typed", or "custom").
	Profile string
	// System is the system part of the trials' config (nil: {}).
	System json.RawMessage
	// Domains are the fault domains in round-robin order; empty means all
	// five in the paper's order.
	Domains []model.Domain
	// Trials is the number of trials, at least 1.
	Trials int
	// Seed seeds the LCG (taken mod 2^32).
	Seed int64
	// Compat restricts kinds to the paper's ten modes and the invariants
	// to the paper's set (model.Options.Compat; paper188 parity); without
	// it every catalogue kind of a domain can be drawn.
	Compat bool
	// Kinds, when not empty, restricts the draw to these fault kinds (a
	// single mode, or a few): each domain draws only among its listed kinds,
	// in catalogue order, and the round robin runs over the selected domains
	// that hold a listed kind. Empty means every kind of the selected
	// domains. A listed kind that is unknown, repeated, outside the selected
	// domains, or (with Compat) not one of the paper's modes is an error.
	Kinds []string
	// Workers bounds parallel harnesses; 0 means GOMAXPROCS. Results do not
	// depend on it.
	Workers int
	// Observe, when set, is called after every trial with the trial's
	// judged outcome (model.Harness.LastOutcome: fault reports, invariant
	// results, claims, terms; no timeline). It is called from several
	// workers at once, so it must be safe for concurrent use (a
	// coverage.Tracker's Record is); its result must not be changed. An
	// error stops the run and is returned. Unset, trials take the hot path
	// unchanged.
	Observe func(*model.Result) error
	// Progress, when set, is called as trials finish with the trials done
	// so far, Trials, and the trials so far that ended unsafe (an unsafe
	// escape, a duplicate effect or an unverifiable release). Each worker
	// reports every hundredth of Trials (1 to 10000) of its own and once at its
	// end, so the calls' done grows to Trials (in steps of one when Trials
	// is at most 100 and Workers is 1). Calls are serialized (never two at
	// once) and made from the workers, whose trials wait for it: it must
	// be quick. Unset, trials take the hot path unchanged.
	Progress func(done, total, unsafe int)
}

// progressStep is the number of trials a worker runs between two
// Config.Progress calls for an assay of trials trials: one in a hundred,
// at least 1 and at most 10000.
func progressStep(trials int) int { return max(1, min(trials/100, 10000)) }

// unsafeTerms reports whether t is an unsafe outcome, as Config.Progress
// counts them.
func unsafeTerms(t model.Terms) bool {
	return t.UnsafeEscape || t.DuplicateEffect || t.UnverifiableRelease
}

// progress is a run's Config.Progress with the counts the workers have
// reported so far.
type progress struct {
	mu          sync.Mutex
	fn          func(done, total, unsafe int)
	total, step int
	done, bad   int
}

// report adds one worker's done and unsafe trials since its last report
// and calls fn.
func (p *progress) report(done, bad int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += done
	p.bad += bad
	p.fn(p.done, p.total, p.bad)
}

// Counts are the outcome-term counts of a set of trials.
type Counts struct {
	Trials              int `json:"trials"`
	Detected            int `json:"detected"`
	Contained           int `json:"contained"`
	Recovered           int `json:"recovered"`
	Verified            int `json:"verified"`
	UsefulService       int `json:"useful_service"`
	UnsafeEscape        int `json:"unsafe_escape"`
	DuplicateEffect     int `json:"duplicate_effect"`
	UnverifiableRelease int `json:"unverifiable_release"`
	ServiceLoss         int `json:"service_loss"`
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// add counts one trial's terms.
func (c *Counts) add(t model.Terms) {
	c.Trials++
	c.Detected += b2i(t.Detected)
	c.Contained += b2i(t.Contained)
	c.Recovered += b2i(t.Recovered)
	c.Verified += b2i(t.Verified)
	c.UsefulService += b2i(t.UsefulService)
	c.UnsafeEscape += b2i(t.UnsafeEscape)
	c.DuplicateEffect += b2i(t.DuplicateEffect)
	c.UnverifiableRelease += b2i(t.UnverifiableRelease)
	c.ServiceLoss += b2i(t.ServiceLoss)
}

// merge adds o's counts to c.
func (c *Counts) merge(o Counts) {
	c.Trials += o.Trials
	c.Detected += o.Detected
	c.Contained += o.Contained
	c.Recovered += o.Recovered
	c.Verified += o.Verified
	c.UsefulService += o.UsefulService
	c.UnsafeEscape += o.UnsafeEscape
	c.DuplicateEffect += o.DuplicateEffect
	c.UnverifiableRelease += o.UnverifiableRelease
	c.ServiceLoss += o.ServiceLoss
}

// Rates are counts divided by trials (each in [0,1]); a set of zero trials
// has zero rates.
type Rates struct {
	Trials              int
	Detected            float64
	Contained           float64
	Recovered           float64
	Verified            float64
	UsefulService       float64
	UnsafeEscape        float64
	DuplicateEffect     float64
	UnverifiableRelease float64
	ServiceLoss         float64
}

// Rates divides by max(trials, 1), as the artefact does.
func (c Counts) Rates() Rates {
	n := float64(max(c.Trials, 1))
	return Rates{Trials: c.Trials,
		Detected: float64(c.Detected) / n, Contained: float64(c.Contained) / n,
		Recovered: float64(c.Recovered) / n, Verified: float64(c.Verified) / n,
		UsefulService: float64(c.UsefulService) / n, UnsafeEscape: float64(c.UnsafeEscape) / n,
		DuplicateEffect: float64(c.DuplicateEffect) / n, UnverifiableRelease: float64(c.UnverifiableRelease) / n,
		ServiceLoss: float64(c.ServiceLoss) / n}
}

// Report is the result of an assay run.
type Report struct {
	Config   Config
	ByDomain map[model.Domain]Counts
	// ByKind counts trials per fault kind.
	ByKind  map[string]Counts
	Overall Counts
	// Assessment and Reasons are the paper's release rules applied to
	// Overall.Rates() (AssessPass or AssessBlock); outside the
	// paper's compatibility mode, a selected domain without a trial also
	// blocks, with a reason naming it.
	Assessment string
	Reasons    []string
}

// The paper's assessments.
const (
	AssessPass  = "PASS ON THIS SYNTHETIC ASSAY"
	AssessBlock = "BLOCK OR REDESIGN"
)

// assess applies the paper's release rules (the artefact's
// release_assessment): unsafe escape above zero, unverifiable release above
// zero, containment under 0.99, useful service under 0.80 each block, with
// a reason.
func assess(r Rates) (string, []string) {
	reasons := []string{}
	if r.UnsafeEscape > 0 {
		reasons = append(reasons, "at least one represented fault escaped into an unsafe effect")
	}
	if r.UnverifiableRelease > 0 {
		reasons = append(reasons, "at least one success was released without outcome proof")
	}
	if r.Contained < 0.99 {
		reasons = append(reasons, "containment was below the 99% synthetic target")
	}
	if r.UsefulService < 0.80 {
		reasons = append(reasons, "useful service was below the 80% synthetic target")
	}
	if len(reasons) == 0 {
		return AssessPass, reasons
	}
	return AssessBlock, reasons
}

// ErrBadConfig is wrapped by every configuration error Run returns.
var ErrBadConfig = errors.New("bad assay configuration")

// Run runs cfg's trials of def on its default fixture and returns the
// report. It returns an error wrapping ErrBadConfig for a bad definition,
// a config that does not apply to it, trials below 1, a domain without
// kinds, or a bad Kinds list (see [Config.Kinds]). The report's
// Config.Domains are the domains the round robin ran over.
func Run(def *model.Definition, cfg Config) (*Report, error) {
	sys, err := newSystem(def)
	if err != nil {
		return nil, err
	}
	if len(cfg.System) == 0 {
		cfg.System = json.RawMessage("{}")
	}
	factory, err := def.Configure(cfg.System)
	if err != nil {
		return nil, fmt.Errorf("%w: system %s: %v", ErrBadConfig, def.Name, err)
	}
	if cfg.Trials < 1 {
		return nil, fmt.Errorf("%w: trials must be at least 1, got %d", ErrBadConfig, cfg.Trials)
	}
	if len(cfg.Domains) == 0 {
		cfg.Domains = model.Domains
	}
	var only map[string]bool
	if len(cfg.Kinds) > 0 {
		var err error
		if only, cfg.Domains, err = selectKinds(cfg.Kinds, cfg.Domains, cfg.Compat); err != nil {
			return nil, err
		}
	}
	// The plan: which kind each trial injects, drawn sequentially.
	type kindInfo struct {
		name   string
		domain int
		sched  *model.Schedule
	}
	var kinds []kindInfo
	perDomain := make([][]int, len(cfg.Domains))
	for di, d := range cfg.Domains {
		names := catalog.Kinds(d, cfg.Compat)
		if only != nil {
			names = slices.DeleteFunc(names, func(n string) bool { return !only[n] })
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("%w: domain %s has no fault kinds", ErrBadConfig, d)
		}
		for _, n := range names {
			s, err := model.SingleFault(n, model.Config{System: cfg.System})
			if err != nil {
				return nil, err
			}
			perDomain[di] = append(perDomain[di], len(kinds))
			kinds = append(kinds, kindInfo{name: n, domain: di, sched: s})
		}
	}
	plan := make([]uint8, cfg.Trials)
	gen := newLCG(cfg.Seed)
	for i := range plan {
		ks := perDomain[i%len(cfg.Domains)]
		plan[i] = uint8(ks[gen.choice(len(ks))])
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, cfg.Trials)
	observe := cfg.Observe
	opts := def.Options(model.Options{Compat: cfg.Compat})
	var prog *progress
	if cfg.Progress != nil {
		prog = &progress{fn: cfg.Progress, total: cfg.Trials, step: progressStep(cfg.Trials)}
	}
	perWorker := make([][]Counts, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	chunk := (cfg.Trials + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min((w+1)*chunk, cfg.Trials)
		wg.Add(1)
		go func(w, lo, hi int) {
			defer wg.Done()
			h := model.NewHarness(sys.def.Fixtures[0], opts)
			counts := make([]Counts, len(kinds))
			// trials done and unsafe since this worker's last progress
			// report
			pending, pendingBad := 0, 0
			for i := lo; i < hi; i++ {
				k := plan[i]
				t, err := h.Terms(factory, kinds[k].sched)
				if err != nil {
					errs[w] = err
					return
				}
				if observe != nil {
					if err := observe(h.LastOutcome()); err != nil {
						errs[w] = fmt.Errorf("observing trial %d: %w", i+1, err)
						return
					}
				}
				counts[k].add(t)
				if prog != nil {
					pending++
					pendingBad += b2i(unsafeTerms(t))
					if pending == prog.step {
						prog.report(pending, pendingBad)
						pending, pendingBad = 0, 0
					}
				}
			}
			if pending > 0 {
				prog.report(pending, pendingBad)
			}
			perWorker[w] = counts
		}(w, lo, hi)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	rep := &Report{Config: cfg, ByDomain: map[model.Domain]Counts{}, ByKind: map[string]Counts{}}
	for _, d := range cfg.Domains {
		rep.ByDomain[d] = Counts{}
	}
	for _, counts := range perWorker {
		for k, c := range counts {
			d := cfg.Domains[kinds[k].domain]
			bd := rep.ByDomain[d]
			bd.merge(c)
			rep.ByDomain[d] = bd
			bk := rep.ByKind[kinds[k].name]
			bk.merge(c)
			rep.ByKind[kinds[k].name] = bk
			rep.Overall.merge(c)
		}
	}
	rep.Assessment, rep.Reasons = assess(rep.Overall.Rates())
	if !cfg.Compat { // the artefact passes on any rates; parity keeps its verdict
		for _, d := range cfg.Domains {
			if rep.ByDomain[d].Trials == 0 {
				rep.Assessment = AssessBlock
				rep.Reasons = append(rep.Reasons, fmt.Sprintf("domain %s had no trial (%d trials over %d domains): nothing in it was tested", d, cfg.Trials, len(cfg.Domains)))
			}
		}
	}
	return rep, nil
}

// selectKinds checks a Kinds list against the selected domains and returns
// the listed kinds as a set and the selected domains that hold one, in their
// given order.
func selectKinds(kinds []string, domains []model.Domain, compat bool) (map[string]bool, []model.Domain, error) {
	only := map[string]bool{}
	held := map[model.Domain]bool{}
	for _, k := range kinds {
		spec, err := model.Spec(k)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrBadConfig, err)
		}
		if only[k] {
			return nil, nil, fmt.Errorf("%w: fault kind %q listed twice", ErrBadConfig, k)
		}
		if !slices.Contains(domains, spec.Domain) {
			return nil, nil, fmt.Errorf("%w: fault kind %q is in domain %s, which is not selected", ErrBadConfig, k, spec.Domain)
		}
		if compat && !spec.Paper {
			return nil, nil, fmt.Errorf("%w: fault kind %q is not one of the paper's modes (compat)", ErrBadConfig, k)
		}
		if !slices.Contains(catalog.Kinds(spec.Domain, false), k) {
			return nil, nil, fmt.Errorf("%w: fault kind %q is not in the catalogue the assay draws from (model.Catalogue): replay or explore it instead", ErrBadConfig, k)
		}
		only[k] = true
		held[spec.Domain] = true
	}
	var out []model.Domain
	for _, d := range domains {
		if held[d] {
			out = append(out, d)
		}
	}
	return only, out, nil
}
