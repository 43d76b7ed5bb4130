package model_test

import (
	"context"
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// noticeSchedule is a schedule of the reference system, with notices,
// under controls cs.
func noticeSchedule(cs copperfin.Controls, faults ...model.FaultEntry) *model.Schedule {
	cfg := copperfin.ConfigOfControls(cs)
	cfg.Notices = true
	return &model.Schedule{Version: model.ScheduleVersion, Seed: "notices", Config: cfg, Faults: faults}
}

// receives returns the outcome and detail of every notice.receive of res.
func receives(res *model.Result) []string {
	var out []string
	for _, e := range res.Timeline.Events() {
		if e.Event == model.EvNoticeReceive {
			out = append(out, strings.TrimSpace(e.FaultID+" "+e.Outcome+" "+e.Detail))
		}
	}
	return out
}

// TestCounterfactualPerNoticeKind: each kind of the provider's notices
// breaks recorded_agrees_with_ledger in the typed profile (which has no
// defence of notices) with the detail the oracle derives from the
// checkpoints and the ledger, attributed to the notice fault, and is
// contained by its nominated control, notice_reconcile, added to typed.
// reordered_notice needs two notices waiting: a rate limit on the first
// attempt makes the provider send a failed notice before the committed
// one.
func TestCounterfactualPerNoticeKind(t *testing.T) {
	kinds := model.NoticeKinds()
	if len(kinds) != 4 || kinds[0].Kind != "late_notice" || kinds[1].Kind != "reordered_notice" || kinds[2].Kind != "redelivered_notice" || kinds[3].Kind != "lost_notice" {
		t.Fatalf("notice kinds %+v", kinds)
	}
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	rateLimit := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "rate_limit"}
	want := map[string]struct {
		pre    []model.FaultEntry
		detail string
		recv   []string
	}{
		"late_notice": {nil, "checkpoint 4 withdraws effect O-731:refund:v1, which checkpoint 3 recorded and the provider's ledger holds",
			[]string{"f1 none", "delivered ntc-1 committed key O-731:refund:v1", "none"}},
		"reordered_notice": {[]model.FaultEntry{rateLimit}, "checkpoint 5 withdraws effect O-731:refund:v1, which checkpoint 4 recorded and the provider's ledger holds",
			[]string{"f2 delivered ntc-2 committed key O-731:refund:v1", "delivered ntc-1 failed key O-731:refund:v1", "none", "none"}},
		"redelivered_notice": {nil, "checkpoint 4 records effect O-731:refund:v1 2 times; the provider's ledger holds it 1",
			[]string{"f1 delivered ntc-1 committed key O-731:refund:v1", "delivered ntc-1 committed key O-731:refund:v1", "none", "none"}},
		"lost_notice": {nil, "checkpoint 4 withdraws effect O-731:refund:v1, which checkpoint 3 recorded and the provider's ledger holds",
			[]string{"f1 none", "none"}},
	}
	for _, spec := range kinds {
		w := want[spec.Kind]
		if got := copperfin.Nominated(spec.Kind); len(got) != 1 || got[0] != copperfin.NoticeReconcile {
			t.Errorf("%s: nominated %v", spec.Kind, got)
		}
		fault := model.FaultEntry{Event: spec.Event, Ordinal: spec.Ordinal, Kind: spec.Kind}
		faults := append(append([]model.FaultEntry(nil), w.pre...), fault)
		id := "f" + string(rune('0'+len(faults)))
		res := run(t, noticeSchedule(typed, faults...))
		if f := res.Faults[len(faults)-1]; !f.Reached || f.Fired != 1 {
			t.Errorf("%s: not reached/fired: %+v", spec.Kind, f)
		}
		r, ok := res.Invariant(model.InvRecordedAgreesWithLedger)
		if !ok || r.Held || r.FaultID != id || r.Event != model.EvCheckpointWrite || r.Detail != w.detail {
			t.Errorf("%s undefended: %+v", spec.Kind, r)
		}
		if got := receives(res); strings.Join(got, "|") != strings.Join(w.recv, "|") {
			t.Errorf("%s undefended receives:\n got %q\nwant %q", spec.Kind, got, w.recv)
		}
		for _, inv := range res.Invariants {
			if inv.Invariant != model.InvRecordedAgreesWithLedger && !inv.Held {
				t.Errorf("%s: %s broke too: %+v", spec.Kind, inv.Invariant, inv)
			}
		}
		res = run(t, noticeSchedule(typed.With(copperfin.NoticeReconcile), faults...))
		if f := res.Faults[len(faults)-1]; !f.Reached || f.Fired != 1 || !res.Held() || res.Verdict != model.ClaimRelease || !f.Detected {
			t.Errorf("%s defended: %+v %+v %s", spec.Kind, f, res.Invariants, res.Verdict)
		}
	}
}

