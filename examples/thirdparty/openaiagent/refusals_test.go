package openaiagent_test

import (
	"testing"
	"testing/synctest"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestProviderRefusals: the provider's refusals outside the catalogue at
// the first submission, through openai-go's default retries, in a
// synctest bubble. The outage's 503 (no Retry-After) is retried by
// openai-go on its own back-off (about 0.5 s, then 1 s, jittered): the
// first retry falls in the outage's 1,000 logical ms and is refused
// again, the second is served, and one batch is made. do_not_retry's 400
// (x-should-retry: false) and the expired credential's 401 are sent once
// and the agent holds: nothing is made, no invariant breaks.
func TestProviderRefusals(t *testing.T) {
	def := definition(false)
	for _, c := range []struct {
		kind           string
		fired, commits int
		rows           int
		claim          model.ClaimVerdict
	}{
		{"provider_outage", 2, 3, 1, model.ClaimRelease},
		{"do_not_retry", 1, 1, 0, model.ClaimHold},
		{"credential_expired", 1, 1, 0, model.ClaimHold},
	} {
		synctest.Test(t, func(t *testing.T) {
			api := &fakeOpenAI{}
			h := model.NewHarness(def.Fixtures[0], model.Options{Builtin: []string{model.InvEffectAtMostOnce, model.InvNoInventedProgress},
				Clock: properties.BubbleClock})
			res, err := h.Run(func() model.System { return batches{api: api} },
				&model.Schedule{Version: model.ScheduleVersion, Seed: "o", Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: c.kind}}})
			if err != nil {
				t.Fatal(err)
			}
			commits := 0
			for _, e := range res.Timeline.Events() {
				if e.Event == model.EvToolCommit {
					commits++
				}
			}
			if !res.Held() || res.Faults[0].Fired != c.fired || commits != c.commits || len(api.ledger()) != c.rows || res.Claims[0].Verdict != c.claim {
				t.Errorf("%s: held %v, fault %+v, %d commits, %d rows, claims %+v", c.kind, res.Held(), res.Faults[0], commits, len(api.ledger()), res.Claims)
			}
		})
	}
}
