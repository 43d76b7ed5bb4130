// Package model is faultline's core: the World, the Env a system under test
// is given, typed faults and their schedules, the harness that injects them,
// the timeline, and the oracle that judges every run by its own read path.
//
// A run is a pure function of a [Fixture], a [Schedule], [Options] and a
// [System]: there is no wall clock ([Millis] is logical time) and no global
// randomness.
//
// Entry points:
//
//   - [Env] and [System]: the seam. A system takes an Env of small
//     interfaces ([ContextReader], [Proposer], [Authority], [StateReader],
//     [ToolClient], [LedgerReader], [EvidenceLedger], [CheckpointStore],
//     [Signals]); every call is a boundary crossing.
//   - [Catalogue] and [FaultSpec]: the typed fault kinds. Each kind's
//     disturbance is code that changes the World or a call at its event;
//     its spec describes it and decides nothing.
//   - [Schedule], [ParseSchedule] and [Format]: faults attached to events by
//     ordinal, in a strict JSON form with one canonical encoding.
//   - [Harness]: [Harness.Run] returns a [Result] (timeline, fault reports,
//     invariant results, outcome [Terms], claim and run verdicts);
//     [Harness.Terms] returns only the terms, for the assay's hot path.
//   - [Invariants]: right_subject, current_entitlement, effect_at_most_once
//     and provable_outcome, checked after every crossing.
//   - [WorldEvents]: clock advance, capability revocation, policy change,
//     state-version change and worker crash, attachable to any event.
//   - [Copperfin], [CopperfinBatch] and [FixtureNamed]: the paper's worked
//     fixture and a three-task workload (the same order twice). The
//     reference system built on the Env is in the sub-package copperfin.
//
// This package imports neither testing nor any test library.
package model