// TestLateFailedNoticeOverridesVerifiedSuccess is the corpus's
// notices/late-failed-notice.json: the provider refuses the first attempt
// (its failed notice ntc-1) and commits the retry (ntc-2); the failed
// notice, held at the first receive, comes after the system recorded the
// verified refund as settled (checkpoint 5) and overrides it (checkpoint
// 6, refund_failed): the claim is a hold while the ledger holds the
// refund. notice_reconcile reads the ledger back and ignores the stale
// notice.
func TestLateFailedNoticeOverridesVerifiedSuccess(t *testing.T) {
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	faults := []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "rate_limit"}, {Event: model.EvNoticeReceive, Ordinal: 1, Kind: "late_notice"}}
	res := run(t, noticeSchedule(typed, faults...))
	if got, want := strings.Join(receives(res), "|"), "f2 delivered ntc-2 committed key O-731:refund:v1|none|delivered ntc-1 failed key O-731:refund:v1|none"; got != want {
		t.Errorf("receives %q, want %q", got, want)
	}
	r, _ := res.Invariant(model.InvRecordedAgreesWithLedger)
	if r.Held || r.FaultID != "f2" || r.Detail != "checkpoint 6 withdraws effect O-731:refund:v1, which checkpoint 4 recorded and the provider's ledger holds" ||
		res.Verdict != model.ClaimHold || len(res.Claims) != 1 || res.Claims[0].Reason != "the provider's notice reports the refund failed" {
		t.Errorf("undefended: %+v %s %+v", r, res.Verdict, res.Claims)
	}
	res = run(t, noticeSchedule(typed.With(copperfin.NoticeReconcile), faults...))
	if !res.Held() || res.Verdict != model.ClaimRelease {
		t.Errorf("defended: %+v %s", res.Invariants, res.Verdict)
	}
	warned := false
	for _, e := range res.Timeline.Events() {
		warned = warned || e.Event == model.EvWarn && e.Outcome == "notice_stale"
	}
	if !warned {
		t.Error("defended: no notice_stale warning")
	}
}

// TestNoticeFreeRunHasNoInbox: without Config.Notices the Env has no
// inbox and no run crosses notice.receive (the invariant is checked as in
// every run, after the eight built-ins); with it the clean run crosses
// three receives and reports the same nine invariants, all held. A single-fault schedule
// of a notice kind turns notices on.
func TestNoticeFreeRunHasNoInbox(t *testing.T) {
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	plain := noticeSchedule(typed)
	plain.Config.Notices = false
	res := run(t, plain)
	if len(res.Invariants) != 10 || res.Invariants[8].Invariant != model.InvRecordedAgreesWithLedger || res.Invariants[9].Invariant != "retry_paced" || !res.Held() || len(receives(res)) != 0 {
		t.Errorf("without notices: %d invariants, receives %q", len(res.Invariants), receives(res))
	}
	res = run(t, noticeSchedule(typed))
	if len(res.Invariants) != 10 || res.Invariants[8].Invariant != model.InvRecordedAgreesWithLedger || res.Invariants[9].Invariant != "retry_paced" || !res.Held() ||
		strings.Join(receives(res), "|") != "delivered ntc-1 committed key O-731:refund:v1|none|none" {
		t.Errorf("with notices: %+v receives %q", res.Invariants, receives(res))
	}
	s, err := model.SingleFault("lost_notice", copperfin.ConfigOfProfile(copperfin.ProfileTyped))
	if err != nil || !s.Config.Notices {
		t.Fatalf("SingleFault(lost_notice): %+v %v", s, err)
	}
	if model.HarnessString(s.Config) != "notices" {
		t.Errorf("harness string %q", model.HarnessString(s.Config))
	}
	back, err := model.ParseSchedule(model.Format(s))
	if err != nil || !back.Config.Equal(s.Config) || !strings.Contains(string(model.Format(s)), `"notices": true`) {
		t.Errorf("round trip: %v\n%s", err, model.Format(s))
	}
	sys := &inboxProbe{}
	h := model.NewHarness(copperfin.Copperfin(), model.Options{})
	if _, err := h.Run(func() model.System { return sys }, plain); err != nil || sys.inbox {
		t.Errorf("a run without notices hands an inbox: %v", err)
	}
	if _, err := h.Run(func() model.System { return sys }, noticeSchedule(typed)); err != nil || !sys.inbox {
		t.Errorf("a run with notices hands no inbox: %v", err)
	}
}

