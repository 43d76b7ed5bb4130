// Package billing is an example system of its own domain, tested as the
// README tells a user to test theirs: a billing agent that charges a
// customer's card for an invoice through a payment tool.
//
// The agent, for one invoice (a model.Task: the account, the amount in
// pence, the approval it was granted under):
//
//  1. resumes from the newest checkpoint, checked (checksum, head,
//     workflow version), or starts fresh;
//  2. reads the account (its status, its state version, its balance due)
//     and gets the charge approved (an approval is a model.Capability);
//  3. checkpoints the approved charge, then charges the card through the
//     payment tool (ToolCharge), writing a checkpoint ahead of every
//     attempt and retrying an unknown outcome under one stable request key
//     ("INVOICE:charge"), so that a retry after a lost reply is recognised
//     by the provider; the charge asks the provider to check, with the
//     charge, that the approval is live and the account is at the version
//     read (model.GuardCapability, model.GuardState);
//  4. reads the charge back from the provider's ledger, checkpoints it and
//     records its receipt in the evidence ledger;
//  5. claims the invoice paid (a release), or holds or denies; a charge
//     rejected after an attempt of unknown outcome is denied only when the
//     ledger holds no charge of the invoice (the earlier attempt's on its
//     trace is paid; on another trace, it holds).
//
// Its six planted bugs ([Bugs], off unless a config turns them on):
// [FreshKeyPerRetry], [BlindResume], [ReceiptFromReply],
// [FreshBudgetOnResume], [ChargeAfterLostCheckpoint] and [DenyOverCharge],
// the last three found only by a composition of two faults. Its own
// invariants are in invariants.go, its [Definition] in definition.go.
package billing

import (
	"context"
	"errors"
	"strconv"

	"github.com/faultline/faultline/model"
)

// ToolCharge is the payment tool's name.
const ToolCharge = "payments.charge"

// WorkflowVersion is the version written into every checkpoint.
const WorkflowVersion = 1

// Checkpoint states, in order.
const (
	stateApproved = "approved" // the charge is approved, nothing sent
	stateCharging = "charging" // an attempt is reserved, written ahead of its send
	stateCharged  = "charged"  // the ledger holds the charge (Data: the receipt)
)

// minAttemptTime is the time, in logical milliseconds, an attempt needs
// left before the deadline to be started.
const minAttemptTime model.Millis = 100

// Bugs is a set of planted bugs; the zero value has none (the correct
// agent).
type Bugs uint8

// The planted bugs.
const (
	// FreshKeyPerRetry: a retry after an unknown outcome goes out under a
	// fresh request key, so the provider charges again (charged_once).
	FreshKeyPerRetry Bugs = 1 << iota
	// BlindResume: a restarted worker resumes from whatever checkpoint the
	// store serves (missing, stale, corrupt, of another workflow version)
	// without checking it (resume_from_checkpoint).
	BlindResume
	// ReceiptFromReply: a committed reply is taken as proof of payment
	// without reading the charge back, so a reply that carried no receipt
	// is recorded and claimed as paid (paid_has_receipt).
	ReceiptFromReply
	// FreshBudgetOnResume: a restarted worker forgets the attempts its
	// checkpoint records and starts a fresh retry budget, so a charge
	// whose budget ran out before the restart is attempted again
	// (budget). No single fault shows it: it takes one that spends the
	// budget and one that restarts the worker after it.
	FreshBudgetOnResume
	// ChargeAfterLostCheckpoint: a restarted worker that resumes into an
	// attempt (its newer checkpoint lost, rolled back to the one written
	// ahead of the charge) and finds no charge on the ledger concludes
	// that none went out and charges again under a fresh request key, so
	// a lagging ledger read makes the provider charge twice
	// (charged_once). It takes two faults: a lost checkpoint and a
	// lagging readback.
	ChargeAfterLostCheckpoint
	// DenyOverCharge: a charge rejected on a retry after an attempt of
	// unknown outcome is denied without reading the ledger, so an invoice
	// whose first attempt went through is claimed unpaid
	// (recorded_agrees_with_ledger). It takes two faults: a lost reply
	// after the commit and a rejection of the retry.
	DenyOverCharge
)

