package accounts_test

import (
	"testing"

	"github.com/faultline/faultline/examples/accounts"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// closer is the Definition of the accounts closer c.
func closer(c accounts.Closer) *model.Definition {
	return model.Define("accounts", accounts.Fixture(), func() model.System { return c })
}

// walk is the exhaustive walk of def under opts.
func walk(def *model.Definition, opts ...properties.Option) (*properties.ExhaustiveReport, error) {
	rep, err := properties.Explore(def, append(opts, properties.WithExhaustive())...)
	if err != nil {
		return nil, err
	}
	return rep.Exhaustive, nil
}

// The cache and worker kinds are outside model.Catalogue(), so exploration
// and the exhaustive walk place them only when WithKinds names them: named,
// the walk finds the revoked grant kept alive by the cache at its second
// schedule (the clean run first) and random exploration at its first
// check; the closer that bounds the answer's age holds over the same walk.
func TestExplorationPlacesANamedCacheKind(t *testing.T) {
	opts := []properties.Option{properties.WithHarnessOptions(opts),
		properties.WithKinds("sliding_grant_cache"), properties.WithMaxFaults(1), properties.WithoutWorldEvents()}
	found, err := walk(closer(accounts.Closer{PerTask: true}), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if !found.Found || found.Index != 2 || found.Counterexample.Invariant != model.InvCurrentEntitlement {
		t.Fatalf("walk: found %v at %d: %+v", found.Found, found.Index, found.Counterexample)
	}
	if f := found.Counterexample.Schedule.Faults; len(f) != 1 || f[0].Kind != "sliding_grant_cache" || f[0].Event != model.EvAuthorityCheck {
		t.Errorf("walk's schedule: %+v", f)
	}
	bounded, err := walk(closer(accounts.Closer{PerTask: true, MaxGrantAge: 5}), opts...)
	if err != nil || bounded.Found || !bounded.Complete || bounded.Reached == 0 {
		t.Errorf("bounded: %v %+v", err, bounded)
	}
	rep, err := properties.Explore(closer(accounts.Closer{PerTask: true}), append(opts, properties.WithSeed(1), properties.WithChecks(20), properties.WithMaxSchedules(0))...)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Found || rep.ChecksToFailure != 1 || rep.Counterexample.Invariant != model.InvCurrentEntitlement {
		t.Errorf("explore: found %v after %d checks: %+v", rep.Found, rep.ChecksToFailure, rep.Counterexample)
	}
}

// TestRandomDrawsPlaceAWorkerScopedKind: random draws alone (no walk)
// place ambient_identity_leak at worker.start, its only site, where one
// worker runs both tenants' tasks, and find the leaked admin; the closer
// that re-derives it per task holds over the same draws, every fault
// reached. Each worker running one task, every fault is reached and none
// fires: inconclusive, never a pass.
func TestRandomDrawsPlaceAWorkerScopedKind(t *testing.T) {
	opts := func(workers int) []properties.Option {
		cfg := model.Config{Concurrency: &model.Concurrency{Workers: workers}}
		return []properties.Option{properties.WithHarnessOptions(opts), properties.WithConfig(cfg), properties.WithKinds("ambient_identity_leak"),
			properties.WithoutWorldEvents(), properties.WithSeed(1), properties.WithChecks(20), properties.WithMaxSchedules(0)}
	}
	rep, err := properties.Explore(closer(accounts.Closer{}), opts(1)...)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Found || rep.ChecksToFailure != 1 || rep.Counterexample.Invariant != model.InvRightSubject {
		t.Fatalf("explore: found %v after %d checks: %+v", rep.Found, rep.ChecksToFailure, rep.Counterexample)
	}
	if f := rep.Counterexample.Schedule.Faults; len(f) != 1 || f[0].Kind != "ambient_identity_leak" || f[0].Event != model.EvWorkerStart || f[0].Ordinal != 1 {
		t.Errorf("schedule: %+v", f)
	}
	rep, err = properties.Explore(closer(accounts.Closer{PerTask: true}), opts(1)...)
	if err != nil || rep.Found || rep.Checks != 20 || rep.Faults == 0 || rep.Reached != rep.Faults || rep.Fired == 0 || rep.Inconclusive() {
		t.Errorf("per task: %v %+v", err, rep)
	}
	rep, err = properties.Explore(closer(accounts.Closer{}), opts(2)...)
	if err != nil || rep.Found || rep.Checks != 20 || rep.Reached != rep.Faults || rep.Fired != 0 || !rep.Inconclusive() {
		t.Errorf("two workers: %v %+v", err, rep)
	}
}
