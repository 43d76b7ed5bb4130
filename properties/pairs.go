package properties

import (
	"encoding/json"
	"errors"
	"fmt"

	"pgregory.net/rapid"

	"github.com/faultline/faultline/internal/spare"
	"github.com/faultline/faultline/model"
)

// PairReport is the result of one pair exploration (see ExplorePair).
type PairReport struct {
	// Found is true when a composition witness was found.
	Found bool `json:"found"`
	// Seed is the exploration's seed; Draws the number of compositions
	// drawn and run as pairs (up to the first witness, or all of them).
	Seed  uint64 `json:"seed"`
	Draws int    `json:"draws"`
	// Singles counts the drawn compositions under which the pair failed
	// but one of whose faults fails it alone, or whose reduction kept one
	// fault only: single-fault pairs, which the catalogue's pairs already
	// cover, passed over.
	Singles int `json:"singles"`
	// Witness is the first composition witness, reduced as a pair.
	Witness *PairWitness `json:"witness,omitempty"`
	// CoverageErr is, as Report.CoverageErr, the first error recording a
	// run into the WithCoverage tracker met, kept beside the witness (nil
	// for none); without a witness it is ExplorePair's error.
	CoverageErr error `json:"-"`
}

// PairWitness is an ordered composition of faults under which the
// control-off run violates an invariant and the control-on run holds
// every invariant in scope, reduced as a pair to a 1-minimal schedule of
// at least two faults: dropping any one fault (or any two), moving one to
// an earlier ordinal or weakening one makes off hold that invariant or on
// violate one, so every fault is needed for the witness.
type PairWitness struct {
	// Off and On are the reduced schedule under each side's config (the
	// same faults); Drawn is the composition as drawn (off's config) and
	// Draw its 1-based number.
	Off   *model.Schedule `json:"off"`
	On    *model.Schedule `json:"on"`
	Drawn *model.Schedule `json:"drawn"`
	Draw  int             `json:"draw"`
	// Violation is the invariant the off run violates (the first in scope
	// to become false in the drawn composition's off run), the crossing
	// after which it was false in the reduced off run, the fault that
	// reached it and the oracle's reason; FaultKind is that fault's kind.
	model.Violation
	FaultKind string `json:"fault_kind,omitempty"`
	// OnVerdict is the run verdict of the reduced on run.
	OnVerdict model.RunVerdict `json:"on_verdict"`
}

// pairWitnessJSON is PairWitness's JSON form, field by field.
type pairWitnessJSON struct {
	Off       *model.Schedule  `json:"off"`
	On        *model.Schedule  `json:"on"`
	Drawn     *model.Schedule  `json:"drawn"`
	Draw      int              `json:"draw"`
	Invariant string           `json:"invariant"`
	FirstSeq  int              `json:"first_seq"`
	Event     model.EventName  `json:"event"`
	FaultID   string           `json:"fault_id,omitempty"`
	FaultKind string           `json:"fault_kind,omitempty"`
	Detail    string           `json:"detail"`
	OnVerdict model.RunVerdict `json:"on_verdict"`
}

// MarshalJSON writes {"off", "on", "drawn", "draw", "invariant",
// "first_seq", "event", "fault_id", "fault_kind", "detail", "on_verdict"}
// (the fields' tags read it back).
func (w PairWitness) MarshalJSON() ([]byte, error) {
	return json.Marshal(pairWitnessJSON{Off: w.Off, On: w.On, Drawn: w.Drawn, Draw: w.Draw, Invariant: w.Invariant,
		FirstSeq: w.FirstSeq, Event: w.Event, FaultID: w.FaultID, FaultKind: w.FaultKind, Detail: w.Detail, OnVerdict: w.OnVerdict})
}

// ExplorePair explores ordered compositions of two to WithMaxFaults
// faults for a counterfactual containment pair: the same schedule run on
// def under off and under on, off violating an invariant in scope and on
// holding every one. The first such composition is reduced as a pair to
// a 1-minimal witness (PairReport.Witness). Each of the draws is made from
// its own seed, so the report is a pure function of its arguments.
// WithConfig, WithFailDir and the loop options do not apply (an error);
// WithMaxFaults must be at least 2. See docs/evidence.md.
func ExplorePair(def *model.Definition, on, off model.Config, seed uint64, draws int, opts ...Option) (*PairReport, error) {
	e, err := open(nil, def, append(append([]Option{}, opts...), WithConfig(off)))
	if err != nil {
		return nil, err
	}
	if draws < 1 {
		return nil, fmt.Errorf("properties: pair exploration needs at least 1 draw, got %d", draws)
	}
	probe := defaults()
	for _, o := range opts {
		if err := o.apply(&probe); err != nil {
			return nil, err
		}
	}
	switch {
	case probe.configSet:
		return nil, errors.New("properties: WithConfig does not apply to a pair exploration: its sides are on and off")
	case probe.failDir != "":
		return nil, errors.New("properties: WithFailDir does not apply to a pair exploration")
	case probe.exh.on:
		return nil, errors.New("properties: WithExhaustive does not apply to a pair exploration")
	case probe.loop.owned():
		return nil, errors.New("properties: WithSeed, WithChecks and WithShard do not apply to a pair exploration (its seed is its own argument)")
	case probe.maxFaults < 2:
		return nil, fmt.Errorf("properties: a pair exploration draws compositions of at least 2 faults; max faults %d", probe.maxFaults)
	}
	if err := e.survey(on); err != nil {
		return nil, err
	}
	// compositions of plain faults: no modifier drawn (see drawModifier)
	e.minFaults, e.swarm, e.noModifier = 2, false, true
	on.Fixture = e.set.fixture.Name
	gen := rapid.Custom(e.draw)
	rep := &PairReport{Seed: seed}
	for i := 0; i < draws; i++ {
		rep.Draws++
		s := gen.Example(int(drawSeed(seed, i)))
		s.Seed = "pair"
		// a drawn composition is valid by construction: it runs on the
		// harness's terms path; the reduction goes through the public
		// replay path
		inv, ok, err := e.pairFails(e.judge, s, on, "")
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		fails := func(c *model.Schedule) (bool, error) {
			_, ok, err := e.pairFails(e.replay, c, on, inv)
			return ok, err
		}
		single, err := e.hasSingle(s, func(c *model.Schedule) (bool, error) {
			_, ok, err := e.pairFails(e.judge, c, on, inv)
			return ok, err
		})
		if err != nil {
			return nil, err
		}
		if single {
			rep.Singles++
			continue
		}
		red, err := e.reduce(s, fails, true)
		if err != nil {
			return nil, err
		}
		if len(red.Faults) < 2 {
			rep.Singles++
			continue
		}
		w, err := e.witness(s, red, on, inv, i+1)
		if err != nil {
			return nil, err
		}
		rep.Found, rep.Witness = true, w
		rep.CoverageErr = e.coverageErr()
		return rep, nil
	}
	if err := e.coverageErr(); err != nil {
		return nil, err
	}
	return rep, nil
}

