package mailfleet_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/faultline/faultline/examples/mailfleet"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestDoNotRetryStorm: twenty senders whose first sends are all rejected
// with an answer that says not to retry (do_not_retry, synchronized). The
// sender that retries every refusal sends its twenty retries together at
// 150 ms (no_retry_storm breaks at the fifth, past the capacity of four
// in the window 100-200 ms, and the window's peak is twenty; retry_paced: a retry of a request the provider said must not be
// retried); the sender that holds on a permanent rejection sends nothing
// more and both hold.
func TestDoNotRetryStorm(t *testing.T) {
	spec, err := model.Spec("do_not_retry")
	if err != nil {
		t.Fatal(err)
	}
	in := func(specs []model.FaultSpec) bool {
		return slices.ContainsFunc(specs, func(s model.FaultSpec) bool { return s.Kind == spec.Kind })
	}
	if in(model.Catalogue()) || !in(model.CacheAndWorkerKinds()) || !spec.Fleet || spec.Paper || spec.Oracle != "budget_counter" ||
		!slices.Equal(spec.Threatens, []string{"retry_paced", model.InvNoRetryStorm}) {
		t.Fatalf("spec %+v", spec)
	}
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "mail-do-not-retry", Config: model.Config{Fixture: "mail-fleet"},
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "do_not_retry", Correlation: "synchronized"}}}
	opts := model.Options{Builtin: []string{model.InvNoInventedProgress}}
	for _, c := range []struct {
		retryAny                bool
		storm, paced            string
		attempts, retries, peak int
		verdict                 model.ClaimVerdict
	}{
		{true, "5 attempts (5 retries) in the window 100-200 ms, past the provider's capacity of 4",
			"attempt 2 of task send-list-20 sent at 150 ms: the provider answered at 50 ms that the request must not be retried", 40, 20, 20, model.ClaimRelease},
		{false, "", "", 20, 0, 0, model.ClaimHold},
	} {
		res, err := model.NewHarness(mailfleet.Fleet(20, 4), opts).Run(func() model.System { return mailfleet.Sender{RetryAny: c.retryAny} }, s)
		if err != nil {
			t.Fatal(err)
		}
		storm, _ := res.Invariant(model.InvNoRetryStorm)
		paced, _ := res.Invariant("retry_paced")
		if storm.Held != (c.storm == "") || paced.Held != (c.paced == "") {
			t.Errorf("retry_any %v: %+v %+v", c.retryAny, storm, paced)
		}
		l := res.Fleet
		if l.Attempts != c.attempts || l.RetryCount != c.retries || l.StormPeak != c.peak || l.Peak != 20 {
			t.Errorf("retry_any %v: %s %v", c.retryAny, l, l.Load)
		}
		for _, cl := range res.Claims {
			if cl.Verdict != c.verdict {
				t.Errorf("retry_any %v: %s: %s %s", c.retryAny, cl.Task, cl.Verdict, cl.Reason)
			}
		}
		if c.paced != "" && paced.Detail != c.paced {
			t.Errorf("retry_any %v: retry_paced %q", c.retryAny, paced.Detail)
		}
		if c.storm != "" && storm.Detail != c.storm {
			t.Errorf("retry_any %v: no_retry_storm %q", c.retryAny, storm.Detail)
		}
	}
}

// TestDefaultSearchFindsDoNotRetry: the default check of the ten-sender
// fleet (mailfleet.Definition) draws do_not_retry, a kind outside the
// catalogue, because the fixture is a fleet. On the sender that retries
// every refusal it finds it from scratch at the walk's 182nd schedule,
// shrunk to one permanent rejection of the first send (retry_paced); the
// sender that holds on it holds over the walk's 20,000 schedules and 100
// random checks (not with -short).
func TestDefaultSearchFindsDoNotRetry(t *testing.T) {
	explore := func(system string) *properties.Report {
		rep, err := properties.Explore(mailfleet.Definition(), properties.WithConfig(model.Config{System: json.RawMessage(system)}))
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := explore(`{"retry_any":true}`)
	cx := rep.Counterexample
	if !rep.Found || cx == nil || rep.Walk == nil || rep.Walk.Schedules != 182 || cx.Invariant != "retry_paced" ||
		len(cx.Shrunk.Faults) != 1 || cx.Shrunk.Faults[0] != (model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "do_not_retry"}) {
		t.Fatalf("retry_any: %+v", rep)
	}
	if want := "attempt 2 of task ref-2494f54c sent at 150 ms: the provider answered at 50 ms that the request must not be retried"; cx.Detail != want {
		t.Errorf("detail %q", cx.Detail)
	}
	if testing.Short() {
		return
	}
	rep = explore(`{}`)
	if rep.Found || rep.Walk == nil || rep.Walk.Schedules != 20000 || rep.Checks != 100 || !slices.Contains(rep.Walk.Scope.Kinds, "do_not_retry") {
		t.Fatalf("control: %+v", rep)
	}
}
