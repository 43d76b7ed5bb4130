package callfault_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/faultline/faultline/callfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
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

// TestWrapLastingFiredExactly: a lasting kind is recorded fired once for
// each call it refused, on production code's clock (a synctest bubble):
// the outage refuses every call of its 1,000 logical ms (999 ms after the
// first included, 1,000 ms after not), the expired credential every call
// of its first instant; the provider serves the others.
func TestWrapLastingFiredExactly(t *testing.T) {
	for _, tc := range []struct {
		kind  string
		at    []time.Duration
		want  string
		fired int
	}{
		{"provider_outage", []time.Duration{0, 0, 999 * time.Millisecond, time.Second}, "unavailable unavailable unavailable ch_1", 3},
		{"credential_expired", []time.Duration{0, 0, time.Millisecond}, "unauthorized unauthorized ch_1", 2},
	} {
		synctest.Test(t, func(t *testing.T) {
			l := &ledgerSvc{}
			var got []string
			sys := sysFunc{l: l, run: func(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
				charge, err := callfault.Wrap(env.Calls, spec, l.charge)
				if err != nil {
					return model.Claim{}, err
				}
				var now time.Duration
				for _, at := range tc.at {
					//faultline:ignore production code waits on the time package; the test runs it in a synctest bubble, whose clock is the run's
					time.Sleep(at - now)
					now = at
					resp, err := charge(ctx, chargeReq{Key: "k", Subject: task.Subject, Amount: task.Amount, Trace: task.Trace})
					switch {
					case errors.Is(err, errUnavailable):
						got = append(got, "unavailable")
					case errors.Is(err, errUnauthorized):
						got = append(got, "unauthorized")
					default:
						got = append(got, resp.Receipt)
					}
				}
				return model.Claim{Verdict: model.ClaimHold}, nil
			}}
			res, err := model.NewHarness(billFixture, model.Options{Builtin: []string{}, Clock: properties.BubbleClock}).Run(
				func() model.System { return sys },
				&model.Schedule{Version: model.ScheduleVersion, Seed: "l", Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: tc.kind}}})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != tc.want || res.Faults[0].Fired != tc.fired || len(l.ledger()) != 1 {
				t.Errorf("%s: caller got %v (want %s), %d rows, fault %+v", tc.kind, got, tc.want, len(l.ledger()), res.Faults[0])
			}
		})
	}
}
