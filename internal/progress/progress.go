// Package progress renders the progress of a long run (an exploration's
// checks, an assay's trials) on a terminal: done of total, the rate, what
// was found so far and the time left, on one line rewritten in place.
// The commands decide whether to show it (IsTerminal on their error
// stream, never with --json) and hand Bar.Update to the library as its
// progress callback; the libraries themselves read no terminal.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// DefaultThrottle is the least time between two renderings of a Bar made
// with a zero Options.Throttle.
const DefaultThrottle = 100 * time.Millisecond

// Options shape a Bar.
type Options struct {
	// Writer receives the rendering (a terminal: the line is rewritten
	// with carriage returns); required.
	Writer io.Writer
	// Unit names what is counted, in the rate ("checks" gives
	// "checks/s"); "" means "checks".
	Unit string
	// Found names what Update's found counts ("counterexamples");
	// "" means "counterexamples".
	Found string
	// Throttle is the least time between two renderings: 0 means
	// DefaultThrottle, a negative value renders on every update (tests).
	Throttle time.Duration
}

// Bar is one run's progress line. Its methods are safe for concurrent use.
type Bar struct {
	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	found string
	total int
	n     int // found, as last shown
}

// New returns the bar of a run of total items (at least 1; a smaller
// total is taken as 1) rendering to o.Writer.
func New(total int, o Options) *Bar {
	if o.Unit == "" {
		o.Unit = "checks"
	}
	if o.Found == "" {
		o.Found = "counterexamples"
	}
	throttle := o.Throttle
	if throttle == 0 {
		throttle = DefaultThrottle
	} else if throttle < 0 {
		throttle = 0
	}
	total = max(total, 1)
	b := &Bar{found: o.Found, total: total}
	b.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(o.Writer),
		progressbar.OptionSetDescription(b.describe(0)),
		progressbar.OptionSetWidth(20),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(o.Unit),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(throttle),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetRenderBlankState(false),
	)
	return b
}

func (b *Bar) describe(found int) string { return fmt.Sprintf("%s: %d", b.found, found) }

// Update shows done of total items finished and found found so far; it
// has the shape of the libraries' progress callbacks
// (properties.WithProgress, assay.Config.Progress). A total different
// from New's replaces it.
func (b *Bar) Update(done, total, found int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if total > 0 && total != b.total {
		b.total = total
		b.bar.ChangeMax(total)
	}
	if found != b.n {
		b.n = found
		b.bar.Describe(b.describe(found))
	}
	_ = b.bar.Set(done) // a write error on the terminal only loses the line
}

// Finish clears the line, so that what the command prints next starts on
// a clean line.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	_ = b.bar.Finish()
}

// IsTerminal reports whether w is a terminal: an *os.File whose file
// descriptor term.IsTerminal accepts. A buffer, a pipe or a file is not.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && f != nil && term.IsTerminal(int(f.Fd()))
}
