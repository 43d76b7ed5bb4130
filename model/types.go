package model

import (
	"fmt"
	"sort"
	"strings"
)

// Millis is logical time in milliseconds since the start of a run. The model
// has no wall clock: every duration, expiry and deadline is a Millis.
type Millis int64

// Domain is a fault domain (the paper's "family"): where the changed causal
// property lives. Source: the paper, "A fault changes shape at every boundary".
type Domain string

// The five fault domains of the paper.
const (
	DomainIdentity Domain = "identity"
	DomainContext  Domain = "context"
	DomainTool     Domain = "tool"
	DomainState    Domain = "state"
	DomainEvidence Domain = "evidence"
)

// Domains lists the fault domains in the paper's order, which is also the
// round-robin order of the paper-parity assay.
var Domains = []Domain{DomainIdentity, DomainContext, DomainTool, DomainState, DomainEvidence}

// ParseDomain returns the Domain named s, or an error naming s and the valid
// names.
func ParseDomain(s string) (Domain, error) {
	for _, d := range Domains {
		if string(d) == s {
			return d, nil
		}
	}
	return "", fmt.Errorf("unknown fault domain %q (valid: identity, context, tool, state, evidence)", s)
}

// Boundary is where a fault enters: the semantic boundaries of the paper
// (proposal, authority, effect, state, proof) and the harness boundaries of
// the harness practice (sandbox, tool_call, worker, checkpoint_store, branch_join, memory).
type Boundary string

// Boundaries.
const (
	BoundaryProposal        Boundary = "proposal"
	BoundaryAuthority       Boundary = "authority"
	BoundaryEffect          Boundary = "effect"
	BoundaryState           Boundary = "state"
	BoundaryProof           Boundary = "proof"
	BoundarySandbox         Boundary = "sandbox"
	BoundaryToolCall        Boundary = "tool_call"
	BoundaryWorker          Boundary = "worker"
	BoundaryCheckpointStore Boundary = "checkpoint_store"
	BoundaryBranchJoin      Boundary = "branch_join"
	BoundaryMemory          Boundary = "memory"
)

// AllBoundaries lists every boundary in a fixed order.
var AllBoundaries = []Boundary{
	BoundaryProposal, BoundaryAuthority, BoundaryEffect, BoundaryState, BoundaryProof,
	BoundarySandbox, BoundaryToolCall, BoundaryWorker, BoundaryCheckpointStore, BoundaryBranchJoin, BoundaryMemory,
}

// Phase is when a fault enters relative to the transaction. Source: the paper,
// "Timing is part of the fault type".
type Phase string

// Phases, in transaction order.
const (
	PhaseBeforeValidation Phase = "before_validation"
	PhaseBeforeCommit     Phase = "before_commit"
	PhaseAfterCommit      Phase = "after_commit"
	PhaseAfterReceipt     Phase = "after_receipt"
	PhaseAfterCheckpoint  Phase = "after_checkpoint"
)

// AllPhases lists every phase in transaction order.
var AllPhases = []Phase{PhaseBeforeValidation, PhaseBeforeCommit, PhaseAfterCommit, PhaseAfterReceipt, PhaseAfterCheckpoint}

// Correlation is the persistence and correlation pattern of a disturbance.
type Correlation string

// Correlations. Source: the paper, coverage coordinate "Persistence and correlation".
const (
	CorrelationIsolated     Correlation = "isolated"
	CorrelationRepeated     Correlation = "repeated"
	CorrelationPersistent   Correlation = "persistent"
	CorrelationSynchronized Correlation = "synchronized"
)

// AllCorrelations lists every correlation pattern.
var AllCorrelations = []Correlation{CorrelationIsolated, CorrelationRepeated, CorrelationPersistent, CorrelationSynchronized}

// Signal is the signal a fault withholds: made absent, late or contradictory.
type Signal string

// Withheld signals.
const (
	SignalNone            Signal = "none"
	SignalAcknowledgement Signal = "acknowledgement"
	SignalReceipt         Signal = "receipt"
	SignalTraceLink       Signal = "trace_link"
	SignalStateUpdate     Signal = "state_update"
)

// Manner is how a withheld signal is withheld.
type Manner string

// Manners.
const (
	MannerAbsent        Manner = "absent"
	MannerLate          Manner = "late"
	MannerContradictory Manner = "contradictory"
)

// OracleName names the independent source that decides whether an invariant
// held. The oracle never trusts the system's own claim.
type OracleName string

// Oracles.
const (
	OracleLedgerReadback   OracleName = "ledger_readback"
	OracleReceipt          OracleName = "receipt"
	OracleStateVersion     OracleName = "state_version"
	OracleCapabilityRecord OracleName = "capability_record"
	OraclePolicyRecord     OracleName = "policy_record"
	OracleBudgetCounter    OracleName = "budget_counter"
	OracleTraceLineage     OracleName = "trace_lineage"
	OracleCheckpointStore  OracleName = "checkpoint_store"
	OracleJoinRecord       OracleName = "join_record"
)

