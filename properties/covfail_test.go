package properties_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// billingTracker returns an empty coverage tracker of billing's runs.
func billingTracker(t *testing.T) *coverage.Tracker {
	t.Helper()
	tr, err := coverage.NewTracker(nil, billing.Definition())
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// A run of a kind outside the catalogue (server_error) is recorded under
// its key (the walk's three runs, then the three that confirm and reduce
// its counterexample), and a coverage failure never hides a counterexample found: the
// walk finds billing's double charge under a server error after the
// commit, with or without the recording failing; the error goes beside
// it (Report.CoverageErr, a second error of Check). Without a
// counterexample the recording error is Explore's own.
func TestCoverageNeverHidesACounterexample(t *testing.T) {
	def := billing.Definition()
	opts := func(tr *coverage.Tracker, bugs billing.Bugs, extra ...properties.Option) []properties.Option {
		return append([]properties.Option{properties.WithKinds("server_error"), properties.WithConfig(billing.Config(bugs)),
			properties.WithCoverage(tr), properties.WithSeed(1), properties.WithChecks(3)}, extra...)
	}
	tr := billingTracker(t)
	rep, err := properties.Explore(def, opts(tr, billing.FreshKeyPerRetry)...)
	if err != nil {
		t.Fatal(err)
	}
	key := coverage.Key{Domain: "tool", Boundary: "effect", Phase: "before_commit", Correlation: "isolated", Oracle: "ledger_readback"}
	d := tr.Data()
	if e := d.Keys[key]; !rep.Found || rep.Walk == nil || rep.Walk.Index != 3 || rep.CoverageErr != nil || rep.Counterexample.Violation.Invariant != "charged_once" ||
		d.Runs != 6 || e == nil || e.Visits != 4 || len(e.Counterexamples) != 2 || e.Counterexamples[0].Count != 3 {
		t.Fatalf("found %t (%+v), %d runs recorded, key %s: %+v", rep.Found, rep.CoverageErr, d.Runs, key, e)
	}
	want := string(model.Format(rep.Counterexample.Schedule))

	// recording fails on the runs that break an invariant: the walk's
	// schedule 3, and the replays that confirm and reduce it
	disk := errors.New("the disk is on fire")
	fault := properties.WithRecordFault(func(res *model.Result) error {
		if !res.Held() {
			return disk
		}
		return nil
	})
	always := properties.WithRecordFault(func(*model.Result) error { return disk })
	rep, err = properties.Explore(def, opts(billingTracker(t), billing.FreshKeyPerRetry, fault)...)
	if err != nil || !rep.Found || string(model.Format(rep.Counterexample.Schedule)) != want || !errors.Is(rep.CoverageErr, disk) ||
		rep.CoverageErr.Error() != "properties: recording coverage: the disk is on fire" {
		t.Fatalf("with recording failing: %v; found %t, coverage error %v", err, rep != nil && rep.Found, rep)
	}

	// before any counterexample, the recording error ends the search (the
	// walk's first run, a harness error, exit 2)
	rep, err = properties.Explore(def, opts(billingTracker(t), billing.FreshKeyPerRetry, always)...)
	if rep != nil || !errors.Is(err, disk) || err.Error() != "properties: recording coverage: the disk is on fire" {
		t.Fatalf("without a counterexample: %+v, %v", rep, err)
	}

	// Check: the counterexample, then the recording error beside it
	rapidFlags(t, 3, 1)
	tb := &recordingTB{name: "TestCoverageNeverHidesACounterexample"}
	properties.CheckTB(tb, nil, def, append(opts(billingTracker(t), billing.FreshKeyPerRetry, fault), properties.WithFailDir(t.TempDir()))...)
	if len(tb.errors) != 2 || !strings.HasPrefix(tb.errors[0], "properties: counterexample at schedule 3 of the walk over the schedules of at most 2 faults (an invariant violated, exit 1): charged_once violated") ||
		tb.errors[1] != "properties: recording coverage: the disk is on fire (recording coverage failed; the verdict above stands, and its exit code: the coverage lacks the run named)" {
		t.Fatalf("Check reported %q", tb.errors)
	}
}

// The default check's walk records its runs, as its random phase does: a
// kind the walk ran (lagging_readback, on billing) is visited, not
// never_tried, whatever the random checks drew.
func TestCoverageRecordsTheWalk(t *testing.T) {
	tr := billingTracker(t)
	rep, err := properties.Explore(billing.Definition(), properties.WithKinds("lagging_readback", "tool_timeout"),
		properties.WithCoverage(tr), properties.WithSeed(1), properties.WithChecks(1))
	if err != nil {
		t.Fatal(err)
	}
	d := tr.Data()
	lag := coverage.Key{Domain: "state", Boundary: "state", Phase: "after_commit", Correlation: "isolated", Oracle: "ledger_readback"}
	if rep.Found || rep.Walk == nil || !rep.Walk.Complete || rep.Walk.Schedules != 11 || rep.Checks != 1 || d.Runs != 12 || d.Keys[lag] == nil || d.Keys[lag].Visits != 4 {
		t.Fatalf("walk %d schedules, %d checks, %d runs recorded, %s: %+v", rep.Walk.Schedules, rep.Checks, d.Runs, lag, d.Keys[lag])
	}
	// the random check alone
	alone := billingTracker(t)
	if _, err := properties.Explore(billing.Definition(), properties.WithKinds("lagging_readback", "tool_timeout"),
		properties.WithCoverage(alone), properties.WithSeed(1), properties.WithChecks(1), properties.WithMaxSchedules(0)); err != nil {
		t.Fatal(err)
	}
	if a := alone.Data(); a.Runs != 1 || a.Keys[lag] != nil {
		t.Fatalf("the random check alone: %d runs, %s: %+v", a.Runs, lag, a.Keys[lag])
	}
	r := coverage.NewReport(coverage.Default(), d, coverage.ReportOptions{})
	for _, kr := range r.Keys {
		if kr.Key == lag.String() && kr.Status != coverage.StatusHeld {
			t.Fatalf("%s: %s (%s)", lag, kr.Status, kr.Reason)
		}
	}
}
