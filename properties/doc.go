// Package properties explores ordered compositions of typed faults and
// world events against a system described by a model.Definition, with
// pgregory.net/rapid: it draws schedules at the crossings the system's own
// runs make, runs each through the harness (every invariant checked after
// every crossing) and shrinks a failing one to a 1-minimal counterexample
// with the command that replays it. The semantics are in
// docs/exploration.md.
//
// The doors, each taking the Definition and sharing one path that refuses
// a bad Definition, a config that does not apply, a scope with no
// invariant, and a campaign that reached or fired nothing:
//
//   - [Check]: the test door, for model-path systems and production code
//     (def.Clock set: each run in a testing/synctest bubble) alike; fail
//     files and FAULTLINE_REPLAY ([ReplayEnv]) keep and replay
//     counterexamples.
//   - [Explore]: the report door ([Report]); [WithExhaustive] makes it (and
//     Check) the bounded-exhaustive walk ([ExhaustiveReport],
//     [ExhaustiveScope]).
//   - [ExplorePair]: counterfactual containment pairs ([PairReport],
//     [PairWitness]).
//   - [Generator]: the schedules Check draws, as a rapid generator.
//
// Options ([Option]): the scope ([WithConfig], [WithFixture], [WithKinds],
// [WithDomains], [WithNotices], [WithoutWorldEvents], [WithSwarm],
// [WithMaxFaults], [WithHarnessOptions]); the loop over checks ([WithSeed],
// [WithChecks], [WithShard], [ParseShard]); the walk ([WithOwnEvents],
// [WithWorkers], [WithMaxSchedules], [WithMaxSwitches]); coverage
// ([WithCoverage], [WithGuide]); output ([WithFailDir],
// [WithReplayCommand], [WithProgress]).
//
// Files and errors: [Counterexample], [WriteCounterexample] (the one
// counterexample format, package corpus's), [FailFolder],
// [ReplayCommand]; [ErrNondeterministic]; [BubbleClock], production
// code's clock.
//
// Check reads FAULTLINE_REPLAY, FAULTLINE_OTEL ([OtelEnv]: the traces of
// its counterexamples) and rapid's own flags (-rapid.checks, -rapid.seed);
// the package reads no other flag or variable.
package properties
