// Package accounts is an example system of another domain than the
// reference one: an admin agent that closes user accounts of a SaaS
// tenant, one account a task, under the tenant admin's close grant. It
// shows two faults that live longer than one call on a user's own
// system: a grant revoked while the authority check is answered by a
// cache whose lifetime slides on every read (sliding_grant_cache), and
// an admin identity a long-lived worker captured for one tenant's task
// and hands to the next tenant's (ambient_identity_leak). Its planted
// [Closer.FreshKeyFallback] is a bug only a modified fault in a schedule
// of two finds (a repeated timeout and a plain one).
//
// Entry points: [Closer] (the system, with its two defences [Closer.PerTask]
// and [Closer.MaxGrantAge], and its retries), [Fixture] (two tenants, one
// account each) and [TenantOfRecord] (its own invariant).
package accounts

import (
	"context"
	"errors"
	"fmt"

	"github.com/faultline/faultline/model"
)

// Tool is the name of the account-closing tool.
const Tool = "accounts.close"

// Closer closes the task's account. By default it acts as the admin and
// tenant of the worker's ambient context (model.AmbientOf), as a request
// handler reads its principal, and acts on the authority check's answer
// whatever its age.
type Closer struct {
	// PerTask re-derives the acting admin, tenant and trace from each
	// task instead of the ambient context.
	PerTask bool
	// MaxGrantAge, when positive, is the oldest authority answer (in
	// logical milliseconds, Capability.AsOf) the closer acts on: an older
	// one is re-validated by a fresh approval before the close.
	MaxGrantAge model.Millis
	// Retries is how many times a close whose reply timed out is sent
	// again under the same request key (the provider dedups it).
	Retries int
	// FreshKeyFallback is a planted bug: when every attempt timed out,
	// one more goes out under a fresh request key, as if the request had
	// been lost; a timed-out close commits late, so it closes twice.
	FreshKeyFallback bool
}

// Run implements model.System.
func (c Closer) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	admin, tenant, trace := t.Actor, t.Tenant, t.Trace
	if amb, ok := model.AmbientOf(ctx); ok && !c.PerTask {
		admin, tenant, trace = amb.Actor, amb.Tenant, amb.Trace
	}
	a := model.Action{Actor: admin, Subject: t.Subject, Tenant: tenant, Purpose: t.Purpose,
		IdempotencyKey: t.Subject + ":close", TraceID: trace}
	g, err := env.Authority.Approve(ctx, t, a)
	if errors.Is(err, model.ErrNotFound) {
		return model.Claim{Verdict: model.ClaimDeny, Reason: "no close grant"}, nil
	} else if err != nil {
		return model.Claim{}, err
	}
	a.CapabilityID, a.CapabilityExpiry = g.ID, g.Expiry
	acct, err := env.Context.ReadSubject(ctx, t.Subject)
	if err != nil {
		return model.Claim{}, err
	}
	a.ExpectedVersion = acct.Version
	chk, err := env.Authority.Check(ctx, g.ID)
	if err != nil && !errors.Is(err, model.ErrNotFound) {
		return model.Claim{}, err
	}
	if err != nil || !chk.Live(env.Now()) {
		env.Signals.Warn("grant_not_live", g.ID)
		return model.Claim{Verdict: model.ClaimDeny, Reason: "close grant not live"}, nil
	}
	if c.MaxGrantAge > 0 && env.Now()-chk.AsOf > c.MaxGrantAge {
		if _, err := env.Authority.Approve(ctx, t, a); errors.Is(err, model.ErrNotFound) {
			env.Signals.Warn("grant_not_live", fmt.Sprintf("%s answered as of %d ms, revoked at the issuer", g.ID, chk.AsOf))
			return model.Claim{Verdict: model.ClaimDeny, Reason: "close grant not live"}, nil
		} else if err != nil {
			return model.Claim{}, err
		}
	}
	res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: Tool, RequestKey: a.IdempotencyKey, Action: a})
	for retry := 0; err == nil && res.Class == model.ClassTimeout && retry < c.Retries; retry++ {
		res, err = env.Tool.Commit(ctx, model.ToolCall{Tool: Tool, RequestKey: a.IdempotencyKey, Action: a})
	}
	if err == nil && res.Class == model.ClassTimeout && c.FreshKeyFallback {
		a.IdempotencyKey = env.NewRequestID()
		res, err = env.Tool.Commit(ctx, model.ToolCall{Tool: Tool, RequestKey: a.IdempotencyKey, Action: a})
	}
	if err != nil {
		return model.Claim{}, err
	}
	if res.Outcome != model.OutcomeCommitted {
		return model.Claim{Verdict: model.ClaimHold, Reason: "close not confirmed: " + res.Reason}, nil
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "account closed"}, nil
}

// Fixture is two tenants' admins, each closing one account of their own
// tenant under their own grant.
func Fixture() model.Fixture {
	return model.Fixture{Name: "accounts",
		Subjects: []model.Subject{
			{ID: "U-17", Tenant: "northwind", Status: "active", Version: 3},
			{ID: "U-90", Tenant: "contoso", Status: "active", Version: 8},
		},
		Capabilities: []model.Capability{
			{ID: "GR-nw", Actor: "admin-nw", Subject: "U-17", Tenant: "northwind", Purpose: "close_account", Expiry: 600000},
			{ID: "GR-co", Actor: "admin-co", Subject: "U-90", Tenant: "contoso", Purpose: "close_account", Expiry: 600000},
		},
		Tasks: []model.Task{
			{ID: "close-U-17", Actor: "admin-nw", Subject: "U-17", Tenant: "northwind", Purpose: "close_account", Capability: "GR-nw"},
			{ID: "close-U-90", Actor: "admin-co", Subject: "U-90", Tenant: "contoso", Purpose: "close_account", Capability: "GR-co"},
		},
		OncePerSubject: true,
	}
}

// TenantOfRecord is the example's own invariant: every close in the
// provider's ledger was made in the closed account's own tenant.
var TenantOfRecord = model.UserInvariant{Name: "tenant_of_record", Owner: "accounts", Oracle: "ledger_readback",
	Check: func(v model.View) string {
		for _, e := range v.Ledger() {
			for _, s := range Fixture().Subjects {
				if s.ID == e.Subject && s.Tenant != e.Tenant {
					return fmt.Sprintf("%s of %s closed in tenant %s by %s", e.Subject, s.Tenant, e.Tenant, e.Actor)
				}
			}
		}
		return ""
	}}
