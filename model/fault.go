package model

import (
	"fmt"
	"strings"
)

// FaultSpec is the typed specification of a fault kind (seed 000, the
// eight-step assay, step 2: "Domain, mode, target, timing, intensity, scope
// and expected recoverability"). The spec describes the fault; its
// disturbance is code that changes the World or a call at Event, and every
// outcome is decided by the oracle, never by this spec.
//
// Nominated and Threatens are declared predictions (the control the paper
// nominates to interrupt the transfer, and the invariant the transfer would
// break); tests and counterfactual pairs check them against the oracle.
type FaultSpec struct {
	Kind        string      `json:"kind"`
	Domain      Domain      `json:"domain"`
	Mode        string      `json:"mode"`
	Target      string      `json:"target"`
	Event       EventName   `json:"event"`
	Boundary    Boundary    `json:"boundary"`
	Phase       Phase       `json:"phase"`
	Correlation Correlation `json:"correlation"`
	Signal      Signal      `json:"withheld_signal"`
	Manner      Manner      `json:"manner,omitempty"`
	Oracle      OracleName  `json:"oracle"`
	// Intensity is the disturbance's strength as a rate in [0,1]; every
	// catalogue fault applies fully (1) at its event.
	Intensity   float64   `json:"intensity"`
	Scope       string    `json:"scope"`
	Recoverable bool      `json:"recoverable"`
	Threatens   []string  `json:"threatens"`
	Nominated   []Control `json:"nominated"`
	// Ordinal is the occurrence of Event a single-fault trial attaches to
	// (see SingleFault): 1 for most kinds; 2 for checkpoint_rollback, whose
	// disturbance needs an older checkpoint to roll back to (the reference
	// workflow's second checkpoint is the first written after the effect).
	Ordinal int `json:"ordinal"`
	// Paper is true for the ten modes of the paper's artefact.
	Paper bool   `json:"paper"`
	Doc   string `json:"doc"`
}

// faultKind pairs a spec with its disturbance: a value implementing exactly
// one of the hook interfaces below.
type faultKind struct {
	spec FaultSpec
	impl any
}

// Hook interfaces: a disturbance implements the one for its event. The
// methods are unexported, so the catalogue is closed: every kind is defined
// here, with its spec.
type (
	proposalHook interface{ onProposal(r *run, a *Action) bool }
	grantHook    interface {
		onGrant(r *run, c *Capability) bool
	}
	policyHook      interface{ onPolicy(r *run, p *Policy) bool }
	eligibilityHook interface {
		onEligibility(r *run, e *Eligibility) bool
	}
	orderHook  interface{ onOrder(r *run, o *Order) bool }
	commitHook interface {
		onCommit(r *run, call ToolCall, provider func(ToolCall) ToolResult) (ToolResult, bool)
	}
	evidenceHook interface {
		onEvidence(r *run, rec EvidenceRecord) (EvidenceAck, bool)
	}
	checkpointWriteHook interface {
		onCheckpointWrite(r *run, cp Checkpoint) (error, bool)
	}
)

// hookFits reports whether impl can be injected at event e.
func hookFits(impl any, e EventName) bool {
	switch e {
	case EvProposal:
		_, ok := impl.(proposalHook)
		return ok
	case EvAuthorityGrant:
		_, ok := impl.(grantHook)
		return ok
	case EvContextPolicy:
		_, ok := impl.(policyHook)
		return ok
	case EvContextEligibility:
		_, ok := impl.(eligibilityHook)
		return ok
	case EvContextOrder:
		_, ok := impl.(orderHook)
		return ok
	case EvToolCommit:
		_, ok := impl.(commitHook)
		return ok
	case EvEvidenceReceipt, EvEvidenceDecision, EvEvidenceReadback, EvEvidenceDenial:
		_, ok := impl.(evidenceHook)
		return ok
	case EvCheckpointWrite:
		_, ok := impl.(checkpointWriteHook)
		return ok
	}
	return false
}

// --- identity ---

type subjectSwap struct{}

