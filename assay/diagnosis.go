package assay

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// Remediation is one of the four outcomes the paper assigns to a negative
// result ("What a negative result should produce").
type Remediation string

// Remediation classes.
const (
	ChangeArchitecture Remediation = "change architecture"
	NarrowAuthority    Remediation = "narrow authority"
	AddRecovery        Remediation = "add recovery"
	RejectScenario     Remediation = "reject the operating scenario"
)

// ControlRole is the remediation class a control belongs to: the kind of
// change adding it makes to the configured system. Authority checks at
// effect time narrow authority; idempotent retry and independent readback
// add recovery; an evidence gate on release changes the architecture of the
// release path. Controls not listed (deny_on_warning) are not offered as
// remediations.
var ControlRole = map[copperfin.Control]Remediation{
	copperfin.BindIdentity:       NarrowAuthority,
	copperfin.PreEffectAuthority: NarrowAuthority,
	copperfin.RefreshContext:     NarrowAuthority,
	copperfin.StatePrecondition:  NarrowAuthority,
	copperfin.Idempotency:        AddRecovery,
	copperfin.EffectReadback:     AddRecovery,
	copperfin.EvidenceGate:       ChangeArchitecture,
}

// Signal is the earliest discriminating signal of a counterexample: the
// crossing at which the fault's disturbance fired (what could be observed
// there) and the signal the fault withheld, and the first warning the
// system raised after it, if any.
type Signal struct {
	Seq      int             `json:"seq"`
	Event    model.EventName `json:"event"`
	Ordinal  int             `json:"ordinal"`
	Outcome  string          `json:"outcome"`
	Detail   string          `json:"detail,omitempty"`
	Withheld model.Signal    `json:"withheld"`
	Manner   model.Manner    `json:"manner,omitempty"`
	WarnSeq  int             `json:"warn_seq,omitempty"`
	Warning  string          `json:"warning,omitempty"`
	Text     string          `json:"text"`
}

// Interruption is one control whose addition, everything else fixed, makes
// the counterexample's schedule hold every invariant, with the verdict of
// that run.
type Interruption struct {
	Controls   []copperfin.Control `json:"controls"`
	RunVerdict model.RunVerdict    `json:"run_verdict"`
}

// Diagnosis is what a negative result produces (the paper, "What a negative
// result should produce"), derived from the counterexample run and from
// matched runs, never from a table keyed by fault kind:
//
//   - FirstBoundary: the boundary of the crossing after which the first
//     invariant became false (the event's boundary, see EventBoundary);
//   - Signal: the earliest signal that could have discriminated it;
//   - Interrupting: the controls that, added alone to the run's control set,
//     make the same schedule hold (if none does alone, the kind's nominated
//     set together, then all of the paper's seven); Control is the one
//     chosen: the first, in catalogue order, whose run recovers, else the
//     first that holds;
//   - Missing: the oracle reads absent between the disturbance and the
//     violation, for the violated invariant's oracle and the fault's;
//   - Remediation: the role (ControlRole) of the chosen control; a fix
//     that needs several controls together changes the architecture; no fix
//     at all rejects the operating scenario.
type Diagnosis struct {
	Profile       string              `json:"profile"`
	Config        string              `json:"config"`
	Kind          string              `json:"kind"`
	Trials        int                 `json:"trials"`
	Schedule      string              `json:"schedule_sha256"`
	Invariant     string              `json:"invariant"`
	Violated      []string            `json:"violated"`
	FirstSeq      int                 `json:"first_seq"`
	FirstEvent    model.EventName     `json:"first_event"`
	FirstOrdinal  int                 `json:"first_ordinal"`
	FirstBoundary model.Boundary      `json:"first_boundary"`
	Detail        string              `json:"detail"`
	Signal        Signal              `json:"signal"`
	Interrupting  []Interruption      `json:"interrupting"`
	Control       []copperfin.Control `json:"control"`
	Missing       []string            `json:"missing"`
	Remediation   Remediation         `json:"remediation"`
	Why           string              `json:"why"`
}

