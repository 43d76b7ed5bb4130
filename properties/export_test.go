package properties

import (
	"testing"

	"github.com/faultline/faultline/model"
)

// WithBubble is withBubble, for the tests: every run in a
// testing/synctest bubble of t, as CheckProduction runs them.
func WithBubble(t *testing.T) Option { return withBubble(t) }

// WithoutReduction is withoutReduction, for the tests: the walk runs every
// list of placements as generated.
func WithoutReduction() Option { return withoutReduction() }

// WithVisit is withVisit, for the tests: f sees each schedule the walk
// runs, in enumeration order.
func WithVisit(f func(*model.Schedule)) Option { return withVisit(f) }

// Reduce runs the reduction a counterexample gets (the faults, the
// interleaving, the faults again) on s, which breaks inv.
func Reduce(sys System, s *model.Schedule, inv string, opts ...Option) (*Counterexample, error) {
	e, err := resolve(sys, opts)
	if err != nil {
		return nil, err
	}
	return e.counterexample(s, inv)
}
