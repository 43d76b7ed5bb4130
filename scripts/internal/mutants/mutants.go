// Package mutants holds what the scripts that measure the reference
// system's seeded defects share: whether a configuration already fails
// without any fault, and whether a counterexample is the mutant's own.
package mutants

import (
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// CleanFails reports whether the reference system under cfg, without a
// mutant, breaks an invariant on fx with no fault (a harness error counts
// as failing).
func CleanFails(cfg model.Config, fx model.Fixture) bool {
	s := model.Schedule{Version: model.ScheduleVersion, Config: cfg}
	f, err := copperfin.Configured(s.Config)
	if err != nil {
		return true
	}
	res, err := model.NewHarness(fx, model.Options{}).Run(f, &s)
	if err != nil {
		return true
	}
	return !res.Held()
}

// ReproducesWithout reports whether cx's schedule breaks its invariant on
// the reference system without the mutant too (a harness error counts as
// reproducing): such a counterexample is not the mutant's.
func ReproducesWithout(cx *properties.Counterexample, fx model.Fixture) bool {
	s := *cx.Schedule
	s.Config = copperfin.WithMutant(s.Config, "")
	f, err := copperfin.Configured(s.Config)
	if err != nil {
		return true
	}
	res, err := model.NewHarness(fx, model.Options{}).Run(f, &s)
	if err != nil {
		return true
	}
	r, _ := res.Invariant(cx.Invariant)
	return !r.Held
}
