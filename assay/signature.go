package assay

import (
	"github.com/faultline/faultline/model"
)

// Term is one term of a signature: a count of trials, its rate in [0,1]
// and the rate's 95 % Wilson score interval.
type Term struct {
	Count    int      `json:"count"`
	Trials   int      `json:"trials"`
	Rate     float64  `json:"rate"`
	Interval Interval `json:"ci95"`
}

func termOf(count, trials int) Term {
	iv, err := wilson(count, trials)
	if err != nil {
		panic("assay: " + err.Error()) // counts come from trials: cannot exceed them
	}
	rate := 0.0
	if trials > 0 {
		rate = float64(count) / float64(trials)
	}
	return Term{Count: count, Trials: trials, Rate: rate, Interval: iv}
}

// Q is the fault-transfer signature of the paper (worked example 2): five
// questions kept apart, never averaged into one score.
//
//   - Detect: the system raised a warning after the disturbance fired;
//   - Contain: no unsafe effect escaped;
//   - Recover: a correct terminal state within the retry budget;
//   - Prove: the claim is proven (outcome term "verified");
//   - Serve: a correct terminal state within the deadline (useful service).
type Q struct {
	Detect  Term `json:"detect"`
	Contain Term `json:"contain"`
	Recover Term `json:"recover"`
	Prove   Term `json:"prove"`
	Serve   Term `json:"serve"`
}

// qTerms names the terms of Q in order.
var qTerms = []string{"detect", "contain", "recover", "prove", "serve"}

// get returns the term named name (one of qTerms).
func (q Q) get(name string) (Term, bool) {
	switch name {
	case "detect":
		return q.Detect, true
	case "contain":
		return q.Contain, true
	case "recover":
		return q.Recover, true
	case "prove":
		return q.Prove, true
	case "serve":
		return q.Serve, true
	}
	return Term{}, false
}

func qOf(c Counts) Q {
	return Q{Detect: termOf(c.Detected, c.Trials), Contain: termOf(c.Contained, c.Trials),
		Recover: termOf(c.Recovered, c.Trials), Prove: termOf(c.Verified, c.Trials), Serve: termOf(c.UsefulService, c.Trials)}
}

// Harms counts the trials that broke a hard invariant of the release
// envelope, and those that lost service or were stopped.
type Harms struct {
	UnsafeEscape    int `json:"unsafe_escape"`
	DuplicateEffect int `json:"duplicate_effect"`
	UnprovedRelease int `json:"unproved_release"`
	WrongSubject    int `json:"wrong_subject"`
	// ContractViolation counts trials that broke an invariant of seed
	// 003's recovery contract (contractInvariants).
	ContractViolation int `json:"contract_violation"`
	ServiceLoss       int `json:"service_loss"`
	Stopped           int `json:"stopped"`
}

func (h *Harms) add(o Harms) {
	h.UnsafeEscape += o.UnsafeEscape
	h.DuplicateEffect += o.DuplicateEffect
	h.UnprovedRelease += o.UnprovedRelease
	h.WrongSubject += o.WrongSubject
	h.ContractViolation += o.ContractViolation
	h.ServiceLoss += o.ServiceLoss
	h.Stopped += o.Stopped
}

// Signature is the signature of one typed fault (its kind at its boundary
// and phase) under one profile and one configuration, over the trials of
// the plan that drew it. Critical is true when the kind threatens an
// invariant of the hard envelope (hardInvariants).
type Signature struct {
	Profile  string         `json:"profile"`
	Controls string         `json:"controls"`
	Config   string         `json:"config"`
	Kind     string         `json:"kind"`
	Domain   model.Domain   `json:"domain"`
	Boundary model.Boundary `json:"boundary"`
	Phase    model.Phase    `json:"phase"`
	Critical bool           `json:"critical"`
	Trials   int            `json:"trials"`
	Q        Q              `json:"q"`
	Harms    Harms          `json:"harms"`
	counts   Counts
	// uncrossed: the fault's event was reached in none of the trials (the
	// system never crosses it), so the kind is never a worst class.
	uncrossed bool
	// unprovable: the trials ran under a scope that cannot yield Verified
	// (a narrowed Builtin), so prove was not measured (Envelope.Place).
	unprovable bool
}

