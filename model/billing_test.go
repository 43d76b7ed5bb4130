package model_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/model"
)

// biller is a billing agent of its own, in its own terms (an account, a
// charge approval, a payment tool; no refund, no order): it reads the
// account with its version, gets the charge approved, checkpoints the
// action with a request key minted once, charges the card through the
// payment tool with retries under that key, reads the ledger back, records
// the receipt (or the readback) as evidence, checkpoints the charge and
// claims success. A restarted worker resumes from its checkpoint. It
// propagates no trace: its receipts are its proof.
//
// Each flag plants one defect of the billing agent.
type biller struct {
	freshKeyPerRetry bool // every attempt mints a new request key
	blindResume      bool // a restarted worker ignores its checkpoint and starts over
	trustReply       bool // success is claimed from a committed reply, receipt or not
	// noApproval: the agent's world has no approval step (not a defect:
	// its fixture declares no capabilities)
	noApproval bool
}

const (
	billingTool   = "payments.charge"
	stateApproved = "approved"
	stateCharged  = "charged"
)

func (b biller) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	var cp model.Checkpoint
	resumed := false
	if !b.blindResume {
		got, ok, err := env.Store.Load(ctx, t.ID)
		if err != nil {
			return model.Claim{}, err
		}
		if ok && got.Checksum != model.Checksum(got) {
			env.Signals.Warn("corrupt_checkpoint", "checkpoint "+fmt.Sprint(got.Seq))
			return model.Claim{Verdict: model.ClaimHold, Reason: "corrupt checkpoint"}, nil
		}
		cp, resumed = got, ok
	}
	if resumed && cp.State == stateCharged {
		return model.Claim{Verdict: model.ClaimRelease, Reason: "charged before the restart"}, nil
	}
	a := cp.Action
	key := cp.Data["request_key"]
	if !resumed {
		acct, err := env.Context.ReadSubject(ctx, t.Subject)
		if errors.Is(err, model.ErrNotFound) {
			return model.Claim{Verdict: model.ClaimDeny, Reason: "no such account"}, nil
		} else if err != nil {
			return model.Claim{}, err
		}
		a = model.Action{Actor: t.Actor, Subject: acct.ID, Tenant: acct.Tenant, Purpose: t.Purpose, Amount: t.Amount,
			ExpectedVersion: acct.Version, IdempotencyKey: t.ID + ":charge"}
		var grant model.Capability
		if !b.noApproval {
			var err error
			grant, err = env.Authority.Approve(ctx, t, a)
			if errors.Is(err, model.ErrNotFound) {
				return model.Claim{Verdict: model.ClaimDeny, Reason: "charge not approved"}, nil
			} else if err != nil {
				return model.Claim{}, err
			}
		}
		a.CapabilityID, a.CapabilityExpiry = grant.ID, grant.Expiry
		key = env.NewRequestID()
		cp = model.Checkpoint{Task: t.ID, Seq: 1, WorkflowVersion: 1, State: stateApproved, Action: a, Grant: grant,
			Data: map[string]string{"request_key": key}}
		if err := env.Store.Save(ctx, cp); err != nil {
			return model.Claim{}, err
		}
	}
	var res model.ToolResult
	for attempt := 0; attempt <= t.RetryBudget; attempt++ {
		if b.freshKeyPerRetry && attempt > 0 {
			key = env.NewRequestID()
		}
		var err error
		res, err = env.Tool.Commit(ctx, model.ToolCall{Tool: billingTool, RequestKey: key, Action: a})
		if err != nil {
			return model.Claim{}, err
		}
		if res.Outcome != model.OutcomeUnknown {
			break
		}
		env.Signals.Warn("unknown_outcome", "charge "+key)
	}
	if res.Outcome != model.OutcomeCommitted {
		return model.Claim{Verdict: model.ClaimHold, Reason: "charge not confirmed"}, nil
	}
	if b.trustReply && res.Receipt == nil {
		return model.Claim{Verdict: model.ClaimRelease, Reason: "the payment tool said committed"}, nil
	}
	entries, err := env.Ledger.Readback(ctx, model.ReadbackQuery{ActionRef: a.IdempotencyKey, Subject: a.Subject})
	if err != nil {
		return model.Claim{}, err
	}
	var charged *model.LedgerEntry
	for i := range entries {
		if entries[i].Key == key {
			charged = &entries[i]
		}
	}
	if charged == nil {
		env.Signals.Warn("no_ledger_entry", "charge "+key)
		return model.Claim{Verdict: model.ClaimHold, Reason: "the ledger holds no charge"}, nil
	}
	proof := model.EvidenceRecord{Kind: "readback", Trace: t.Trace, EffectKey: charged.Key, EffectTrace: charged.Trace}
	if res.Receipt != nil {
		proof = model.EvidenceRecord{Kind: "receipt", Trace: t.Trace, EffectKey: res.Receipt.Key,
			EffectTrace: res.Receipt.Trace, ReceiptID: res.Receipt.ID}
	} else {
		env.Signals.Warn("missing_receipt", "charge "+key)
	}
	if ack, err := env.Evidence.Append(ctx, proof); err != nil {
		return model.Claim{}, err
	} else if ack.Outcome != model.OutcomeCommitted {
		env.Signals.Warn("evidence_unconfirmed", "charge "+key)
		return model.Claim{Verdict: model.ClaimHold, Reason: "the evidence ledger did not confirm"}, nil
	}
	cp.Seq, cp.State, cp.CompletedEffects = 2, stateCharged, []string{charged.Key}
	if err := env.Store.Save(ctx, cp); err != nil {
		return model.Claim{}, err
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "charged, receipt " + charged.ReceiptID}, nil
}

