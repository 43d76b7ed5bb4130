// Package payouts is an example system of its own domain that consumes
// the provider's asynchronous notices: a marketplace agent that pays a
// seller through a payouts tool and settles the payout from the
// provider's webhooks (model.Notices), as a payments integration does.
//
// The agent, for one payout (a model.Task: the seller, the amount in
// cents, the approval it was granted under):
//
//  1. gets the payout approved and checkpoints it ("approved");
//  2. sends it through the payouts tool (ToolPay) under one stable
//     request key ("TASK:pay"), waiting out a rate limit once;
//  3. records the receipt in the evidence ledger and checkpoints the
//     payout as made ("paid", its key as the completed effect);
//  4. in a run whose provider sends notices, applies the notices of the
//     payout that are waiting, checkpoints the settlement they report
//     ("settled", or "failed"), applies those that come after, and claims
//     by its record.
//
// Its planted bug [TrustNotices] applies every notice as it arrives: a
// committed notice adds its payout to the record, a failed one clears it.
// The correct agent applies a notice once (by its id), ignores a failed
// notice while the provider's ledger holds the payout, and reads back a
// payout no notice reported. model.NoticeAgreement is the invariant.
package payouts

import (
	"context"
	"slices"

	"github.com/faultline/faultline/model"
)

// ToolPay is the payouts tool's name.
const ToolPay = "payouts.pay"

// Bugs is a set of planted bugs; the zero value has none.
type Bugs uint8

// TrustNotices applies every notice as it arrives, in arrival order, with
// no check against the provider's ledger.
const TrustNotices Bugs = 1

// Agent is the payout agent with its planted bugs.
type Agent struct{ bugs Bugs }

// Factory returns a factory of fresh agents with bugs (0: the correct one).
func Factory(bugs Bugs) model.Factory {
	return func() model.System { return &Agent{bugs: bugs} }
}

// Fixture is the agent's world: the seller S-9 of the tenant market
// (active, 12,000 cents owed), the approval PAY-9 letting payout-agent
// pay up to 12,000 cents to it until 60,000 ms, and the payout po-9.
func Fixture() model.Fixture {
	return model.Fixture{
		Name:     "payouts",
		Subjects: []model.Subject{{ID: "S-9", Tenant: "market", Status: "active", Version: 3, Amount: 12000}},
		Capabilities: []model.Capability{{ID: "PAY-9", Actor: "payout-agent", Subject: "S-9", Tenant: "market",
			Purpose: "payout", Amount: 12000, Expiry: 60000}},
		Tasks: []model.Task{{ID: "po-9", Actor: "payout-agent", Subject: "S-9", Tenant: "market",
			Purpose: "payout", Amount: 12000, Capability: "PAY-9"}},
	}
}

// Run performs the payout.
func (a *Agent) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	p := &payout{ctx: ctx, env: env, bugs: a.bugs}
	seller, err := env.Context.ReadSubject(ctx, task.Subject)
	if err != nil {
		return model.Claim{}, err
	}
	p.act = model.Action{Actor: task.Actor, Subject: task.Subject, Tenant: task.Tenant, Purpose: task.Purpose, Amount: task.Amount,
		ExpectedVersion: seller.Version, IdempotencyKey: task.ID + ":pay", TraceID: task.Trace}
	c, err := env.Authority.Approve(ctx, task, p.act)
	if err != nil {
		return model.Claim{Verdict: model.ClaimDeny, Reason: "not approved"}, nil
	}
	p.act.CapabilityID, p.act.CapabilityExpiry = c.ID, c.Expiry
	if err := p.save("approved", nil); err != nil {
		return model.Claim{}, err
	}
	key := p.act.IdempotencyKey
	for try := 0; ; try++ {
		res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: ToolPay, RequestKey: key, Action: p.act})
		if err != nil {
			return model.Claim{}, err
		}
		if res.Outcome == model.OutcomeCommitted && res.Receipt != nil {
			if _, err := env.Evidence.Append(ctx, model.EvidenceRecord{Kind: "receipt", Trace: task.Trace,
				EffectKey: res.Receipt.Key, EffectTrace: res.Receipt.Trace, ReceiptID: res.Receipt.ID}); err != nil {
				return model.Claim{}, err
			}
			break
		}
		if res.Class != model.ClassRateLimited || try > 0 {
			return model.Claim{Verdict: model.ClaimHold, Reason: "payout not confirmed"}, nil
		}
		if err := env.Sleep(ctx, res.RetryAfter); err != nil {
			return model.Claim{}, err
		}
	}
	if err := p.save("paid", []string{key}); err != nil {
		return model.Claim{}, err
	}
	if env.Notices == nil {
		return model.Claim{Verdict: model.ClaimRelease, Reason: "paid"}, nil
	}
	return p.settle()
}

