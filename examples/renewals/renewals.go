// Package renewals is an example system of another domain than the
// reference one: an agent that renews a subscription by charging the
// customer's card. A renewal job may be delivered twice, so before it
// charges, the agent asks the billing provider's receipt lookup (a
// service in front of the provider's ledger) whether the renewal was
// already charged. It shows a corrupted verification path on a user's
// own system (corrupted_readback): the lookup answers with another
// subscription's charge, or a forged one, for the renewal's reference.
//
// Its planted [Renewer.TransportAsCharged] and [Renewer.FreshKeyOnError]
// misread a server error or a reset connection, an unknown outcome;
// [Renewer.RetryRefused] retries a permanent refusal.
//
// Entry points: [Renewer] (the system, with its defence
// [Renewer.Strict]), [Fixture] (two renewals, their lookups served by a
// proxy) and [Definition].
package renewals

import (
	"context"

	"github.com/faultline/faultline/model"
)

// Tool is the name of the card-charging tool.
const Tool = "billing.charge"

// Renewer renews the task's subscription. It looks the renewal's charge
// up first and, when the lookup shows one, reports the renewal done
// without charging; otherwise it charges under the renewal's reference
// as idempotency key and releases on a receipt of that key. By default
// it takes any charge the lookup returns for the reference as the
// renewal's.
type Renewer struct {
	// Strict verifies a charge the lookup returns on the fields the
	// provider wrote: its idempotency key, subscription and amount must
	// be the renewal's. A charge that is not is no evidence: the renewal
	// is charged under its key (the provider replays a charge it holds).
	Strict bool
	// TransportAsCharged is a planted bug: a charge answered by a server
	// error (5xx) or a reset connection is taken as charged, as a client
	// that checks only for a timeout does, though the provider may have
	// charged nothing (no_invented_progress).
	TransportAsCharged bool
	// FreshKeyOnError is a planted bug: a charge so answered is taken as
	// failed and sent again under a fresh key; when the provider had
	// charged, it charges twice (effect_at_most_once).
	FreshKeyOnError bool
	// RetryRefused is a planted bug: a refused charge whose answer names
	// no retry-after is sent again at once under the renewal's key, as a
	// client that retries every 4xx does; a permanent refusal
	// (do_not_retry) says not to retry (retry_paced).
	RetryRefused bool
}

// Run implements model.System.
func (rn Renewer) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	ref := "renew:" + t.Subject
	found, err := env.Ledger.Readback(ctx, model.ReadbackQuery{ActionRef: ref})
	if err != nil {
		return model.Claim{}, err
	}
	for _, e := range found {
		if !rn.Strict || e.Key == ref && e.Subject == t.Subject && e.Amount == t.Amount {
			return model.Claim{Verdict: model.ClaimRelease, Reason: "renewal already charged"}, nil
		}
	}
	sub, err := env.Context.ReadSubject(ctx, t.Subject)
	if err != nil {
		return model.Claim{}, err
	}
	a := model.Action{Actor: t.Actor, Subject: sub.ID, Tenant: sub.Tenant, Purpose: t.Purpose, Amount: t.Amount,
		ExpectedVersion: sub.Version, IdempotencyKey: ref, TraceID: t.Trace}
	res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: Tool, RequestKey: ref, Action: a})
	if err != nil {
		return model.Claim{}, err
	}
	// a server error (5xx) or a failed connection: the outcome is unknown,
	// as after a timeout (the correct renewer holds, and a later delivery
	// of the job finds the charge by its lookup or replays it under ref)
	if res.Outcome == model.OutcomeUnknown && (res.Class == "server_error" || res.Class == "network_error") {
		switch {
		case rn.TransportAsCharged:
			return model.Claim{Verdict: model.ClaimRelease, Reason: "renewal charged (" + res.Class + ")"}, nil
		case rn.FreshKeyOnError:
			a.IdempotencyKey = env.NewRequestID()
			ref = a.IdempotencyKey
			if res, err = env.Tool.Commit(ctx, model.ToolCall{Tool: Tool, RequestKey: ref, Action: a}); err != nil {
				return model.Claim{}, err
			}
		}
	}
	if rn.RetryRefused && res.Outcome == model.OutcomeRejected && res.RetryAfter == 0 {
		if res, err = env.Tool.Commit(ctx, model.ToolCall{Tool: Tool, RequestKey: ref, Action: a}); err != nil {
			return model.Claim{}, err
		}
	}
	switch {
	case res.Outcome == model.OutcomeRejected:
		return model.Claim{Verdict: model.ClaimDeny, Reason: "charge refused: " + res.Reason}, nil
	case res.Outcome != model.OutcomeCommitted || res.Receipt == nil || res.Receipt.Key != ref:
		return model.Claim{Verdict: model.ClaimHold, Reason: "charge not confirmed: " + res.Reason}, nil
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "renewal charged"}, nil
}

// Fixture is two monthly renewals of one merchant, whose receipt
// lookups pass through a proxy in front of the provider's ledger
// (model.Fixture.ReadbackProxy).
func Fixture() model.Fixture {
	return model.Fixture{Name: "renewals",
		Subjects: []model.Subject{
			{ID: "SUB-204", Tenant: "northwind-media", Status: "active", Amount: 1299, Version: 7},
			{ID: "SUB-318", Tenant: "northwind-media", Status: "active", Amount: 499, Version: 2},
		},
		Tasks: []model.Task{
			{ID: "renew-SUB-204", Actor: "billing-agent", Subject: "SUB-204", Tenant: "northwind-media", Purpose: "renew", Amount: 1299},
			{ID: "renew-SUB-318", Actor: "billing-agent", Subject: "SUB-318", Tenant: "northwind-media", Purpose: "renew", Amount: 499},
		},
		ReadbackProxy: true,
	}
}

// Definition describes the renewer rn for every door: its fixture and
// the built-in invariants a renewal can break (no renewal reported
// charged that the provider did not charge, one charge a renewal).
func Definition(rn Renewer) *model.Definition {
	d := model.Define("renewals", Fixture(), func() model.System { return rn })
	d.Builtin = []string{model.InvNoInventedProgress, model.InvEffectAtMostOnce}
	return d
}