// billingFixture is the agent's world: account acct-7 of tenant acme
// (status active, version 3, attributes of its own, no amount: a balance
// is not what the charge checks), the approval appr-7 of a 2,500 charge
// for billing-agent, and the monthly charge. It declares no policy.
func billingFixture() model.Fixture {
	return model.Fixture{Name: "billing",
		Subjects: []model.Subject{{ID: "acct-7", Tenant: "acme", Status: "active", Version: 3, Attrs: map[string]string{"plan": "pro", "card": "visa-4242"}}},
		Capabilities: []model.Capability{{ID: "appr-7", Actor: "billing-agent", Subject: "acct-7", Tenant: "acme",
			Purpose: "monthly_charge", Amount: 2500, Expiry: 600000}},
		Tasks: []model.Task{{ID: "charge-acct-7-2026-12", Actor: "billing-agent", Subject: "acct-7", Tenant: "acme",
			Purpose: "monthly_charge", Amount: 2500, Capability: "appr-7"}},
	}
}

// runBilling runs the agent with every built-in invariant in scope
// (Options.Builtin nil) and returns the result and the names of the
// invariants that broke, in report order.
func runBilling(t *testing.T, b biller, s *model.Schedule) (*model.Result, []string) {
	t.Helper()
	res, err := model.NewHarness(billingFixture(), model.Options{}).Run(func() model.System { return b }, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Invariants) != 10 || res.Invariants[8].Invariant != model.InvRecordedAgreesWithLedger || res.Invariants[9].Invariant != "retry_paced" {
		t.Fatalf("%d invariants reported, want the eight built-in ones, recorded_agrees_with_ledger and retry_paced", len(res.Invariants))
	}
	var broke []string
	for _, inv := range res.Invariants {
		if !inv.Held {
			broke = append(broke, inv.Invariant)
		}
	}
	return res, broke
}

// ordinals returns the ordinals of ev's crossings in a timeline (as the
// run numbered them).
func ordinals(res *model.Result, ev model.EventName) []int {
	var out []int
	for _, e := range res.Timeline.Events() {
		if e.Event == ev {
			out = append(out, e.Ordinal)
		}
	}
	return out
}

func oneFault(ev model.EventName, ordinal int, kind string) *model.Schedule {
	return &model.Schedule{Version: model.ScheduleVersion, Seed: "billing: " + kind,
		Faults: []model.FaultEntry{{Event: ev, Ordinal: ordinal, Kind: kind}}}
}

