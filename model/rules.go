package model

import (
	"fmt"
	"slices"
)

// noInvariant is the rule every door shares: a run that checks no
// invariant would pass whatever the system does, so it is refused before
// any run (Definition.Check) and a run without one is inconclusive
// (Result.Err): a *RunError of code 3 either way.
const noInvariant = "no invariant in scope (Builtin empty and no Invariants of the system's own): every run would pass whatever the system does"

// Check is the one check of a Definition every door makes before it runs
// anything: Validate (name, fixtures, Configure) and at least one
// invariant in scope of a run under cfg with d.Options(opts) (Scope; else an
// error wrapping the *RunError of code 3 Result.Err gives such a run).
// It calls no Configure (a config that does not apply is Factory's
// error) and leaves an unknown fixture to Fixture.
func (d *Definition) Check(cfg Config, opts Options) error {
	if err := d.Validate(); err != nil {
		return err
	}
	sc, err := resolveScope(d.Options(opts))
	if err != nil {
		return err
	}
	f, err := d.Fixture(cfg.Fixture)
	if len(sc.names(kindOf(f, err), cfg.Notices)) > 0 {
		return nil
	}
	return fmt.Errorf("system %s: %w", d.Name, &RunError{Code: 3, Reason: noInvariant})
}

// Scope returns the names of the invariants a run of d under cfg with
// d.Options(opts) checks, in the order Result.Invariants reports them:
// the built-in ones selected, recorded_agrees_with_ledger (see ledger),
// no_retry_storm on a fleet fixture, retry_paced (see paced),
// policy_fresh on a fixture that states MaxPolicyAge (see aged), then
// the system's own. It is the one
// rule of what a run checks: a violation of any of them fails the run on
// every door (explore, the walk, fuzz, replay, coverage). An unknown
// fixture or invalid options are errors.
func (d *Definition) Scope(cfg Config, opts Options) ([]string, error) {
	sc, err := resolveScope(d.Options(opts))
	if err != nil {
		return nil, err
	}
	f, err := d.Fixture(cfg.Fixture)
	if err != nil {
		return nil, err
	}
	return sc.names(kindOf(f, nil), cfg.Notices), nil
}

// fixtureKind is what of a fixture decides the invariants of a run
// beside the built-in ones: a fleet, a stated MaxPolicyAge.
type fixtureKind struct{ fleet, aged bool }

// kindOf returns f's fixtureKind, the zero one when err is not nil.
func kindOf(f Fixture, err error) fixtureKind {
	if err != nil {
		return fixtureKind{}
	}
	return fixtureKind{fleet: f.Fleet != nil, aged: f.MaxPolicyAge > 0}
}

// names lists the invariants of s in a run of a fixture of kind k, with
// notices or not, as Result.Invariants reports them.
func (s scope) names(k fixtureKind, notices bool) []string {
	var out []string
	for i, inv := range Invariants {
		if !s.off[i] {
			out = append(out, inv.Name)
		}
	}
	for _, u := range runInvariants(s, k, notices) {
		out = append(out, u.Name)
	}
	return out
}

// ledger reports whether a run of s (of a fleet fixture, with notices)
// checks recorded_agrees_with_ledger without naming it: every run with
// notices, and every run, model or production code, that checks some
// other invariant, but for the paper's set (compat). Alone, it would let
// a system that records nothing pass having tested nothing, so a scope
// that is otherwise empty stays empty (Check refuses it, Err says so).
func (s scope) ledger(fleet, notices bool) bool {
	if notices {
		return true
	}
	return !s.compat && (fleet || len(s.user) > 0 || slices.Contains(s.off[:], false))
}

// paced reports whether a run of s (of a fleet fixture) checks
// retry_paced: every run that checks another invariant, but for the
// paper's set (compat).
func (s scope) paced(fleet bool) bool {
	return !s.compat && (fleet || len(s.user) > 0 || slices.Contains(s.off[:], false))
}

// aged reports whether a run of s checks policy_fresh: every run of a
// fixture that states MaxPolicyAge (k.aged), but for the paper's set
// (compat).
func (s scope) aged(k fixtureKind) bool { return k.aged && !s.compat }

// runInvariants returns the invariants a run of s checks beside the
// built-in ones: NoticeAgreement where s.ledger says so (unless the
// system's own name it), the fleet's no_retry_storm, retry_paced where
// s.paced says so, policy_fresh where s.aged says so, then the system's
// own. The harness runs exactly these.
func runInvariants(s scope, k fixtureKind, notices bool) []UserInvariant {
	var out []UserInvariant
	fleet := k.fleet
	if s.ledger(fleet, notices) && !slices.ContainsFunc(s.user, func(u UserInvariant) bool { return u.Name == InvRecordedAgreesWithLedger }) {
		out = append(out, NoticeAgreement())
	}
	if fleet {
		out = append(out, noRetryStorm())
	}
	if s.paced(fleet) {
		out = append(out, retryPaced())
	}
	if s.aged(k) {
		out = append(out, policyFresh())
	}
	return append(out, s.user...)
}