// Agent is the billing agent with its planted bugs.
type Agent struct{ bugs Bugs }

// Factory returns a factory of fresh agents with bugs (0: the correct one).
func Factory(bugs Bugs) model.Factory {
	return func() model.System { return &Agent{bugs: bugs} }
}

// Fixture is the agent's world: the account ACC-42 of tenant acme (active,
// state version 7, 4,900 pence due), the approval APR-1042 letting
// billing-agent charge up to 4,900 pence to it until 60,000 ms, and the
// invoice inv-1042 charging 4,900 pence under it.
func Fixture() model.Fixture {
	return model.Fixture{
		Name:     "billing",
		Subjects: []model.Subject{{ID: "ACC-42", Tenant: "acme", Status: "active", Version: 7, Amount: 4900}},
		Capabilities: []model.Capability{{ID: "APR-1042", Actor: "billing-agent", Subject: "ACC-42", Tenant: "acme",
			Purpose: "invoice", Amount: 4900, Expiry: 60000}},
		Tasks: []model.Task{{ID: "inv-1042", Actor: "billing-agent", Subject: "ACC-42", Tenant: "acme",
			Purpose: "invoice", Amount: 4900, Capability: "APR-1042"}},
	}
}

// invoice is one worker's state; only checkpoints survive a restart.
type invoice struct {
	ctx        context.Context
	env        model.Env
	task       model.Task
	bugs       Bugs
	charge     model.Action
	grant      model.Capability
	attempts   int
	deadlineAt model.Millis
	seq        int
	receipt    string
	freshKey   string // the key a resumed worker charges under (the bug)
	foreign    bool   // lookup saw a charge of the invoice on another trace
}

func (v *invoice) end(verdict model.ClaimVerdict, code, reason string) (model.Claim, error) {
	v.env.Signals.Warn(code, reason)
	return model.Claim{Verdict: verdict, Reason: reason, TimedOut: code == "deadline"}, nil
}

func (v *invoice) save(state string) error {
	v.seq++
	cp := model.Checkpoint{Seq: v.seq, WorkflowVersion: WorkflowVersion, State: state, Attempt: v.attempts,
		RetryRemaining: 1 + v.task.RetryBudget - v.attempts, DeadlineRemaining: v.deadlineAt - v.env.Now(),
		Action: v.charge, Grant: v.grant}
	if v.receipt != "" {
		cp.CompletedEffects = []string{v.receipt} // the receipt id the provider returned
		cp.Data = map[string]string{"receipt": v.receipt}
	}
	return v.env.Store.Save(v.ctx, cp)
}

// Run charges the invoice. It returns model.ErrWorkerCrashed (possibly
// wrapped) when the harness crashed the worker.
func (a *Agent) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	v := &invoice{ctx: ctx, env: env, task: task, bugs: a.bugs, deadlineAt: task.Started + task.Deadline}
	cp, resumed, err := env.Store.Load(ctx, task.ID)
	if err != nil {
		return model.Claim{}, err
	}
	if a.bugs&BlindResume == 0 {
		if why := invalid(cp, resumed); why != "" {
			return v.end(model.ClaimHold, "checkpoint_invalid", why)
		}
	}
	state := ""
	if resumed {
		state = cp.State
		v.charge, v.grant, v.attempts, v.seq, v.receipt = cp.Action, cp.Grant, cp.Attempt, cp.Seq, cp.Data["receipt"]
		if a.bugs&FreshBudgetOnResume != 0 {
			v.attempts = 0
		}
	}
	switch state {
	case stateApproved, stateCharging, stateCharged:
	default: // a fresh invoice (or, resuming blindly, one it cannot read)
		if c, done, err := v.approve(); done || err != nil {
			return c, err
		}
		if err := v.save(stateApproved); err != nil {
			return model.Claim{}, err
		}
		state = stateApproved
	}
	if state != stateCharged {
		if c, done, err := v.pay(state == stateCharging); done || err != nil {
			return c, err
		}
		if err := v.save(stateCharged); err != nil {
			return model.Claim{}, err
		}
	}
	return v.record()
}

