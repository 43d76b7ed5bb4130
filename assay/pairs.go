package assay

import (
	"errors"
	"fmt"
	"strings"

	"github.com/faultline/faultline/model"
)

// PairClass classifies a counterfactual containment pair (the paper, "New
// decision instrument: the counterfactual containment pair").
type PairClass string

// Pair classes.
const (
	// LeverageShown: the control-off run transfers the fault into a
	// violation and the control-on run holds every invariant, the fault
	// reached and fired in both.
	LeverageShown PairClass = "leverage_shown"
	// Inconclusive: the control-off run violates and the control-on run
	// holds, but the fault did not reach or fire in the control-on run:
	// the on side's safety was never tested, so no leverage is shown.
	Inconclusive PairClass = "inconclusive"
	// InvalidGreen: the control-off run is still safe: the fault did not
	// reach its path, or something else (another control, a hidden
	// fallback) masks the transfer. A green result is then invalid rather
	// than reassuring.
	InvalidGreen PairClass = "invalid_green"
	// ControlIneffective: the control-on run is still unsafe.
	ControlIneffective PairClass = "control_ineffective"
)

// firstViolation is the run's first violated invariant, where it first
// failed (model.Result.Err's record), or nil when every one held.
func firstViolation(res *model.Result) *model.Violation {
	var re *model.RunError
	if errors.As(res.Err(), &re) && re.Code == 1 {
		return &re.Violation
	}
	return nil
}

// RunSummary is what a pair or a report keeps of one run.
type RunSummary struct {
	Controls string `json:"controls"`
	// Mutant is the seeded defect the run's system carried ("" for none).
	Mutant     string             `json:"mutant,omitempty"`
	Schedule   string             `json:"schedule_sha256"`
	Reached    bool               `json:"reached"`
	Fired      int                `json:"fired"`
	Violated   []string           `json:"violated"`
	FirstSeq   int                `json:"first_violation_seq,omitempty"`
	FirstEvent model.EventName    `json:"first_violation_event,omitempty"`
	Effects    int                `json:"effects"`
	Claim      model.ClaimVerdict `json:"claim"`
	RunVerdict model.RunVerdict   `json:"run_verdict"`
	Stopped    string             `json:"stopped,omitempty"`
	// faults counts the schedule's faults: a pair of runs with none (a
	// disturbance of the system's own) has no fault to reach or fire
	faults int
}

// Held reports whether every invariant held in the run.
func (s RunSummary) Held() bool { return len(s.Violated) == 0 }

func (s *system) summarize(a arm, sched *model.Schedule, res *model.Result) RunSummary {
	out := RunSummary{Controls: s.str(a.cs), Mutant: a.mutant, Schedule: scheduleHash(sched), Violated: violatedNames(res),
		Effects: res.Terms.Effects, Claim: res.Verdict, RunVerdict: res.RunVerdict}
	for _, f := range res.Faults {
		out.Reached = out.Reached || f.Reached
		out.Fired += f.Fired
	}
	out.faults = len(res.Faults)
	if len(res.Faults) == 0 {
		out.Reached = true
	}
	if v := firstViolation(res); v != nil {
		out.FirstSeq, out.FirstEvent = v.FirstSeq, v.Event
	}
	if res.Stopped != nil {
		out.Stopped = res.Stopped.Condition
	}
	return out
}

// Contrast is one matched pair of runs: one schedule, one configuration,
// one fixture and oracle, two configured systems (control sets, and a
// seeded defect on the off side when the defence is a behaviour).
type Contrast struct {
	On     RunSummary `json:"on"`
	Off    RunSummary `json:"off"`
	Class  PairClass  `json:"class"`
	Reason string     `json:"reason"`
}

// classify classifies a matched pair.
func classify(on, off RunSummary) (PairClass, string) {
	switch {
	case !on.Held():
		return ControlIneffective, fmt.Sprintf("control on still violates %s (first at seq %d, %s)", strings.Join(on.Violated, ", "), on.FirstSeq, on.FirstEvent)
	case off.Held() && (!off.Reached || off.Fired == 0):
		return InvalidGreen, fmt.Sprintf("control off is still safe because the fault did not reach its path (reached %t, fired %d)", off.Reached, off.Fired)
	case off.Held():
		return InvalidGreen, fmt.Sprintf("control off is still safe although the fault fired (%d): something other than the removed control masks the transfer (run verdict %s, claim %s)", off.Fired, off.RunVerdict, off.Claim)
	}
	r := fmt.Sprintf("control off violates %s (first at seq %d, %s); control on holds every invariant (%s)",
		strings.Join(off.Violated, ", "), off.FirstSeq, off.FirstEvent, on.RunVerdict)
	tested := func(s RunSummary) bool { return s.faults == 0 || s.Reached && s.Fired > 0 }
	if !tested(on) || !tested(off) {
		return Inconclusive, r + fmt.Sprintf(", but the fault was not tested in both runs (on: reached %t, fired %d; off: reached %t, fired %d): no leverage shown",
			on.Reached, on.Fired, off.Reached, off.Fired)
	}
	return LeverageShown, r
}

