package cli_test

import (
	"runtime/debug"
	"testing"

	"github.com/faultline/faultline/cli"
)

// TestCollectLess: explore's checks run at cli.ExploreGCPercent and the
// percentage before is restored after; a GOGC of the environment stays.
func TestCollectLess(t *testing.T) {
	t.Setenv("GOGC", "")
	before := debug.SetGCPercent(150)
	defer debug.SetGCPercent(before)
	restore := cli.CollectLess()
	if got := debug.SetGCPercent(cli.ExploreGCPercent); got != cli.ExploreGCPercent {
		t.Errorf("while exploring: GOGC %d, want %d", got, cli.ExploreGCPercent)
	}
	restore()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("after: GOGC %d, want the 150 before", got)
	}
	t.Setenv("GOGC", "50")
	cli.CollectLess()()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("with GOGC=50 in the environment: GOGC %d, want it left at 150", got)
	}
	t.Setenv("GOGC", "50")
	restore = cli.CollectLess()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("with GOGC=50 in the environment, while exploring: GOGC %d, want 150 untouched", got)
	}
	restore()
}