// onProposal swaps the proposal's subject for another order of the same
// tenant, as if newer retrieved text rewrote it after the proposal.
func (subjectSwap) onProposal(r *run, a *Action) bool {
	for _, o := range r.world.Orders {
		if o.Subject != a.Subject && o.Tenant == a.Tenant {
			a.Subject = o.Subject
			a.ExpectedVersion = o.Version
			return true
		}
	}
	return false
}

type revokedCapability struct{}

// onGrant revokes the approved capability in the World right after the
// approval is returned: the system holds a grant that is no longer live.
func (revokedCapability) onGrant(r *run, c *Capability) bool {
	w, ok := r.world.Capability(c.ID)
	if !ok {
		return false
	}
	w.Revoked = true
	return true
}

// --- context ---

type stalePolicy struct{}

// onPolicy publishes a newer policy version that excludes refunds while the
// reader serves the version it had cached: the served policy is stale.
func (stalePolicy) onPolicy(r *run, p *Policy) bool {
	next := *p
	next.Version = p.Version + 1
	next.AllowsRefund = false
	r.world.Policies = append(r.world.Policies, next)
	return true
}

type crossSourceConflict struct{}

// onEligibility places a fraud hold on the authoritative order record (a new
// state version) while the secondary source keeps asserting eligibility.
func (crossSourceConflict) onEligibility(r *run, e *Eligibility) bool {
	o, ok := r.world.Order(e.Subject)
	if !ok || e.Source == SourceAuthoritative {
		return false
	}
	o.Status = StatusFraudHold
	o.Version++
	e.Eligible = true
	return true
}

// --- tool ---

type timeoutAfterCommit struct{}

// onCommit lets the provider process the request, then loses the reply: the
// client sees a timeout whatever the provider did.
func (timeoutAfterCommit) onCommit(r *run, call ToolCall, provider func(ToolCall) ToolResult) (ToolResult, bool) {
	res := provider(call)
	return ToolResult{Outcome: OutcomeUnknown, Reason: "timeout: no reply"}, res.Outcome == OutcomeCommitted
}

type partialSuccessResponse struct{}

// onCommit lets the provider commit, then strips the receipt from the
// response: a 200 with a partial body.
func (partialSuccessResponse) onCommit(r *run, call ToolCall, provider func(ToolCall) ToolResult) (ToolResult, bool) {
	res := provider(call)
	if res.Outcome != OutcomeCommitted {
		return res, false
	}
	res.Receipt = nil
	res.Reason = "partial response: receipt missing"
	return res, true
}

// --- state ---

type checkpointRollback struct{}

// onCheckpointWrite stores the checkpoint, then the store rolls back to its
// previous checkpoint for the task and the worker crashes: the restarted
// worker resumes from the older cut while the world has moved on.
func (checkpointRollback) onCheckpointWrite(r *run, cp Checkpoint) (error, bool) {
	r.storeCheckpoint(cp)
	n := 0
	for _, c := range r.world.Checkpoints {
		if c.Task == cp.Task {
			n++
		}
	}
	if n < 2 {
		return nil, false
	}
	// drop the newest checkpoint of this task
	for i := len(r.world.Checkpoints) - 1; i >= 0; i-- {
		if r.world.Checkpoints[i].Task == cp.Task {
			r.world.Checkpoints = append(r.world.Checkpoints[:i], r.world.Checkpoints[i+1:]...)
			break
		}
	}
	r.pendingCrash = "checkpoint store rolled back; worker restarted"
	return ErrWorkerCrashed, true
}

type concurrentVersionChange struct{}

// onOrder lets the read return, then a concurrent writer advances the
// order's state version (eligibility unchanged).
func (concurrentVersionChange) onOrder(r *run, o *Order) bool {
	w, ok := r.world.Order(o.Subject)
	if !ok {
		return false
	}
	w.Version++
	return true
}

// --- evidence ---

type dropEffectReceipt struct{}

