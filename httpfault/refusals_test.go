package httpfault_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestJoinProviderRefusals: the provider's refusals outside the catalogue,
// once at the first charge, on the jpayer (production code, in a synctest
// bubble whose clock is the run's). A payer that takes the answer for
// done invents the charge; one that retries a 400 that said not to breaks
// retry_paced (its retry is served: one charge); one that retries an
// outage's 503 or an expired credential's 401 at once spends more attempts
// than its budget, each refused again (the outage lasts 1,000 logical ms,
// the expiry answers every send of its instant). The defended payer holds
// on the 400, backs off 600 ms doubled through the outage, and fetches a
// fresh token after 100 ms: each of those charges once. A one-agent run
// has no fleet: no_retry_storm is not checked here.
func TestJoinProviderRefusals(t *testing.T) {
	trusting := jpayer{trustAnswer: true}
	const none = "release although the ledger holds no effect of the task"
	const over = "attempt 4 exceeds one plus the retry budget of 2"
	for _, tc := range []struct {
		kind              string
		bad               jpayer
		inv               string
		event             model.EventName
		detail            string
		badFired, badRows int
		// the defended payer
		goodRows, goodFired int
		goodClaim           model.ClaimVerdict
	}{
		{"do_not_retry", trusting, model.InvNoInventedProgress, model.EvClaim, none, 1, 0, 0, 1, model.ClaimHold},
		{"do_not_retry", jpayer{retries: 2, retry4xx: true}, "retry_paced", model.EvToolCommit,
			"attempt 2 of task inv-1 sent at 0 ms: the provider answered at 0 ms that the request must not be retried", 1, 1, 0, 1, model.ClaimHold},
		{"provider_outage", trusting, model.InvNoInventedProgress, model.EvClaim, none, 1, 0, 1, 2, model.ClaimRelease},
		{"provider_outage", jpayer{retries: 5, retry5xx: true}, model.InvBudget, model.EvToolCommit, over, 6, 0, 1, 2, model.ClaimRelease},
		{"credential_expired", trusting, model.InvNoInventedProgress, model.EvClaim, none, 1, 0, 1, 1, model.ClaimRelease},
		{"credential_expired", jpayer{retries: 5, retry4xx: true}, model.InvBudget, model.EvToolCommit, over, 6, 0, 1, 1, model.ClaimRelease},
	} {
		f := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: tc.kind}
		res, rows := runPay(t, tc.bad, f)
		inv, _ := res.Invariant(tc.inv)
		if inv.Held || inv.Event != tc.event || inv.FaultID != "f1" || inv.Detail != tc.detail || len(rows) != tc.badRows || res.Faults[0].Fired != tc.badFired {
			t.Errorf("%s undefended %+v: %s %+v, %d rows, fault %+v", tc.kind, tc.bad, tc.inv, inv, len(rows), res.Faults[0])
		}
		res, rows = runPay(t, defended, f)
		if !res.Held() || len(rows) != tc.goodRows || res.Faults[0].Fired != tc.goodFired || res.Claims[0].Verdict != tc.goodClaim {
			t.Errorf("%s defended: held %v, %d rows, fault %+v, claims %+v, invariants %+v", tc.kind, res.Held(), len(rows), res.Faults[0], res.Claims, res.Invariants)
		}
	}
}

// timedCalls sends one commit at each of its logical times (ms from the
// run's start, on the bubble's clock) and writes down each status the
// client received.
type timedCalls struct {
	p   *answering
	at  []time.Duration
	got *[]string
}

func (s timedCalls) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	rules, _ := httpfault.Rules(httpfault.Rule{Method: "POST", Path: "/x", Class: httpfault.Commit, Tool: "x"})
	tr, err := httpfault.Join(env.Calls, httpfault.InProcess(s.p), httpfault.JoinOptions{Classify: rules})
	if err != nil {
		return model.Claim{}, err
	}
	var now time.Duration
	for i, at := range s.at {
		//faultline:ignore production code waits on the time package; the test runs it in a synctest bubble, whose clock is the run's
		time.Sleep(at - now)
		now = at
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://127.0.0.1/x", strings.NewReader(`{}`))
		req.Header.Set("Idempotency-Key", fmt.Sprint("k", i))
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			return model.Claim{}, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		*s.got = append(*s.got, fmt.Sprint(resp.StatusCode))
	}
	return model.Claim{Verdict: model.ClaimHold}, nil
}

func (s timedCalls) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return s.p.rows, nil
}

// TestJoinLastingFiredExactly: a lasting kind is recorded fired once for
// each answer it disturbed, on production code's clock: the outage
// answers a 503 to every commit of its 1,000 logical ms (999 ms after
// the first included, 1,000 ms after not), the expired credential a 401
// to every commit of its first instant; the provider serves the others.
func TestJoinLastingFiredExactly(t *testing.T) {
	for _, tc := range []struct {
		kind  string
		at    []time.Duration
		want  string
		fired int
	}{
		{"provider_outage", []time.Duration{0, 0, 500 * time.Millisecond, 999 * time.Millisecond, time.Second, 1500 * time.Millisecond},
			"503@0 503@0 503@500 503@999 200@1000 200@1500", 4},
		{"credential_expired", []time.Duration{0, 0, time.Millisecond, 2 * time.Millisecond}, "401@0 401@0 200@1 200@2", 2},
		{"do_not_retry", []time.Duration{0, 0, time.Millisecond}, "400@0 200@0 200@1", 1},
	} {
		synctest.Test(t, func(t *testing.T) {
			p := &answering{status: 200, body: `{"receipt_id":"r1"}`}
			var got []string
			res, err := model.NewHarness(payFixture, model.Options{Builtin: []string{}, Clock: properties.BubbleClock}).Run(
				func() model.System { return timedCalls{p: p, at: tc.at, got: &got} },
				&model.Schedule{Version: model.ScheduleVersion, Seed: "l", Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: tc.kind}}})
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range commits(res) {
				got[i] += "@" + fmt.Sprint(e.At) // the time the run recorded the commit at
			}
			if strings.Join(got, " ") != tc.want || res.Faults[0].Fired != tc.fired || len(p.rows) != len(tc.at)-tc.fired {
				t.Errorf("%s: client got %s (want %s), %d rows, fault %+v", tc.kind, strings.Join(got, " "), tc.want, len(p.rows), res.Faults[0])
			}
		})
	}
}

// commits are the run's tool.commit events.
func commits(res *model.Result) []model.Event {
	var out []model.Event
	for _, e := range res.Timeline.Events() {
		if e.Event == model.EvToolCommit {
			out = append(out, e)
		}
	}
	return out
}
