package jobqueue_test

// The glue a user writes to test the payout worker of package payouts,
// unmodified, through the adapters: the System that wraps its *sql.DB
// (sqlfault: the ledger table is its checkpoint, goqite's table crosses
// nothing) and its payout client (callfault) around each run's Calls, the
// Definition, and the paths. paths_test.go measures them.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"

	"github.com/faultline/faultline/callfault"
	"github.com/faultline/faultline/examples/thirdparty/jobqueue"
	"github.com/faultline/faultline/examples/thirdparty/jobqueue/payouts"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/sqlfault"
)

// worker is one worker process; a crash ends it, and the harness starts
// a fresh one over the same World.
type worker struct{ *jobqueue.World }

// classify: the ledger is the checkpoint table; goqite's own statements
// cross nothing.
func classify(q string) sqlfault.Class {
	if _, table := sqlfault.Parse(q); table == "goqite" {
		return sqlfault.Class{}
	}
	return sqlfault.TableClassifier(payouts.LedgerTable)(q)
}

func (w worker) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	store, err := w.Store()
	if err != nil {
		return model.Claim{}, err
	}
	conn, err1 := sqlfault.New(store, env.Calls, sqlfault.Options{Classify: classify})
	pay, err2 := callfault.Wrap(env.Calls, callfault.Spec[payouts.Request, payouts.Receipt]{Tool: "payout",
		Key: func(r payouts.Request) (string, error) { return r.Key, nil },
		Action: func(r payouts.Request, key string) model.Action {
			return model.Action{Actor: task.Actor, Subject: r.Account, Tenant: task.Tenant, Purpose: task.Purpose, Amount: r.Amount, IdempotencyKey: r.Job}
		},
		Receipt: func(r payouts.Receipt) string { return r.ID }}, w.Provider().Pay)
	if err := errors.Join(err1, err2); err != nil {
		return model.Claim{}, err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	receipt, err := payouts.New(db, pay, w.Options).Work(ctx, jobqueue.Queue(task), task.ID, 3)
	switch {
	case ctx.Err() != nil:
		return model.Claim{}, ctx.Err() // crashed: a fresh worker resumes
	case err != nil:
		return model.Claim{Verdict: model.ClaimHold, Reason: err.Error()}, nil
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: fmt.Sprintf("paid %s: %s", task.ID, receipt), Receipt: receipt}, nil
}

// kinds are the kinds in scope: the restarts (a crash right after the
// payout, a restart after a ledger write, a stale ledger served to the
// restarted worker) and the payout call's lost or refused answers.
var kinds = []string{"worker_crash", "worker_restart", "stale_checkpoint", "timeout_after_commit", "reject_before_commit", "timeout_before_send"}

// definition is the worker's Definition with this System as its workers.
func definition(t testing.TB) *model.Definition {
	return jobqueue.Definition(t.TempDir(), func(w *jobqueue.World) model.System { return worker{w} })
}

// TestCheck explores compositions of the kinds on the correct worker;
// under FAULTLINE_REPLAY it replays the file's schedule.
func TestCheck(t *testing.T) {
	properties.Check(t, definition(t), properties.WithKinds(kinds...))
}

// FuzzJobs is the fuzz target: any bytes decode into faults on the
// worker's own clean run (JOBQUEUE_PLANTED plants the bug).
func FuzzJobs(f *testing.F) {
	for i := range 16 {
		f.Add([]byte{byte(i)})
	}
	f.Fuzz(fuzz.For(definition(f), append(fuzzed(), fuzz.WithReplayTest("TestCheck"))...))
}
