package mailfleet_test

import (
	"testing"

	"github.com/faultline/faultline/examples/mailfleet"
	"github.com/faultline/faultline/model"
)

// TestUnsentIsNoLoad: a send that never leaves the client is no load on
// the provider. One fault at the first send of the ten-sender fleet: a
// timeout before the send and the sandbox refusing the tool each keep one
// send from the provider (9 attempts counted), a connection refused too
// (9, and the sender's retry: 10); an unreachable provider
// (budget_exhaustion, persistent) keeps every send from it (0); a server
// error and a rate limit are answers the provider served (10, and the
// retry: 11). Before, every send counted: 10, 11, 10, 10, 11, 11.
func TestUnsentIsNoLoad(t *testing.T) {
	def := mailfleet.Definition()
	for _, c := range []struct {
		kind     string
		attempts int
	}{
		{"timeout_before_send", 9},
		{"network_error", 10},
		{"sandbox_denial", 9},
		{"budget_exhaustion", 0},
		{"server_error", 11},
		{"rate_limit", 11},
	} {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "mail-unsent", Config: model.Config{Fixture: "mail-fleet"},
			Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: c.kind}}}
		res, err := def.Run(s, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Fleet == nil || res.Fleet.Attempts != c.attempts {
			t.Errorf("%s: %+v, want %d attempts", c.kind, res.Fleet, c.attempts)
		}
	}
}