// invalid says why a loaded checkpoint must not be resumed from, or "".
func invalid(cp model.Checkpoint, resumed bool) string {
	switch {
	case !resumed && cp.Head > 0:
		return "checkpoint " + strconv.Itoa(cp.Head) + " was acknowledged but the store serves none"
	case !resumed:
		return ""
	case cp.WorkflowVersion != WorkflowVersion:
		return "checkpoint of workflow version " + strconv.Itoa(cp.WorkflowVersion)
	case model.Checksum(cp) != cp.Checksum:
		return "checkpoint " + strconv.Itoa(cp.Seq) + " fails its checksum"
	case cp.Seq < cp.Head:
		return "checkpoint " + strconv.Itoa(cp.Seq) + " is older than the acknowledged " + strconv.Itoa(cp.Head)
	}
	return ""
}

// approve reads the account and gets the charge approved; done ends the
// invoice with claim c.
func (v *invoice) approve() (c model.Claim, done bool, err error) {
	t := v.task
	acct, err := v.env.Context.ReadSubject(v.ctx, t.Subject)
	switch {
	case errors.Is(err, model.ErrNotFound):
		c, err = v.end(model.ClaimDeny, "unknown_account", "no account "+t.Subject)
		return c, true, err
	case err != nil:
		return c, true, err
	case acct.Status != "active" || acct.Tenant != t.Tenant || acct.Amount < t.Amount:
		c, err = v.end(model.ClaimDeny, "not_billable", "account "+t.Subject+" is "+acct.Status+", "+strconv.FormatInt(acct.Amount, 10)+" due")
		return c, true, err
	}
	v.charge = model.Action{Actor: t.Actor, Subject: acct.ID, Tenant: acct.Tenant, Purpose: t.Purpose, Amount: t.Amount,
		ExpectedVersion: acct.Version, IdempotencyKey: t.ID + ":charge", TraceID: t.Trace}
	v.grant, err = v.env.Authority.Approve(v.ctx, t, v.charge)
	if errors.Is(err, model.ErrNotFound) {
		c, err = v.end(model.ClaimDeny, "not_approved", "no live approval for "+t.ID)
		return c, true, err
	} else if err != nil {
		return c, true, err
	}
	v.charge.CapabilityID, v.charge.CapabilityExpiry = v.grant.ID, v.grant.Expiry
	return c, false, nil
}

// lookup reads the charge back from the provider's ledger: its receipt id,
// or "" when the ledger holds none on the invoice's trace (a charge on
// another trace is no proof of this decision's).
func (v *invoice) lookup() (string, error) {
	entries, err := v.env.Ledger.Readback(v.ctx, model.ReadbackQuery{ActionRef: v.charge.IdempotencyKey, Subject: v.charge.Subject})
	for _, e := range entries {
		switch {
		case e.Tool != ToolCharge || e.ReceiptID == "":
		case e.Trace != v.charge.TraceID:
			v.foreign = true
			v.env.Signals.Warn("trace_lineage", "charge "+e.Key+" is on trace "+e.Trace+", not "+v.charge.TraceID)
		default:
			return e.ReceiptID, err
		}
	}
	return "", err
}

