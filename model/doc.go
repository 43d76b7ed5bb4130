// Package model is faultline's core: the World, the Env a system under test
// is given, typed faults and their schedules, the harness that injects them,
// the timeline, and the oracle that judges every run by its own read path.
//
// A run is a pure function of a [Fixture], a [Schedule], [Options] and a
// [System]: there is no wall clock ([Millis] is logical time) and no global
// randomness (a system's jitter and sampling draw from [Env].Rand, a stream
// derived from the schedule's seed string, the task and the worker).
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
//     ordinal (of every crossing, or of one tool's calls when the entry
//     names a [FaultEntry.Tool]), in a strict JSON form with one canonical
//     encoding.
//   - [Harness]: [Harness.Run] returns a [Result] (timeline, fault reports,
//     invariant results, outcome [Terms], claim and run verdicts, a
//     [TaskVerdict] per task); [Harness.Terms] returns only the terms, for
//     the assay's hot path; [Harness.Attribute] gives the workload the
//     violations its fault-free run already shows.
//   - [Invariants]: right_subject, current_entitlement, effect_at_most_once,
//     provable_outcome, resume_from_checkpoint, no_invented_progress, budget
//     and join_preserved, checked after every crossing; a user adds their own
//     through [Options] (see [UserInvariant]).
//   - [UserInvariant] and [View]: a user's own invariants over a read-only
//     view of the World and the timeline, given in [Options.Invariants] and
//     checked and reported like the built-in ones; [Options.Builtin]
//     selects the built-in invariants that apply to a system of one's own.
//   - [WorldEvents]: clock advance, capability revocation, policy change,
//     state-version change and worker crash, attachable to any event.
//   - [Config]: a schedule's config in two parts, the harness's (fixture,
//     budgets, deadline, join, concurrency, notices) and the system's own
//     ([Config.System]), opaque here and decoded by the system.
//   - [Notices] and [Notice]: the provider's asynchronous notices, in a run
//     whose config sets [Config.Notices]; [NoticeKinds] disturb their
//     delivery (late, reordered, redelivered, lost) and [NoticeAgreement]
//     is the invariant such a run checks.
//   - [Concurrency]: the tasks as concurrent workers under a deterministic
//     scheduler (one goroutine a worker, one running at a time), the
//     interleaving chosen by the schedule; without it a run executes its
//     tasks one after another.
//   - [Fleet]: a fixture's tasks as a fleet of agents on clocks of their
//     own against a provider of declared capacity; [Result].Fleet is the
//     provider's load ([FleetLoad]), [InvNoRetryStorm] its invariant and
//     [Env].RetryToken the fleet's shared retry budget.
//   - [Definition]: a system under test described in its own terms (name,
//     fixtures, how its config part builds it, how to describe it, its
//     invariants and defences), for the paths that need more than a
//     [Factory]: replay, fuzzing, the command line and the run record.
//     The reference system (the paper's refund workflow, its fixtures,
//     controls, profiles and seeded defects) is the sub-package copperfin
//     (copperfin.Definition).
//
// Testing a system of your own: implement [System] on the [Env] (every
// consequential call through Env.Tool, every readback through Env.Ledger,
// durable state through Env.Store), describe its world as a [Fixture] (the
// subjects it acts on as [Subject] records, the grants as [Capability]
// records, one [Task] per logical action), pick the invariants in scope
// ([Options.Builtin] and [Options.Invariants]) and the fault kinds whose
// events your system crosses, and run it with [NewHarness] and
// [Harness.Run] (or describe it as a [Definition] and use
// [Definition.Run]); see the example "Harness (OwnSystem)" and the repository's
// examples/inventory.
//
// This package imports neither testing nor any test library.
package model