// paperhardInvariants are the invariants behind the paper's hard
// constraints of the release envelope (the paper, "Release against
// containment evidence"): no wrong-subject effect, no effect without
// current entitlement, no duplicate effect, no release without proof.
var paperhardInvariants = []string{model.InvRightSubject, model.InvCurrentEntitlement, model.InvEffectAtMostOnce, model.InvProvableOutcome}

// contractInvariants are the invariants of the harness practice's recovery contract
// ("Recovery Contract"; a run that violates one is unrecoverable): resume
// from the newest valid checkpoint, never invent progress, stay within the
// retry and deadline budgets, keep every branch in the join record. The
// envelope holds them hard too: zero recovery-contract violation.
var contractInvariants = []string{model.InvResumeFromCheckpoint, model.InvNoInventedProgress, model.InvBudget, model.InvJoinPreserved}

// hardInvariants are every invariant a hard constraint of the release
// envelope rests on: paperhardInvariants and contractInvariants.
var hardInvariants = append(append([]string(nil), paperhardInvariants...), contractInvariants...)

// critical reports whether spec threatens a hard invariant (hardInvariants):
// a release-critical fault (the paper, "For every release-critical fault, run
// a matched pair").
func critical(spec model.FaultSpec) bool {
	for _, t := range spec.Threatens {
		for _, h := range hardInvariants {
			if t == h {
				return true
			}
		}
	}
	return false
}

func signatureOf(profile, controls, config string, spec model.FaultSpec, c *cell, unprovable bool) Signature {
	k := c.counts
	return Signature{Profile: profile, Controls: controls, Config: config, Kind: spec.Kind, Domain: spec.Domain,
		Boundary: spec.Boundary, Phase: spec.Phase, Critical: critical(spec), Trials: k.Trials, Q: qOf(k),
		Harms: Harms{UnsafeEscape: k.UnsafeEscape, DuplicateEffect: k.DuplicateEffect, UnprovedRelease: k.UnverifiableRelease,
			WrongSubject: c.wrong, ContractViolation: c.contract, ServiceLoss: k.ServiceLoss, Stopped: c.stopped},
		counts: k, uncrossed: k.Trials > 0 && c.unreached == k.Trials, unprovable: unprovable}
}

// WorstCell names the critical fault class (kind and configuration) with
// the lowest rate of one term in an aggregate.
type WorstCell struct {
	Term   string  `json:"term"`
	Kind   string  `json:"kind"`
	Config string  `json:"config"`
	Count  int     `json:"count"`
	Trials int     `json:"trials"`
	Rate   float64 `json:"rate"`
}

// Aggregate pools signatures of one profile (over one domain or all, one
// configuration or all). Pooling never stands alone: Worst keeps, for each
// term of Q, the critical fault class and configuration with the lowest
// rate, and WorstClass the critical class that is worst on all five terms
// in the order contain, prove, recover, serve, detect (the paper: "Aggregate
// only after preserving the worst critical fault class and the
// configuration that produced it").
type Aggregate struct {
	Profile    string      `json:"profile"`
	Controls   string      `json:"controls"`
	Domain     string      `json:"domain"` // "all" or a fault domain
	Config     string      `json:"config"` // "all" or a configuration name
	Trials     int         `json:"trials"`
	Q          Q           `json:"q"`
	Harms      Harms       `json:"harms"`
	Worst      []WorstCell `json:"worst"`
	WorstClass *WorstCell  `json:"worst_class,omitempty"`
}

// worse reports whether a is worse than b: lower rates, compared in the
// order contain, prove, recover, serve, detect.
func worse(a, b Q) bool {
	for _, x := range [][2]Term{{a.Contain, b.Contain}, {a.Prove, b.Prove}, {a.Recover, b.Recover}, {a.Serve, b.Serve}, {a.Detect, b.Detect}} {
		if x[0].Rate != x[1].Rate {
			return x[0].Rate < x[1].Rate
		}
	}
	return false
}

