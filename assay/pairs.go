package assay

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/model"
)

// PairClass classifies a counterfactual containment pair (seed 000, "New
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
	Controls   string             `json:"controls"`
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

func summarize(cs model.Controls, sched *model.Schedule, res *model.Result) RunSummary {
	s := RunSummary{Controls: cs.String(), Schedule: scheduleHash(sched), Violated: violatedNames(res),
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
// one fixture and oracle, two control sets.
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
// classifies the pair. It is the building block for pairs of any schedule,
// including ordered compositions: exploration that finds a composition
// witness passes its schedule here. (Shrinking a pair as a pair, to the
// smallest schedule under which off violates and on holds, belongs to the
// exploration package and is not provided here.) It returns a harness
// error, or an error for an invalid schedule.
func ContrastOf(sys System, setup Setup, sched *model.Schedule, on, off model.Controls) (Contrast, error) {
	h := model.NewHarness(setup.Fixture, setup.Options)
	return contrast(func(cs model.Controls, s *model.Schedule) (*model.Result, error) {
		return h.Run(sys.Factory(cs), s)
	}, sched, on, off)
}

func withControls(s *model.Schedule, cs model.Controls) *model.Schedule {
	c := *s
	c.Config = model.ConfigOfControls(cs)
	return &c
}

func contrast(run func(model.Controls, *model.Schedule) (*model.Result, error), sched *model.Schedule, on, off model.Controls) (Contrast, error) {
	sOn, sOff := withControls(sched, on), withControls(sched, off)
	rOn, err := run(on, sOn)
	if err != nil {
		return Contrast{}, err
	}
	rOff, err := run(off, sOff)
	if err != nil {
		return Contrast{}, err
	}
	c := Contrast{On: summarize(on, sOn, rOn), Off: summarize(off, sOff, rOff)}
	c.Class, c.Reason = classify(c.On, c.Off)
	return c, nil
}

// ControlFinding is the pair for one nominated control removed alone, when
// a kind has several. When it is an invalid green, CarriedBy names the
// other controls whose removal together with it brings the transfer back:
// the controls that silently carry the result.
type ControlFinding struct {
	Control   model.Control   `json:"control"`
	Contrast  Contrast        `json:"contrast"`
	CarriedBy []model.Control `json:"carried_by"`
	Finding   string          `json:"finding"`
}

// Pair is the counterfactual containment pair of one fault kind under one
// profile and configuration: on is the profile with the kind's nominated
// controls added, off the profile with all of them removed; the schedule,
// the fixture, the options and the oracle are held fixed. PerControl
// repeats the pair for each nominated control removed alone when there are
// several (seed 000 warns that "a different control silently carries the
// result").
type Pair struct {
	System    string          `json:"system"`
	Profile   string          `json:"profile"`
	Config    string          `json:"config"`
	Kind      string          `json:"kind"`
	Nominated []model.Control `json:"nominated"`
	Threatens []string        `json:"threatens"`
	Predicted bool            `json:"predicted"`
	Contrast  Contrast        `json:"contrast"`
	// CarriedBy, for an invalid green, names the controls left in the
	// off run whose removal as well brings the transfer back.
	CarriedBy  []model.Control  `json:"carried_by"`
	PerControl []ControlFinding `json:"per_control"`
}

// pair builds the pair of spec under profile controls cs in configuration
// ci.
func (r *runner) pair(ci int, config, profile string, cs model.Controls, spec model.FaultSpec) (Pair, error) {
	run := func(c model.Controls, s *model.Schedule) (*model.Result, error) { return r.run(ci, c, s) }
	return buildPair(run, r.cfg.System.Name, config, profile, cs, spec)
}

func buildPair(run func(model.Controls, *model.Schedule) (*model.Result, error), system, config, profile string, cs model.Controls, spec model.FaultSpec) (Pair, error) {
	on, off := cs, cs
	for _, c := range spec.Nominated {
		on, off = on.With(c), off.Without(c)
	}
	sched := single(spec.Kind, on)
	pr := Pair{System: system, Profile: profile, Config: config, Kind: spec.Kind, Nominated: append([]model.Control{}, spec.Nominated...),
		Threatens: append([]string{}, spec.Threatens...), CarriedBy: []model.Control{}, PerControl: []ControlFinding{}}
	var err error
	if pr.Contrast, err = contrast(run, sched, on, off); err != nil {
		return Pair{}, err
	}
	if pr.Contrast.Class == InvalidGreen {
		if pr.CarriedBy, err = carriers(run, sched, off); err != nil {
			return Pair{}, err
		}
		if len(pr.CarriedBy) > 0 {
			pr.Contrast.Reason += "; carried by " + joinControls(pr.CarriedBy)
		}
	}
	pr.Predicted = len(spec.Threatens) > 0
	for _, t := range spec.Threatens {
		found := false
		for _, v := range pr.Contrast.Off.Violated {
			found = found || v == t
		}
		pr.Predicted = pr.Predicted && found
	}
	if len(spec.Nominated) < 2 {
		return pr, nil
	}
	for _, c := range spec.Nominated {
		f := ControlFinding{Control: c, CarriedBy: []model.Control{}}
		if f.Contrast, err = contrast(run, sched, on, on.Without(c)); err != nil {
			return Pair{}, err
		}
		switch f.Contrast.Class {
		case LeverageShown:
			f.Finding = fmt.Sprintf("removing %s alone brings the transfer back", c)
		case ControlIneffective:
			f.Finding = "the control-on run is unsafe"
		case InvalidGreen:
			if f.CarriedBy, err = carriers(run, sched, on.Without(c)); err != nil {
				return Pair{}, err
			}
			if len(f.CarriedBy) == 0 {
				f.Finding = fmt.Sprintf("removing %s alone leaves the fault contained, and no single other control carries it", c)
			} else {
				names := make([]string, len(f.CarriedBy))
				for i, d := range f.CarriedBy {
					names[i] = string(d)
				}
				f.Finding = fmt.Sprintf("removing %s alone leaves the fault contained: %s silently carries the result", c, strings.Join(names, ", "))
			}
		}
		pr.PerControl = append(pr.PerControl, f)
	}
	return pr, nil
}

// carriers returns the controls d of off such that removing d as well makes
// sched violate an invariant: the controls that carry the containment.
func carriers(run func(model.Controls, *model.Schedule) (*model.Result, error), sched *model.Schedule, off model.Controls) ([]model.Control, error) {
	out := []model.Control{}
	for _, d := range off.List() {
		cs := off.Without(d)
		res, err := run(cs, withControls(sched, cs))
		if err != nil {
			return nil, err
		}
		if !res.Held() {
			out = append(out, d)
		}
	}
	return out, nil
}
