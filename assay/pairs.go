package assay

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// PairClass classifies a counterfactual containment pair (the paper, "New
// decision instrument: the counterfactual containment pair").
type PairClass string

// Pair classes.
const (
	// LeverageShown: the control-off run transfers the fault into a
	// violation and the control-on run holds every invariant.
	LeverageShown PairClass = "leverage_shown"
	// InvalidGreen: the control-off run is still safe: the fault did not
	// reach its path, or something else (another control, a hidden
	// fallback) masks the transfer. A green result is then invalid rather
	// than reassuring.
	InvalidGreen PairClass = "invalid_green"
	// ControlIneffective: the control-on run is still unsafe.
	ControlIneffective PairClass = "control_ineffective"
)

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
}

// Held reports whether every invariant held in the run.
func (s RunSummary) Held() bool { return len(s.Violated) == 0 }

func summarize(cs copperfin.Controls, sched *model.Schedule, res *model.Result) RunSummary {
	s := RunSummary{Controls: cs.String(), Mutant: copperfin.MutantOf(sched.Config), Schedule: scheduleHash(sched), Violated: violatedNames(res),
		Effects: res.Terms.Effects, Claim: res.Verdict, RunVerdict: res.RunVerdict}
	for _, f := range res.Faults {
		s.Reached = s.Reached || f.Reached
		s.Fired += f.Fired
	}
	if len(res.Faults) == 0 {
		s.Reached = true
	}
	for _, inv := range res.Invariants {
		if !inv.Held && (s.FirstSeq == 0 || inv.FirstSeq < s.FirstSeq) {
			s.FirstSeq, s.FirstEvent = inv.FirstSeq, inv.Event
		}
	}
	if res.Stopped != nil {
		s.Stopped = res.Stopped.Condition
	}
	return s
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
	if !on.Reached || on.Fired == 0 {
		r += "; the fault did not fire in the control-on run"
	}
	return LeverageShown, r
}

// ContrastOf runs schedule sched on sys in setup under on and off and
// classifies the pair. Both runs keep the rest of sched's config (its
// seeded defect, retry budget, deadline and join policy). It is the
// building block for pairs of any schedule, including ordered
// compositions: exploration that finds a composition witness passes its
// schedule here. (Shrinking a pair as a pair, to the smallest schedule
// under which off violates and on holds, belongs to the exploration
// package and is not provided here.) It returns a harness error, or an
// error for an invalid schedule or a seeded defect sys cannot build.
func ContrastOf(sys System, setup Setup, sched *model.Schedule, on, off copperfin.Controls) (Contrast, error) {
	h := model.NewHarness(setup.Fixture, setup.Options)
	run := func(cs copperfin.Controls, s *model.Schedule) (*model.Result, error) {
		f, err := sys.factory(cs, copperfin.MutantOf(s.Config))
		if err != nil {
			return nil, err
		}
		return h.Run(f, s)
	}
	m := copperfin.MutantOf(sched.Config)
	return contrast(run, sched, arm{on, m}, arm{off, m})
}

// arm is one side of a matched pair: a control set and a seeded defect
// ("" for none).
type arm struct {
	cs     copperfin.Controls
	mutant string
}

// withArm returns a copy of s whose config selects a's controls and seeded
// defect; the rest of the config (retry budget, deadline, join) is kept.
func withArm(s *model.Schedule, a arm) *model.Schedule {
	c := *s
	c.Config.System = copperfin.Settings{Controls: a.cs, HasControls: true, Mutant: a.mutant}.JSON()
	return &c
}

// withControls returns a copy of s under controls cs, keeping the rest of
// its config (its seeded defect included).
func withControls(s *model.Schedule, cs copperfin.Controls) *model.Schedule {
	return withArm(s, arm{cs, copperfin.MutantOf(s.Config)})
}

