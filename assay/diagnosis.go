package assay

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/model"
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
	Controls   []string         `json:"controls"`
	RunVerdict model.RunVerdict `json:"run_verdict"`
}

// Diagnosis is what a negative result produces (the paper, "What a negative
// result should produce"), derived from the counterexample run and from
// matched runs, never from a table keyed by fault kind: the boundary after
// which the first invariant became false, the earliest discriminating
// Signal, the controls (of StudyConfig.Roles) whose addition makes the
// same schedule hold (Interrupting) and the one chosen (Control), the
// oracle reads Missing between disturbance and violation, and the
// Remediation: the chosen control's role, a change of architecture for
// several together, the scenario rejected for none (docs/evidence.md).
type Diagnosis struct {
	Profile       string          `json:"profile"`
	Config        string          `json:"config"`
	Kind          string          `json:"kind"`
	Trials        int             `json:"trials"`
	Schedule      string          `json:"schedule_sha256"`
	Invariant     string          `json:"invariant"`
	Violated      []string        `json:"violated"`
	FirstSeq      int             `json:"first_seq"`
	FirstEvent    model.EventName `json:"first_event"`
	FirstOrdinal  int             `json:"first_ordinal"`
	FirstBoundary model.Boundary  `json:"first_boundary"`
	Detail        string          `json:"detail"`
	Signal        Signal          `json:"signal"`
	Interrupting  []Interruption  `json:"interrupting"`
	Control       []string        `json:"control"`
	Missing       []string        `json:"missing"`
	Remediation   Remediation     `json:"remediation"`
	Why           string          `json:"why"`
}

// eventBoundary maps a timeline event to the boundary it crosses: context
// reads and the proposal cross the proposal boundary, grants and checks the
// authority boundary, state reads the state boundary, tool commits the
// effect boundary, readbacks, evidence records and the claim the proof
// boundary, checkpoint reads and writes the checkpoint store, worker
// starts, crashes and stops the worker boundary, memory reads and writes
// the memory boundary, branch runs and joins the branch join, and a
// retry-after wait (clock.sleep) the tool-call boundary (the harness practice's
// harness boundaries).
func eventBoundary(e model.EventName) model.Boundary {
	switch e {
	case model.EvContextSubject, model.EvContextPolicy, model.EvContextEligibility, model.EvProposal:
		return model.Boundary("proposal")
	case model.EvAuthorityGrant, model.EvAuthorityCheck:
		return model.Boundary("authority")
	case model.EvStateRead:
		return model.Boundary("state")
	case model.EvToolCommit:
		return model.Boundary("effect")
	case model.EvCheckpointWrite, model.EvCheckpointLoad:
		return model.Boundary("checkpoint_store")
	case model.EvWorkerStart, model.EvWorkerCrash, model.EvStop:
		return model.Boundary("worker")
	case model.EvMemoryWrite, model.EvMemoryRead:
		return model.Boundary("memory")
	case model.EvBranchRun, model.EvBranchJoin:
		return model.Boundary("branch_join")
	case model.EvClockSleep:
		return model.Boundary("tool_call")
	}
	return model.Boundary("proof")
}

// oracleReads lists the events through which a system consults an oracle's
// source. The budget counter is persisted in the checkpoints a system
// reloads (the harness practice: "Persist ... remaining budgets"); the join record is
// written and kept at the branch join.
var oracleReads = map[model.OracleName][]model.EventName{
	model.OracleName("ledger_readback"):   {model.EvLedgerReadback},
	model.OracleName("receipt"):           {model.EvEvidenceReceipt},
	model.OracleName("state_version"):     {model.EvStateRead},
	model.OracleName("capability_record"): {model.EvAuthorityCheck},
	model.OracleName("policy_record"):     {model.EvContextPolicy},
	model.OracleName("trace_lineage"):     {model.EvEvidenceLookup, model.EvEvidenceReadback},
	model.OracleName("checkpoint_store"):  {model.EvCheckpointLoad},
	model.OracleName("budget_counter"):    {model.EvCheckpointLoad},
	model.OracleName("join_record"):       {model.EvBranchJoin},
}

func (r *runner) diagnose(ci int, profile, config string, res *model.Result, trials int) (diagnosis Diagnosis, err error) {
	run := func(a arm, s *model.Schedule) (*model.Result, error) { return r.run(ci, a, s) }
	return r.sys.diagnose(run, r.cfg.Roles, res, profile, config, trials)
}

