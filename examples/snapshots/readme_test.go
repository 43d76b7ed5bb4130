package snapshots_test

// The front page's quick start for production code, as written there
// (docs' TestProductionQuickStartIsTheExample checks that the README
// holds this file's code from the type on): a minimal Definition inline.

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/faultline/faultline/examples/snapshots"
	"github.com/faultline/faultline/examples/snapshots/app"
	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/mcpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/sqlfault"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sweeper is one worker; the World (the run's fake service and checkpoint
// database) gives ProviderLedger, the service's own table of deletions.
type sweeper struct{ *snapshots.World }

func (j sweeper) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
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

func TestSweep(t *testing.T) {
	dir := t.TempDir()
	def := &model.Definition{Name: "sweep", Fixtures: []model.Fixture{snapshots.Fixture()},
		Configure: func(json.RawMessage) (model.Factory, error) {
			w := snapshots.NewWorld(dir, app.Options{FreshKeyOnRetry: false}) // true: the planted bug
			return func() model.System { return sweeper{w} }, nil
		},
		Builtin: []string{model.InvRightSubject, model.InvEffectAtMostOnce, model.InvNoInventedProgress},
		Clock:   properties.BubbleClock}
	properties.Check(t, def, properties.WithKinds(append(mcpfault.Kinds(), "stale_checkpoint")...))
}
