package properties_test

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestNoticeKindsInTheDraws: WithKinds naming a notice kind turns the
// notices on in every schedule Generator draws and places the kind at
// notice.receive; WithNotices adds the four notice kinds to the kinds
// named; without either no schedule has notices or a notice kind.
// WithInvariants accepts recorded_agrees_with_ledger, and Explore with it
// alone finds the reference system's late notice.
func TestNoticeKindsInTheDraws(t *testing.T) {
	draws := func(opts ...properties.Option) (notices bool, kinds map[string]bool) {
		gen, err := generator(refSys, opts...)
		if err != nil {
			t.Fatal(err)
		}
		kinds = map[string]bool{}
		notices = true
		rapid.Check(t, func(rt *rapid.T) {
			s := gen.Draw(rt, "s")
			notices = notices && s.Config.Notices
			for _, f := range s.Faults {
				kinds[f.Kind] = true
				if f.Kind == "late_notice" && f.Event != model.EvNoticeReceive {
					rt.Fatalf("late_notice at %s", f.Event)
				}
			}
		})
		return notices, kinds
	}
	if on, kinds := draws(properties.WithKinds("late_notice"), properties.WithoutWorldEvents()); !on || len(kinds) != 1 || !kinds["late_notice"] {
		t.Errorf("WithKinds(late_notice): notices %v, kinds %v", on, kinds)
	}
	if on, kinds := draws(properties.WithNotices(), properties.WithKinds("rate_limit"), properties.WithoutWorldEvents()); !on || len(kinds) != 5 {
		t.Errorf("WithNotices: notices %v, kinds %v", on, kinds)
	}
	on, kinds := draws(properties.WithKinds("rate_limit", "tool_timeout"))
	for k := range kinds {
		if slices.ContainsFunc(model.NoticeKinds(), func(sp model.FaultSpec) bool { return sp.Kind == k }) {
			on = true
		}
	}
	if on {
		t.Errorf("without notices: a notice kind or notices drawn: %v", kinds)
	}
	rep, err := explore(refSys, properties.WithKinds("late_notice"), properties.WithInvariants(model.InvRecordedAgreesWithLedger),
		properties.WithSeed(1), properties.WithChecks(20))
	if err != nil || !rep.Found || rep.Counterexample.Invariant != model.InvRecordedAgreesWithLedger || rep.Counterexample.FirstSeq != 27 {
		t.Errorf("WithInvariants: %v %+v", err, rep)
	}
}

// TestNoticeKindsOnBilling: the billing agent never reads its notices:
// Explore and Exhaustive over late_notice reach no fault and are
// inconclusive; WithNotices over the whole catalogue holds as the same
// checks without notices do (99 faults scheduled, the same reached and
// fired), recorded_agrees_with_ledger out of scope.
func TestNoticeKindsOnBilling(t *testing.T) {
	oneGoroutine(t)
	d := billing.Definition()
	rep, err := properties.Explore(d, properties.WithKinds("late_notice"), properties.WithSeed(1), properties.WithChecks(20))
	if err != nil || !rep.Inconclusive() || rep.Found || slices.Contains(rep.Crossed, model.EvNoticeReceive) {
		t.Errorf("explore: %v %+v", err, rep)
	}
	ex, err := exhaustive(d, properties.WithKinds("late_notice", "lost_notice"), properties.WithMaxFaults(2))
	if err != nil || !ex.Inconclusive() || ex.Found || ex.Schedules != 1 {
		t.Errorf("exhaustive: %v %+v", err, ex)
	}
	base := func(opts ...properties.Option) *properties.Report {
		rep, err := properties.Explore(d, append([]properties.Option{properties.WithSeed(3), properties.WithChecks(50)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	plain, with := base(), base(properties.WithNotices())
	if plain.Found || with.Found || plain.Faults != 99 || with.Faults != 99 || with.Reached != plain.Reached || with.Fired != plain.Fired || !slices.Equal(with.Crossed, plain.Crossed) {
		t.Errorf("plain %+v\nwith notices %+v", plain, with)
	}
}

// TestWrongClaimExplored: the reference system under its seven controls
// and notice_reconcile, explored with recorded_agrees_with_ledger in scope
// and no notices (seed 1, the walk of two faults cut at 3,000 schedules,
// then 20 draws). The deny_over_ledger mutant, the system before its fix, denies
// a refund the provider's ledger holds, and the exploration finds it with
// a schedule of two faults; the fixed system holds over the same budget.
func TestWrongClaimExplored(t *testing.T) {
	oneGoroutine(t)
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	cfg := copperfin.ConfigOfControls(typed.With(copperfin.NoticeReconcile))
	opts := func(c model.Config) []properties.Option {
		return []properties.Option{properties.WithConfig(c), properties.WithHarnessOptions(model.Options{Invariants: []model.UserInvariant{model.NoticeAgreement()}}),
			properties.WithSeed(1), properties.WithChecks(20), properties.WithMaxSchedules(3000)}
	}
	def := refSystem(copperfin.Configured)
	rep, err := properties.Explore(def, opts(copperfin.WithMutant(cfg, string(copperfin.DenyOverLedger)))...)
	if err != nil || !rep.Found || rep.Counterexample.Invariant != model.InvRecordedAgreesWithLedger || len(rep.Counterexample.Schedule.Faults) != 2 {
		t.Fatalf("deny_over_ledger: %v %+v", err, rep.Counterexample)
	}
	t.Logf("deny_over_ledger: %s after seq %d: %v", rep.Counterexample.Detail, rep.Counterexample.FirstSeq, rep.Counterexample.Schedule.Faults)
	rep, err = properties.Explore(def, opts(cfg)...)
	if err != nil || rep.Found {
		t.Fatalf("fixed: %v %+v", err, rep.Counterexample)
	}
	t.Logf("fixed: walk of %d schedules and %d checks, %d of %d faults reached", rep.Walk.Schedules, rep.Checks, rep.Reached, rep.Faults)
}