// EventBoundary maps a timeline event to the boundary it crosses: context
// reads and the proposal cross the proposal boundary, grants and checks the
// authority boundary, state reads the state boundary, tool commits the
// effect boundary, readbacks, evidence records and the claim the proof
// boundary, checkpoint reads and writes the checkpoint store, worker
// starts, crashes and stops the worker boundary, memory reads and writes
// the memory boundary, branch runs and joins the branch join, and a
// retry-after wait (clock.sleep) the tool-call boundary (the harness practice's
// harness boundaries).
func EventBoundary(e model.EventName) model.Boundary {
	switch e {
	case model.EvContextSubject, model.EvContextPolicy, model.EvContextEligibility, model.EvProposal:
		return model.BoundaryProposal
	case model.EvAuthorityGrant, model.EvAuthorityCheck:
		return model.BoundaryAuthority
	case model.EvStateRead:
		return model.BoundaryState
	case model.EvToolCommit:
		return model.BoundaryEffect
	case model.EvCheckpointWrite, model.EvCheckpointLoad:
		return model.BoundaryCheckpointStore
	case model.EvWorkerStart, model.EvWorkerCrash, model.EvStop:
		return model.BoundaryWorker
	case model.EvMemoryWrite, model.EvMemoryRead:
		return model.BoundaryMemory
	case model.EvBranchRun, model.EvBranchJoin:
		return model.BoundaryBranchJoin
	case model.EvClockSleep:
		return model.BoundaryToolCall
	}
	return model.BoundaryProof
}

// oracleReads lists the events through which a system consults an oracle's
// source. The budget counter is persisted in the checkpoints a system
// reloads (the harness practice: "Persist ... remaining budgets"); the join record is
// written and kept at the branch join.
var oracleReads = map[model.OracleName][]model.EventName{
	model.OracleLedgerReadback:   {model.EvLedgerReadback},
	model.OracleReceipt:          {model.EvEvidenceReceipt},
	model.OracleStateVersion:     {model.EvStateRead},
	model.OracleCapabilityRecord: {model.EvAuthorityCheck},
	model.OraclePolicyRecord:     {model.EvContextPolicy},
	model.OracleTraceLineage:     {model.EvEvidenceLookup, model.EvEvidenceReadback},
	model.OracleCheckpointStore:  {model.EvCheckpointLoad},
	model.OracleBudgetCounter:    {model.EvCheckpointLoad},
	model.OracleJoinRecord:       {model.EvBranchJoin},
}

// Diagnose diagnoses a counterexample: res, a run of sys in setup whose
// schedule has one fault and that violated an invariant. It reruns the
// schedule with controls added (matched runs) to find the control that
// interrupts the transfer. It returns an error when res holds every
// invariant or names no fired fault, or a harness error.
func Diagnose(sys System, setup Setup, res *model.Result) (Diagnosis, error) {
	h := model.NewHarness(setup.Fixture, setup.Options)
	run := func(cs copperfin.Controls, s *model.Schedule) (*model.Result, error) {
		f, err := sys.factory(cs, copperfin.MutantOf(s.Config))
		if err != nil {
			return nil, err
		}
		return h.Run(f, s)
	}
	return diagnose(run, res, "", DefaultConfig, 0)
}

func (r *runner) diagnose(ci int, profile, config string, res *model.Result, trials int) (Diagnosis, error) {
	run := func(c copperfin.Controls, s *model.Schedule) (*model.Result, error) { return r.run(ci, c, s) }
	return diagnose(run, res, profile, config, trials)
}