// ContrastOf runs schedule sched on def in setup with the controls on and
// with the controls off (names of def.Controls) and classifies the pair.
// Both runs keep sched's seeded defect and the harness part of its config.
// It is the building block for pairs of any schedule, including ordered
// compositions. It returns an error wrapping ErrBadConfig for a definition
// without Arm or a control it lacks, or a harness error.
func ContrastOf(def *model.Definition, setup Setup, sched *model.Schedule, on, off []string) (Contrast, error) {
	sys, err := newSystem(def)
	if err != nil {
		return Contrast{}, err
	}
	if !sys.canArm() {
		return Contrast{}, fmt.Errorf("%w: system %s has no Arm and Armed: its controls cannot be varied", ErrBadConfig, def.Name)
	}
	setup = sys.setup(setup)
	h := model.NewHarness(setup.Fixture, def.Options(setup.Options))
	run := func(_ arm, s *model.Schedule) (*model.Result, error) { return sys.runOn(h, s) }
	_, m, err := sys.armed(sched.Config.System)
	if err != nil {
		return Contrast{}, err
	}
	csOn, err := sys.parse(on)
	if err != nil {
		return Contrast{}, err
	}
	csOff, err := sys.parse(off)
	if err != nil {
		return Contrast{}, err
	}
	return sys.contrast(run, sched, arm{cs: csOn, mutant: m}, arm{cs: csOff, mutant: m})
}

// runFunc runs a schedule whose config is the arm's.
type runFunc func(arm, *model.Schedule) (*model.Result, error)

// withArm returns a copy of s whose config selects a's controls and seeded
// defect; the rest of the config (retry budget, deadline, join) is kept.
func (s *system) withArm(sched *model.Schedule, a arm) (*model.Schedule, error) {
	cfg, err := s.config(a)
	if err != nil {
		return nil, err
	}
	c := *sched
	c.Config.System = cfg.System
	return &c, nil
}

func (s *system) contrast(run runFunc, sched *model.Schedule, on, off arm) (Contrast, error) {
	sOn, err := s.withArm(sched, on)
	if err != nil {
		return Contrast{}, err
	}
	sOff, err := s.withArm(sched, off)
	if err != nil {
		return Contrast{}, err
	}
	rOn, err := run(on, sOn)
	if err != nil {
		return Contrast{}, err
	}
	rOff, err := run(off, sOff)
	if err != nil {
		return Contrast{}, err
	}
	c := Contrast{On: s.summarize(on, sOn, rOn), Off: s.summarize(off, sOff, rOff)}
	c.Class, c.Reason = classify(c.On, c.Off)
	return c, nil
}

// ControlFinding is the pair for one part of a kind's declared defence
// removed alone, when the defence has several parts: a nominated control,
// or the defending behaviour (Control "", Mutant the defect the off run
// carries). For an invalid green it says what silently carries the
// result: other controls each alone (CarriedBy), pairs of them
// (CarriedJointly), or the system's own behaviour, alone or with other
// controls (CarriedByBehaviour, CarriedWithBehaviour); docs/evidence.md
// has the rules.
type ControlFinding struct {
	Control            string     `json:"control,omitempty"`
	Mutant             string     `json:"mutant,omitempty"`
	Contrast           Contrast   `json:"contrast"`
	CarriedBy          []string   `json:"carried_by"`
	CarriedJointly     [][]string `json:"carried_jointly"`
	CarriedByBehaviour string     `json:"carried_by_behaviour,omitempty"`
	// CarriedWithBehaviour names the controls that carry the result
	// jointly with the behaviour, when the behaviour does not alone.
	CarriedWithBehaviour []string `json:"carried_with_behaviour,omitempty"`
	Finding              string   `json:"finding"`
}

// part names the part of the defence the finding removes: the control, or
// "behaviour (defect NAME)".
func (f ControlFinding) part() string {
	if f.Mutant != "" {
		return "behaviour (defect " + f.Mutant + ")"
	}
	return f.Control
}

