package snapshots_test

// The glue a user writes to test the janitor of package app, unmodified,
// through the adapters: the System that wraps its three clients around
// each run's Calls, its Definition, and the paths (exploration, fuzzing,
// coverage; a counterexample replays through TestCheck). paths_test.go
// measures them; docs/production.md walks through this file.

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"net/http"
	"os"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/examples/snapshots"
	"github.com/faultline/faultline/examples/snapshots/app"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/mcpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/sqlfault"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// janitor is one worker: the real janitor over wrapped clients; the
// World's ProviderLedger reads the service's own table of deletions.
type janitor struct{ *snapshots.World }

func (j janitor) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	reads, err1 := httpfault.Rules(httpfault.Rule{Method: "GET", Path: "/snapshots", Class: httpfault.Read, Event: model.EvStateRead})
	hc, err2 := httpfault.Join(env.Calls, httpfault.InProcess(j.Service().Inventory()), httpfault.JoinOptions{Classify: reads})
	mw, err3 := mcpfault.New(env.Calls, mcpfault.Options{})
	conn, err4 := sqlfault.New(j.Checkpoints(), env.Calls, sqlfault.Options{CheckpointTable: snapshots.CheckpointTable})
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return model.Claim{}, err
	}
	session, done, err := j.Service().Connect(ctx, mcp.NewClient(&mcp.Implementation{Name: task.Actor}, nil), mw.Middleware())
	if err != nil {
		return model.Claim{}, err
	}
	defer done()
	db := sql.OpenDB(conn)
	defer db.Close()
	rep, err := app.New(&http.Client{Transport: hc}, snapshots.BaseURL, session, db, j.Options).Sweep(ctx, task.Subject)
	return snapshots.Claim(rep), cmp.Or(mw.Err(), err) // the adapter's error (a stopped worker) first
}

// definition is the janitor's Definition with this System as its workers.
func definition(t testing.TB) *model.Definition {
	return snapshots.Definition(t.TempDir(), func(w *snapshots.World) model.System { return janitor{w} })
}

// kinds are the fault kinds the adapters enact on the janitor's calls.
var kinds = append(mcpfault.Kinds(), "stale_checkpoint")

var tracker *coverage.Tracker

// TestMain records TestCheck's runs in the file FAULTLINE_COVERAGE names;
// the janitor drafts no proposal, asks no authority, keeps no memory or
// evidence and fans out to no branch.
func TestMain(m *testing.M) {
	tracker, _ = coverage.NewSystemTracker(nil, coverage.System{Name: "snapshots", Replay: "FAULTLINE_REPLAY=%s go test -run '^TestCheck$' ./examples/snapshots",
		NotApplicable: []model.Boundary{model.BoundaryProposal, model.BoundaryAuthority, model.BoundaryMemory, model.BoundaryProof, model.BoundaryBranchJoin}})
	os.Exit(coverage.Main(m, os.Getenv("FAULTLINE_COVERAGE"), tracker))
}

// TestCheck explores ordered compositions of the kinds, each run in a
// synctest bubble; under FAULTLINE_REPLAY it replays the file's schedule.
func TestCheck(t *testing.T) {
	properties.CheckProduction(t, definition(t), properties.WithKinds(kinds...), properties.WithCoverage(tracker))
}

// FuzzSnapshots is the fuzz target: any bytes decode into faults on the
// janitor's own clean run (fuzzed() plants the bug for paths_test.go).
func FuzzSnapshots(f *testing.F) {
	for i := range 16 {
		f.Add([]byte{byte(i)})
	}
	f.Fuzz(fuzz.ForProduction(definition(f), append(fuzzed(), fuzz.WithReplayTest("TestCheck"))...))
}
