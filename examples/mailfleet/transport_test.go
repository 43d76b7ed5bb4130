package mailfleet_test

import (
	"encoding/json"
	"testing"

	"github.com/faultline/faultline/examples/mailfleet"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestTransportErrorPair: one sender; a server error before its commit
// (nothing sent) and a reset connection after it (sent). The sender that
// takes either for a newsletter sent releases the first with nothing in
// the provider's ledger (no_invented_progress); the protected sender
// retries under the same key after 100 ms, is sent once (before) or
// replayed (after), and releases with every invariant held.
func TestTransportErrorPair(t *testing.T) {
	opts := model.Options{Builtin: []string{model.InvNoInventedProgress}}
	for _, c := range []struct {
		kind, target string
		errorAsSent  bool
		broken       string
		effects      int
	}{
		{"server_error", "", true, "release although the ledger holds no effect of the task", 0},
		{"server_error", "", false, "", 1},
		{"network_error", "after_commit", true, "", 1},
		{"network_error", "after_commit", false, "", 1},
	} {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "mail-transport", Config: model.Config{Fixture: "mail-fleet"},
			Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: c.kind, Target: c.target}}}
		res, err := model.NewHarness(mailfleet.Fleet(1, 12), opts).Run(func() model.System { return mailfleet.Sender{ErrorAsSent: c.errorAsSent} }, s)
		if err != nil {
			t.Fatal(err)
		}
		inv, _ := res.Invariant(model.InvNoInventedProgress)
		if inv.Detail != c.broken || inv.Held != (c.broken == "") || !res.Held() && c.broken == "" || res.Faults[0].Fired != 1 {
			t.Errorf("%s [%s] error_as_sent %v: %+v %+v", c.kind, c.target, c.errorAsSent, inv, res.Invariants)
		}
		if cl := res.Claims[0]; cl.Verdict != model.ClaimRelease || res.Terms.Effects != c.effects {
			t.Errorf("%s [%s] error_as_sent %v: claim %+v, %d effects", c.kind, c.target, c.errorAsSent, cl, res.Terms.Effects)
		}
	}
}

// TestDefaultSearchFindsErrorAsSent: the default check of the ten-sender
// fleet draws server_error and network_error (kinds outside the
// catalogue) because the fixture is a fleet, and finds the sender that
// takes either for a newsletter sent from scratch, at the walk's schedule
// 202 (after provider_outage's ten), shrunk to one server error before
// the first send's commit.
func TestDefaultSearchFindsErrorAsSent(t *testing.T) {
	rep, err := properties.Explore(mailfleet.Definition(), properties.WithConfig(model.Config{System: json.RawMessage(`{"error_as_sent":true}`)}))
	if err != nil || !rep.Found {
		t.Fatalf("%v %+v", err, rep)
	}
	cx := rep.Counterexample
	if rep.Walk == nil || rep.Walk.Schedules != 202 || cx.Invariant != model.InvNoInventedProgress ||
		cx.Detail != "release although the ledger holds no effect of the task" ||
		len(cx.Shrunk.Faults) != 1 || cx.Shrunk.Faults[0] != (model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "server_error"}) {
		t.Fatalf("walk %+v: %s: %s; shrunk %+v", rep.Walk, cx.Invariant, cx.Detail, cx.Shrunk.Faults)
	}
}