// TestBillingAgent: a billing agent of another domain than refunds holds
// every core invariant on its correct clean run, and on every run of the
// three single faults below; each planted defect is broken by a single
// fault placed on an event its own clean run crossed, and breaks exactly
// the invariant that names it.
func TestBillingAgent(t *testing.T) {
	clean, broke := runBilling(t, biller{}, &model.Schedule{Version: model.ScheduleVersion, Seed: "billing: clean", Faults: []model.FaultEntry{}})
	if broke != nil {
		for _, inv := range clean.Invariants {
			t.Logf("%s held=%t %s", inv.Invariant, inv.Held, inv.Detail)
		}
		t.Fatalf("the correct agent's clean run broke %v", broke)
	}
	if err := clean.Err(); err != nil {
		t.Fatalf("clean run: %v", err)
	}
	if clean.RunVerdict != model.Recovered || clean.Verdict != model.ClaimRelease || clean.Terms.Effects != 1 || !clean.Terms.Verified {
		t.Fatalf("clean run: %s %s %+v, want a recovered, verified release with one effect", clean.RunVerdict, clean.Verdict, clean.Terms)
	}
	// where the faults go: the agent's own crossings
	commits, writes := ordinals(clean, model.EvToolCommit), ordinals(clean, model.EvCheckpointWrite)
	if !cmp.Equal(commits, []int{1}) || !cmp.Equal(writes, []int{1, 2}) {
		t.Fatalf("clean run crossed tool.commit %v and checkpoint.write %v, want [1] and [1 2]", commits, writes)
	}
	lastWrite := writes[len(writes)-1]
	cases := []struct {
		defect string
		bug    biller
		fault  *model.Schedule
		want   []string
		first  string // the invariant Err names: the first broken
	}{
		// the reply of the charge is lost after the provider committed: a
		// retry under a fresh key charges the card again, and its record
		// names only the second charge
		{"a fresh key per retry", biller{freshKeyPerRetry: true}, oneFault(model.EvToolCommit, commits[0], "timeout_after_commit"),
			[]string{model.InvEffectAtMostOnce, model.InvRecordedAgreesWithLedger}, model.InvEffectAtMostOnce},
		// the worker crashes right after its last checkpoint write (its
		// second; the reference system's third does not exist here): a
		// restart that ignores the checkpoint charges again; its first
		// write withdraws the charge the last one recorded
		{"a blind resume after restart", biller{blindResume: true}, oneFault(model.EvCheckpointWrite, lastWrite, "worker_crash"),
			[]string{model.InvEffectAtMostOnce, model.InvRecordedAgreesWithLedger}, model.InvRecordedAgreesWithLedger},
		// the provider commits and the reply carries no receipt: success
		// claimed from that reply has no proof, and no record of the charge
		{"success from a reply with no receipt", biller{trustReply: true}, oneFault(model.EvToolCommit, commits[0], "partial_success_response"),
			[]string{model.InvProvableOutcome, model.InvRecordedAgreesWithLedger}, model.InvProvableOutcome},
	}
	for _, c := range cases {
		f := c.fault.Faults[0]
		res, broke := runBilling(t, c.bug, c.fault)
		if len(res.Faults) != 1 || !res.Faults[0].Reached || res.Faults[0].FiredAt == 0 {
			t.Errorf("%s: the fault at %s#%d did not fire: %+v", c.defect, f.Event, f.Ordinal, res.Faults)
		}
		if !cmp.Equal(broke, c.want) {
			t.Errorf("%s: %s at %s#%d broke %v, want exactly %v", c.defect, f.Kind, f.Event, f.Ordinal, broke, c.want)
		}
		if res.RunVerdict == model.Recovered {
			t.Errorf("%s: run verdict %s", c.defect, res.RunVerdict)
		}
		var re *model.RunError
		if err := res.Err(); !errors.As(err, &re) || re.Code != 1 || re.Invariant != c.first {
			t.Errorf("%s: Err() = %v, want code 1 for %s", c.defect, err, c.first)
		}
		// the correct agent holds every invariant under the same fault
		fixed, broke := runBilling(t, biller{}, c.fault)
		if err := fixed.Err(); err != nil {
			t.Errorf("the correct agent under %s: %v", f.Kind, err)
		}
		if broke != nil || len(fixed.Faults) != 1 || !fixed.Faults[0].Reached || fixed.Verdict != model.ClaimRelease || fixed.Terms.Effects != 1 {
			t.Errorf("the correct agent under %s at %s#%d: broke %v, faults %+v, claim %s, %d effects", f.Kind, f.Event, f.Ordinal, broke, fixed.Faults, fixed.Verdict, fixed.Terms.Effects)
		}
	}
}