func contrast(run func(copperfin.Controls, *model.Schedule) (*model.Result, error), sched *model.Schedule, on, off arm) (Contrast, error) {
	sOn, sOff := withArm(sched, on), withArm(sched, off)
	rOn, err := run(on.cs, sOn)
	if err != nil {
		return Contrast{}, err
	}
	rOff, err := run(off.cs, sOff)
	if err != nil {
		return Contrast{}, err
	}
	c := Contrast{On: summarize(on.cs, sOn, rOn), Off: summarize(off.cs, sOff, rOff)}
	c.Class, c.Reason = classify(c.On, c.Off)
	return c, nil
}

// ControlFinding is the pair for one part of a kind's declared defence
// removed alone, when the defence has several parts: each nominated
// control, and the defending behaviour when the spec names a seeded defect
// as well (then Control is "" and Mutant names the defect the finding's
// off run carries). When it is an invalid green, CarriedBy names the
// other controls whose removal together with it brings the transfer back:
// the controls that silently carry the result; CarriedJointly, when no
// single one does, the pairs of them that do; CarriedByBehaviour, when
// no control carries it but running the kind's seeded defect as well
// (alone, or with one more control removed: CarriedWithBehaviour) brings
// the transfer back, names that defect: the system's own behaviour
// carries the result.
type ControlFinding struct {
	Control            copperfin.Control     `json:"control,omitempty"`
	Mutant             string                `json:"mutant,omitempty"`
	Contrast           Contrast              `json:"contrast"`
	CarriedBy          []copperfin.Control   `json:"carried_by"`
	CarriedJointly     [][]copperfin.Control `json:"carried_jointly"`
	CarriedByBehaviour string                `json:"carried_by_behaviour,omitempty"`
	// CarriedWithBehaviour names the controls that carry the result
	// jointly with the behaviour, when the behaviour does not alone.
	CarriedWithBehaviour []copperfin.Control `json:"carried_with_behaviour,omitempty"`
	Finding              string              `json:"finding"`
}

// Part names the part of the defence the finding removes: the control, or
// "behaviour (defect NAME)".
func (f ControlFinding) Part() string {
	if f.Mutant != "" {
		return "behaviour (defect " + f.Mutant + ")"
	}
	return string(f.Control)
}

// Pair is the counterfactual containment pair of one fault kind under one
// profile and configuration: on is the profile with the kind's declared
// defence, off the profile without it; the schedule, the fixture, the
// options and the oracle are held fixed. The defence is what the kind's
// spec declares: its nominated controls (on adds them, off removes all of
// them) and, for a kind whose defence is a behaviour of the system rather
// than one of the paper's controls, the seeded defect that lacks that
// behaviour (model.FaultSpec.Mutant: off runs the system with it, on
// without it). A kind that declares both (its controls are co-defences of
// the behaviour) has both removed on the off side and both present on the
// on side, so the pair isolates the kind's whole declared defence.
// PerControl repeats the pair for each part of the defence removed alone
// when there are several (each nominated control, and the behaviour):
// the paper warns that "a different control silently carries the result".
type Pair struct {
	System    string              `json:"system"`
	Profile   string              `json:"profile"`
	Config    string              `json:"config"`
	Kind      string              `json:"kind"`
	Nominated []copperfin.Control `json:"nominated"`
	// Mutant is the seeded defect of the off run ("" when the defence is
	// controls only).
	Mutant    string   `json:"mutant,omitempty"`
	Threatens []string `json:"threatens"`
	Predicted bool     `json:"predicted"`
	Contrast  Contrast `json:"contrast"`
	// CarriedBy, for an invalid green, names the controls left in the
	// off run whose removal as well brings the transfer back (each alone).
	CarriedBy []copperfin.Control `json:"carried_by"`
	// CarriedJointly, for an invalid green that no single control
	// carries, names the pairs of controls left in the off run whose
	// removal together brings the transfer back: each of the two contains
	// the fault without the other (redundant defences).
	CarriedJointly [][]copperfin.Control `json:"carried_jointly"`
	PerControl     []ControlFinding      `json:"per_control"`
}