func pool(profile, controls, domain, config string, sigs []Signature) Aggregate {
	a := Aggregate{Profile: profile, Controls: controls, Domain: domain, Config: config, Worst: []WorstCell{}}
	var total Counts
	var worstSig *Signature
	for i := range sigs {
		s := &sigs[i]
		total.merge(s.counts)
		a.Harms.add(s.Harms)
		if s.Critical && !s.uncrossed && (worstSig == nil || worse(s.Q, worstSig.Q)) {
			worstSig = s
		}
	}
	a.Trials = total.Trials
	a.Q = qOf(total)
	for _, name := range qTerms {
		var best *Signature
		var bt Term
		for i := range sigs {
			s := &sigs[i]
			t, _ := s.Q.get(name)
			if s.Critical && !s.uncrossed && (best == nil || t.Rate < bt.Rate) {
				best, bt = s, t
			}
		}
		if best != nil {
			a.Worst = append(a.Worst, WorstCell{Term: name, Kind: best.Kind, Config: best.Config, Count: bt.Count, Trials: bt.Trials, Rate: bt.Rate})
		}
	}
	if worstSig != nil {
		a.WorstClass = &WorstCell{Term: "contain,prove,recover,serve,detect", Kind: worstSig.Kind, Config: worstSig.Config,
			Count: worstSig.Q.Contain.Count, Trials: worstSig.Trials, Rate: worstSig.Q.Contain.Rate}
	}
	return a
}

// aggregatesOf pools a profile's signatures overall, per domain, and (with
// more than one configuration) per configuration.
func aggregatesOf(profile, controls string, sigs []Signature, configs []string) []Aggregate {
	out := []Aggregate{pool(profile, controls, "all", "all", sigs)}
	for _, d := range model.Domains {
		var sub []Signature
		for _, s := range sigs {
			if s.Domain == d {
				sub = append(sub, s)
			}
		}
		if len(sub) > 0 {
			out = append(out, pool(profile, controls, string(d), "all", sub))
		}
	}
	if len(configs) > 1 {
		for _, c := range configs {
			out = append(out, pool(profile, controls, "all", c, filterConfig(sigs, c)))
		}
	}
	return out
}

func filterConfig(sigs []Signature, config string) []Signature {
	var out []Signature
	for _, s := range sigs {
		if s.Config == config {
			out = append(out, s)
		}
	}
	return out
}

// WorstConfig is, for one profile and one critical fault kind, the
// configuration under which its signature is worst (lower rates, compared
// in the order contain, prove, recover, serve, detect; ties go to the
// earlier configuration). AllEqual is true when every configuration gave
// the same five rates, so the configuration made no difference.
type WorstConfig struct {
	Profile  string `json:"profile"`
	Kind     string `json:"kind"`
	Config   string `json:"config"`
	Q        Q      `json:"q"`
	Configs  int    `json:"configs"`
	AllEqual bool   `json:"all_equal"`
}

func worstConfigs(sigs []Signature, configs []string) []WorstConfig {
	var out []WorstConfig
	var order []string
	byKind := map[string][]Signature{}
	for _, s := range sigs {
		if !s.Critical {
			continue
		}
		if _, ok := byKind[s.Kind]; !ok {
			order = append(order, s.Kind)
		}
		byKind[s.Kind] = append(byKind[s.Kind], s)
	}
	for _, k := range order {
		ss := byKind[k]
		w := ss[0]
		equal := true
		for _, s := range ss[1:] {
			if worse(s.Q, w.Q) {
				w = s
			}
			if worse(s.Q, ss[0].Q) || worse(ss[0].Q, s.Q) {
				equal = false
			}
		}
		out = append(out, WorstConfig{Profile: w.Profile, Kind: k, Config: w.Config, Q: w.Q, Configs: len(ss), AllEqual: equal})
	}
	return out
}
