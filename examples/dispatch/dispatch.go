// Package dispatch is an example system of another domain than the
// reference one: a warehouse agent that books one courier pickup a
// shipment, under a job queue that hands a job out at least once. It
// shows a forked run on a user's own system (forked_run): a worker's
// lease lapses while it pauses after its first checkpoint, the queue
// hands the job to a second worker from that checkpoint, and both book.
//
// Entry points: [Booker] (the system, with its defence [Booker.Fenced]),
// [Fixture] (two shipments, delivered at least once) and [Definition].
package dispatch

import (
	"context"

	"github.com/faultline/faultline/model"
)

// Tool is the name of the pickup-booking tool.
const Tool = "courier.book_pickup"

// Booker books the task's pickup. It plans and checkpoints the plan,
// checkpoints the booking it is about to send (its request key), books,
// and checkpoints the booking made. A worker resumes from the newest
// checkpoint and refuses any other (stale, missing, of another version,
// damaged). Resumed from a booking it may have sent, it reads the
// courier's ledger back under the booking's key and books only when the
// ledger holds none; resumed from a plan, it books: a worker that
// crashed before the booking checkpoint sent nothing. By default a
// booking goes out under a request id minted for it, as a client library
// mints one per call.
type Booker struct {
	// Fenced has a resumed worker re-read the job's checkpoint head
	// before it acts: a worker whose checkpoint is no longer the head has
	// been superseded by another on the same job (a fencing token), and
	// takes the head's word instead of booking.
	Fenced bool
}

// Checkpoint states and the workflow version of the booker.
const (
	planned = "planned"
	booking = "booking"
	booked  = "booked"
	// unconfirmed records a booking the courier did not confirm: the
	// job holds
	unconfirmed = "unconfirmed"
	version     = 1
)

// Run implements model.System.
func (b Booker) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	hold := func(reason string) (model.Claim, error) {
		return model.Claim{Verdict: model.ClaimHold, Reason: reason}, nil
	}
	cp, resumed, err := env.Store.Load(ctx, t.ID)
	switch {
	case err != nil:
		return model.Claim{}, err
	case !resumed && cp.Head > 0:
		return hold("the store serves no checkpoint though it acknowledged one")
	case resumed && (cp.Seq < cp.Head || cp.WorkflowVersion != version || model.Checksum(cp) != cp.Checksum):
		return hold("the store serves a checkpoint it cannot resume from")
	case resumed && cp.State == booked:
		return model.Claim{Verdict: model.ClaimRelease, Reason: "pickup booked"}, nil
	case resumed && cp.State == unconfirmed:
		return hold("pickup not confirmed")
	}
	if resumed && b.Fenced {
		// the fencing token: a checkpoint past the one this worker
		// resumed from was written by another worker on the same job
		head, ok, err := env.Store.Load(ctx, t.ID)
		switch {
		case err != nil:
			return model.Claim{}, err
		case ok && head.Seq > cp.Seq && head.State == booked:
			return model.Claim{Verdict: model.ClaimRelease, Reason: "pickup booked by another worker"}, nil
		case ok && head.Seq > cp.Seq:
			return hold("superseded by another worker at checkpoint " + head.State)
		}
	}
	a := cp.Action
	if !resumed {
		s, err := env.Context.ReadSubject(ctx, t.Subject)
		if err != nil {
			return model.Claim{}, err
		}
		a = model.Action{Actor: t.Actor, Subject: s.ID, Tenant: s.Tenant, Purpose: t.Purpose,
			ExpectedVersion: s.Version, TraceID: t.Trace}
		if err := env.Store.Save(ctx, model.Checkpoint{Seq: 1, WorkflowVersion: version, State: planned, Action: a}); err != nil {
			return model.Claim{}, err
		}
	}
	if resumed && cp.State == booking {
		// the booking may have gone out: the courier's ledger says
		got, err := env.Ledger.Readback(ctx, model.ReadbackQuery{ActionRef: a.IdempotencyKey})
		if err != nil {
			return model.Claim{}, err
		}
		if len(got) > 0 {
			return b.booked(ctx, env, a)
		}
	} else {
		a.IdempotencyKey = env.NewRequestID()
		if err := env.Store.Save(ctx, model.Checkpoint{Seq: 2, WorkflowVersion: version, State: booking, Action: a}); err != nil {
			return model.Claim{}, err
		}
	}
	res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: Tool, RequestKey: a.IdempotencyKey, Action: a})
	if err != nil {
		return model.Claim{}, err
	}
	if res.Outcome != model.OutcomeCommitted || res.Receipt == nil || res.Receipt.Key != a.IdempotencyKey {
		// an answer with no receipt of this booking (an error in a
		// success envelope among them) confirms nothing
		if err := env.Store.Save(ctx, model.Checkpoint{Seq: 3, WorkflowVersion: version, State: unconfirmed, Action: a}); err != nil {
			return model.Claim{}, err
		}
		return hold("pickup not confirmed: " + res.Reason)
	}
	return b.booked(ctx, env, a)
}

// booked checkpoints the booking made and claims it.
func (b Booker) booked(ctx context.Context, env model.Env, a model.Action) (model.Claim, error) {
	if err := env.Store.Save(ctx, model.Checkpoint{Seq: 3, WorkflowVersion: version, State: booked, Action: a,
		CompletedEffects: []string{a.IdempotencyKey}}); err != nil {
		return model.Claim{}, err
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "pickup booked"}, nil
}

// Fixture is two shipments of one warehouse, each a job of a queue that
// delivers a job at least once (model.Fixture.AtLeastOnce).
func Fixture() model.Fixture {
	return model.Fixture{Name: "dispatch",
		Subjects: []model.Subject{
			{ID: "SH-204", Tenant: "leeds", Status: "packed", Version: 5},
			{ID: "SH-318", Tenant: "leeds", Status: "packed", Version: 2},
		},
		Tasks: []model.Task{
			{ID: "pickup-SH-204", Actor: "dispatcher", Subject: "SH-204", Tenant: "leeds", Purpose: "book_pickup"},
			{ID: "pickup-SH-318", Actor: "dispatcher", Subject: "SH-318", Tenant: "leeds", Purpose: "book_pickup"},
		},
		AtLeastOnce: true,
	}
}

// Definition describes the booker b for every door: its fixture and the
// built-in invariants a booking can break (one pickup per shipment, no
// booking claimed that was not made, resumption from the newest
// checkpoint).
func Definition(b Booker) *model.Definition {
	d := model.Define("dispatch", Fixture(), func() model.System { return b })
	d.Builtin = []string{model.InvEffectAtMostOnce, model.InvNoInventedProgress, model.InvResumeFromCheckpoint}
	return d
}