// pair builds the pair of spec under profile controls cs in configuration
// ci.
func (r *runner) pair(ci int, config, profile string, cs copperfin.Controls, spec model.FaultSpec) (Pair, error) {
	arms := func(c copperfin.Controls, s *model.Schedule) (*model.Result, error) { return r.runPlanned(ci, c, s) }
	search := func(c copperfin.Controls, s *model.Schedule) (*model.Result, error) { return r.run(ci, c, s) }
	return buildPair(arms, search, r.cfg.System.Name, config, profile, cs, spec)
}

// buildPair runs the pair's arms with arms and the searches for carriers
// with search.
func buildPair(arms, search func(copperfin.Controls, *model.Schedule) (*model.Result, error), system, config, profile string, cs copperfin.Controls, spec model.FaultSpec) (Pair, error) {
	nominated, mutant := copperfin.Defences(spec.Kind)
	on, off := arm{cs: cs}, arm{cs: cs, mutant: mutant}
	for _, c := range nominated {
		on.cs, off.cs = on.cs.With(c), off.cs.Without(c)
	}
	sched := single(spec.Kind, on.cs)
	pr := Pair{System: system, Profile: profile, Config: config, Kind: spec.Kind, Nominated: append([]copperfin.Control{}, nominated...),
		Mutant: mutant, Threatens: append([]string{}, spec.Threatens...), CarriedBy: []copperfin.Control{}, CarriedJointly: [][]copperfin.Control{},
		PerControl: []ControlFinding{}}
	var err error
	if pr.Contrast, err = contrast(arms, sched, on, off); err != nil {
		return Pair{}, err
	}
	if pr.Contrast.Class == InvalidGreen {
		if pr.CarriedBy, pr.CarriedJointly, err = carriers(search, sched, off); err != nil {
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
		f, err := finding(arms, search, sched, on, ControlFinding{Control: c}, arm{cs: on.cs.Without(c)}, mutant)
		if err != nil {
			return Pair{}, err
		}
		pr.PerControl = append(pr.PerControl, f)
	}
	if mutant != "" {
		f, err := finding(arms, search, sched, on, ControlFinding{Mutant: mutant}, arm{cs: on.cs, mutant: mutant}, mutant)
		if err != nil {
			return Pair{}, err
		}
		pr.PerControl = append(pr.PerControl, f)
	}
	return pr, nil
}

// finding runs the pair of on against alone (on with one part of the
// defence removed) and says what carries the result when it is an
// invalid green; mutant is the kind's seeded defect ("" for none).
func finding(arms, search func(copperfin.Controls, *model.Schedule) (*model.Result, error), sched *model.Schedule, on arm, f ControlFinding, alone arm, mutant string) (ControlFinding, error) {
	f.CarriedBy, f.CarriedJointly = []copperfin.Control{}, [][]copperfin.Control{}
	var err error
	if f.Contrast, err = contrast(arms, sched, on, alone); err != nil {
		return ControlFinding{}, err
	}
	part := f.Part()
	switch f.Contrast.Class {
	case LeverageShown:
		f.Finding = fmt.Sprintf("removing %s alone brings the transfer back", part)
	case ControlIneffective:
		f.Finding = "the control-on run is unsafe"
	case InvalidGreen:
		if f.CarriedBy, f.CarriedJointly, err = carriers(search, sched, alone); err != nil {
			return ControlFinding{}, err
		}
		switch {
		case len(f.CarriedBy) == 0 && len(f.CarriedJointly) == 0:
			if mutant != "" && alone.mutant == "" {
				if f.CarriedWithBehaviour, err = behaviourCarriers(search, sched, alone, mutant); err != nil {
					return ControlFinding{}, err
				}
				if f.CarriedWithBehaviour != nil {
					f.CarriedByBehaviour = mutant
					f.Finding = fmt.Sprintf("removing %s alone leaves the fault contained: the system's own behaviour (absent under defect %s) carries the result", part, mutant)
					if len(f.CarriedWithBehaviour) > 0 {
						f.Finding = fmt.Sprintf("removing %s alone leaves the fault contained: the system's own behaviour (absent under defect %s) carries the result jointly with %s (each contains the fault without the other)",
							part, mutant, joinControls(f.CarriedWithBehaviour))
					}
					break
				}
			}
			f.Finding = fmt.Sprintf("removing %s alone leaves the fault contained, and no other control or pair of controls carries it", part)
		case len(f.CarriedBy) == 0:
			f.Finding = fmt.Sprintf("removing %s alone leaves the fault contained%s", part, carriedText(nil, f.CarriedJointly))
		default:
			names := make([]string, len(f.CarriedBy))
			for i, d := range f.CarriedBy {
				names[i] = string(d)
			}
			f.Finding = fmt.Sprintf("removing %s alone leaves the fault contained: %s silently carries the result", part, strings.Join(names, ", "))
		}
	}
	return f, nil
}

// behaviourCarriers reports whether the behaviour that mutant lacks
// carries the containment in alone: an empty list when running mutant as
// well brings the transfer back; otherwise the controls d of alone whose
// removal together with running mutant does (the behaviour and d carry it
// jointly); nil when neither does.
func behaviourCarriers(run func(copperfin.Controls, *model.Schedule) (*model.Result, error), sched *model.Schedule, alone arm, mutant string) ([]copperfin.Control, error) {
	breaks := func(cs copperfin.Controls) (bool, error) {
		a := arm{cs: cs, mutant: mutant}
		res, err := run(a.cs, withArm(sched, a))
		if err != nil {
			return false, err
		}
		return !res.Held(), nil
	}
	b, err := breaks(alone.cs)
	if err != nil || b {
		return []copperfin.Control{}, err
	}
	var with []copperfin.Control
	for _, d := range alone.cs.List() {
		b, err := breaks(alone.cs.Without(d))
		if err != nil {
			return nil, err
		}
		if b {
			with = append(with, d)
		}
	}
	return with, nil
}

// carriers returns the controls d of off such that removing d as well makes
// sched violate an invariant: the controls that carry the containment.
// When none does alone, it returns the pairs {d, e} of off's controls
// whose removal together does (each carries it without the other), in
// catalogue order.
func carriers(run func(copperfin.Controls, *model.Schedule) (*model.Result, error), sched *model.Schedule, off arm) ([]copperfin.Control, [][]copperfin.Control, error) {
	breaks := func(cs copperfin.Controls) (bool, error) {
		a := arm{cs: cs, mutant: off.mutant}
		res, err := run(a.cs, withArm(sched, a))
		if err != nil {
			return false, err
		}
		return !res.Held(), nil
	}
	single, joint := []copperfin.Control{}, [][]copperfin.Control{}
	list := off.cs.List()
	for _, d := range list {
		b, err := breaks(off.cs.Without(d))
		if err != nil {
			return nil, nil, err
		}
		if b {
			single = append(single, d)
		}
	}
	if len(single) > 0 {
		return single, joint, nil
	}
	for i, d := range list {
		for _, e := range list[i+1:] {
			b, err := breaks(off.cs.Without(d).Without(e))
			if err != nil {
				return nil, nil, err
			}
			if b {
				joint = append(joint, []copperfin.Control{d, e})
			}
		}
	}
	return single, joint, nil
}

// carriedText says what carries an invalid green: "; carried by a, b"
// (each alone) or "; carried jointly by a and b (each contains the fault
// without the other)".
func carriedText(single []copperfin.Control, joint [][]copperfin.Control) string {
	if len(single) > 0 {
		names := make([]string, len(single))
		for i, d := range single {
			names[i] = string(d)
		}
		return "; carried by " + strings.Join(names, ", ")
	}
	if len(joint) == 0 {
		return ""
	}
	pairs := make([]string, len(joint))
	for i, p := range joint {
		pairs[i] = string(p[0]) + " and " + string(p[1])
	}
	return "; carried jointly by " + strings.Join(pairs, "; or by ") + " (each contains the fault without the other; removing both brings the transfer back)"
}
