package model

// DisableTaskOffsets turns off the per-task offsets of h's lookups (see
// run.ledFrom): every per-task lookup then reads the whole ledger,
// evidence ledger and checkpoint store, as for a fixture whose task ids
// repeat. A test runs one schedule both ways and compares the results.
func DisableTaskOffsets(h *Harness) { h.uniqueIDs = false }

// StreamSeed exposes the seed words of a worker's random stream (see
// Env.Rand) so a test can rebuild the stream from its definition.
var StreamSeed = streamSeed

// Names the external tests use of identifiers that are unexported.
const (
	EvWorld    = evWorld
	CommitCost = commitCost
)

var (
	LaggingKinds   = laggingKinds
	CanonicalEvent = canonicalEvent
)

// HarnessString is Config.harnessString, for tests.
func HarnessString(c Config) string { return c.harnessString() }

// Stop condition names and the default join policy, for tests.
const (
	StopMaxEffects  = stopMaxEffects
	StopMaxFaults   = stopMaxFaults
	StopAbort       = stopAbort
	StopExpiry      = stopExpiry
	JoinAllRequired = joinAllRequired
)

// Attribute is Harness.attribute, for tests.
func Attribute(h *Harness, res *Result, f Factory) error { return h.attribute(res, f) }

// Unreached is Result.unreached, for tests.
func Unreached(res *Result) []FaultReport { return res.unreached() }
