// Package rerun holds the one comparison by which the doors (properties'
// model path and production code alike) find a rerun of one schedule
// nondeterministic.
package rerun

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/model"
)

// Diff returns nil when two runs of one schedule crossed the
// same events (event, ordinal, tool, task, fault, outcome and, when
// timed, logical time), or an error naming the first crossing that
// differs: the one comparison by which a door finds a rerun
// nondeterministic.
func Diff(a, b []model.Event, timed bool) error {
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

// Production returns nil when a and b, two runs of s by production code in
// bubbles of their own, crossed the same events at the same times, and
// otherwise the error every door gives such a rerun: production code
// that is not deterministic, with the first crossing that differs.
func Production(s *model.Schedule, a, b []model.Event) error {
	why := Diff(a, b, true)
	if why == nil {
		return nil
	}
	var fs []string
	for _, f := range s.Faults {
		fs = append(fs, f.Kind+" at "+f.Placement())
	}
	return fmt.Errorf("nondeterministic replay: the same schedule (seed %q, faults: %s) crossed different events in two runs: %s; production code must take every wait from the time package inside the bubble, use in-process transports, keep no state across runs and start no goroutine that outlives the run", s.Seed, strings.Join(fs, ", "), why)
}
