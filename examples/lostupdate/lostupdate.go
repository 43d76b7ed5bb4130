// Package lostupdate is the smallest system whose bug needs two workers at
// once: a counter clerk that reads a subject's version from the provider's
// ledger and writes version+1 with no guard. Run one task after another it
// is correct; run as concurrent workers (model.Concurrency), two clerks on
// the same subject can both read version 0 and both write version 1, and
// one update is lost. Its own invariant, [InvNoLostUpdate], reads the
// provider's ledger and catches it.
//
// How the world maps onto the model: the counter is a model.Subject; a
// write of version n+1 is a committed request of tool [ToolWrite] on the
// provider's ledger whose ExpectedVersion is n (the version it was based
// on), and the subject's current version is the number of writes the
// ledger holds for it. The clerk: one ledger.readback of the subject's
// writes, one tool.commit of the next version, and a release claim.
package lostupdate

import (
	"context"
	"fmt"

	"github.com/faultline/faultline/model"
)

// ToolWrite is the provider's tool that writes a counter's next version.
const ToolWrite = "counter.write"

// InvNoLostUpdate names the clerk's invariant: the n-th write of a counter
// (in ledger order) is based on version n-1, so no write overwrites one it
// never saw.
const InvNoLostUpdate = "no_lost_update"

// Clerk is the counter clerk (see the package comment).
type Clerk struct{}

// Factory returns a factory of fresh clerks.
func Factory() model.Factory { return func() model.System { return Clerk{} } }

// Run implements model.System: read the counter's writes, write the next
// version, release when the provider committed it.
func (Clerk) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	writes, err := env.Ledger.Readback(ctx, model.ReadbackQuery{Subject: t.Subject})
	if err != nil {
		return model.Claim{}, err
	}
	v := int64(len(writes))
	res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: ToolWrite, RequestKey: t.ID + ":write",
		Action: model.Action{Actor: t.Actor, Subject: t.Subject, Tenant: t.Tenant, Purpose: t.Purpose,
			Amount: v + 1, ExpectedVersion: v, IdempotencyKey: t.ID}})
	if err != nil {
		return model.Claim{}, err
	}
	if res.Outcome != model.OutcomeCommitted {
		return model.Claim{Verdict: model.ClaimHold, Reason: "write not committed: " + res.Reason}, nil
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: fmt.Sprintf("wrote version %d", v+1)}, nil
}

// Fixture is the clerks' world: one counter, and two tasks that each
// increment it.
func Fixture() model.Fixture {
	task := func(id string) model.Task {
		return model.Task{ID: id, Actor: "clerk-" + id, Subject: "counter-1", Tenant: "t1", Purpose: "increment", Amount: 1}
	}
	return model.Fixture{
		Name:     "lostupdate",
		Subjects: []model.Subject{{ID: "counter-1", Tenant: "t1", Status: "open"}},
		Tasks:    []model.Task{task("a"), task("b")},
	}
}

// Invariant is [InvNoLostUpdate] over the provider's ledger.
func Invariant() model.UserInvariant {
	return model.UserInvariant{Name: InvNoLostUpdate, Owner: "counter", Oracle: model.OracleLedgerReadback,
		Doc: "the n-th write of a counter is based on version n-1", Check: noLostUpdate}
}

func noLostUpdate(v model.View) string {
	before := map[string]int64{}
	for _, e := range v.Ledger() {
		if e.Tool != ToolWrite {
			continue
		}
		if n := before[e.Subject]; e.ExpectedVersion != n {
			return fmt.Sprintf("task %s wrote %s based on version %d, but %d write(s) came before it: an update was lost", e.Task, e.Subject, e.ExpectedVersion, n)
		}
		before[e.Subject]++
	}
	return ""
}

// Options are the harness options to test the clerk with: its own
// invariant alone (the built-in ones judge refunds, not counters).
func Options() model.Options {
	return model.Options{Builtin: []string{}, Invariants: []model.UserInvariant{Invariant()}}
}