// Pair is the counterfactual containment pair of one fault kind under one
// profile and configuration: on is the profile with the kind's declared
// defence, off without it; schedule, fixture, options and oracle fixed.
// The defence is the system's declaration: its nominated controls
// (Definition.Defences: on adds them, off removes them all) and the
// seeded defect that lacks a defending behaviour (Definition.Defect: off
// runs it). PerControl repeats the pair for each part removed alone when
// there are several: "a different control silently carries the result".
type Pair struct {
	System    string   `json:"system"`
	Profile   string   `json:"profile"`
	Config    string   `json:"config"`
	Kind      string   `json:"kind"`
	Nominated []string `json:"nominated"`
	// Mutant is the seeded defect of the off run ("" when the defence is
	// controls only).
	Mutant    string   `json:"mutant,omitempty"`
	Threatens []string `json:"threatens"`
	Predicted bool     `json:"predicted"`
	Contrast  Contrast `json:"contrast"`
	// CarriedBy, for an invalid green, names the controls left in the
	// off run whose removal as well brings the transfer back (each alone).
	CarriedBy []string `json:"carried_by"`
	// CarriedJointly, for an invalid green that no single control
	// carries, names the pairs of controls left in the off run whose
	// removal together brings the transfer back: each of the two contains
	// the fault without the other (redundant defences).
	CarriedJointly [][]string       `json:"carried_jointly"`
	PerControl     []ControlFinding `json:"per_control"`
}

// pair builds the pair of spec under profile p in configuration ci.
func (r *runner) pair(ci int, config string, p profile, spec model.FaultSpec) (Pair, error) {
	arms := func(a arm, s *model.Schedule) (*model.Result, error) { return r.runPlanned(ci, a, s) }
	search := func(a arm, s *model.Schedule) (*model.Result, error) { return r.run(ci, a, s) }
	return r.sys.buildPair(arms, search, config, p, spec)
}

// buildPair runs the pair's arms with arms and the searches for carriers
// with search.
func (s *system) buildPair(arms, search runFunc, config string, p profile, spec model.FaultSpec) (Pair, error) {
	nominated, mutant := s.defences(spec.Kind)
	on, off := arm{cs: p.cs, mutant: p.mutant}, arm{cs: p.cs, mutant: p.mutant}
	if mutant != "" {
		off.mutant = mutant
	}
	for _, c := range nominated {
		on.cs, off.cs = on.cs.with(c), off.cs.without(c)
	}
	sched, err := s.single(spec.Kind, on)
	if err != nil {
		return Pair{}, err
	}
	pr := Pair{System: s.def.Name, Profile: p.name, Config: config, Kind: spec.Kind, Nominated: s.namesOf(nominated),
		Mutant: mutant, Threatens: append([]string{}, spec.Threatens...), CarriedBy: []string{}, CarriedJointly: [][]string{},
		PerControl: []ControlFinding{}}
	if pr.Contrast, err = s.contrast(arms, sched, on, off); err != nil {
		return Pair{}, err
	}
	if pr.Contrast.Class == InvalidGreen {
		if pr.CarriedBy, pr.CarriedJointly, err = s.carriers(search, sched, off); err != nil {
			return Pair{}, err
		}
		pr.Contrast.Reason += carriedText(pr.CarriedBy, pr.CarriedJointly)
	}
	pr.Predicted = len(spec.Threatens) > 0
	for _, t := range spec.Threatens {
		found := false
		for _, v := range pr.Contrast.Off.Violated {
			found = found || v == t
		}
		pr.Predicted = pr.Predicted && found
	}
	parts := len(nominated)
	if mutant != "" {
		parts++
	}
	if parts < 2 {
		return pr, nil
	}
	for _, c := range nominated {
		f, err := s.finding(arms, search, sched, on, ControlFinding{Control: s.def.Controls[c]}, arm{cs: on.cs.without(c), mutant: on.mutant}, mutant)
		if err != nil {
			return Pair{}, err
		}
		pr.PerControl = append(pr.PerControl, f)
	}
	if mutant != "" {
		f, err := s.finding(arms, search, sched, on, ControlFinding{Mutant: mutant}, arm{cs: on.cs, mutant: mutant}, mutant)
		if err != nil {
			return Pair{}, err
		}
		pr.PerControl = append(pr.PerControl, f)
	}
	return pr, nil
}

// namesOf returns the names of the controls at indexes is.
func (s *system) namesOf(is []int) []string {
	out := make([]string, len(is))
	for i, c := range is {
		out[i] = s.def.Controls[c]
	}
	return out
}

