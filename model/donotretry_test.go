package model_test

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestDoNotRetryOnCopperfinFleet: every agent of copperfin-fleet-10 is
// told together (synchronized) that its refund must not be retried. The
// reference system denies any rejection that is not a rate limit, under
// typed and baseline alike: ten attempts, no retry, every invariant
// holds (retry_paced and no_retry_storm included), every claim a denial.
func TestDoNotRetryOnCopperfinFleet(t *testing.T) {
	typed, err := copperfin.ProfileControls(copperfin.ProfileTyped)
	if err != nil {
		t.Fatal(err)
	}
	for _, cs := range []copperfin.Controls{typed, 0} {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "do-not-retry", Config: copperfin.ConfigOfControls(cs),
			Faults: []model.FaultEntry{{Kind: "do_not_retry", Event: model.EvToolCommit, Ordinal: 1, Correlation: "synchronized"}}}
		s.Config.Fixture = "copperfin-fleet-10"
		res := runNamed(t, s)
		if l := res.Fleet; l == nil || l.Attempts != 10 || l.RetryCount != 0 || res.Faults[0].Fired != 10 {
			t.Fatalf("%v: load %+v faults %+v", cs, l, res.Faults)
		}
		for _, i := range res.Invariants {
			if !i.Held {
				t.Errorf("%v: %s: %s", cs, i.Invariant, i.Detail)
			}
		}
		for _, c := range res.Claims {
			if c.Verdict != model.ClaimDeny || !strings.Contains(c.Reason, "do_not_retry") {
				t.Errorf("%v: %s: %s %s", cs, c.Task, c.Verdict, c.Reason)
			}
		}
	}
}