func diagnose(run func(copperfin.Controls, *model.Schedule) (*model.Result, error), res *model.Result, profile, config string, trials int) (Diagnosis, error) {
	var first *model.InvariantResult
	d := Diagnosis{Profile: profile, Config: config, Trials: trials, Schedule: scheduleHash(res.Schedule), Violated: violatedNames(res),
		Interrupting: []Interruption{}, Control: []copperfin.Control{}, Missing: []string{}}
	for i := range res.Invariants {
		inv := &res.Invariants[i]
		if !inv.Held && (first == nil || inv.FirstSeq < first.FirstSeq) {
			first = inv
		}
	}
	if first == nil {
		return Diagnosis{}, fmt.Errorf("diagnose: run %s holds every invariant: not a counterexample", res.RunID)
	}
	var fault *model.FaultReport
	for i := range res.Faults {
		if res.Faults[i].ID == first.FaultID || (first.FaultID == "" && res.Faults[i].Fired > 0 && fault == nil) {
			fault = &res.Faults[i]
		}
	}
	if fault == nil || fault.FiredAt == 0 {
		return Diagnosis{}, fmt.Errorf("diagnose: run %s: the violation of %s is not attributed to a fired fault", res.RunID, first.Invariant)
	}
	spec, err := model.Spec(fault.Kind)
	if err != nil {
		return Diagnosis{}, err
	}
	d.Kind = spec.Kind
	d.Invariant, d.FirstSeq, d.FirstEvent, d.Detail = first.Invariant, first.FirstSeq, first.Event, first.Detail
	d.FirstOrdinal = res.Timeline.Events()[first.FirstSeq-1].Ordinal
	d.FirstBoundary = EventBoundary(first.Event)

	// the earliest discriminating signal
	fe := res.Timeline.Events()[fault.FiredAt-1]
	d.Signal = Signal{Seq: fe.Seq, Event: fe.Event, Ordinal: fe.Ordinal, Outcome: fe.Outcome, Detail: fe.Detail, Withheld: spec.Signal, Manner: spec.Manner}
	for _, e := range res.Timeline.Events()[fault.FiredAt:] {
		if e.Event == model.EvWarn {
			d.Signal.WarnSeq, d.Signal.Warning = e.Seq, e.Outcome
			break
		}
	}
	d.Signal.Text = fmt.Sprintf("%s#%d at seq %d returned %q", fe.Event, fe.Ordinal, fe.Seq, fe.Outcome)
	if fe.Detail != "" {
		d.Signal.Text += " (" + fe.Detail + ")"
	}
	if spec.Signal != model.SignalNone {
		d.Signal.Text += fmt.Sprintf(" with the %s withheld (%s)", spec.Signal, spec.Manner)
	}
	if d.Signal.WarnSeq > 0 {
		d.Signal.Text += fmt.Sprintf("; the system warned %s at seq %d", d.Signal.Warning, d.Signal.WarnSeq)
	} else {
		d.Signal.Text += "; the system raised no warning"
	}

	// missing evidence: oracle reads absent between the disturbance and
	// the violation
	var oracles []model.OracleName
	for _, inv := range model.Invariants {
		if inv.Name == first.Invariant {
			oracles = append(oracles, inv.Oracle)
		}
	}
	if spec.Oracle != oracles[0] {
		oracles = append(oracles, spec.Oracle)
	}
	window := res.Timeline.Events()[fault.FiredAt:max(fault.FiredAt, first.FirstSeq-1)]
	for _, o := range oracles {
		evs := oracleReads[o]
		seen := false
		for _, e := range window {
			for _, want := range evs {
				if e.Event == want && (e.Event != model.EvEvidenceReceipt || e.Outcome == "committed") {
					seen = true
				}
			}
		}
		if !seen {
			names := make([]string, len(evs))
			for i, e := range evs {
				names[i] = string(e)
			}
			d.Missing = append(d.Missing, fmt.Sprintf("no %s read (%s) between the disturbance at seq %d and the violation at seq %d",
				o, strings.Join(names, " or "), fault.FiredAt, first.FirstSeq))
		}
	}

	// the control that should have interrupted the transfer: matched runs
	cs, err := copperfin.ControlsOf(res.Schedule.Config)
	if err != nil {
		return Diagnosis{}, err
	}
	try := func(add []copperfin.Control) (*model.Result, error) {
		c := cs
		for _, x := range add {
			c = c.With(x)
		}
		return run(c, withControls(res.Schedule, c))
	}
	for _, c := range copperfin.PaperControls {
		if cs.Has(c) {
			continue
		}
		r, err := try([]copperfin.Control{c})
		if err != nil {
			return Diagnosis{}, err
		}
		if r.Held() {
			d.Interrupting = append(d.Interrupting, Interruption{Controls: []copperfin.Control{c}, RunVerdict: r.RunVerdict})
		}
	}
	if len(d.Interrupting) == 0 {
		nominated, _ := copperfin.Defences(spec.Kind)
		for _, set := range [][]copperfin.Control{nominated, copperfin.PaperControls} {
			r, err := try(set)
			if err != nil {
				return Diagnosis{}, err
			}
			if r.Held() {
				d.Interrupting = append(d.Interrupting, Interruption{Controls: append([]copperfin.Control{}, set...), RunVerdict: r.RunVerdict})
				break
			}
		}
	}
	chosen := -1
	for i, in := range d.Interrupting {
		if chosen < 0 || in.RunVerdict == model.Recovered && d.Interrupting[chosen].RunVerdict != model.Recovered {
			chosen = i
		}
	}
	switch {
	case chosen < 0:
		d.Remediation = RejectScenario
		d.Why = "no control of the catalogue, alone or all together, makes this schedule hold: the represented scenario cannot be operated safely with these controls"
	case len(d.Interrupting[chosen].Controls) > 1:
		d.Control = d.Interrupting[chosen].Controls
		d.Remediation = ChangeArchitecture
		d.Why = fmt.Sprintf("no single control interrupts the transfer; %s together do (%s)", joinControls(d.Control), d.Interrupting[chosen].RunVerdict)
	default:
		d.Control = d.Interrupting[chosen].Controls
		d.Remediation = ControlRole[d.Control[0]]
		d.Why = fmt.Sprintf("adding %s alone makes the same schedule hold (%s): %s", d.Control[0], d.Interrupting[chosen].RunVerdict, d.Remediation)
	}
	return d, nil
}

func joinControls(cs []copperfin.Control) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = string(c)
	}
	return strings.Join(s, "+")
}