// onEvidence loses the receipt record on its way to the evidence ledger; the
// writer's acknowledgement is lost with it.
func (dropEffectReceipt) onEvidence(r *run, rec EvidenceRecord) (EvidenceAck, bool) {
	return EvidenceAck{Outcome: OutcomeUnknown}, true
}

type breakTraceLineage struct{}

// onCommit replaces the trace context propagated into the tool call: the
// effect is recorded under a trace that does not join the decision's.
func (breakTraceLineage) onCommit(r *run, call ToolCall, provider func(ToolCall) ToolResult) (ToolResult, bool) {
	call.Action.TraceID = "orphan-" + r.nextID()
	return provider(call), true
}

// catalogue is the closed fault catalogue, in a fixed order: by domain,
// then the paper's order within the domain.
var catalogue = []faultKind{
	{FaultSpec{Kind: "subject_swap", Domain: DomainIdentity, Target: "action contract", Event: EvProposal,
		Boundary: BoundaryProposal, Phase: PhaseBeforeValidation, Signal: SignalNone, Manner: MannerContradictory,
		Oracle: OracleCapabilityRecord, Threatens: []string{InvRightSubject}, Nominated: []Control{BindIdentity},
		Doc: "after proposal, before authority check: the proposal's subject is swapped for another order of the tenant"}, subjectSwap{}},
	{FaultSpec{Kind: "revoked_capability", Domain: DomainIdentity, Target: "capability grant", Event: EvAuthorityGrant,
		Boundary: BoundaryAuthority, Phase: PhaseBeforeCommit, Signal: SignalStateUpdate, Manner: MannerLate,
		Oracle: OracleCapabilityRecord, Threatens: []string{InvCurrentEntitlement}, Nominated: []Control{PreEffectAuthority},
		Doc: "after approval, before effect: the capability is revoked"}, revokedCapability{}},
	{FaultSpec{Kind: "stale_policy", Domain: DomainContext, Target: "policy assertion", Event: EvContextPolicy,
		Boundary: BoundaryProposal, Phase: PhaseBeforeValidation, Signal: SignalStateUpdate, Manner: MannerLate,
		Oracle: OraclePolicyRecord, Threatens: []string{InvCurrentEntitlement}, Nominated: []Control{RefreshContext},
		Doc: "after retrieval, before effect: a newer policy excludes refunds while the reader serves the old version"}, stalePolicy{}},
	{FaultSpec{Kind: "cross_source_conflict", Domain: DomainContext, Target: "eligibility assertion", Event: EvContextEligibility,
		Boundary: BoundaryProposal, Phase: PhaseBeforeValidation, Signal: SignalStateUpdate, Manner: MannerContradictory,
		Oracle: OracleStateVersion, Threatens: []string{InvCurrentEntitlement}, Nominated: []Control{RefreshContext},
		Doc: "during context assembly: the authoritative record holds the order while the secondary source asserts eligibility"}, crossSourceConflict{}},
	{FaultSpec{Kind: "timeout_after_commit", Domain: DomainTool, Target: "refund API", Event: EvToolCommit,
		Boundary: BoundaryEffect, Phase: PhaseAfterCommit, Signal: SignalAcknowledgement, Manner: MannerAbsent,
		Oracle: OracleLedgerReadback, Threatens: []string{InvEffectAtMostOnce}, Nominated: []Control{Idempotency, EffectReadback},
		Doc: "after commit, before response: the provider commits and the reply is lost"}, timeoutAfterCommit{}},
	{FaultSpec{Kind: "partial_success_response", Domain: DomainTool, Target: "tool response", Event: EvToolCommit,
		Boundary: BoundaryEffect, Phase: PhaseAfterCommit, Signal: SignalReceipt, Manner: MannerAbsent,
		Oracle: OracleReceipt, Threatens: []string{InvProvableOutcome}, Nominated: []Control{EffectReadback, EvidenceGate},
		Doc: "after effect: the provider commits and the response carries no receipt"}, partialSuccessResponse{}},
	{FaultSpec{Kind: "checkpoint_rollback", Domain: DomainState, Target: "workflow checkpoint", Event: EvCheckpointWrite,
		Boundary: BoundaryState, Phase: PhaseAfterCheckpoint, Signal: SignalStateUpdate, Manner: MannerAbsent, Ordinal: 2,
		Oracle: OracleLedgerReadback, Threatens: []string{InvEffectAtMostOnce}, Nominated: []Control{Idempotency, EffectReadback},
		Doc: "after effect, before resume: the store rolls back to an older checkpoint and the worker restarts"}, checkpointRollback{}},
	{FaultSpec{Kind: "concurrent_version_change", Domain: DomainState, Target: "order state", Event: EvContextOrder,
		Boundary: BoundaryState, Phase: PhaseBeforeCommit, Signal: SignalStateUpdate, Manner: MannerLate,
		Oracle: OracleStateVersion, Threatens: []string{InvCurrentEntitlement}, Nominated: []Control{StatePrecondition},
		Doc: "after read, before write: a concurrent writer advances the order's state version"}, concurrentVersionChange{}},
	{FaultSpec{Kind: "drop_effect_receipt", Domain: DomainEvidence, Target: "evidence ledger", Event: EvEvidenceReceipt,
		Boundary: BoundaryProof, Phase: PhaseAfterReceipt, Signal: SignalReceipt, Manner: MannerAbsent,
		Oracle: OracleReceipt, Threatens: []string{InvProvableOutcome}, Nominated: []Control{EffectReadback, EvidenceGate},
		Doc: "after effect: the receipt record is lost on its way to the evidence ledger"}, dropEffectReceipt{}},
	{FaultSpec{Kind: "break_trace_lineage", Domain: DomainEvidence, Target: "trace context", Event: EvToolCommit,
		Boundary: BoundaryEffect, Phase: PhaseBeforeCommit, Signal: SignalTraceLink, Manner: MannerContradictory,
		Oracle: OracleTraceLineage, Threatens: []string{InvProvableOutcome}, Nominated: []Control{EvidenceGate},
		Doc: "between authority and tool: the trace context propagated into the call is replaced"}, breakTraceLineage{}},
}

