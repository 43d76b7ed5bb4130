package billing_test

// The tests a user writes for the billing agent, each path as the README
// gives it: one run under one fault (model.SingleFault, Result.Err),
// ordered compositions (properties.Check, whose counterexamples replay
// through the FAULTLINE_REPLAY command it prints), a native fuzz target
// and the coverage of the runs (FAULTLINE_COVERAGE=FILE go test, then
// faultline coverage report FILE). Each helper takes the planted bugs, so
// that paths_test.go measures the same code with them on.

import (
	"fmt"
	"os"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// tracker records TestExplore's runs of the agent, which keeps no memory
// and fans out to no branch, and whose counterexamples replay through
// TestExplore; TestMain flushes it into the file FAULTLINE_COVERAGE names
// (none when unset).
var tracker *coverage.Tracker

func TestMain(m *testing.M) {
	def := billing.Definition()
	def.NotApplicable, def.ReplayCommand = []model.Boundary{"memory", "branch_join"}, "FAULTLINE_REPLAY=%s go test -run '^TestExplore$' ./examples/billing"
	var err error
	if tracker, err = coverage.NewTracker(nil, def); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(coverage.Main(m, os.Getenv("FAULTLINE_COVERAGE"), tracker))
}

// singleRun runs the agent once under one fault of kind at its designed
// place; the error says what broke, or which fault was never reached.
func singleRun(kind string, bugs billing.Bugs) error {
	sched, err := model.SingleFault(kind, billing.Config(bugs))
	if err != nil {
		return err
	}
	res, err := model.NewHarness(billing.Fixture(), billing.Options()).Run(billing.Factory(bugs), sched)
	if err != nil {
		return err
	}
	return res.Err()
}

// TestSingleFaults: every kind in scope, once, at its designed place.
func TestSingleFaults(t *testing.T) {
	for _, kind := range billing.Kinds {
		if err := singleRun(kind, 0); err != nil {
			t.Errorf("%s: %v", kind, err)
		}
	}
}

// explore is the exploration's options: the agent's config and the kinds
// in scope (its Definition gives its fixture and invariants).
func explore(bugs billing.Bugs, extra ...properties.Option) []properties.Option {
	return append([]properties.Option{properties.WithConfig(billing.Config(bugs)), properties.WithKinds(billing.Kinds...)}, extra...)
}

// TestExplore: ordered compositions of one to three faults, drawn and
// shrunk by rapid, each run recorded for the coverage report. (Run as
// TestCoverageReport's subprocess, it explores that one's bugs.)
func TestExplore(t *testing.T) {
	bugs, extra := child()
	properties.Check(t, billing.Definition(), explore(bugs, append(extra, properties.WithCoverage(tracker))...)...)
}

// FuzzBilling is the nightly fuzz target (go test -fuzz FuzzBilling): any
// bytes decode into a composition of faults placed on the agent's own
// clean run; a failure is shrunk and written where TestExplore replays it.
func FuzzBilling(f *testing.F) {
	for i := range 32 {
		f.Add([]byte{byte(i)}) // single faults
	}
	f.Fuzz(fuzz.For(billing.Definition(), fuzz.WithReplayTest("TestExplore")))
}
