package model

import (
	"fmt"
	"sort"
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
	phaseBeforeValidation Phase = "before_validation"
	phaseBeforeCommit     Phase = "before_commit"
	phaseAfterCommit      Phase = "after_commit"
	phaseAfterReceipt     Phase = "after_receipt"
	phaseAfterCheckpoint  Phase = "after_checkpoint"
)

// AllPhases lists every phase in transaction order.
var AllPhases = []Phase{phaseBeforeValidation, phaseBeforeCommit, phaseAfterCommit, phaseAfterReceipt, phaseAfterCheckpoint}

// Correlation is the persistence and correlation pattern of a disturbance.
type Correlation string

// Correlations. Source: the paper, coverage coordinate "Persistence and correlation".
const (
	CorrelationIsolated     Correlation = "isolated"
	CorrelationRepeated     Correlation = "repeated"
	CorrelationPersistent   Correlation = "persistent"
	CorrelationSynchronized Correlation = "synchronized"
	// CorrelationShared is one disturbance crossing tenants: the same
	// fault hits the first crossing of its event by a task of every
	// other tenant. It is a fault entry's modifier (FaultEntry.Correlation)
	// and a value of the coverage key's correlation coordinate
	// (AllCorrelations), which the coverage universe enumerates.
	CorrelationShared Correlation = "shared"
)

// AllCorrelations lists every correlation pattern of the coverage key's
// correlation coordinate.
var AllCorrelations = []Correlation{CorrelationIsolated, CorrelationRepeated, CorrelationPersistent, CorrelationSynchronized, CorrelationShared}

// Signal is the signal a fault withholds: made absent, late or contradictory.
type Signal string

// Withheld signals.
const (
	SignalNone            Signal = "none"
	signalAcknowledgement Signal = "acknowledgement"
	signalReceipt         Signal = "receipt"
	signalTraceLink       Signal = "trace_link"
	signalStateUpdate     Signal = "state_update"
)

// Manner is how a withheld signal is withheld.
type Manner string

// Manners.
const (
	mannerAbsent        Manner = "absent"
	mannerLate          Manner = "late"
	mannerContradictory Manner = "contradictory"
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

// sortedKeys returns the keys of m in sorted order (deterministic output).
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
