package fuzz

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/faultline/faultline/model"
)

// ForProduction is For for production code (a system whose calls go
// through the adapters over real clients, see model.Calls): each run of
// an input, the clean run that places the sites and every run of the
// shrinking, happens inside its own testing/synctest bubble of the
// input's t, so the code's timers run on the bubble's fake clock. The
// returned function is a fuzz body:
//
//	f.Fuzz(fuzz.ForProduction(snapshots.Definition(), fuzz.WithReplayTest("TestSnapshots")))
//
// It fails t with the *Failure (the invariant, the shrunk schedule and
// its replay command) when an input breaks an invariant, and with the
// error when the decoder cannot be built (a bad definition or config, or
// a clean run that crosses no event a fault of the scope is placed at:
// are the clients wrapped?). Inputs run one at a time.
func ForProduction(def *model.Definition, opts ...Option) func(t *testing.T, data []byte) {
	var (
		mu  sync.Mutex
		cur *testing.T
		tgt *Target
		err error
	)
	bubble := func(run func()) {
		var ended atomic.Bool
		defer func() {
			if p := recover(); p != nil {
				if msg := fmt.Sprint(p); strings.Contains(msg, "deadlock") {
					if !ended.Load() {
						cur.Fatalf("fuzz: the system's run never ended: System.Run blocked on something no crossing and no timer releases (the bubble ended in %q; the system failed: exit code 1 of the table)", msg)
					}
					cur.Fatalf("fuzz: nondeterministic replay: the run's bubble ended in %q: a goroutine the system started outlived the run (production code must start no goroutine that outlives the run)", msg)
				}
				panic(p)
			}
		}()
		synctest.Test(cur, func(*testing.T) { run(); ended.Store(true) })
	}
	return func(t *testing.T, data []byte) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		cur = t
		if tgt == nil && err == nil {
			// the decoder's own target, as For's: no Done follows, so no
			// campaign tally (see NewTarget) is started for it
			var d *Decoder
			if d, err = NewDecoder(append(append([]Option{WithDefinition(def)}, opts...), func(o *options) { o.bubble = bubble })...); err == nil {
				tgt = d.Target()
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		if e := tgt.Check(data); e != nil {
			t.Fatal(e)
		}
	}
}
