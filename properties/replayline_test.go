package properties_test

import (
	"encoding/json"
	"testing"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestUserSystemsReplayLine: a counterexample of a user's system found by
// Exhaustive names how to replay it on that system (its FAULTLINE_REPLAY
// test line or its own command line), not the faultline command, which
// runs the reference system only; WithReplayCommand still wins.
func TestUserSystemsReplayLine(t *testing.T) {
	def := inventory.Definition()
	opts := []properties.Option{properties.WithConfig(model.Config{System: json.RawMessage(`{"variant":"planted"}`)}),
		properties.WithKinds("tool_timeout"), properties.WithMaxFaults(1)}
	rep, err := exhaustive(def, opts...)
	if err != nil || !rep.Found {
		t.Fatalf("%v %+v", err, rep)
	}
	if got, want := rep.Counterexample.Replay, "FAULTLINE_REPLAY=SCHEDULE.json go test -run '^TestName$' ./pkg (a test of yours running properties.Check on inventory), or inventory's own command line (package cli): replay SCHEDULE.json"; got != want {
		t.Errorf("replay %q, want %q", got, want)
	}
	rep, err = exhaustive(def, append(opts, properties.WithReplayCommand("./inv replay %s"))...)
	if err != nil || rep.Counterexample.Replay != "./inv replay SCHEDULE.json" {
		t.Errorf("WithReplayCommand: %v %q", err, rep.Counterexample.Replay)
	}
}
