package fuzz_test

import (
	"errors"
	"testing"

	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/internal/archiver"
	"github.com/faultline/faultline/model"
)

// TestNoInvariantIsRefused: a definition whose runs check no invariant
// (the archiver with its Builtin emptied and no Invariants) would pass
// every input whatever the system does: NewDecoder and NewTarget refuse
// it up front, with a *model.RunError (code 3) wrapped, as
// properties.Check refuses such a system (For's body fails every input
// with the same error: TestEntriesRefuseTheSameDefinitions).
func TestNoInvariantIsRefused(t *testing.T) {
	def := archiver.Definition()
	def.Builtin = []string{}
	def.Invariants = nil
	const want = "fuzz: system archiver: inconclusive: no invariant in scope (Builtin empty and no Invariants of the system's own): every run would pass whatever the system does"
	for _, opts := range [][]fuzz.Option{nil, {fuzz.WithScope("ordinals")}, {fuzz.WithCatalogueSites()}} {
		tgt, err := fuzz.NewTarget(def, append([]fuzz.Option{fuzz.WithConfig(fixedArchiver)}, opts...)...)
		if tgt != nil || err == nil || err.Error() != want {
			t.Fatalf("NewTarget: %v, %v; want the error %q", tgt, err, want)
		}
		var re *model.RunError
		if !errors.As(err, &re) || re.Code != 3 {
			t.Errorf("NewTarget's error wraps %#v, want a *model.RunError of code 3", re)
		}
		if _, err := fuzz.NewDecoder(def, append([]fuzz.Option{fuzz.WithConfig(fixedArchiver)}, opts...)...); err == nil || err.Error() != want {
			t.Errorf("NewDecoder: %v", err)
		}
	}
	// one invariant in scope is enough: the budget alone
	def.Builtin = []string{model.InvBudget}
	if _, err := fuzz.NewTarget(def, fuzz.WithConfig(fixedArchiver)); err != nil {
		t.Errorf("the budget in scope: %v", err)
	}
}
