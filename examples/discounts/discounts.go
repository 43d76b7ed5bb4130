// Package discounts is an example of the policy-age signal on a system of
// another domain: a pricing agent applies a loyalty discount to a
// customer's cart under the tenant's discount policy, which it reads from
// a policy replica (model.ContextReader.ReadPolicy). A replica whose fetch
// fails (policy_fetch_failed) keeps serving its last copy, whose age is
// the read's time minus model.Policy.AsOf. The fixture states the oldest
// policy a discount may be applied on (model.Fixture.MaxPolicyAge), so
// every run checks policy_fresh.
package discounts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/faultline/faultline/model"
)

// Tool is the pricing tool the agent commits through.
const Tool = "pricing.apply_discount"

// MaxAge is the oldest policy copy, in logical ms since its replica's last
// fetch, the careful agent acts on: a fifth of the fixture's bound
// (fixtureMaxAge), so the commit that follows the read lands inside it.
const MaxAge model.Millis = 10

// fixtureMaxAge is the fixture's max_policy_age, in logical ms.
const fixtureMaxAge model.Millis = 50

// refetchWait is the wait, in logical ms, before a policy found too old is
// fetched again.
const refetchWait model.Millis = 100

// refetches is how many times a policy found too old is fetched again.
const refetches = 3

// Agent applies one discount. IgnoreAge is the unprotected agent: it
// applies the discount on whatever copy the replica serves, however old.
type Agent struct{ IgnoreAge bool }

// Run reads the cart and the tenant's policy, waits for a fresh policy
// while the replica's copy is older than MaxAge (denying when none comes
// after three refetches), then applies the discount under one key.
func (g Agent) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	cart, err := env.Context.ReadSubject(ctx, t.Subject)
	if err != nil {
		return model.Claim{}, err
	}
	p, err := env.Context.ReadPolicy(ctx, t.Tenant)
	if err != nil {
		return model.Claim{}, err
	}
	for i := 0; !g.IgnoreAge && env.Now()-p.AsOf > MaxAge; i++ {
		if i == refetches {
			return model.Claim{Verdict: model.ClaimDeny, Reason: "discount policy " + strconv.FormatInt(int64(env.Now()-p.AsOf), 10) + " ms old: no fresh fetch"}, nil
		}
		if err := env.Sleep(ctx, refetchWait); err != nil {
			return model.Claim{}, err
		}
		if p, err = env.Context.ReadPolicy(ctx, t.Tenant); err != nil {
			return model.Claim{}, err
		}
	}
	if !p.Allows || p.MaxAmount > 0 && t.Amount > p.MaxAmount {
		return model.Claim{Verdict: model.ClaimDeny, Reason: "the discount policy does not allow it"}, nil
	}
	a := model.Action{Actor: t.Actor, Subject: cart.ID, Tenant: t.Tenant, Purpose: t.Purpose, Amount: t.Amount,
		ExpectedVersion: cart.Version, PolicyVersion: p.Version, IdempotencyKey: t.ID + ":discount", TraceID: t.Trace}
	res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: Tool, RequestKey: a.IdempotencyKey, Action: a})
	if err != nil {
		return model.Claim{}, err
	}
	if res.Outcome != model.OutcomeCommitted || res.Class == model.ClassErrorInBody {
		return model.Claim{Verdict: model.ClaimHold, Reason: "not applied: " + res.Outcome.String()}, nil
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "discount applied"}, nil
}

// Store returns the fixture: one cart of tenant shop-1, a discount policy
// allowing up to 1,500 cents, a task applying 1,000 cents, and a
// max_policy_age of 50 logical ms.
func Store() model.Fixture {
	return model.Fixture{
		Name:         "discount-store",
		Subjects:     []model.Subject{{ID: "cart-77", Tenant: "shop-1", Status: "open", Version: 3, Amount: 8000}},
		Policies:     []model.Policy{{Tenant: "shop-1", Version: 5, Allows: true, MaxAmount: 1500}},
		Tasks:        []model.Task{{ID: "discount-cart-77", Actor: "pricing-agent", Subject: "cart-77", Tenant: "shop-1", Purpose: "loyalty_discount", Amount: 1000}},
		Holds:        []string{"frozen"},
		MaxPolicyAge: fixtureMaxAge,
	}
}

// Definition describes the agent, checking no_invented_progress (and, as
// every run of its fixture, policy_fresh). Its system config is
// {"ignore_age": bool}; an unknown field is an error.
func Definition() *model.Definition {
	return &model.Definition{Name: "discounts", Fixtures: []model.Fixture{Store()}, Builtin: []string{model.InvNoInventedProgress},
		Configure: func(system json.RawMessage) (model.Factory, error) {
			var s struct {
				IgnoreAge bool `json:"ignore_age"`
			}
			if len(system) > 0 {
				dec := json.NewDecoder(bytes.NewReader(system))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&s); err != nil {
					return nil, fmt.Errorf("discounts: config: %w", err)
				}
			}
			return func() model.System { return Agent{IgnoreAge: s.IgnoreAge} }, nil
		}}
}
