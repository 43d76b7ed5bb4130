package fuzz

import (
	"strings"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// System is a system under test for the targets: a name and how to build
// its factory for one run from the run's config (the schedule's: profile
// or controls, mutant, budgets, join policy, fixture), as in package
// properties.
type System struct {
	// Name is "reference" for the Copperfin workflow.
	Name string
	// New returns the factory of the system for one run under cfg; an
	// error is a harness error.
	New properties.System
}

// ReferenceSystem returns the reference system, the Copperfin refund
// workflow of package copperfin, with the mutant the config names
// (properties.Reference).
func ReferenceSystem() System { return System{Name: "reference", New: properties.Reference} }

// ParseControlList parses a comma-separated control list, as flags and
// environment variables give it. Blank items are skipped, so "" is the
// empty set (no control). It returns an error naming an unknown or
// repeated control.
func ParseControlList(csv string) (model.Controls, error) {
	var names []string
	for _, n := range strings.Split(csv, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return model.ParseControls(names)
}
