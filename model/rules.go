package model

import (
	"errors"
	"fmt"
)

// ErrNoInvariant is the rule every door shares: a run that checks no
// invariant would pass whatever the system does, so it is refused before
// any run (Definition.Check) and a run without one is inconclusive
// (Result.Err, exit 3). Test for it with errors.Is.
var ErrNoInvariant = errors.New("no invariant in scope")

// Check is the one check of a Definition every door makes before it runs
// anything: Validate (name, fixtures, Configure) and at least one
// invariant in scope of a run under cfg with d.Options(opts) (an error
// wrapping ErrNoInvariant otherwise). It calls no Configure (a config that
// does not apply is Factory's error) and leaves an unknown fixture to Fixture.
func (d *Definition) Check(cfg Config, opts Options) error {
	if err := d.Validate(); err != nil {
		return err
	}
	o := d.Options(opts)
	f, err := d.Fixture(cfg.Fixture)
	// the harness adds recorded_agrees_with_ledger to a run with notices
	// and no_retry_storm to a fleet's
	if o.Builtin == nil || len(o.Builtin) > 0 || len(o.Invariants) > 0 || cfg.Notices || err == nil && f.Fleet != nil {
		return nil
	}
	return fmt.Errorf("system %s: %w (Builtin empty and no Invariants of its own): every run would pass whatever the system does", d.Name, ErrNoInvariant)
}

// DiffCrossings returns nil when two runs of one schedule crossed the
// same events (event, ordinal, tool, task, fault, outcome and, when
// timed, logical time), or an error naming the first crossing that
// differs: the one comparison by which a door finds a rerun
// nondeterministic.
func DiffCrossings(a, b []Event, timed bool) error {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if x.Event != y.Event || x.Ordinal != y.Ordinal || x.Tool != y.Tool || x.Task != y.Task ||
			x.FaultID != y.FaultID || x.Outcome != y.Outcome || timed && x.At != y.At {
			if !timed {
				return fmt.Errorf("crossing %d was %s#%d (%s), then %s#%d (%s)", i+1, x.Event, x.Ordinal, x.Outcome, y.Event, y.Ordinal, y.Outcome)
			}
			return fmt.Errorf("crossing %d was %s#%d (%s) at %d ms, then %s#%d (%s) at %d ms",
				i+1, x.Event, x.Ordinal, x.Outcome, x.At, y.Event, y.Ordinal, y.Outcome, y.At)
		}
	}
	if len(a) != len(b) {
		return fmt.Errorf("%d crossings, then %d", len(a), len(b))
	}
	return nil
}