// diagnose diagnoses a counterexample: res, a run whose schedule has one
// fault and that violated an invariant. It reruns the schedule with
// controls added (matched runs) to find the control that interrupts the
// transfer.
func (s *system) diagnose(run runFunc, roles map[string]Remediation, res *model.Result, profile, config string, trials int) (Diagnosis, error) {
	d := Diagnosis{Profile: profile, Config: config, Trials: trials, Schedule: scheduleHash(res.Schedule), Violated: violatedNames(res),
		Interrupting: []Interruption{}, Control: []string{}, Missing: []string{}}
	first := firstViolation(res)
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
	// the run record's view: the fixture's identifiers redacted in the
	// details, as in every file of a run
	rec := res.Record()
	d.Invariant, d.FirstSeq, d.FirstEvent = first.Invariant, first.FirstSeq, first.Event
	for _, v := range rec.Violations {
		if v.Invariant == first.Invariant {
			d.Detail = v.Detail
		}
	}
	d.FirstOrdinal = rec.Timeline[first.FirstSeq-1].Ordinal
	d.FirstBoundary = eventBoundary(first.Event)

	// the earliest discriminating signal
	fe := rec.Timeline[fault.FiredAt-1]
	d.Signal = Signal{Seq: fe.Seq, Event: fe.Event, Ordinal: fe.Ordinal, Outcome: fe.Outcome, Detail: fe.Detail, Withheld: spec.Signal, Manner: spec.Manner}
	for _, e := range rec.Timeline[fault.FiredAt:] {
		if e.Event == model.EvWarn {
			d.Signal.WarnSeq, d.Signal.Warning = e.Seq, e.Outcome
			break
		}
	}
	d.Signal.Text = fmt.Sprintf("%s#%d at seq %d returned %q", fe.Event, fe.Ordinal, fe.Seq, fe.Outcome)
	if fe.Detail != "" {
		d.Signal.Text += " (" + fe.Detail + ")"
	}
	if spec.Signal != model.Signal("none") {
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
	for _, inv := range s.def.Invariants {
		if inv.Name == first.Invariant {
			oracles = append(oracles, inv.Oracle)
		}
	}
	if len(oracles) == 0 || spec.Oracle != oracles[0] {
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
	if !s.canArm() {
		d.Why = "the system's controls cannot be varied (Definition.Arm): no matched run tried"
		return d, nil
	}
	cs, mutant, err := s.armed(res.Schedule.Config.System)
	if err != nil {
		return Diagnosis{}, err
	}
	var candidates []int
	for i, c := range s.def.Controls {
		if _, ok := roles[c]; ok || roles == nil {
			candidates = append(candidates, i)
		}
	}
	try := func(add []int) (*model.Result, error) {
		a := arm{cs: cs, mutant: mutant}
		for _, x := range add {
			a.cs = a.cs.with(x)
		}
		sa, err := s.withArm(res.Schedule, a)
		if err != nil {
			return nil, err
		}
		return run(a, sa)
	}
	for _, c := range candidates {
		if cs.has(c) {
			continue
		}
		r, err := try([]int{c})
		if err != nil {
			return Diagnosis{}, err
		}
		if r.Held() {
			d.Interrupting = append(d.Interrupting, Interruption{Controls: []string{s.def.Controls[c]}, RunVerdict: r.RunVerdict})
		}
	}
	if len(d.Interrupting) == 0 {
		nominated, _ := s.defences(spec.Kind)
		for _, set := range [][]int{nominated, candidates} {
			r, err := try(set)
			if err != nil {
				return Diagnosis{}, err
			}
			if r.Held() {
				d.Interrupting = append(d.Interrupting, Interruption{Controls: s.namesOf(set), RunVerdict: r.RunVerdict})
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
		d.Why = fmt.Sprintf("no single control interrupts the transfer; %s together do (%s)", strings.Join(d.Control, "+"), d.Interrupting[chosen].RunVerdict)
	default:
		d.Control = d.Interrupting[chosen].Controls
		d.Remediation = roles[d.Control[0]]
		d.Why = fmt.Sprintf("adding %s alone makes the same schedule hold (%s)", d.Control[0], d.Interrupting[chosen].RunVerdict)
		if d.Remediation != "" {
			d.Why += ": " + string(d.Remediation)
		}
	}
	return d, nil
}