// payout is one worker's state.
type payout struct {
	ctx  context.Context
	env  model.Env
	bugs Bugs
	act  model.Action
	seq  int
	// effects are the payouts the notices report made; failed is set
	// when the last applied said the payout failed; seen holds the ids
	// of the notices applied.
	effects []string
	failed  bool
	seen    map[string]bool
}

func (p *payout) save(state string, effects []string) error {
	p.seq++
	return p.env.Store.Save(p.ctx, model.Checkpoint{Seq: p.seq, WorkflowVersion: 1, State: state,
		CompletedEffects: slices.Clone(effects), Action: p.act})
}

func (p *payout) state() string {
	if p.failed {
		return "failed"
	}
	return "settled"
}

// settle records the settlement the notices report, before and after the
// record is written, and claims by it.
func (p *payout) settle() (model.Claim, error) {
	p.effects, p.seen = []string{}, map[string]bool{}
	if err := p.drain(); err != nil {
		return model.Claim{}, err
	}
	if p.bugs&TrustNotices == 0 && len(p.effects) == 0 && !p.failed {
		held, err := p.inLedger()
		if err != nil {
			return model.Claim{}, err
		}
		if held {
			p.effects = append(p.effects, p.act.IdempotencyKey)
		}
	}
	recorded, failed := slices.Clone(p.effects), p.failed
	if err := p.save(p.state(), p.effects); err != nil {
		return model.Claim{}, err
	}
	if err := p.drain(); err != nil {
		return model.Claim{}, err
	}
	if failed != p.failed || !slices.Equal(recorded, p.effects) {
		if err := p.save(p.state(), p.effects); err != nil {
			return model.Claim{}, err
		}
	}
	if p.failed || len(p.effects) == 0 {
		return model.Claim{Verdict: model.ClaimHold, Reason: "payout not settled"}, nil
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "paid and settled"}, nil
}

// inLedger reports whether the provider's ledger holds the payout.
func (p *payout) inLedger() (bool, error) {
	entries, err := p.env.Ledger.Readback(p.ctx, model.ReadbackQuery{ActionRef: p.act.IdempotencyKey})
	return len(entries) > 0, err
}

// drain applies the notices of the payout that are waiting.
func (p *payout) drain() error {
	for {
		n, ok, err := p.env.Notices.Receive(p.ctx)
		if err != nil || !ok {
			return err
		}
		if n.ActionRef != p.act.IdempotencyKey {
			continue
		}
		if p.bugs&TrustNotices == 0 {
			if p.seen[n.ID] || n.Status == "committed" && slices.Contains(p.effects, n.Key) {
				continue
			}
			p.seen[n.ID] = true
			if n.Status != "committed" {
				held, err := p.inLedger()
				if err != nil {
					return err
				}
				if held {
					continue // stale: the provider's ledger holds the payout
				}
			}
		}
		if n.Status == "committed" {
			p.effects, p.failed = append(p.effects, n.Key), false
		} else {
			p.effects, p.failed = p.effects[:0:0], true
		}
	}
}