// AllOracles lists every oracle in a fixed order.
var AllOracles = []OracleName{
	OracleLedgerReadback, OracleReceipt, OracleStateVersion, OracleCapabilityRecord,
	OraclePolicyRecord, OracleBudgetCounter, OracleTraceLineage, OracleCheckpointStore, OracleJoinRecord,
}

// Control is one configurable defence of the reference system. The seven
// controls are the paper's ("Runnable Python artefact"); the eighth,
// DenyOnWarning, is the fail-closed policy of worked example 5.
type Control string

// Controls.
const (
	BindIdentity       Control = "bind_identity"
	PreEffectAuthority Control = "pre_effect_authority"
	RefreshContext     Control = "refresh_context"
	StatePrecondition  Control = "state_precondition"
	Idempotency        Control = "idempotency"
	EffectReadback     Control = "effect_readback"
	EvidenceGate       Control = "evidence_gate"
	DenyOnWarning      Control = "deny_on_warning"
)

// PaperControls are the seven controls of the paper's artefact, in its order.
var PaperControls = []Control{BindIdentity, PreEffectAuthority, RefreshContext, StatePrecondition, Idempotency, EffectReadback, EvidenceGate}

// AllControls are every control name the reference system accepts.
var AllControls = append(append([]Control(nil), PaperControls...), DenyOnWarning)

// Controls is a set of enabled controls as a bit set; the zero value is the
// baseline (no control).
type Controls uint16

func controlBit(c Control) (Controls, bool) {
	switch c { // in AllControls order; init checks it
	case BindIdentity:
		return 1 << 0, true
	case PreEffectAuthority:
		return 1 << 1, true
	case RefreshContext:
		return 1 << 2, true
	case StatePrecondition:
		return 1 << 3, true
	case Idempotency:
		return 1 << 4, true
	case EffectReadback:
		return 1 << 5, true
	case EvidenceGate:
		return 1 << 6, true
	case DenyOnWarning:
		return 1 << 7, true
	}
	return 0, false
}

func init() {
	for i, c := range AllControls {
		if b, ok := controlBit(c); !ok || b != 1<<uint(i) {
			panic("model: controlBit out of step with AllControls at " + string(c))
		}
	}
}

// Has reports whether c is enabled.
func (cs Controls) Has(c Control) bool {
	b, ok := controlBit(c)
	return ok && cs&b != 0
}

// With returns cs with c enabled. It panics on an unknown control, which is
// programmer misuse; user input goes through ParseControls.
func (cs Controls) With(c Control) Controls {
	b, ok := controlBit(c)
	if !ok {
		panic(fmt.Sprintf("model: unknown control %q", c))
	}
	return cs | b
}

// Without returns cs with c disabled (it panics on an unknown control).
func (cs Controls) Without(c Control) Controls {
	b, ok := controlBit(c)
	if !ok {
		panic(fmt.Sprintf("model: unknown control %q", c))
	}
	return cs &^ b
}

// List returns the enabled controls in AllControls order.
func (cs Controls) List() []Control {
	out := []Control{}
	for _, c := range AllControls {
		if cs.Has(c) {
			out = append(out, c)
		}
	}
	return out
}

// String returns the enabled controls joined by commas, or "none".
func (cs Controls) String() string {
	l := cs.List()
	if len(l) == 0 {
		return "none"
	}
	s := make([]string, len(l))
	for i, c := range l {
		s[i] = string(c)
	}
	return strings.Join(s, ",")
}

// ParseControls parses control names (a list; empty means no control). It
// returns an error naming the first unknown or repeated control.
func ParseControls(names []string) (Controls, error) {
	var cs Controls
	for _, n := range names {
		n = strings.TrimSpace(n)
		b, ok := controlBit(Control(n))
		if !ok {
			return 0, fmt.Errorf("unknown control %q (valid: %s)", n, joinControls(AllControls))
		}
		if cs&b != 0 {
			return 0, fmt.Errorf("control %q listed twice", n)
		}
		cs |= b
	}
	return cs, nil
}

func joinControls(cs []Control) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

// Profile names a set of controls.
type Profile string

// The reference system's profiles. Baseline has no control, typed has the
// paper's seven, fail_closed has the seven plus DenyOnWarning (the paper,
// worked example 5: "deny every action after any warning").
const (
	ProfileBaseline   Profile = "baseline"
	ProfileTyped      Profile = "typed"
	ProfileFailClosed Profile = "fail_closed"
)

// Profiles lists the named profiles.
var Profiles = []Profile{ProfileBaseline, ProfileTyped, ProfileFailClosed}

// ProfileControls returns the control set of a named profile, or an error
// naming p and the valid profiles.
func ProfileControls(p Profile) (Controls, error) {
	switch p {
	case ProfileBaseline:
		return 0, nil
	case ProfileTyped:
		var cs Controls
		for _, c := range PaperControls {
			cs = cs.With(c)
		}
		return cs, nil
	case ProfileFailClosed:
		cs, _ := ProfileControls(ProfileTyped)
		return cs.With(DenyOnWarning), nil
	}
	return 0, fmt.Errorf("unknown profile %q (valid: baseline, typed, fail_closed)", p)
}

// sortedKeys returns the keys of m in sorted order (deterministic output).
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
