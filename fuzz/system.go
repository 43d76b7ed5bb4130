package fuzz

import (
	"fmt"
	"sort"
	"strings"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/model/copperfin"
)

// System is a system under test for the targets: a name and a factory of
// fresh instances for a control set.
type System struct {
	// Name is "reference" for the Copperfin workflow, or a mutant's name.
	Name string
	// New returns a factory of the system under controls cs.
	New func(cs model.Controls) model.Factory
}

// ReferenceSystem returns the reference system, the Copperfin refund
// workflow of package copperfin.
func ReferenceSystem() System { return System{Name: "reference", New: copperfin.Factory} }

// mutants are the known mutants of the reference system, by name: variants
// with one defence deliberately broken, against which the targets are
// expected to find counterexamples. None is defined yet.
var mutants = map[string]System{}

// Mutant returns the mutant of the reference system named name, or an
// error saying that no mutant of that name exists and listing the known
// ones.
func Mutant(name string) (System, error) {
	if m, ok := mutants[name]; ok {
		return m, nil
	}
	known := make([]string, 0, len(mutants))
	for n := range mutants {
		known = append(known, n)
	}
	sort.Strings(known)
	list := "none"
	if len(known) > 0 {
		list = strings.Join(known, ", ")
	}
	return System{}, fmt.Errorf("no mutant of the reference system named %q exists (known mutants: %s)", name, list)
}

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
