// Package model is faultline's core: the World, the Env a system under test
// is given, typed faults and their schedules, the harness that injects them,
// the timeline, and the oracle that judges every run by its own read path.
// A run is a pure function of a [Fixture], a [Schedule], [Options] and a
// [System]: no wall clock ([Millis] is logical time), no global randomness.
//
// Index (semantics in docs/vocabulary.md and docs/own-system.md):
//
//   - [Definition] and [Define]: the one description of a system (name,
//     fixtures, factory, config, invariants, defences, replay template);
//     [Definition.Run] runs it.
//   - [Env], [System], [Factory]: the seam. Every call through an Env is a
//     boundary crossing; production code reports its calls through
//     [Calls] (see [Observed], [Step]).
//   - [Catalogue], [Spec], [FaultSpec], [WorldEvents], [NoticeKinds],
//     [CacheAndWorkerKinds]: the typed fault kinds (docs/catalogue.md).
//   - [Schedule], [FaultEntry], [Config], [ParseSchedule], [Format],
//     [SingleFault]: faults attached to events by ordinal, in one
//     canonical JSON form (docs/formats.md).
//   - [NewHarness], [Harness], [Options]: the harness; [Harness.Run]
//     returns a [Result] (timeline, fault reports, [InvariantResult]s,
//     outcome [Terms], verdicts), [Harness.Terms] only the terms.
//   - [Invariants] and [UserInvariant] over a [View]: the built-in and a
//     user's own invariants; a [Violation] says where one first failed.
//   - [Concurrency], [Fleet], [Notices], [Stop]: concurrent workers, fleets
//     of agents, the provider's notices, stop conditions.
//   - [Place], [SingleFaults], [Crossings]: where a system's own run
//     crosses each kind's event.
//   - [Result.Err], [RunError], [Result.Record], [RunRecord]: a run's
//     verdict as an error and as an evidence record.
//
// This package imports neither testing nor any test library.
package model
