// Package fuzz holds faultline's native Go fuzz targets and the decoding
// they share. The targets live in fuzz_test.go and rapid_test.go, each
// with one []byte argument; everything they use is in this package's
// non-test files, so a fuzz farm that builds only the file of a target
// can build it.
//
// The targets explore, each documented where it is defined: ordered
// compositions of faults and world events against the invariants (through
// [Decoder.Decode] and [Decoder.Check]); the same through rapid's draws
// and the exploration's generator of package properties
// ([Decoder.RapidProperty], for rapid.MakeFuzz); the strict schedule
// decoder ([CheckRoundTrip]); and replay determinism ([Decoder.Schedule]
// and [Decoder.CheckDeterminism]).
//
// Entry points:
//
//   - [NewDecoder] with options [WithDefinition] (the system under test,
//     required), [WithConfig], [WithFixture], [WithScope], [WithMaxFaults],
//     [WithKinds], [WithNotices] (the provider's notices and their four
//     kinds, at notice.receive) and [WithSystem]: the byte-to-composition decoder. [Decoder.Decode] is
//     total and deterministic: any byte string decodes into a valid
//     model.Schedule whose faults are kinds of model.Catalogue() and world
//     events of model.WorldEvents() at [Site]s of the [Scope]
//     ([ScopeDesigned], [ScopeOrdinals], [ScopeAnywhere]);
//     [Decoder.Encode] is its inverse, which turns corpus schedules into
//     seeds.
//   - [For] (and [NewTarget], [Target.Check], [Target.Done]): the body of
//     a native fuzz target of any system, func([]byte) error: the decoder,
//     the run, the invariants, the shrinking and the counterexample
//     ([*Failure]), with [WithReplayTest] and [WithFailDir] saying where
//     the counterexample is written and replayed; under go test -fuzz the
//     workers' targets report what their inputs reached to the
//     coordinator's Done through a directory [TallyEnv] names.
//     [Decoder.Verify] is the same for one schedule; the built-in targets
//     call it.
//   - [WithCatalogueSites]: the catalogue's table of sites (the reference
//     system's counts), for inputs encoded against it; by default a
//     decoder's sites are the crossings of its system's clean run.
//   - [Decoder.Check] returns a [*Violation] whose message prints the
//     schedule in canonical form and the faultline replay command;
//     [Decoder.Shrink] reduces a violating schedule to a smallest one that
//     violates the same invariants.
//   - [Decoder.Reach] counts the runs Check made, the faults they
//     scheduled and those reached; [ReachCounts.Err] says when a campaign
//     reached none (inconclusive), and the targets fail on it after a
//     plain run of their seeds.
//   - [Decoder.RapidProperty] and [Decoder.RapidGenerator]: the rapid
//     property over properties.Generator under the decoder's config.
//   - [System]: the system the targets run, built from the definition
//     under each schedule's config; the built-in targets (fuzz_test.go)
//     wire in the reference system of package reference/copperfin, as a user
//     wires theirs. This package imports no package of it.
//   - [ParseScope] turns text (flags, environment variables) into an
//     option; this package reads neither.
//
// The nightly script (scripts/fuzz-nightly.sh) runs every target and
// converts failing inputs into counterexample files of package corpus.
package fuzz
