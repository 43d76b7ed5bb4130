// Package bubble runs one run of production code inside its own
// testing/synctest bubble, the one rule every door (properties, fuzz)
// shares: a run whose goroutines all block before it ends is the
// system's failure (*Blocked); a goroutine that outlives an ended run is
// a nondeterministic replay (ErrOutlived).
package bubble

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/faultline/faultline/internal/hang"
)

// Blocked is a run that never ended: every goroutine of its bubble,
// System.Run's own among them, blocked on something no crossing and no
// timer releases (Msg is synctest's own message), or a run that went on
// after its worker crashed (Cause; see model's restarts).
type Blocked = hang.Blocked

// ErrOutlived is a run that ended while a goroutine it started stayed
// blocked in its bubble.
var ErrOutlived = errors.New("nondeterministic replay")

// Run runs run inside a testing/synctest bubble of t and returns a
// *Blocked or an error wrapping ErrOutlived when the bubble deadlocked,
// nil otherwise. Any other panic is re-raised. Calls must not overlap.
func Run(t *testing.T, run func()) (err error) {
	var ended atomic.Bool
	defer func() {
		if p := recover(); p != nil {
			msg := fmt.Sprint(p)
			if !strings.Contains(msg, "deadlock") {
				panic(p)
			}
			if !ended.Load() {
				err = &Blocked{Msg: msg}
				return
			}
			err = fmt.Errorf("%w: the run's bubble ended in %q: a goroutine the system started outlived the run, blocked on something no crossing releases (production code must start no goroutine that outlives the run)", ErrOutlived, msg)
		}
	}()
	synctest.Test(t, func(*testing.T) { run(); ended.Store(true) })
	return nil
}
