package fuzz

import (
	"github.com/faultline/faultline/model"
)

// System is a system under test for the targets: a name and how to build
// its factory for one run from the run's config (the schedule's: the
// system's own part, budgets, join policy, fixture), as in package
// properties. A decoder builds it from its Definition (WithDefinition);
// WithSystem overrides it.
type System struct {
	// Name names the system in violations and counterexample files
	// (corpus.FoundBy.System).
	Name string
	// New returns the factory of the system for one run under cfg; an
	// error is a harness error.
	New func(cfg model.Config) (model.Factory, error)
}
