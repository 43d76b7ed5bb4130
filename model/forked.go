package model

import (
	"slices"
	"strconv"
)

// familyKinds are kinds of the paper's fault families that the closed
// catalogue approximated or left out. Like fleetKinds they are defined,
// named in schedules and replayed, and kept out of Catalogue() and
// CacheAndWorkerKinds(), so the catalogue-wide figures, the paper's
// compat and the coverage universe are unchanged; the default search
// draws them where the fixture declares the workload they need
// (package properties).
var familyKinds = []faultKind{
	{FaultSpec{Kind: "forked_run", Domain: domainState, Target: "workflow run", Event: EvCheckpointWrite,
		Boundary: boundaryWorker, Phase: phaseBeforeCommit, Signal: signalStateUpdate, Manner: mannerLate,
		Oracle: oracleLedgerReadback, Threatens: []string{InvEffectAtMostOnce}, Needs: needAtLeastOnce,
		Doc: "after a checkpoint write: the run forks; a second worker is handed the same checkpoint while the first runs on, and resumes from it once the first has claimed"}, forkedRun{}},
	{FaultSpec{Kind: "deauthorised_evidence", Domain: domainContext, Target: "evidence item's source grant", Event: EvContextEligibility,
		Boundary: boundaryProposal, Phase: phaseBeforeCommit, Signal: signalStateUpdate, Manner: mannerLate,
		Oracle: oracleCapabilityRecord, Threatens: []string{InvCurrentEntitlement}, Needs: needGrantedSources,
		Doc: "after a read of an eligibility item: the item was valid when read, and its source's grant to use it for the task is withdrawn before the effect"}, deauthorisedEvidence{}},
	{FaultSpec{Kind: "corrupted_readback", Domain: domainEvidence, Target: "verification path (ledger readback)", Event: EvLedgerReadback,
		Boundary: boundaryProof, Phase: phaseAfterCommit, Signal: signalReceipt, Manner: mannerContradictory,
		Oracle: oracleLedgerReadback, Threatens: []string{InvNoInventedProgress}, Needs: needReadbackProxy,
		Doc: "at a readback the ledger answers with nothing: the verification path answers with a record that matches the query only on its reference and subject, another action's or a forged one, and stays corrupted for the task"}, corruptedReadback{}},
	{FaultSpec{Kind: "spec_drift", Domain: domainTool, Target: "tool contract (API version)", Event: EvToolCommit,
		Boundary: boundaryToolCall, Phase: phaseBeforeCommit, Signal: signalAcknowledgement, Manner: mannerContradictory,
		Oracle: oracleLedgerReadback, Threatens: []string{InvCurrentEntitlement}, Needs: needVersionedContracts,
		Doc: "before the call: the provider's contract moves from version 1 to 2, which reads the amount in whole units (100 minor units each); an unpinned call made under version 1 commits 100 times its amount"}, specDrift{}},
}

// forkState is a task's pending fork (forked_run): the checkpoint a
// second worker was handed and the head the store named when it loaded.
type forkState struct {
	forked, pending, loading bool
	seq                      int
	// fact is the index of the oracle's facts settled at the first
	// worker's claim, which the forked worker's claim replaces (-1: none)
	fact int
}

type forkedRun struct{}

// onCheckpointWrite stores the checkpoint and forks the run: a second
// worker (a redelivered task, a lease that lapsed while its holder
// paused) loads the checkpoint now and runs once the first worker has
// claimed (runTask), on the world the first left. The first runs on
// unaware. A task forks once.
func (forkedRun) onCheckpointWrite(r *run, cp Checkpoint) (error, bool) {
	r.storeCheckpoint(&cp)
	if r.fork.forked {
		return nil, false
	}
	r.fork = forkState{forked: true, pending: true, seq: cp.Seq, fact: -1}
	return nil, true
}

// forked starts the pending fork, if any, once a worker of the task has
// claimed: the next worker loads the forked checkpoint.
func (r *run) forked() bool {
	if !r.fork.pending {
		return false
	}
	r.fork.pending, r.fork.loading = false, true
	return true
}

// forkLoad serves the forked worker's load: the checkpoint the fork was
// handed, with the head the store named then (its seq), which no later
// write of the first worker moved for it. false when the store no
// longer holds it (a rollback removed it): the load is served as usual.
func (r *run) forkLoad(task string) (Checkpoint, bool) {
	r.fork.loading = false
	for i := r.cpFromOf(task); i < len(r.world.Checkpoints); i++ {
		if c := r.world.Checkpoints[i]; c.Task == task && c.Seq == r.fork.seq {
			cp := stamped(c)
			cp.Head = c.Seq
			r.invalidLoad = ""
			r.ckSeq = cp.Seq
			return cp, true
		}
	}
	return Checkpoint{}, false
}

// forkDetail is the worker start's detail of a forked worker.
func (r *run) forkDetail() string {
	if !r.fork.loading {
		return ""
	}
	return "forked run: resumes from checkpoint " + strconv.Itoa(r.fork.seq) + " another worker was handed"
}

// forkFacts keeps one settled fact per task (they align with the run's
// task records) when a run forks: the facts settled at the first
// worker's claim give way to those of the forked worker's, the task's
// last. facts ends with the fact just settled.
func (r *run) forkFacts(facts []taskFacts) []taskFacts {
	switch {
	case r.fork.pending:
		r.fork.fact = len(facts) - 1
	case r.fork.forked && r.fork.fact >= 0:
		facts = slices.Delete(facts, r.fork.fact, r.fork.fact+1)
		r.fork.fact = -1
	}
	return facts
}
