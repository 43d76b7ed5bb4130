package mailfleet_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/faultline/faultline/examples/mailfleet"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// credentialConfig is the credential fleet's config for a sender that
// answers a 401 with how.
func credentialConfig(how string) model.Config {
	return model.Config{Fixture: "mail-fleet-credential", System: json.RawMessage(`{"credential":"` + how + `"}`)}
}

// expired is the schedule of the shared credential's expiry at the
// fleet's first sends.
func expired(how string) *model.Schedule {
	return &model.Schedule{Version: model.ScheduleVersion, Seed: "mail-credential", Config: credentialConfig(how),
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "credential_expired"}}}
}

// TestCredentialStorm: ten senders sharing one credential, which expires
// at their first sends (credential_expired at tool.commit#1): all ten get
// a 401, and every 401 is load. The sender that re-authenticates at once
// refreshes at 40 ms and retries at 80 ms with the others: 30 attempts
// (20 of them refreshes and retries) in the window 0-100 ms, capacity 12,
// and no_retry_storm breaks at the 13th. The sender that waits 100 ms plus
// a jitter of up to 900 ms before its one refresh spreads the twenty over
// 100-1000 ms, at most 6 in a window, and holds. Both send every list; the
// sender that does not refresh holds every list back. The refreshes'
// entries in the provider's ledger break none of the other invariants.
func TestCredentialStorm(t *testing.T) {
	spec, err := model.Spec("credential_expired")
	if err != nil {
		t.Fatal(err)
	}
	if !spec.Fleet || spec.LastsMs != 1 || spec.Paper || slices.ContainsFunc(model.Catalogue(), func(s model.FaultSpec) bool { return s.Kind == spec.Kind }) ||
		slices.ContainsFunc(model.CacheAndWorkerKinds(), func(s model.FaultSpec) bool { return s.Kind == spec.Kind }) {
		t.Fatalf("spec %+v", spec)
	}
	def := mailfleet.CredentialDefinition()
	for _, c := range []struct {
		how, storm string
		load       []int
		verdict    model.ClaimVerdict
	}{
		{mailfleet.CredentialLockstep, "13 attempts (3 retries) in the window 0-100 ms, past the provider's capacity of 12", []int{30}, model.ClaimRelease},
		{mailfleet.CredentialJitter, "", []int{10, 0, 1, 3, 2, 0, 2, 1, 5, 6}, model.ClaimRelease},
		{"", "", []int{10}, model.ClaimHold},
	} {
		res, err := def.Run(expired(c.how), model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, inv := range res.Invariants {
			if inv.Invariant != model.InvNoRetryStorm && !inv.Held {
				t.Errorf("%q: the refresh's ledger entry broke %s: %s", c.how, inv.Invariant, inv.Detail)
			}
		}
		storm, _ := res.Invariant(model.InvNoRetryStorm)
		if storm.Held != (c.storm == "") || storm.Detail != c.storm {
			t.Errorf("%q: %+v", c.how, storm)
		}
		if l := res.Fleet; !slices.Equal(l.Load, c.load) || l.OutageRefused != 0 {
			t.Errorf("%q: %s, %v", c.how, l, l.Load)
		}
		for _, cl := range res.Claims {
			if cl.Verdict != c.verdict {
				t.Errorf("%q: %s: %s %s", c.how, cl.Task, cl.Verdict, cl.Reason)
			}
		}
	}
	if _, err := def.Factory(model.Config{System: json.RawMessage(`{"credential":"poll"}`)}); err == nil ||
		err.Error() != `mailfleet: config: credential "poll" (valid: "lockstep", "jitter", or none)` {
		t.Errorf("bad credential: %v", err)
	}
}

// TestDefaultSearchFindsCredentialStorm: the default search of the
// credential fleet draws credential_expired (the fixture declares its
// credential shared) and finds the lockstep sender from scratch at the
// walk's 242nd schedule, shrunk to the one expiry at the first send. The
// jittered sender holds over the walk's 20,000 schedules and 100 random
// checks (scripts/credential-storm.sh).
func TestDefaultSearchFindsCredentialStorm(t *testing.T) {
	rep, err := properties.Explore(mailfleet.CredentialDefinition(), properties.WithConfig(credentialConfig(mailfleet.CredentialLockstep)))
	if err != nil {
		t.Fatal(err)
	}
	cx := rep.Counterexample
	if !rep.Found || cx == nil || rep.Walk == nil || rep.Walk.Schedules != 242 || cx.Invariant != model.InvNoRetryStorm ||
		len(cx.Shrunk.Faults) != 1 || cx.Shrunk.Faults[0] != (model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "credential_expired"}) {
		t.Fatalf("%+v", rep)
	}
	if want := "13 attempts (3 retries) in the window 0-100 ms, past the provider's capacity of 12"; cx.Detail != want {
		t.Errorf("detail %q", cx.Detail)
	}
}
