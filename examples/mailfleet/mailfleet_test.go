package mailfleet_test

import (
	"slices"
	"testing"

	"github.com/faultline/faultline/examples/mailfleet"
	"github.com/faultline/faultline/model"
)

// TestMailFleetStorm: twenty senders rate-limited together retry together
// without jitter (twenty attempts in one window, capacity four:
// no_retry_storm breaks) and spread out with it (it holds); each sender's
// one retry is counted either way, and every newsletter goes out.
func TestMailFleetStorm(t *testing.T) {
	opts := model.Options{Builtin: []string{model.InvBudget}}
	for _, c := range []struct {
		jitter bool
		held   bool
		storm  int
	}{{false, false, 20}, {true, true, 4}} {
		res, err := model.NewHarness(mailfleet.Fleet(20, 4), opts).Run(func() model.System { return mailfleet.Sender{Jitter: c.jitter} }, mailfleet.Burst(20))
		if err != nil {
			t.Fatal(err)
		}
		inv, ok := res.Invariant(model.InvNoRetryStorm)
		l := res.Fleet
		if !ok || inv.Held != c.held || l.RetryCount != 20 || l.Attempts != 40 || l.StormPeak != c.storm || l.Peak != 20 {
			t.Errorf("jitter %v: %+v %s %v", c.jitter, inv, l, l.Load)
		}
		if c.jitter && slices.Max(l.Retries) > l.Capacity {
			t.Errorf("jitter: retries %v past capacity %d", l.Retries, l.Capacity)
		}
		for _, cl := range res.Claims {
			if cl.Verdict != model.ClaimRelease {
				t.Errorf("jitter %v: %s: %s", c.jitter, cl.Task, cl.Reason)
			}
		}
	}
}
