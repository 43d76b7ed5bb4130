// Package coverage records which coverage keys a test suite visited and
// which it never did, and turns the record into reports and release gates.
//
// The coverage key is the paper's K = (domain, boundary, phase,
// correlation, oracle) (the paper, "Coverage that cannot be gamed"): it
// turns "we injected thousands of faults" into "we visited these keys and
// never these". A key counts as visited only when the injector shows that
// the fault reached its boundary and fired (model.FaultReport.Reached and
// Fired > 0) and the oracle adjudicated the run; a fault scheduled for an
// event that never happened is counted as "scheduled, not reached", never
// as a visit.
//
// Entry points:
//
//   - [Key], [ParseKey] and [KeyOf]: the key and its text form
//     domain/boundary/phase/correlation/oracle.
//   - [Universe] ([Default], [NewUniverse]): every key the dimension values
//     allow, split into the keys some catalogue kind reaches and [Gap]s of
//     unreachable keys, each with a reason written from the catalogue.
//   - [Tracker]: safe for concurrent use; [Tracker.Record] takes a
//     *model.Result (one line in any test, fuzz target or command), keeps
//     per key the visit counts, the smallest schedule that visited it, and
//     the counterexamples found under it, and per system the events its
//     runs crossed; [Tracker.FlushTo] merges into a file shared by several
//     processes; [Main] wraps a TestMain and [Tracker.FlushAfter] a test,
//     each failing it when the flush fails.
//   - [NewTracker] records the reference system; [NewSystemTracker] a
//     [System] of one's own: its name, the boundaries it does not have
//     (their keys are "not applicable") and its replay command
//     ([CheckReplayTemplate], [ReplayTemplate]). Invariants are any a
//     system declares, checked by syntax ([CheckInvariantName]). A key no
//     recorded run crossed is reported "never crossed", apart from the
//     unvisited keys.
//   - [Data], [Merge], [Read], [ReadFile], [Data.Write], [WriteFile]: the
//     versioned JSON file (version 2; version 1 still reads); merge is
//     associative and commutative, and merging a file with itself doubles
//     its counts and keeps its sets. [MergeIntoFile] and
//     [WriteFile] hold the file's lock (FILE.lock), which every writer
//     takes; [CheckMerge] refuses counts that would overflow.
//   - [NewReport] and [Report.WriteText], [Report.WriteJSON],
//     [Report.WriteMarkdown], [Report.WriteHTML]: visited over reachable,
//     the unvisited keys with reasons, per-dimension marginals, pairwise
//     (t = 2) coverage, heatmaps, and counterexamples beside their keys.
//   - [Compare]: several records side by side (one [Column] per profile,
//     say), so a key that broke under one configuration and held under
//     another shows both; [Comparison.WriteText] is the audit's coverage
//     view.
//   - [ParseRequirements] and [Gate]: the release gate of
//     "faultline coverage gate".
//   - [Guide]: ranks fault kinds toward keys not yet visited, for guided
//     exploration (properties.WithGuide, faultline explore --guided).
//
// The package reads no environment variable and no flag: commands and
// tests pass paths in.
package coverage
