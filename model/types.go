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
// One of identity, context, tool, state, evidence (Domains).
type Domain string

// The five fault domains of the paper.
const (
	domainIdentity Domain = "identity"
	domainContext  Domain = "context"
	domainTool     Domain = "tool"
	domainState    Domain = "state"
	domainEvidence Domain = "evidence"
)

// Domains lists the fault domains in the paper's order, which is also the
// round-robin order of the paper-parity assay.
var Domains = []Domain{domainIdentity, domainContext, domainTool, domainState, domainEvidence}

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
	boundaryProposal        Boundary = "proposal"
	boundaryAuthority       Boundary = "authority"
	boundaryEffect          Boundary = "effect"
	boundaryState           Boundary = "state"
	boundaryProof           Boundary = "proof"
	boundarySandbox         Boundary = "sandbox"
	boundaryToolCall        Boundary = "tool_call"
	boundaryWorker          Boundary = "worker"
	boundaryCheckpointStore Boundary = "checkpoint_store"
	boundaryBranchJoin      Boundary = "branch_join"
	boundaryMemory          Boundary = "memory"
)

// AllBoundaries lists every boundary in a fixed order.
var AllBoundaries = []Boundary{
	boundaryProposal, boundaryAuthority, boundaryEffect, boundaryState, boundaryProof,
	boundarySandbox, boundaryToolCall, boundaryWorker, boundaryCheckpointStore, boundaryBranchJoin, boundaryMemory,
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

// Correlation is the persistence and correlation pattern of a disturbance:
// isolated, repeated, persistent, synchronized or shared (AllCorrelations).
type Correlation string

// Correlations. Source: the paper, coverage coordinate "Persistence and correlation".
const (
	correlationIsolated     Correlation = "isolated"
	correlationRepeated     Correlation = "repeated"
	correlationPersistent   Correlation = "persistent"
	correlationSynchronized Correlation = "synchronized"
	// correlationShared is one disturbance crossing tenants: the same
	// fault hits the first crossing of its event by a task of every
	// other tenant. It is a fault entry's modifier (FaultEntry.Correlation)
	// and a value of the coverage key's correlation coordinate
	// (AllCorrelations), which the coverage universe enumerates.
	correlationShared Correlation = "shared"
)

// AllCorrelations lists every correlation pattern of the coverage key's
// correlation coordinate.
var AllCorrelations = []Correlation{correlationIsolated, correlationRepeated, correlationPersistent, correlationSynchronized, correlationShared}

// Signal is the signal a fault withholds: made absent, late or contradictory.
// One of none, acknowledgement, receipt, trace_link, state_update.
type Signal string

// Withheld signals.
const (
	signalNone            Signal = "none"
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
// held. The oracle never trusts the system's own claim. One of ledger_readback,
// receipt, state_version, capability_record, policy_record, budget_counter,
// trace_lineage, checkpoint_store, join_record (AllOracles).
type OracleName string

// Oracles.
const (
	oracleLedgerReadback   OracleName = "ledger_readback"
	oracleReceipt          OracleName = "receipt"
	oracleStateVersion     OracleName = "state_version"
	oracleCapabilityRecord OracleName = "capability_record"
	oraclePolicyRecord     OracleName = "policy_record"
	oracleBudgetCounter    OracleName = "budget_counter"
	oracleTraceLineage     OracleName = "trace_lineage"
	oracleCheckpointStore  OracleName = "checkpoint_store"
	oracleJoinRecord       OracleName = "join_record"
)

// AllOracles lists every oracle in a fixed order.
var AllOracles = []OracleName{
	oracleLedgerReadback, oracleReceipt, oracleStateVersion, oracleCapabilityRecord,
	oraclePolicyRecord, oracleBudgetCounter, oracleTraceLineage, oracleCheckpointStore, oracleJoinRecord,
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