// pay charges the card until the ledger holds the charge; resuming is true
// when a restarted worker resumes into an attempt that may have been sent.
func (v *invoice) pay(resuming bool) (c model.Claim, done bool, err error) {
	env, t := v.env, v.task
	if resuming {
		if v.receipt, err = v.lookup(); err != nil || v.receipt != "" {
			return c, err != nil, err
		}
		if v.bugs&ChargeAfterLostCheckpoint != 0 {
			v.freshKey = env.NewRequestID()
		}
	}
	uncertain := resuming // an earlier attempt may have been charged
	for try := 0; ; try++ {
		if v.attempts >= 1+t.RetryBudget {
			c, err = v.end(model.ClaimHold, "retries_exhausted", "charge unresolved after "+strconv.Itoa(v.attempts)+" attempts")
			return c, true, err
		}
		v.attempts++
		if err := v.save(stateCharging); err != nil {
			return c, true, err
		}
		if v.deadlineAt-env.Now() < minAttemptTime { // checked after the write, which takes time too
			c, err = v.end(model.ClaimHold, "deadline", "charge unresolved at the deadline")
			return c, true, err
		}
		key := v.charge.IdempotencyKey
		if v.freshKey != "" {
			key = v.freshKey
		}
		if try > 0 && v.bugs&FreshKeyPerRetry != 0 {
			key = env.NewRequestID()
		}
		res, err := env.Tool.Commit(v.ctx, model.ToolCall{Tool: ToolCharge, RequestKey: key, Action: v.charge,
			Guard: model.GuardCapability | model.GuardState})
		if err != nil {
			return c, true, err
		}
		switch {
		case res.Outcome == model.OutcomeCommitted && v.bugs&ReceiptFromReply != 0:
			if res.Receipt != nil {
				v.receipt = res.Receipt.ID
			}
			return c, false, nil
		case res.Outcome == model.OutcomeCommitted:
			if v.receipt, err = v.lookup(); err != nil {
				return c, true, err
			}
			if v.receipt == "" {
				c, err = v.end(model.ClaimHold, "charge_not_on_ledger", "the provider answered committed but its ledger holds no charge on this trace")
			}
			return c, v.receipt == "", err
		case res.Class == model.ClassRateLimited:
			env.Signals.Warn("rate_limited", "retry after "+strconv.FormatInt(int64(res.RetryAfter), 10)+" ms")
			if err := env.Sleep(v.ctx, res.RetryAfter); err != nil {
				return c, true, err
			}
		case res.Outcome == model.OutcomeRejected:
			if uncertain && v.bugs&DenyOverCharge == 0 {
				// the rejection is of this attempt: an earlier one may
				// have been charged, and then the invoice is paid
				if v.receipt, err = v.lookup(); err != nil || v.receipt != "" {
					return c, err != nil, err
				}
				if v.foreign { // a charge it cannot prove its own: not a denial
					c, err = v.end(model.ClaimHold, "charge_unattributed", "charge rejected, but the ledger holds a charge of the invoice on another trace")
					return c, true, err
				}
			}
			c, err = v.end(model.ClaimDeny, "charge_rejected", "charge rejected: "+res.Class+": "+res.Reason)
			return c, true, err
		default:
			uncertain = true
			env.Signals.Warn("unknown_outcome", "charge outcome unknown: "+res.Class)
		}
	}
}

// record files the receipt in the evidence ledger, making sure it is
// there, and claims the invoice paid.
func (v *invoice) record() (model.Claim, error) {
	rec := model.EvidenceRecord{Kind: "receipt", Trace: v.task.Trace, EffectKey: v.charge.IdempotencyKey,
		EffectTrace: v.charge.TraceID, ReceiptID: v.receipt}
	for range 2 {
		ack, err := v.env.Evidence.Append(v.ctx, rec)
		if err != nil {
			return model.Claim{}, err
		}
		if ack.Outcome == model.OutcomeCommitted {
			return model.Claim{Verdict: model.ClaimRelease, Reason: "paid: " + v.task.ID + ", receipt " + v.receipt}, nil
		}
		v.env.Signals.Warn("receipt_unrecorded", "the evidence ledger did not acknowledge receipt "+v.receipt)
		found, err := v.env.Evidence.Lookup(v.ctx, v.task.Trace)
		if err != nil {
			return model.Claim{}, err
		}
		for _, x := range found {
			if x.Kind == "receipt" && x.ReceiptID == v.receipt {
				return model.Claim{Verdict: model.ClaimRelease, Reason: "paid: " + v.task.ID + ", receipt " + v.receipt}, nil
			}
		}
	}
	return v.end(model.ClaimHold, "receipt_unrecorded", "receipt "+v.receipt+" could not be recorded")
}
