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
//
// The guarded clerk ([GuardedFactory]) is the counterfactual: it keys its
// write by the version it read (counter-1:v0), so of two writes based on
// one version the provider commits the first and answers the second with
// an idempotent replay of it; the clerk that gets the replay lost the race,
// reads again and writes the next version. No interleaving loses an update.
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

// Clerk is the counter clerk (see the package comment); Guarded keys each
// write by the version it is based on.
type Clerk struct{ Guarded bool }

// Factory returns a factory of fresh clerks without the guard.
func Factory() model.Factory { return func() model.System { return Clerk{} } }

// GuardedFactory returns a factory of fresh guarded clerks.
func GuardedFactory() model.Factory { return func() model.System { return Clerk{Guarded: true} } }

// maxRaces is how many lost races a guarded clerk retries before it holds.
const maxRaces = 3

// Run implements model.System: read the counter's writes, write the next
// version, release when the provider committed it. The guarded clerk
// reads and writes again when the provider answers with another clerk's
// write of the same version, up to maxRaces times.
func (c Clerk) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	for race := 0; ; race++ {
		writes, err := env.Ledger.Readback(ctx, model.ReadbackQuery{Subject: t.Subject})
		if err != nil {
			return model.Claim{}, err
		}
		v := int64(len(writes))
		key := t.ID + ":write"
		if c.Guarded {
			key = fmt.Sprintf("%s:v%d", t.Subject, v)
		}
		res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: ToolWrite, RequestKey: key,
			Action: model.Action{Actor: t.Actor, Subject: t.Subject, Tenant: t.Tenant, Purpose: t.Purpose,
				Amount: v + 1, ExpectedVersion: v, IdempotencyKey: t.ID}})
		if err != nil {
			return model.Claim{}, err
		}
		if res.Outcome != model.OutcomeCommitted {
			return model.Claim{Verdict: model.ClaimHold, Reason: "write not committed: " + res.Reason}, nil
		}
		if c.Guarded && res.Replayed {
			// another clerk wrote version v+1 first
			if race+1 >= maxRaces {
				return model.Claim{Verdict: model.ClaimHold, Reason: "lost every race for the counter"}, nil
			}
			continue
		}
		return model.Claim{Verdict: model.ClaimRelease, Reason: fmt.Sprintf("wrote version %d", v+1)}, nil
	}
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
	return model.UserInvariant{Name: InvNoLostUpdate, Owner: "counter", Oracle: "ledger_readback",
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
