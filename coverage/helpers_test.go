package coverage_test

import (
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// tb is what the helpers need of *testing.T and *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
}

// runSchedule runs s against the reference system (with the schedule's
// mutant, if any) through the full model, as "faultline replay" does.
func runSchedule(t tb, s *model.Schedule) *model.Result {
	t.Helper()
	if s.Config.Fixture == "copperfin-tenants" {
		// the two-tenant workload of the correlations across workers and
		// tenants, which the reference system's Definition does not list
		fx, _ := copperfin.FixtureNamed(s.Config.Fixture)
		f, err := copperfin.Configured(s.Config)
		if err != nil {
			t.Fatal(err)
		}
		res, err := model.NewHarness(fx, model.Options{}).Run(f, s)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res, err := copperfin.Definition().Replay(s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// single returns kind's single-fault schedule under profile p.
func single(t testing.TB, kind string, p copperfin.Profile) *model.Schedule {
	t.Helper()
	s, err := model.SingleFault(kind, copperfin.ConfigOfProfile(p))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// at returns the schedule injecting kind once at the ordinal-th occurrence
// of its event under profile p.
func at(t testing.TB, kind string, ordinal int, p copperfin.Profile) *model.Schedule {
	t.Helper()
	s := single(t, kind, p)
	s.Faults[0].Ordinal = ordinal
	s.Seed = "test"
	return s
}

// faultlineReplay replays the schedules of a system that records no
// replay command, as the reference system does, with the faultline
// command, as that command's own reports do.
var faultlineReplay = coverage.ReportOptions{Replay: map[string]string{"": "faultline replay %s"}}

// newTracker returns an empty tracker of the reference system's runs
// over u (nil: coverage.Default()).
func newTracker(t tb, u *coverage.Universe) *coverage.Tracker {
	t.Helper()
	tr, err := coverage.NewTracker(u, copperfin.Definition())
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// record runs every schedule and records it in a fresh tracker.
func record(t testing.TB, scheds ...*model.Schedule) *coverage.Tracker {
	t.Helper()
	tr := newTracker(t, nil)
	for _, s := range scheds {
		if err := tr.Record(runSchedule(t, s)); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

// auditSchedules are the audit's runs: every kind once under each
// profile, then each correlation modifier's CorrelatedSchedule under it.
func auditSchedules(t testing.TB) []*model.Schedule {
	var out []*model.Schedule
	for _, p := range copperfin.Profiles {
		out = append(out, profileSchedules(t, p)...)
	}
	return out
}

// profileSchedules are the audit's runs under profile p.
func profileSchedules(t testing.TB, p copperfin.Profile) []*model.Schedule {
	t.Helper()
	var out []*model.Schedule
	for _, spec := range model.Catalogue() {
		out = append(out, single(t, spec.Kind, p))
	}
	for _, ck := range copperfin.Correlated() {
		s, err := copperfin.CorrelatedSchedule(ck.Kind, ck.Correlation, copperfin.ConfigOfProfile(p))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func mustKey(t testing.TB, s string) coverage.Key {
	t.Helper()
	k, err := coverage.ParseKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
