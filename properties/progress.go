package properties

import (
	"errors"
	"flag"
	"strconv"
	"testing"
)

// WithProgress calls fn after each check of Explore and Check (not
// ExplorePair's draws) with the checks done so far (1, 2, ... in order), the
// checks rapid will run (its -rapid.checks, a fifth of it under go test
// -short, as rapid counts) and the counterexamples found so far (0, or 1
// on the failing check: the exploration stops at its first). rapid's
// shrinking and the fault-aware reduction that follow a failure make no
// call. fn runs on the exploration's goroutine, between checks: a slow fn
// slows the exploration. A nil fn is an error.
func WithProgress(fn func(done, total, counterexamples int)) Option {
	return optionFunc(func(s *settings) error {
		if fn == nil {
			return errors.New("properties: WithProgress needs a function")
		}
		s.progress = fn
		return nil
	})
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
