package snapshots_test

// The glue a user writes to test the janitor of package app, unmodified,
// through the adapters: the System that wraps its three clients around
// each run's Calls (sweeper, in readme_test.go: the front page's quick
// start), its Definition, and the paths (exploration, fuzzing, coverage;
// a counterexample replays through TestCheck). paths_test.go measures
// them; docs/production.md walks through this file.

import (
	"os"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/examples/snapshots"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/mcpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// definition is the janitor's Definition with this System as its workers.
func definition(t testing.TB) *model.Definition {
	return snapshots.Definition(t.TempDir(), func(w *snapshots.World) model.System { return sweeper{w} })
}

// kinds are the fault kinds the adapters enact on the janitor's calls.
var kinds = append(mcpfault.Kinds(), "stale_checkpoint")

var tracker *coverage.Tracker

// TestMain records TestCheck's runs in the file FAULTLINE_COVERAGE names;
// the janitor drafts no proposal, asks no authority, keeps no memory or
// evidence and fans out to no branch, and its adapters enact kinds.
func TestMain(m *testing.M) {
	tracker, _ = coverage.NewTracker(nil, &model.Definition{Name: "snapshots", ReplayCommand: "FAULTLINE_REPLAY=%s go test -run '^TestCheck$' ./examples/snapshots",
		NotApplicable: []model.Boundary{"proposal", "authority", "memory", "proof", "branch_join"}, Enacts: kinds})
	os.Exit(coverage.Main(m, os.Getenv("FAULTLINE_COVERAGE"), tracker))
}

// TestCheck explores ordered compositions of the kinds, each run in a
// synctest bubble; under FAULTLINE_REPLAY it replays the file's schedule.
func TestCheck(t *testing.T) {
	properties.Check(t, definition(t), append(raceOptions, properties.WithKinds(kinds...), properties.WithCoverage(tracker))...)
}

// FuzzSnapshots is the fuzz target: any bytes decode into faults on the
// janitor's own clean run (fuzzed() plants the bug for paths_test.go); a
// campaign that reached no fault fails as inconclusive.
func FuzzSnapshots(f *testing.F) {
	for i := range 16 {
		f.Add([]byte{byte(i)})
	}
	fuzz.Campaign(f, definition(f), append(fuzzed(), fuzz.WithReplayTest("TestCheck"))...)
}
