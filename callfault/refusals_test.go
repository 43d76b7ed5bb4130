package callfault_test

import (
	"testing"

	"github.com/faultline/faultline/model"
)

// TestWrapProviderRefusals: the provider's refusals outside the catalogue,
// once at the first call, on the biller (production code, in a synctest
// bubble whose clock is the run's). A biller that takes the refusal for
// done invents the charge; one that retries a refusal that said not to
// breaks retry_paced (its retry is served: one charge); one that retries an outage's 503 or an expired
// credential's 401 at once spends more attempts than its budget, each
// refused again (the outage lasts 1,000 logical ms, the expiry answers
// every send of its instant). The defended biller holds on the permanent
// refusal, backs off 600 ms doubled through the outage and refreshes its
// credential after 100 ms: each of those charges once. A one-agent run
// has no fleet, so no_retry_storm is not checked here.
func TestWrapProviderRefusals(t *testing.T) {
	trusting := biller{trustAnswer: true}
	const none = "release although the ledger holds no effect of the task"
	const over = "attempt 4 exceeds one plus the retry budget of 2"
	for _, tc := range []struct {
		kind     string
		bad      biller
		inv      string
		event    model.EventName
		detail   string
		badFired int
		badRows  int
		// the defended biller
		goodRows, goodFired int
		goodClaim           model.ClaimVerdict
	}{
		{"do_not_retry", trusting, model.InvNoInventedProgress, model.EvClaim, none, 1, 0, 0, 1, model.ClaimHold},
		{"do_not_retry", biller{retries: 2, retryRefused: true}, "retry_paced", model.EvToolCommit,
			"attempt 2 of task inv-1 sent at 100 ms: the provider answered at 0 ms that the request must not be retried", 1, 1, 0, 1, model.ClaimHold},
		{"provider_outage", trusting, model.InvNoInventedProgress, model.EvClaim, none, 1, 0, 1, 2, model.ClaimRelease},
		{"provider_outage", biller{retries: 5}, model.InvBudget, model.EvToolCommit, over, 6, 0, 1, 2, model.ClaimRelease},
		{"credential_expired", trusting, model.InvNoInventedProgress, model.EvClaim, none, 1, 0, 1, 1, model.ClaimRelease},
		{"credential_expired", biller{retries: 5}, model.InvBudget, model.EvToolCommit, over, 6, 0, 1, 1, model.ClaimRelease},
	} {
		f := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: tc.kind}
		res, rows := runBill(t, billSystem{l: &ledgerSvc{}, cfg: tc.bad, spec: spec}, f)
		inv, _ := res.Invariant(tc.inv)
		if inv.Held || inv.Event != tc.event || inv.FaultID != "f1" || inv.Detail != tc.detail || len(rows) != tc.badRows || res.Faults[0].Fired != tc.badFired {
			t.Errorf("%s undefended %+v: %s %+v, %d rows, fault %+v", tc.kind, tc.bad, tc.inv, inv, len(rows), res.Faults[0])
		}
		res, rows = runBill(t, billSystem{l: &ledgerSvc{}, cfg: defended, spec: spec}, f)
		if !res.Held() || len(rows) != tc.goodRows || res.Faults[0].Fired != tc.goodFired || res.Claims[0].Verdict != tc.goodClaim {
			t.Errorf("%s defended: held %v, %d rows, fault %+v, claims %+v, invariants %+v", tc.kind, res.Held(), len(rows), res.Faults[0], res.Claims, res.Invariants)
		}
	}
}
