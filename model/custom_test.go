package model_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// effectsOfTask is a user invariant with the built-in effect_at_most_once's
// predicate, written only against the View.
var effectsOfTask = model.UserInvariant{Name: "one_effect_per_task", Owner: "payments", Oracle: "ledger_readback",
	Doc: "at most one ledger effect per task",
	Check: func(v model.View) string {
		n := map[string]int{}
		for _, e := range v.Ledger() {
			if n[e.Task]++; n[e.Task] > 1 {
				return "second ledger effect for task " + e.Task
			}
		}
		return ""
	}}

func runWith(t *testing.T, opts model.Options, s *model.Schedule) *model.Result {
	t.Helper()
	cs, err := copperfin.ControlsOf(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	factory, err := copperfin.NewFactory(cs, copperfin.MutantOf(s.Config))
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.NewHarness(copperfin.Copperfin(), opts).Run(factory, s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestUserInvariantMatchesBuiltin: a user invariant with the predicate of
// effect_at_most_once, checked through the View, is reported exactly as
// the built-in one (held, first seq, event, fault, detail) for every fault
// kind under the baseline (with the kind's mutant) and typed profiles, and
// adding it changes neither the built-in results nor the terms.
func TestUserInvariantMatchesBuiltin(t *testing.T) {
	broken := 0
	for _, spec := range model.Catalogue() {
		for _, p := range []copperfin.Profile{copperfin.ProfileBaseline, copperfin.ProfileTyped} {
			s, _ := model.SingleFault(spec.Kind, copperfin.ConfigOfProfile(p))
			if p == copperfin.ProfileBaseline {
				s.Config = copperfin.WithMutant(s.Config, copperfin.MutantFor(spec.Kind))
			}
			plain := runWith(t, model.Options{}, s)
			with := runWith(t, model.Options{Invariants: []model.UserInvariant{effectsOfTask}}, s)
			// the eight, recorded_agrees_with_ledger, retry_paced, then the user's
			if len(plain.Invariants) != len(model.Invariants)+2 || len(with.Invariants) != len(model.Invariants)+3 || with.Invariants[len(model.Invariants)+1].Invariant != "retry_paced" {
				t.Fatalf("%s/%s: %d invariant results", spec.Kind, p, len(with.Invariants))
			}
			if diff := cmp.Diff(plain.Invariants, with.Invariants[:len(plain.Invariants)]); diff != "" {
				t.Errorf("%s/%s: built-in results changed (-without +with):\n%s", spec.Kind, p, diff)
			}
			if plain.Terms != with.Terms || plain.RunVerdict != with.RunVerdict {
				t.Errorf("%s/%s: terms or verdict changed: %+v %s / %+v %s", spec.Kind, p, plain.Terms, plain.RunVerdict, with.Terms, with.RunVerdict)
			}
			b, _ := with.Invariant(model.InvEffectAtMostOnce)
			u, _ := with.Invariant("one_effect_per_task")
			b.Invariant, b.Oracle = u.Invariant, u.Oracle
			if b != u {
				t.Errorf("%s/%s: user invariant %+v, built-in %+v", spec.Kind, p, u, b)
			}
			if !u.Held {
				broken++
				observed := false
				for _, f := range with.Faults {
					observed = observed || f.ID == u.FaultID && slices.Contains(f.Observed, "one_effect_per_task")
				}
				if !observed {
					t.Errorf("%s/%s: fault %s does not list the user invariant as observed: %+v", spec.Kind, p, u.FaultID, with.Faults)
				}
			}
		}
	}
	// the kinds that break effect_at_most_once under the baseline (with
	// their mutants): timeout_after_commit, checkpoint_rollback,
	// malformed_response, output_drift, tool_timeout, missing_checkpoint
	// and stale_checkpoint (with stale_checkpoint_accepted),
	// lagging_readback (with resend_unseen) and duplicate_tool_call (with
	// duplicate_call_executed); none under typed
	if broken != 9 {
		t.Fatalf("user invariant broken in %d runs, want 9", broken)
	}
}

// TestUserInvariantOnTermsPath: the Terms fast path checks user invariants
// too, and gives the terms Run gives.
func TestUserInvariantOnTermsPath(t *testing.T) {
	s, _ := model.SingleFault("timeout_after_commit", copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
	opts := model.Options{Builtin: []string{}, Invariants: []model.UserInvariant{effectsOfTask}}
	h := model.NewHarness(copperfin.Copperfin(), opts)
	res, err := h.Run(copperfin.Factory(0), s)
	if err != nil {
		t.Fatal(err)
	}
	terms, err := h.Terms(copperfin.Factory(0), s)
	if err != nil {
		t.Fatal(err)
	}
	if terms != res.Terms {
		t.Fatalf("Terms %+v, Run %+v", terms, res.Terms)
	}
	want := model.Terms{Detected: true, Contained: false, UnsafeEscape: true, Effects: 2, Verdict: model.ClaimUnsafe}
	if terms != want {
		t.Fatalf("terms %+v, want %+v", terms, want)
	}
}

// TestNarrowedScope: built-in invariants out of scope are neither checked
// nor reported, and the terms come from the invariants in scope.
func TestNarrowedScope(t *testing.T) {
	s, _ := model.SingleFault("timeout_after_commit", copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
	// the full reference oracle: a duplicate, unsafe
	full := runWith(t, model.Options{}, s)
	if full.Terms.Effects != 2 || !full.Terms.DuplicateEffect || full.RunVerdict != model.Unrecoverable {
		t.Fatalf("full oracle: %+v %s", full.Terms, full.RunVerdict)
	}
	// no invariant in scope: nothing can fail, and nothing was checked: the
	// terms say what happened, the run verdict is inconclusive (as Err)
	none := runWith(t, model.Options{Builtin: []string{}}, s)
	if len(none.Invariants) != 0 {
		t.Fatalf("invariants reported out of scope: %+v", none.Invariants)
	}
	wantNone := model.Terms{Detected: true, Contained: true, Recovered: true, UsefulService: true, Effects: 2, Verdict: model.ClaimRelease}
	if none.Terms != wantNone || none.RunVerdict != model.Inconclusive {
		t.Fatalf("no scope: %+v %s, want %+v inconclusive", none.Terms, none.RunVerdict, wantNone)
	}
	// budget and effect_at_most_once in scope, in catalogue order whatever the list order
	two := runWith(t, model.Options{Builtin: []string{model.InvBudget, model.InvEffectAtMostOnce}}, s)
	var names []string
	for _, i := range two.Invariants {
		names = append(names, fmt.Sprintf("%s:%t:%d:%s", i.Invariant, i.Held, i.FirstSeq, i.FaultID))
	}
	inv, _ := full.Invariant(model.InvEffectAtMostOnce)
	// recorded_agrees_with_ledger is checked beside them (the baseline's
	// record names only the retry's effect), then retry_paced
	led, _ := full.Invariant(model.InvRecordedAgreesWithLedger)
	want := []string{fmt.Sprintf("effect_at_most_once:false:%d:f1", inv.FirstSeq), "budget:true:0:", fmt.Sprintf("recorded_agrees_with_ledger:false:%d:f1", led.FirstSeq), "retry_paced:true:0:"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("invariants (-want +got):\n%s", diff)
	}
	// the terms agree with the invariants: effect_at_most_once broke with
	// two effects, so duplicate_effect is said
	wantTwo := model.Terms{Detected: true, UnsafeEscape: true, DuplicateEffect: true, Effects: 2, Verdict: model.ClaimUnsafe}
	if two.Terms != wantTwo || two.RunVerdict != model.Unrecoverable {
		t.Fatalf("narrowed: %+v %s, want %+v unrecoverable", two.Terms, two.RunVerdict, wantTwo)
	}
	rec := two.Record()
	if diff := cmp.Diff([]string{model.InvEffectAtMostOnce, model.InvBudget, model.InvRecordedAgreesWithLedger, "retry_paced"}, rec.Contract.Invariants); diff != "" {
		t.Fatalf("contract invariants (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"effect_at_most_once": "fail", "budget": "pass", "recorded_agrees_with_ledger": "fail", "retry_paced": "pass"}, rec.Invariants); diff != "" {
		t.Fatalf("record invariants (-want +got):\n%s", diff)
	}
}

// TestViewIsReadOnly: a check that writes into what the View returned
// changes nothing in the run.
func TestViewIsReadOnly(t *testing.T) {
	vandal := model.UserInvariant{Name: "vandal", Check: func(v model.View) string {
		l := v.Ledger()
		for i := range l {
			l[i].Task, l[i].Amount = "other", 0
		}
		cps := v.Checkpoints()
		for i := range cps {
			cps[i].State = "x"
			for k := range cps[i].Data {
				cps[i].Data[k] = "x"
			}
		}
		if ev := v.Events(); len(ev) > 0 {
			ev[0] = "x"
		}
		return ""
	}}
	s, _ := model.SingleFault("timeout_after_commit", copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
	s.Config.Join = model.JoinPolicy("best_effort")
	plain := runWith(t, model.Options{}, s)
	with := runWith(t, model.Options{Invariants: []model.UserInvariant{vandal}}, s)
	if diff := cmp.Diff(plain.Timeline, with.Timeline); diff != "" {
		t.Fatalf("timeline changed:\n%s", diff)
	}
	if plain.Terms != with.Terms || !cmp.Equal(plain.Invariants, with.Invariants[:len(plain.Invariants)]) {
		t.Fatalf("results changed: %+v / %+v", plain.Terms, with.Terms)
	}
}

// TestViewReadsTheRun pins what a View shows at the claim of a baseline
// run under timeout_after_commit.
func TestViewReadsTheRun(t *testing.T) {
	var got []string
	probe := model.UserInvariant{Name: "probe", Check: func(v model.View) string {
		c, claimed := v.Claim()
		if v.Event() != model.EvClaim || !claimed {
			return ""
		}
		o, _ := v.Subject("O-731")
		cp, _ := v.Capability("CAP-27-731")
		_, missing := v.Subject("nope")
		evs := v.Events()
		got = append(got, fmt.Sprintf("seq=%d events=%d last=%s clock=%d task=%s claim=%s attempts=%d restarts=%d ledger=%d evidence=%d checkpoints=%d order_v=%d cap_live=%t missing=%t",
			v.Seq(), len(evs), evs[len(evs)-1], v.Clock(), v.Task().ID, c.Verdict, v.Attempts(), v.Restarts(),
			len(v.Ledger()), len(v.Evidence()), len(v.Checkpoints()), o.Version, cp.Live(v.Clock()), missing))
		return ""
	}}
	s, _ := model.SingleFault("timeout_after_commit", copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
	res := runWith(t, model.Options{Invariants: []model.UserInvariant{probe}}, s)
	last := res.Timeline.Events()[len(res.Timeline.Events())-1]
	want := []string{fmt.Sprintf("seq=%d events=%d last=claim clock=%d task=refund-O-731 claim=release attempts=2 restarts=0 ledger=2 evidence=3 checkpoints=4 order_v=43 cap_live=true missing=false",
		last.Seq, last.Seq, last.At)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("view at the claim (-want +got):\n%s", diff)
	}
}

// TestOptionsErrors: invalid invariant options and negative budgets are
// errors naming the problem, returned by Run and Terms (a negative
// deadline ran before, every task holding).
func TestOptionsErrors(t *testing.T) {
	ok := func(model.View) string { return "" }
	cases := []struct {
		opts model.Options
		want string
	}{
		{model.Options{Builtin: []string{"exactly_once"}}, `model: options: unknown built-in invariant "exactly_once" (valid: right_subject, current_entitlement, effect_at_most_once, provable_outcome, resume_from_checkpoint, no_invented_progress, budget, join_preserved)`},
		{model.Options{Builtin: []string{model.InvBudget, model.InvBudget}}, `model: options: built-in invariant "budget" listed twice`},
		{model.Options{Invariants: []model.UserInvariant{{Check: ok}}}, `model: options: invariant 0 has no name`},
		{model.Options{Invariants: []model.UserInvariant{{Name: model.InvBudget, Check: ok}}}, `model: options: invariant "budget" has the name of a built-in invariant`},
		{model.Options{Invariants: []model.UserInvariant{{Name: "a", Check: ok}, {Name: "a", Check: ok}}}, `model: options: invariant "a" listed twice`},
		{model.Options{Invariants: []model.UserInvariant{{Name: "a"}}}, `model: options: invariant "a" has no Check`},
		{model.Options{Invariants: []model.UserInvariant{{Name: "a", Oracle: "ledger_readbak", Check: ok}}}, `model: options: invariant "a": unknown oracle "ledger_readbak" (valid: ledger_readback, receipt, state_version, capability_record, policy_record, budget_counter, trace_lineage, checkpoint_store, join_record)`},
		{model.Options{Deadline: -5}, `model: options: Deadline -5 ms must be positive (0 for the default 2000 ms)`},
		{model.Options{RetryBudget: -1}, `model: options: RetryBudget -1 must not be negative (0 for the default 2)`},
		{model.Options{MaxRestarts: -2}, `model: options: MaxRestarts -2 must not be negative (0 for the default 3)`},
	}
	s, _ := model.SingleFault("timeout_after_commit", copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
	for _, c := range cases {
		h := model.NewHarness(copperfin.Copperfin(), c.opts)
		if _, err := h.Run(copperfin.Factory(0), s); err == nil || err.Error() != c.want {
			t.Errorf("Run: %v, want %s", err, c.want)
		}
		if _, err := h.Terms(copperfin.Factory(0), s); err == nil || err.Error() != c.want {
			t.Errorf("Terms: %v, want %s", err, c.want)
		}
	}
}

// TestBuiltinRefusesAddedInvariants: naming in Builtin an invariant the
// harness adds on its own (no_retry_storm, recorded_agrees_with_ledger)
// says where it comes from, not that it is unknown.
func TestBuiltinRefusesAddedInvariants(t *testing.T) {
	for name, want := range map[string]string{
		model.InvNoRetryStorm:             `"no_retry_storm" is not named in Builtin: every run of a fleet fixture`,
		model.InvRecordedAgreesWithLedger: `"recorded_agrees_with_ledger" is not named in Builtin: every run that checks another invariant checks it, beside those Builtin names, but a run of the paper's set (Options.Compat) without notices; add NoticeAgreement()`,
	} {
		_, err := model.NewHarness(copperfin.Copperfin(), model.Options{Builtin: []string{name}}).Run(copperfin.Factory(0), &model.Schedule{Version: model.ScheduleVersion, Seed: "b"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v", name, err)
		}
	}
}
