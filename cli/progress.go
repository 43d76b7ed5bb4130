package cli

import (
	"io"
	"time"

	"github.com/faultline/faultline/internal/progress"
)

// isTerminal decides whether a command shows its progress on w (its error
// stream): only on a terminal. Tests replace it.
var isTerminal = progress.IsTerminal

// progressThrottle is the bars' progress.Options.Throttle (0: the
// default). Tests render every update.
var progressThrottle time.Duration

// progressBar returns the progress line of a run of total items of unit
// on w, or nil when progress is not shown: with --json (asJSON) or when w
// is not a terminal. found names what the run finds.
func progressBar(w io.Writer, asJSON bool, total int, unit, found string) *progress.Bar {
	if asJSON || !isTerminal(w) {
		return nil
	}
	return progress.New(total, progress.Options{Writer: w, Unit: unit, Found: found, Throttle: progressThrottle})
}