// judge runs s like run but on the harness's terms path, returning the
// judged outcome without run id or timeline (model.Harness.LastOutcome).
func (e *explorer) judge(s *model.Schedule) (*model.Result, error) {
	var f model.Factory
	var err error
	if werr := e.within(func() { f, err = e.sys(s.Config) }); werr != nil {
		err = werr
	}
	if err != nil {
		return nil, fmt.Errorf("properties: building the system for %s: %w", e.describe(s.Config), err)
	}
	if werr := e.within(func() { _, err = e.harness.Terms(f, s) }); werr != nil {
		err = werr
	}
	if err != nil {
		return nil, fmt.Errorf("properties: harness: %w", err)
	}
	e.judged = e.harness.LastOutcome()
	return e.judged, nil
}

// handBack hands res back to the harness when judge made it: nothing
// keeps a judged outcome, and the next one reuses its storage.
func (e *explorer) handBack(res *model.Result) {
	if res == e.judged {
		spare.Result(e.harness, res)
		e.judged = nil
	}
}

// drawSeed is the seed of draw i of an exploration from seed: SplitMix64's
// finaliser over seed and i (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014), so neighbouring seeds
// draw unrelated compositions.
func drawSeed(seed uint64, i int) uint64 {
	z := seed + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// hasSingle reports whether one fault of s, alone at its place, already
// fails the pair: the composition is then a single-fault pair in disguise,
// passed over without reducing it.
func (e *explorer) hasSingle(s *model.Schedule, fails func(*model.Schedule) (bool, error)) (bool, error) {
	for _, f := range s.Faults {
		c := cloneSchedule(s)
		c.Faults = []model.FaultEntry{f}
		ok, err := fails(c)
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// pairFails runs c with run under off (c's config) and under on, and
// reports whether off violates inv (any invariant in scope when inv is "",
// then returned: the first to become false) while on holds every
// invariant in scope.
func (e *explorer) pairFails(run func(*model.Schedule) (*model.Result, error), c *model.Schedule, on model.Config, inv string) (string, bool, error) {
	res, err := run(c)
	if err != nil {
		return "", false, err
	}
	held := false
	if inv == "" {
		v, bad := e.violation(res)
		held, inv = !bad, v.Invariant
	} else {
		ir, _ := res.Invariant(inv)
		held = ir.Held
	}
	e.handBack(res)
	if held {
		return inv, false, nil
	}
	o := cloneSchedule(c)
	o.Config = on
	resOn, err := run(o)
	if err != nil {
		return "", false, err
	}
	_, bad := e.violation(resOn)
	e.handBack(resOn)
	return inv, !bad, nil
}

// witness describes the reduced pair red of the drawn composition s.
func (e *explorer) witness(s, red *model.Schedule, on model.Config, inv string, draw int) (*PairWitness, error) {
	red.Seed = "composition pair: " + inv
	_, ok, err := e.pairFails(e.replay, red, on, inv)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("properties: the reduced pair no longer holds for %s: %w", inv, ErrNondeterministic)
	}
	w := &PairWitness{Off: red, On: cloneSchedule(red), Drawn: s, Draw: draw, Violation: model.Violation{Invariant: inv}}
	w.On.Config = on
	res, err := e.replay(red)
	if err != nil {
		return nil, err
	}
	ir, _ := res.Invariant(inv)
	w.FirstSeq, w.Event, w.FaultID, w.Detail = ir.FirstSeq, ir.Event, ir.FaultID, ir.Detail
	for _, f := range res.Faults {
		if f.ID == ir.FaultID {
			w.FaultKind = f.Kind
		}
	}
	resOn, err := e.replay(w.On)
	if err != nil {
		return nil, err
	}
	w.OnVerdict = resOn.RunVerdict
	return w, nil
}
