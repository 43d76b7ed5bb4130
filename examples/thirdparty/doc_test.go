package thirdparty

import (
	"testing"

	"github.com/faultline/faultline/model"
)

// TestModuleBuildsAgainstFaultline keeps the module's replace of faultline
// honest: it builds against the checkout it lives in.
func TestModuleBuildsAgainstFaultline(t *testing.T) {
	if got := len(model.AllBoundaries); got != 11 {
		t.Fatalf("len(model.AllBoundaries) = %d, want 11", got)
	}
}
