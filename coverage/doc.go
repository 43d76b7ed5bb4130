// Package coverage records which coverage keys a test suite visited and
// which it never did, and turns the record into reports and release gates.
// A key is K = (domain, boundary, phase, correlation, oracle); it counts as
// visited only when its fault reached its boundary, fired, and the oracle
// adjudicated the run. docs/coverage.md gives the semantics.
//
// Index:
//
//   - [Key], [ParseKey]: the key and its text form
//     domain/boundary/phase/correlation/oracle.
//   - [Universe] ([Default], [NoticeUniverse]): every key the dimension
//     values allow, the reachable ones and the unreachable ones with
//     reasons.
//   - [Tracker] ([NewTracker] from a system's model.Definition): records
//     each *model.Result; [Tracker.FlushTo] merges into a shared file;
//     [Main] and [Tracker.FlushAfter] flush at the end of tests.
//   - [Data], [Merge], [CheckMerge], [Read], [ReadFile], [Data.Write],
//     [WriteFile], [MergeIntoFile]: the versioned JSON file (version 2;
//     version 1 still reads), locked on every write.
//   - [NewReport] and [Report.WriteText], [Report.WriteJSON],
//     [Report.WriteMarkdown], [Report.WriteHTML]: visited over reachable,
//     unvisited keys with reasons, marginals, pairwise coverage, heatmaps,
//     counterexamples beside their keys.
//   - [Compare]: several records side by side ([Column]).
//   - [ParseRequirements] and [Gate]: the release gate.
//   - [Guide]: ranks fault kinds toward keys not yet visited.
//   - [CheckInvariantName]: the rule of every name in a coverage file.
//
// The package reads no environment variable and no flag: commands and
// tests pass paths in.
package coverage
