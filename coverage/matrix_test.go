package coverage_test

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestFaultMatrixRefuses: production code (a Definition with a Clock) is
// refused outside a test's bubbles, naming FaultMatrixIn; no Definition
// or no function to make the runs in is bad input (exit 2).
func TestFaultMatrixRefuses(t *testing.T) {
	def := copperfin.Definition()
	def.Clock = func() model.Millis { return 0 }
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(coverage.FaultMatrix(def, "", copperfin.ConfigOfProfile(copperfin.ProfileTyped), nil)), "call coverage.FaultMatrixIn from a test (exit 2)"},
		{second(coverage.FaultMatrixIn(nil, copperfin.Definition(), "", model.Config{}, nil)), "no function to make the runs in (exit 2)"},
		{second(coverage.FaultMatrixIn(func(run func()) error { run(); return nil }, nil, "", model.Config{}, nil)), "no Definition (exit 2)"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v, want %q", c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }
