package fuzz

import (
	"errors"
	"sync"
	"testing"

	"github.com/faultline/faultline/internal/bubble"
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
	inBubble := func(run func()) {
		err := bubble.Run(cur, run)
		if b := (*bubble.Blocked)(nil); errors.As(err, &b) {
			cur.Fatalf("fuzz: %v (the system failed: exit 1)", b)
		}
		if err != nil {
			cur.Fatalf("fuzz: %v", err)
		}
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
			if d, err = NewDecoder(append(append([]Option{WithDefinition(def)}, opts...), func(o *options) { o.bubble = inBubble })...); err == nil {
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
