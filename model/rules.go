package model

import "fmt"

// noInvariant is the rule every door shares: a run that checks no
// invariant would pass whatever the system does, so it is refused before
// any run (Definition.Check) and a run without one is inconclusive
// (Result.Err): a *RunError of code 3 either way.
const noInvariant = "no invariant in scope (Builtin empty and no Invariants of the system's own): every run would pass whatever the system does"

// Check is the one check of a Definition every door makes before it runs
// anything: Validate (name, fixtures, Configure) and at least one
// invariant in scope of a run under cfg with d.Options(opts) (else an
// error wrapping the *RunError of code 3 Result.Err gives such a run).
// It calls no Configure (a config that does not apply is Factory's
// error) and leaves an unknown fixture to Fixture.
func (d *Definition) Check(cfg Config, opts Options) error {
	if err := d.Validate(); err != nil {
		return err
	}
	o := d.Options(opts)
	if _, err := resolveScope(o); err != nil {
		return err
	}
	f, err := d.Fixture(cfg.Fixture)
	// the harness adds recorded_agrees_with_ledger to a run with notices
	// and no_retry_storm to a fleet's
	if o.Builtin == nil || len(o.Builtin) > 0 || len(o.Invariants) > 0 || cfg.Notices || err == nil && f.Fleet != nil {
		return nil
	}
	return fmt.Errorf("system %s: %w", d.Name, &RunError{Code: 3, Reason: noInvariant})
}