// TestBillingEntitlementIsGeneric: current_entitlement reads what the
// billing fixture declares. With no policy, none is checked; a declared
// policy that allows the action with no cap holds; one that does not, a
// status among the fixture's holds, a state version changed after the
// read and an approval revoked before the charge each break it, with the
// detail that names why, and nothing else breaks.
func TestBillingEntitlementIsGeneric(t *testing.T) {
	clean := &model.Schedule{Version: model.ScheduleVersion, Seed: "billing", Faults: []model.FaultEntry{}}
	cases := []struct {
		name   string
		edit   func(*model.Fixture)
		s      *model.Schedule
		detail string
	}{
		{"a policy that allows, no cap", func(f *model.Fixture) {
			f.Policies = []model.Policy{{Tenant: "acme", Version: 1, Allows: true}}
		}, clean, ""},
		{"a policy under the amount", func(f *model.Fixture) {
			f.Policies = []model.Policy{{Tenant: "acme", Version: 1, Allows: true, MaxAmount: 2000}}
		}, clean, "current policy does not allow the effect"},
		{"a policy that does not allow", func(f *model.Fixture) {
			f.Policies = []model.Policy{{Tenant: "acme", Version: 1}}
		}, clean, "current policy does not allow the effect"},
		{"a suspended account", func(f *model.Fixture) {
			f.Subjects[0].Status, f.Holds = "suspended", []string{"suspended", "closed"}
		}, clean, "record is suspended at effect time"},
		{"an active account among other holds", func(f *model.Fixture) {
			f.Holds = []string{"suspended", "closed"}
		}, clean, ""},
		{"the account changed after the read", nil, oneFault(model.EvAuthorityGrant, 1, "state_version_change"), "state version changed before effect"},
		{"the approval revoked", nil, oneFault(model.EvAuthorityGrant, 1, "capability_revocation"), "capability revoked at effect time"},
	}
	for _, c := range cases {
		f := billingFixture()
		if c.edit != nil {
			c.edit(&f)
		}
		res, err := model.NewHarness(f, model.Options{}).Run(func() model.System { return biller{} }, c.s)
		if err != nil {
			t.Fatal(err)
		}
		for _, inv := range res.Invariants {
			want := c.detail == "" || inv.Invariant != model.InvCurrentEntitlement
			if inv.Held != want || inv.Invariant == model.InvCurrentEntitlement && inv.Detail != c.detail {
				t.Errorf("%s: %s held=%t %q, want held=%t %q", c.name, inv.Invariant, inv.Held, inv.Detail, want, c.detail)
			}
		}
	}
}

// TestActionWithoutAmount: an action that carries no amount (a ticket
// closed, not a sum paid) makes a ledger effect of amount zero; a negative
// amount is an invalid request.
func TestActionWithoutAmount(t *testing.T) {
	f := model.Fixture{Name: "tickets",
		Subjects: []model.Subject{{ID: "TCK-9", Tenant: "acme", Status: "open", Version: 1}},
		Tasks:    []model.Task{{ID: "close-TCK-9", Actor: "bot", Subject: "TCK-9", Tenant: "acme", Purpose: "close"}}}
	for _, amount := range []int64{0, -1} {
		var got model.ToolResult
		sys := runFunc(func(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
			a := model.Action{Actor: t.Actor, Subject: t.Subject, Tenant: t.Tenant, Purpose: t.Purpose, Amount: amount, IdempotencyKey: t.ID}
			var err error
			got, err = env.Tool.Commit(ctx, model.ToolCall{Tool: "tickets.close", RequestKey: t.ID + ":1", Action: a})
			return model.Claim{Verdict: model.ClaimHold}, err
		})
		res, err := model.NewHarness(f, model.Options{Builtin: []string{}}).Run(func() model.System { return sys }, &model.Schedule{Version: model.ScheduleVersion, Faults: []model.FaultEntry{}})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case amount == 0 && (got.Outcome != model.OutcomeCommitted || got.Receipt == nil || res.Terms.Effects != 1):
			t.Errorf("no amount: %+v, %d effects; want one committed effect", got, res.Terms.Effects)
		case amount < 0 && (got.Outcome != model.OutcomeRejected || got.Reason != "invalid request" || res.Terms.Effects != 0):
			t.Errorf("amount %d: %+v, %d effects; want an invalid request", amount, got, res.Terms.Effects)
		}
	}
}

