package mailfleet_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/faultline/faultline/examples/mailfleet"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// outageConfig is the outage fleet's config for a sender that answers an
// outage with how and may retry eight times.
func outageConfig(how string) model.Config {
	budget := 8
	return model.Config{Fixture: "mail-fleet-outage", RetryBudget: &budget, System: json.RawMessage(`{"outage":"` + how + `"}`)}
}

// TestOutageStorm: ten senders against a provider that is down for 1,000
// ms from the first send (provider_outage at tool.commit#1, lasting). The
// sends it refuses are no load; what matters is the fleet's return. The
// sender that waits a fixed 100 ms sends its ten retries together when the
// provider is back (no_retry_storm breaks at the sixth in 1100-1150 ms,
// capacity five per 50 ms); the sender whose capped wait drops its jitter
// stays within 37 ms of the others over the outage's attempts and lands
// nine in 1250-1300 ms; the one that keeps its jitter at the cap spreads
// its ten over 900 ms (peak 2) and holds. Every sender sends.
func TestOutageStorm(t *testing.T) {
	spec, err := model.Spec("provider_outage")
	if err != nil {
		t.Fatal(err)
	}
	if !spec.Fleet || spec.LastsMs != 1000 || spec.Paper || slices.ContainsFunc(model.Catalogue(), func(s model.FaultSpec) bool { return s.Kind == spec.Kind }) ||
		!slices.ContainsFunc(model.CacheAndWorkerKinds(), func(s model.FaultSpec) bool { return s.Kind == spec.Kind }) {
		t.Fatalf("spec %+v", spec)
	}
	def := mailfleet.OutageDefinition()
	for _, c := range []struct {
		how                string
		storm              string
		peak, refused, end int
	}{
		{mailfleet.OutageFixed, "6 attempts (6 retries) in the window 1100-1150 ms, past the provider's capacity of 5", 10, 80, 22},
		{mailfleet.OutageCapped, "6 attempts (6 retries) in the window 1250-1300 ms, past the provider's capacity of 5", 9, 40, 26},
		{mailfleet.OutageBackoff, "", 2, 30, 40},
	} {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "mail-outage", Config: outageConfig(c.how),
			Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "provider_outage"}}}
		res, err := def.Run(s, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		storm, _ := res.Invariant(model.InvNoRetryStorm)
		if storm.Held != (c.storm == "") || storm.Detail != c.storm {
			t.Errorf("%s: %+v", c.how, storm)
		}
		l := res.Fleet
		if l.Attempts != 10 || l.RetryCount != 10 || l.StormPeak != c.peak || l.OutageRefused != c.refused || len(l.Load) != c.end+1 {
			t.Errorf("%s: %s, %d refused, %v", c.how, l, l.OutageRefused, l.Load)
		}
		for _, cl := range res.Claims {
			if cl.Verdict != model.ClaimRelease {
				t.Errorf("%s: %s: %s %s", c.how, cl.Task, cl.Verdict, cl.Reason)
			}
		}
	}
	if _, err := def.Factory(model.Config{System: json.RawMessage(`{"outage":"never"}`)}); err == nil ||
		err.Error() != `mailfleet: config: outage "never" (valid: "fixed", "capped", "backoff", or none)` {
		t.Errorf("bad outage: %v", err)
	}
}

// TestDefaultSearchFindsOutageStorms: the default search of the outage
// fleet (mailfleet.OutageDefinition) draws provider_outage, a fleet kind
// outside the catalogue, and finds both unprotected senders from scratch
// at the walk's 192nd schedule, shrunk to one outage at the first send.
// The control (jitter kept at the cap) holds over the walk's 20,000
// schedules and 100 random checks: scripts/outage-storms.sh measures it.
func TestDefaultSearchFindsOutageStorms(t *testing.T) {
	for how, at := range map[string]string{mailfleet.OutageFixed: "1100-1150", mailfleet.OutageCapped: "1250-1300"} {
		rep, err := properties.Explore(mailfleet.OutageDefinition(), properties.WithConfig(outageConfig(how)))
		if err != nil {
			t.Fatal(err)
		}
		cx := rep.Counterexample
		if !rep.Found || cx == nil || rep.Walk == nil || rep.Walk.Schedules != 192 || cx.Invariant != model.InvNoRetryStorm ||
			len(cx.Shrunk.Faults) != 1 || cx.Shrunk.Faults[0] != (model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "provider_outage"}) {
			t.Fatalf("%s: %+v", how, rep)
		}
		if want := "6 attempts (6 retries) in the window " + at + " ms, past the provider's capacity of 5"; cx.Detail != want {
			t.Errorf("%s: detail %q", how, cx.Detail)
		}
	}
}

// TestFleetKindsAreFuzzSites: the fuzz decoder places the fleet kinds
// (FaultSpec.Fleet) on a fleet fixture, each at its designed placement
// (the first send), and not on the same senders outside a fleet.
func TestFleetKindsAreFuzzSites(t *testing.T) {
	sites := func(def *model.Definition) []fuzz.Site {
		d, err := fuzz.NewDecoder(def)
		if err != nil {
			t.Fatal(err)
		}
		return slices.DeleteFunc(d.Sites(), func(s fuzz.Site) bool { return s.Kind != "do_not_retry" && s.Kind != "provider_outage" })
	}
	got := sites(mailfleet.Definition())
	if !slices.Equal(got, []fuzz.Site{{Kind: "do_not_retry", Event: model.EvToolCommit, Ordinal: 1}, {Kind: "provider_outage", Event: model.EvToolCommit, Ordinal: 1}}) {
		t.Errorf("fleet: %v", got)
	}
	fx := mailfleet.Fleet(10, 12)
	fx.Fleet = nil
	if got := sites(model.Define("senders", fx, func() model.System { return mailfleet.Sender{} })); len(got) != 0 {
		t.Errorf("no fleet: %v", got)
	}
}
