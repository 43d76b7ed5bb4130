package properties_test

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
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
// checks without notices do (131 faults scheduled, the same reached and
// fired), recorded_agrees_with_ledger out of scope.
func TestNoticeKindsOnBilling(t *testing.T) {
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
	if plain.Found || with.Found || plain.Faults != 131 || with.Faults != 131 || with.Reached != plain.Reached || with.Fired != plain.Fired || !slices.Equal(with.Crossed, plain.Crossed) {
		t.Errorf("plain %+v\nwith notices %+v", plain, with)
	}
}