// finding runs the pair of on against alone (on with one part of the
// defence removed) and says what carries the result when it is an
// invalid green; mutant is the kind's seeded defect ("" for none).
func (s *system) finding(arms, search runFunc, sched *model.Schedule, on arm, f ControlFinding, alone arm, mutant string) (ControlFinding, error) {
	f.CarriedBy, f.CarriedJointly = []string{}, [][]string{}
	var err error
	if f.Contrast, err = s.contrast(arms, sched, on, alone); err != nil {
		return ControlFinding{}, err
	}
	part := f.part()
	switch f.Contrast.Class {
	case LeverageShown:
		f.Finding = fmt.Sprintf("removing %s alone brings the transfer back", part)
	case ControlIneffective:
		f.Finding = "the control-on run is unsafe"
	case Inconclusive:
		f.Finding = fmt.Sprintf("removing %s alone: the fault was not tested in both runs, so no leverage is shown", part)
	case InvalidGreen:
		if f.CarriedBy, f.CarriedJointly, err = s.carriers(search, sched, alone); err != nil {
			return ControlFinding{}, err
		}
		switch {
		case len(f.CarriedBy) == 0 && len(f.CarriedJointly) == 0:
			if mutant != "" && alone.mutant != mutant {
				if f.CarriedWithBehaviour, err = s.behaviourCarriers(search, sched, alone, mutant); err != nil {
					return ControlFinding{}, err
				}
				if f.CarriedWithBehaviour != nil {
					f.CarriedByBehaviour = mutant
					f.Finding = fmt.Sprintf("removing %s alone leaves the fault contained: the system's own behaviour (absent under defect %s) carries the result", part, mutant)
					if len(f.CarriedWithBehaviour) > 0 {
						f.Finding = fmt.Sprintf("removing %s alone leaves the fault contained: the system's own behaviour (absent under defect %s) carries the result jointly with %s (each contains the fault without the other)",
							part, mutant, strings.Join(f.CarriedWithBehaviour, "+"))
					}
					break
				}
			}
			f.Finding = fmt.Sprintf("removing %s alone leaves the fault contained, and no other control or pair of controls carries it", part)
		case len(f.CarriedBy) == 0:
			f.Finding = fmt.Sprintf("removing %s alone leaves the fault contained%s", part, carriedText(nil, f.CarriedJointly))
		default:
			f.Finding = fmt.Sprintf("removing %s alone leaves the fault contained: %s silently carries the result", part, strings.Join(f.CarriedBy, ", "))
		}
	}
	return f, nil
}

// breaks reports whether sched under a violates an invariant.
func (s *system) breaks(run runFunc, sched *model.Schedule, a arm) (bool, error) {
	sa, err := s.withArm(sched, a)
	if err != nil {
		return false, err
	}
	res, err := run(a, sa)
	if err != nil {
		return false, err
	}
	return !res.Held(), nil
}

// behaviourCarriers reports whether the behaviour that mutant lacks
// carries the containment in alone: an empty list when running mutant as
// well brings the transfer back; otherwise the controls d of alone whose
// removal together with running mutant does (the behaviour and d carry it
// jointly); nil when neither does.
func (s *system) behaviourCarriers(run runFunc, sched *model.Schedule, alone arm, mutant string) ([]string, error) {
	b, err := s.breaks(run, sched, arm{cs: alone.cs, mutant: mutant})
	if err != nil || b {
		return []string{}, err
	}
	var with []string
	for _, d := range alone.cs.list() {
		b, err := s.breaks(run, sched, arm{cs: alone.cs.without(d), mutant: mutant})
		if err != nil {
			return nil, err
		}
		if b {
			with = append(with, s.def.Controls[d])
		}
	}
	return with, nil
}

// carriers returns the controls d of off such that removing d as well makes
// sched violate an invariant: the controls that carry the containment.
// When none does alone, it returns the pairs {d, e} of off's controls
// whose removal together does (each carries it without the other), in
// the system's order.
func (s *system) carriers(run runFunc, sched *model.Schedule, off arm) ([]string, [][]string, error) {
	single, joint := []string{}, [][]string{}
	list := off.cs.list()
	for _, d := range list {
		b, err := s.breaks(run, sched, arm{cs: off.cs.without(d), mutant: off.mutant})
		if err != nil {
			return nil, nil, err
		}
		if b {
			single = append(single, s.def.Controls[d])
		}
	}
	if len(single) > 0 {
		return single, joint, nil
	}
	for i, d := range list {
		for _, e := range list[i+1:] {
			b, err := s.breaks(run, sched, arm{cs: off.cs.without(d).without(e), mutant: off.mutant})
			if err != nil {
				return nil, nil, err
			}
			if b {
				joint = append(joint, []string{s.def.Controls[d], s.def.Controls[e]})
			}
		}
	}
	return single, joint, nil
}

// carriedText says what carries an invalid green: "; carried by a, b"
// (each alone) or "; carried jointly by a and b (each contains the fault
// without the other)".
func carriedText(single []string, joint [][]string) string {
	if len(single) > 0 {
		return "; carried by " + strings.Join(single, ", ")
	}
	if len(joint) == 0 {
		return ""
	}
	pairs := make([]string, len(joint))
	for i, p := range joint {
		pairs[i] = p[0] + " and " + p[1]
	}
	return "; carried jointly by " + strings.Join(pairs, "; or by ") + " (each contains the fault without the other; removing both brings the transfer back)"
}
