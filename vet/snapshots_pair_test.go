package vet_test

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"net/http"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/examples/snapshots"
	"github.com/faultline/faultline/examples/snapshots/app"
	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/mcpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/sqlfault"
	"github.com/faultline/faultline/vet"
)

// janitorSystem is examples/snapshots's glue (its test's System): the
// unmodified janitor over its three clients, each wrapped around the
// run's Calls.
type janitorSystem struct{ *snapshots.World }

func (j janitorSystem) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
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
	return snapshots.Claim(rep), cmp.Or(mw.Err(), err)
}

// TestProductionFindingAndCounterexample: on production code (the
// snapshots janitor, which imports no faultline package), retrykey flags
// the planted bug's line, the key built from the attempt counter that
// j.call sends in the MCP call's _meta, and names the call: tool
// delete_snapshot, event tool.commit. The finding's schedule, its first
// fault kind at that event aimed at that tool, breaks effect_at_most_once
// (and only_expired_deleted: the retry purges the binned snapshot) with
// the bug on, the fault on a tool.commit of delete_snapshot and the
// violation at a later one; the fixed janitor holds under it, and its code
// path has no finding.
func TestProductionFindingAndCounterexample(t *testing.T) {
	rep, err := vet.Check([]string{"./examples/snapshots/..."}, vet.Options{Dir: "..", Tests: true})
	require.NoError(t, err)
	require.Len(t, rep.Findings, 1, "%v", rep.Findings)
	f := rep.Findings[0]
	assert.Equal(t, "retrykey", f.Analyzer)
	assert.Equal(t, "examples/snapshots/app/app.go", f.File)
	assert.Equal(t, "(*Janitor).delete", f.Function)
	file := filepath.Join("..", f.File)
	assert.Contains(t, sourceLine(t, file, f.Line-1), "j.opts.FreshKeyOnRetry")
	assert.Contains(t, sourceLine(t, file, f.Line), `key = Key(id) + "+retry" + strconv.Itoa(attempt)`)
	assert.Contains(t, f.Message, `the "idempotencyKey" entry of the mcp.Meta that j.call sends varies`)
	assert.Equal(t, vet.CallSite{File: f.File, Line: f.Call.Line, Column: f.Call.Column, Callee: "j.call",
		Tool: app.Tool, Event: string(model.EvToolCommit)}, f.Call)
	assert.Contains(t, sourceLine(t, file, f.Call.Line)[f.Call.Column-1:], "j.call(ctx, id, key)")

	def := snapshots.Definition(t.TempDir(), func(w *snapshots.World) model.System { return janitorSystem{w} })
	fault := model.FaultEntry{Event: model.EventName(f.Call.Event), Ordinal: 1, Kind: "timeout_after_commit", Tool: f.Call.Tool}
	run := func(bug bool) *model.Result {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "vet", Config: snapshots.Config(bug), Faults: []model.FaultEntry{fault}}
		var res *model.Result
		var err error
		synctest.Test(t, func(*testing.T) { res, err = def.Run(s, model.Options{}) })
		require.NoError(t, err)
		return res
	}
	res := run(true)
	// the second delete under a new key purges the binned snapshot: the
	// duplicate effect, and a deletion of what had not expired
	assert.Equal(t, []string{model.InvEffectAtMostOnce, snapshots.InvOnlyExpiredDeleted}, violated(res))
	inv, ok := res.Invariant(model.InvEffectAtMostOnce)
	require.True(t, ok)
	assert.Equal(t, "f1", inv.FaultID)
	assert.Equal(t, model.EvToolCommit, inv.Event)
	var faulted, broke []model.Event
	for _, e := range res.Timeline.Events() {
		if e.FaultID == "f1" && e.Event == model.EvToolCommit {
			faulted = append(faulted, e)
		}
		if e.Seq == inv.FirstSeq {
			broke = append(broke, e)
		}
	}
	require.Len(t, faulted, 1)
	assert.Equal(t, app.Tool, faulted[0].Tool)
	require.Len(t, broke, 1)
	assert.Equal(t, app.Tool, broke[0].Tool)
	assert.Equal(t, model.EvToolCommit, broke[0].Event)
	assert.Greater(t, broke[0].Seq, faulted[0].Seq)

	assert.Empty(t, violated(run(false)), "the fixed janitor under the same schedule")
}
