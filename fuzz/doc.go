// Package fuzz is faultline's native Go fuzzing: any byte string decodes
// into a composition of faults placed on a system's own clean run, which
// runs against the system's invariants. docs/fuzzing.md has the
// semantics (sites, scopes, the byte format, the campaign rule, farms).
//
// The one entry for every system, model path or production code (a
// Definition with a Clock, whose runs happen in testing/synctest bubbles):
//
//   - [For]: the body of a fuzz target, f.Fuzz(fuzz.For(def, opts...)).
//   - [NewTarget]: the same body ([Target.Fuzz], or [Target.Check] for a
//     farm's rewrite of the target file) with the campaign rule
//     ([Target.Done]: nothing passes that reached and fired no fault,
//     summed over go test -fuzz's worker processes).
//   - [Campaign]: the target with its rule in one call, fuzz.Campaign(f,
//     def, opts...): the entry for production code's fuzz tests.
//   - [NewDecoder]: the decoder under a target, for seeds and tools:
//     [Decoder.Sites], [Decoder.Decode] and [Decoder.Encode],
//     [Decoder.Check] (a [*Violation]), [Decoder.Verify] (a shrunk
//     [*Failure]), [Decoder.Schedule] and [Decoder.CheckDeterminism],
//     [Decoder.RapidProperty] and [Decoder.RapidGenerator] for
//     rapid.MakeFuzz.
//
// Every entry refuses the same Definitions with the same error: nil,
// invalid, a config that does not apply, runs that check no invariant,
// a clean run that crosses no site.
//
// Options: [WithConfig], [WithFixture], [WithScope], [WithKinds],
// [WithMaxFaults], [WithCatalogueSites]; where a failure is written and
// how it replays: [WithReplayTest], [WithFailDir] (the Definition's
// ReplayCommand first). [CheckRoundTrip] checks the strict schedule
// decoder.
//
// The package's own targets (fuzz_test.go, rapid_test.go) wire in their
// system as a user wires theirs; the nightly script
// (scripts/fuzz-nightly.sh) runs them and converts failing inputs into
// counterexample files of package corpus.
package fuzz
