// Package properties explores ordered compositions of typed faults and
// world events against a system built on model.Env, with pgregory.net/rapid:
// it draws schedules, runs each through the harness (which checks every
// invariant after every boundary crossing), and shrinks a failing schedule
// first with rapid, then with a fault-aware reduction, to a 1-minimal
// counterexample that the command it prints replays (for Check, a go test
// line that runs it on the test's own system).
//
// Entry points:
//
//   - [Check]: the test form, for a *testing.T (or any rapid.TB): a user
//     points it at their own system in a few lines (see the example). It
//     fails the test for a counterexample, for a campaign that reached
//     none of its scheduled faults (inconclusive: [Report.Inconclusive],
//     the message naming the events the system crossed), and for a
//     harness error, and says which. It keeps each counterexample in the
//     test's fail folder and replays those first (see "Fail files and
//     FAULTLINE_REPLAY" below).
//   - [ExplorePair]: counterfactual containment pairs over compositions
//     of two or more faults: a [PairReport] with the first [PairWitness]
//     under which the control-off run violates and the control-on run
//     holds, reduced as a pair; deterministic from its seed.
//   - [Explore]: the checker form, returning a [Report] (the CLI's
//     faultline explore calls it) with the campaign's counts of scheduled,
//     reached and fired faults.
//   - [Exhaustive]: the bounded-exhaustive form, an [ExhaustiveReport]:
//     every schedule of up to WithMaxFaults faults, smallest first, each
//     fault at a crossing the run of the faults before it reached; the
//     first counterexample in that order, or a bounded proof over the
//     scope (WithOwnEvents, WithWorkers, WithMaxSchedules and, for a
//     concurrent config, whose interleavings it walks too,
//     WithMaxSwitches are its own).
//   - [System], [Factory] and [Reference]: how the system under test is
//     built for each run; Reference is the Copperfin workflow.
//   - Options: [WithConfig], [WithFixture], [WithKinds], [WithDomains],
//     [WithNotices] (the provider's notices and their four kinds),
//     [WithoutWorldEvents], [WithoutSwarm], [WithMaxFaults], [withInvariants],
//     [WithFailDir] (Check's), [WithCounterexampleDir],
//     [WithReplayCommand], [withName].
//   - The loop over checks: [WithSeed] and [WithChecks] make faultline run
//     it (check k drawn from [checkSeed] of the run seed and k, as rapid's
//     own loop draws it); [WithShard] runs shard i of n of a run, or of an
//     exhaustive walk, so that n machines together run exactly one run's
//     checks ([ParseShard] reads "I/N", [shardChecks] counts a shard's).
//   - Coverage: [WithCoverage] records every run into a coverage.Tracker
//     (a TestMain flushes it with coverage.Main); [WithGuide] biases the
//     kinds drawn toward coverage keys not yet visited (coverage.Guide),
//     staying a pure function of the seeds and the prior record.
//   - [WriteCounterexample] and [CounterexampleRecord]: the files a
//     counterexample is written to.
//   - [Generator]: the schedules Check draws, as a rapid generator for a
//     property of one's own (the native fuzz target FuzzRapid of package
//     fuzz draws from it through rapid.MakeFuzz).
//
// What a drawn schedule holds: one to WithMaxFaults entries, each a fault
// kind of model.Catalogue or a world event of model.WorldEvents (clock
// advance, capability revocation, policy change, state-version change,
// worker crash), attached to an event the system actually crosses: the
// first entry to an event of the clean run, each later one to an event of
// the run under the entries drawn before it (a retry's second tool.commit
// or a resume's checkpoint.load exists only once an earlier fault made
// it), at an ordinal from one to that run's count of the event, never
// from the reference system's counts. Three times in four (half the time
// in a swarm draw) an entry sits at its kind's default placement in that
// run (model.Place: its own event at its designed ordinal, or the last
// crossing when the run crossed it fewer times), otherwise at any event it
// fits that the run crossed.
// Entries compose in the order drawn (faults at one crossing compose in
// schedule order). Each check of Explore, Check and Generator is a swarm
// draw unless WithoutSwarm: it first draws its number of entries (the
// most, a composition, three times in four) and the subset of kinds and
// sites its entries come from, and may compose a later entry with the
// earlier ones at their crossing, a crossing just after it, or one they
// made (see WithoutSwarm). Memory losses and branch failures draw a target from
// the memory keys and branch names of the run they are placed in; clock advances draw their length, from 1 ms to twice the
// workload's farthest capability expiry or deadline and never more than
// model.MaxClockAdvance (what the schedule validator accepts), evenly in
// a swarm draw (rapid's own integer draw would keep seven in ten of them
// within the first eighth of that range, short of most deadlines). The config (profile or
// controls, mutant, budgets, join policy) and the fixture are fixed by the
// options and written into every schedule.
//
// A counterexample is the schedule after which an invariant in scope was
// false; the first such invariant (by the crossing after which it became
// false) names it. The reduction keeps that invariant broken while it
// drops one fault (or two identical ones, which may cancel), moves one to
// an earlier ordinal, or weakens one (a named target instead of every
// target, a shorter clock advance), always
// through the public replay path (the schedule's canonical text, decoded
// strictly, run by the harness), until no single change keeps it broken.
//
// # Fail files and FAULTLINE_REPLAY
//
// As rapid keeps its fail files in testdata/rapid/TEST/, Check writes every
// counterexample it finds into the test's fail folder, FailDir/TEST/ of
// the test's package directory (testdata/faultline/TEST/; TEST the test's
// name, subtest slashes and other unsafe characters made '_'), as the
// schedule file cx-INVARIANT-HASH.json and its record beside it
// (WriteCounterexample), and prints the command that replays it on the
// test's own system, to run from the module root:
//
//	FAULTLINE_REPLAY=testdata/faultline/TestX/cx-INVARIANT-HASH.json go test -run '^TestX$' ./pkg
//
// (./pkg the package's directory relative to the module root, found from
// the test binary's working directory and the go.mod above it; the
// package's import path when there is none). On the next run, Check
// replays the schedule files of the folder before exploring, each once on
// the test's system, config and fixture (so a fix in the config or the
// code shows; FAULTLINE_REPLAY below runs a file under its own config):
// one that still breaks an invariant fails the test at once with its counterexample, one that now
// holds is logged as fixed and the exploration goes on. Add
// **/testdata/faultline/ to .gitignore, or commit the reviewed files so
// that every run replays them as regressions; delete a fixed one to stop
// replaying it. A test that expects a counterexample (a planted bug) gives
// Check WithFailDir(t.TempDir()) so nothing lands in testdata/.
//
// FAULTLINE_REPLAY=FILE (ReplayEnv; FILE a schedule file or the record
// beside it, relative to the package directory) makes Check run that
// file's faults once on the test's system under the file's own config and
// fixture (the test's fixture when the file names none; a config other
// than the test's is named in the message), and nothing else: it fails with the counterexample if an invariant in scope
// is still broken, fails as inconclusive if none of the file's faults was
// reached, and passes otherwise.
//
// FAULTLINE_REPLAY, read by Check alone, is the only environment variable
// this package reads, and it reads no flags of its own: rapid reads its
// own (-rapid.checks, -rapid.seed, RAPID_CHECKS, RAPID_SEED), which
// Explore and Check look up for WithProgress and, under WithShard without
// WithSeed or WithChecks, for the run's seed and checks; when faultline
// runs the loop over checks, it sets -rapid.checks, -rapid.seed and
// -rapid.nofailfile while rapid shrinks the failing check, and restores
// them after. ExplorePair and Generator read none.
package properties