func init() {
	for i := range catalogue {
		s := &catalogue[i].spec
		s.Mode = s.Kind
		if s.Ordinal == 0 {
			s.Ordinal = 1
		}
		s.Correlation = CorrelationIsolated
		s.Intensity = 1
		s.Scope = "one synthetic order"
		s.Recoverable = true
		s.Paper = true
		if !hookFits(catalogue[i].impl, s.Event) {
			panic(fmt.Sprintf("model: fault kind %s cannot be injected at its own event %s", s.Kind, s.Event))
		}
	}
}

// Catalogue returns the typed specs of every fault kind, in catalogue order
// (by domain, then the paper's order).
func Catalogue() []FaultSpec {
	out := make([]FaultSpec, len(catalogue))
	for i, k := range catalogue {
		out[i] = k.spec
	}
	return out
}

// KindsOf returns the kind names of domain d in catalogue order; with paper
// true, only the paper's ten modes.
func KindsOf(d Domain, paper bool) []string {
	var out []string
	for _, k := range catalogue {
		if k.spec.Domain == d && (!paper || k.spec.Paper) {
			out = append(out, k.spec.Kind)
		}
	}
	return out
}

func lookupKind(name string) (*faultKind, error) {
	for i := range catalogue {
		if catalogue[i].spec.Kind == name {
			return &catalogue[i], nil
		}
	}
	names := make([]string, len(catalogue))
	for i, k := range catalogue {
		names[i] = k.spec.Kind
	}
	return nil, fmt.Errorf("unknown fault kind %q (valid: %s)", name, strings.Join(names, ", "))
}

// Spec returns the spec of the fault kind named kind, or an error naming it.
func Spec(kind string) (FaultSpec, error) {
	k, err := lookupKind(kind)
	if err != nil {
		return FaultSpec{}, err
	}
	return k.spec, nil
}