// inboxProbe notes whether its Env has an inbox.
type inboxProbe struct{ inbox bool }

func (p *inboxProbe) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	p.inbox = env.Notices != nil
	return model.Claim{Verdict: model.ClaimHold}, nil
}

// recorder commits once, checkpoints the effect by the names its record
// function gives the receipt, and claims verdict (release when empty).
type recorder struct {
	record  func(key, receipt string) [][]string
	verdict model.ClaimVerdict
}

func (s recorder) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	a := model.Action{Actor: task.Actor, Subject: task.Subject, Tenant: task.Tenant, Purpose: task.Purpose, Amount: task.Amount, IdempotencyKey: task.ID}
	res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: "t", RequestKey: task.ID + ":1", Action: a})
	if err != nil || res.Receipt == nil {
		return model.Claim{Verdict: model.ClaimHold}, err
	}
	for i, effects := range s.record(res.Receipt.Key, res.Receipt.ID) {
		if err := env.Store.Save(ctx, model.Checkpoint{Seq: i + 1, State: "s", CompletedEffects: effects}); err != nil {
			return model.Claim{}, err
		}
	}
	if s.verdict != "" {
		return model.Claim{Verdict: s.verdict}, nil
	}
	return model.Claim{Verdict: model.ClaimRelease}, nil
}

// TestNoticeAgreementByKeyOrReceipt: NoticeAgreement, added to
// Options.Invariants in a run without notices, names an effect by its
// request key or its receipt id: recording it by its receipt holds, by
// both names in one checkpoint is recording it twice, dropping it in a
// later checkpoint withdraws it, and a record without it at a release
// lacks it; a task that holds hands its record to a person instead.
func TestNoticeAgreementByKeyOrReceipt(t *testing.T) {
	fx := model.Fixture{Name: "rec", Tasks: []model.Task{{ID: "r1", Actor: "a", Subject: "s", Tenant: "t", Purpose: "p"}}}
	opts := model.Options{Builtin: []string{}, Invariants: []model.UserInvariant{model.NoticeAgreement()}}
	for _, c := range []struct {
		name    string
		record  func(key, receipt string) [][]string
		verdict model.ClaimVerdict
		detail  string
	}{
		{"receipt", func(k, r string) [][]string { return [][]string{{r}} }, "", ""},
		{"both names", func(k, r string) [][]string { return [][]string{{r, k}} }, "", "checkpoint 1 records effect r1:1 2 times; the provider's ledger holds it 1"},
		{"withdrawn", func(k, r string) [][]string { return [][]string{{k}, {}} }, "", "checkpoint 2 withdraws effect r1:1, which checkpoint 1 recorded and the provider's ledger holds"},
		{"missing", func(k, r string) [][]string { return [][]string{{}} }, "", "the task's record (checkpoint 1) lacks effect r1:1 of the provider's ledger"},
		{"missing, held", func(k, r string) [][]string { return [][]string{{}} }, model.ClaimHold, ""},
	} {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: c.name}
		res, err := model.NewHarness(fx, opts).Run(func() model.System { return recorder{c.record, c.verdict} }, s)
		if err != nil {
			t.Fatal(err)
		}
		r, ok := res.Invariant(model.InvRecordedAgreesWithLedger)
		// retry_paced is checked beside the system's own: nothing asked for a wait
		if !ok || len(res.Invariants) != 2 || res.Invariants[0].Invariant != "retry_paced" || !res.Invariants[0].Held || r.Held != (c.detail == "") || r.Detail != c.detail {
			t.Errorf("%s: %+v", c.name, res.Invariants)
		}
	}
}

