package inventory_test

import (
	"os"
	"testing"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/properties"
)

// TestReplay is the target of the agent's replay command (the coverage
// report's): with FAULTLINE_REPLAY=FILE it runs that schedule once, under
// the file's own config, and fails with the invariant it breaks; without
// it there is nothing to replay.
func TestReplay(t *testing.T) {
	if os.Getenv(properties.ReplayEnv) == "" {
		t.Skip("replays one schedule: run it as the coverage report prints, with FAULTLINE_REPLAY=FILE")
	}
	def := inventory.Definition()
	properties.Check(t, def)
}
