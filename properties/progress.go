package properties

import (
	"errors"
	"flag"
	"strconv"
	"testing"
)

// WithProgress calls fn after each check of Explore and Check (each
// schedule of the exhaustive walk) with the checks done so far, the checks
// to run (for the walk, those known so far, a total that grows) and the
// counterexamples found (0, or 1 on the failing one). It runs on the
// exploration's goroutine: a slow fn slows the exploration. A nil fn is an
// error.
func WithProgress(fn func(done, total, counterexamples int)) Option {
	return optionFunc(func(s *settings) error {
		if fn == nil {
			return errors.New("properties: WithProgress needs a function")
		}
		s.progress = fn
		return nil
	})
}

// progress reports one schedule of the exhaustive walk to the
// WithProgress function, if any: done is the schedules run, the total
// those and the pending ones known so far (the rest of this size's, and
// the next size's found so far), at most the cap.
func (w *walkState) progress(pending int, found bool) {
	fn := w.e.set.progress
	if fn == nil {
		return
	}
	done := w.rep.Schedules
	total := min(done+pending, max(w.cap, done))
	if found {
		total = done
	}
	cx := 0
	if found {
		cx = 1
	}
	fn(done, total, cx)
}

// rapidChecks is the number of checks rapid runs: its -rapid.checks flag
// (which rapid's RAPID_CHECKS defaults), divided by five under -short as
// rapid divides it; 0 when the flag is not registered.
func rapidChecks() int {
	f := flag.Lookup("rapid.checks")
	if f == nil {
		return 0
	}
	n, err := strconv.Atoi(f.Value.String())
	if err != nil {
		return 0
	}
	if flag.Lookup("test.short") != nil && flag.Parsed() && testing.Short() {
		n /= 5
	}
	return n
}

// progress reports one check to the WithProgress function, if any: done is
// the check's number, and the counterexample count is 1 once a check has
// failed. A check that ends in a harness error is not reported.
func (e *explorer) progress(done int) {
	if e.set.progress == nil || e.harnessErr != nil {
		return
	}
	cx := 0
	if e.firstFail != 0 {
		cx = 1
	}
	if e.total == 0 {
		e.total = rapidChecks()
	}
	e.set.progress(done, max(e.total, done), cx)
}