// TestWrongClaimUnderFullControls: the reference system under its seven
// controls and notice_reconcile, without notices, against the provider's
// ledger (recorded_agrees_with_ledger in scope). Each schedule once made a
// wrong claim that none of the eight built-in invariants sees, and the
// deny_over_ledger mutant keeps it: a checkpoint rollback, then the
// capability revoked, and the resumed worker denies the refund its
// predecessor made; a reply lost and the trace replaced, and the worker
// denies its own refund as another request's; the same after a rollback,
// when the resumed worker's first send is answered with the replay of
// its predecessor's late commit; with notices, a lagging
// readback after a rollback withdraws the verified refund from the record.
// The fixed system releases or holds, and every invariant holds.
func TestWrongClaimUnderFullControls(t *testing.T) {
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	cs := typed.With(copperfin.NoticeReconcile)
	cases := []struct {
		name    string
		notices bool
		faults  []model.FaultEntry
		seq     int
		detail  string
		fixed   model.ClaimVerdict
	}{
		{"rollback then revocation", false, []model.FaultEntry{{Event: model.EvCheckpointWrite, Ordinal: 3, Kind: "checkpoint_rollback"},
			{Event: model.EvCheckpointLoad, Ordinal: 2, Kind: "capability_revocation"}},
			33, "the task's record (checkpoint 2) lacks effect O-731:refund:v1 of the provider's ledger", model.ClaimRelease},
		{"trace replaced after a lost reply", false, []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"},
			{Event: model.EvToolCommit, Ordinal: 1, Kind: "break_trace_lineage"}},
			25, "the task's record (checkpoint 2) lacks effect O-731:refund:v1 of the provider's ledger", model.ClaimHold},
		{"rollback after a late commit under a replaced trace", false, []model.FaultEntry{{Event: model.EvCheckpointWrite, Ordinal: 3, Kind: "checkpoint_rollback"},
			{Event: model.EvToolCommit, Ordinal: 1, Kind: "break_trace_lineage"}, {Event: model.EvToolCommit, Ordinal: 1, Kind: "tool_timeout"}},
			35, "the task's record (checkpoint 2) lacks effect O-731:refund:v1 of the provider's ledger", model.ClaimHold},
		{"lagging readback after a rollback", true, []model.FaultEntry{{Event: model.EvLedgerReadback, Ordinal: 3, Kind: "lagging_readback"},
			{Event: model.EvCheckpointWrite, Ordinal: 4, Kind: "checkpoint_rollback"}},
			37, "checkpoint 4 withdraws effect O-731:refund:v1, which checkpoint 3 recorded and the provider's ledger holds", model.ClaimRelease},
	}
	opts := model.Options{Invariants: []model.UserInvariant{model.NoticeAgreement()}}
	for _, c := range cases {
		for _, mutant := range []string{string(copperfin.DenyOverLedger), ""} {
			cfg := copperfin.WithMutant(copperfin.ConfigOfControls(cs), mutant)
			cfg.Notices = c.notices
			factory, err := copperfin.Configured(cfg)
			if err != nil {
				t.Fatal(err)
			}
			s := &model.Schedule{Version: model.ScheduleVersion, Seed: "wrong claim", Config: cfg, Faults: c.faults}
			res, err := model.NewHarness(copperfin.Copperfin(), opts).Run(factory, s)
			if err != nil {
				t.Fatal(err)
			}
			r, _ := res.Invariant(model.InvRecordedAgreesWithLedger)
			others := true
			for _, inv := range res.Invariants {
				others = others && (inv.Held || inv.Invariant == model.InvRecordedAgreesWithLedger)
			}
			if mutant != "" {
				if r.Held || r.FirstSeq != c.seq || r.Detail != c.detail || !others {
					t.Errorf("%s, %s: %+v (others held %v)", c.name, mutant, r, others)
				}
				continue
			}
			if !res.Held() || res.Verdict != c.fixed {
				t.Errorf("%s, fixed: %+v %s %+v", c.name, res.Invariants, res.Verdict, res.Claims)
			}
		}
	}
}