// runFunc is a system that is one function.
type runFunc func(ctx context.Context, env model.Env, t model.Task) (model.Claim, error)

func (f runFunc) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	return f(ctx, env, t)
}

// TestBillingWithoutAuthority: a world that declares no capabilities (no
// approval step) holds current_entitlement and no_invented_progress on a
// correct clean run, and the fresh key per retry still breaks
// effect_at_most_once alone.
func TestBillingWithoutAuthority(t *testing.T) {
	f := billingFixture()
	f.Capabilities, f.Tasks[0].Capability = nil, ""
	run := func(b biller, s *model.Schedule) []string {
		res, err := model.NewHarness(f, model.Options{}).Run(func() model.System { return b }, s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Terms.Effects == 0 {
			t.Fatalf("%+v: no effect", b)
		}
		var broke []string
		for _, inv := range res.Invariants {
			if !inv.Held {
				broke = append(broke, inv.Invariant+": "+inv.Detail)
			}
		}
		return broke
	}
	if broke := run(biller{noApproval: true}, &model.Schedule{Version: model.ScheduleVersion, Faults: []model.FaultEntry{}}); broke != nil {
		t.Errorf("clean run broke %v", broke)
	}
	// the retry's record names only the second charge: the claim
	// contradicts the provider's ledger too
	want := []string{model.InvEffectAtMostOnce + ": second ledger effect for task charge-acct-7-2026-12",
		model.InvRecordedAgreesWithLedger + ": the task's record (checkpoint 2) lacks effect req-1 of the provider's ledger"}
	if broke := run(biller{noApproval: true, freshKeyPerRetry: true}, oneFault(model.EvToolCommit, 1, "timeout_after_commit")); !cmp.Equal(broke, want) {
		t.Errorf("fresh key per retry broke %v, want %v", broke, want)
	}
}

// TestSubjectAttrsAreCopies: a system that changes the attributes of the
// record it read changes neither the World nor the fixture: the next read,
// a View and the next run see them as declared.
func TestSubjectAttrsAreCopies(t *testing.T) {
	f := billingFixture()
	var seen []string
	sys := runFunc(func(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
		for range 2 {
			s, err := env.Context.ReadSubject(ctx, t.Subject)
			if err != nil {
				return model.Claim{}, err
			}
			seen = append(seen, s.Attrs["plan"])
			s.Attrs["plan"] = "free"
		}
		return model.Claim{Verdict: model.ClaimHold}, nil
	})
	var viewed []string
	probe := model.UserInvariant{Name: "probe", Check: func(v model.View) string {
		s, _ := v.Subject("acct-7")
		viewed = append(viewed, s.Attrs["plan"])
		s.Attrs["plan"] = "free"
		return ""
	}}
	h := model.NewHarness(f, model.Options{Builtin: []string{}, Invariants: []model.UserInvariant{probe}})
	for range 2 {
		if _, err := h.Run(func() model.System { return sys }, &model.Schedule{Version: model.ScheduleVersion, Faults: []model.FaultEntry{}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range append(seen, viewed...) {
		if p != "pro" {
			t.Fatalf("reads %v, views %v: want every one pro", seen, viewed)
		}
	}
	if len(seen) != 4 || len(viewed) < 4 || f.Subjects[0].Attrs["plan"] != "pro" {
		t.Fatalf("reads %v, views %v, fixture %v", seen, viewed, f.Subjects[0].Attrs)
	}
}
