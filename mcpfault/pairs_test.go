package mcpfault_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/faultline/faultline/mcpfault"
	"github.com/faultline/faultline/model"
)

// TestCounterfactualPairs: each supported kind, once at the first
// tools/call of delete_snapshot, bites an agent without the matching
// defence (the named invariant breaks, read from the provider's own
// table) and is contained by the agent with it.
func TestCounterfactualPairs(t *testing.T) {
	fresh, stable := policy{freshKey: true}, policy{}
	for _, tc := range []struct {
		kind           string
		bad, good      policy
		inv            string
		badRows        int
		detail         string
		badEv, goodEvs string
		goodRows       int
	}{
		{"timeout_before_send", policy{trustTimeout: true}, stable, model.InvNoInventedProgress, 0,
			"release although the ledger holds no effect of the task", "worker.start/ tool.commit/unknown claim/release",
			"worker.start/ tool.commit/unknown tool.commit/committed claim/release", 1},
		{"reject_before_commit", policy{ignoreIsError: true}, stable, model.InvNoInventedProgress, 0,
			"release although the ledger holds no effect of the task", "worker.start/ tool.commit/rejected claim/release",
			"worker.start/ tool.commit/rejected claim/hold", 0},
		{"rate_limit", policy{ignoreIsError: true}, stable, model.InvNoInventedProgress, 0,
			"release although the ledger holds no effect of the task", "worker.start/ tool.commit/rejected claim/release",
			"worker.start/ tool.commit/rejected tool.commit/committed claim/release", 1},
		{"timeout_after_commit", fresh, stable, model.InvEffectAtMostOnce, 2,
			"second ledger effect for task job-1", "worker.start/ tool.commit/unknown tool.commit/committed claim/release",
			"worker.start/ tool.commit/unknown tool.commit/committed claim/release", 1},
		{"tool_timeout", fresh, stable, model.InvEffectAtMostOnce, 2,
			"second ledger effect for task job-1", "worker.start/ tool.commit/unknown tool.commit/committed claim/release",
			"worker.start/ tool.commit/unknown tool.commit/committed claim/release", 1},
		{"partial_success_response", fresh, stable, model.InvEffectAtMostOnce, 2,
			"second ledger effect for task job-1", "worker.start/ tool.commit/committed tool.commit/committed claim/release",
			"worker.start/ tool.commit/committed tool.commit/committed claim/release", 1},
		{"malformed_response", fresh, stable, model.InvEffectAtMostOnce, 2,
			"second ledger effect for task job-1", "worker.start/ tool.commit/unknown tool.commit/committed claim/release",
			"worker.start/ tool.commit/unknown tool.commit/committed claim/release", 1},
		{"output_drift", fresh, stable, model.InvEffectAtMostOnce, 2,
			"second ledger effect for task job-1", "worker.start/ tool.commit/committed tool.commit/committed claim/release",
			"worker.start/ tool.commit/committed tool.commit/committed claim/release", 1},
		// a result without IsError whose content says the deletion failed
		{"false_success", policy{trustEnvelope: true}, stable, model.InvNoInventedProgress, 0,
			"release although the ledger holds no effect of the task", "worker.start/ tool.commit/rejected claim/release",
			"worker.start/ tool.commit/rejected tool.commit/committed claim/release", 1},
		// before commit (after it: TestTransportAfterCommit)
		{"server_error", policy{trustTimeout: true}, stable, model.InvNoInventedProgress, 0,
			"release although the ledger holds no effect of the task", "worker.start/ tool.commit/unknown claim/release",
			"worker.start/ tool.commit/unknown tool.commit/committed claim/release", 1},
		{"network_error", policy{trustTimeout: true}, stable, model.InvNoInventedProgress, 0,
			"release although the ledger holds no effect of the task", "worker.start/ tool.commit/unknown claim/release",
			"worker.start/ tool.commit/unknown tool.commit/committed claim/release", 1},
		{"break_trace_lineage", stable, policy{checkTrace: true}, "trace_joined", 1,
			"released del_1 made under trace \"orphan-req-1\"", "worker.start/ tool.commit/committed claim/release",
			"worker.start/ tool.commit/committed ledger.readback/ok claim/hold", 1},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			opts := mcpfault.Options{Readback: []string{"get_deletion"}}
			p := newProvider(true)
			res := run(t, system{p: p, pol: tc.bad, opts: opts}, at(tc.kind))
			inv, _ := res.Invariant(tc.inv)
			f := res.Faults[0]
			// the invariant breaks at the second commit (a second effect) or at the claim
			want := model.EvClaim
			if tc.inv == model.InvEffectAtMostOnce {
				want = model.EvToolCommit
			}
			if inv.Held || inv.Event != want || f.FiredAt != 2 || inv.FaultID != "f1" || inv.Detail != tc.detail || len(p.rows) != tc.badRows || f.Fired != 1 || !f.Reached {
				t.Errorf("undefended: %s %+v, %d rows, fault %+v", tc.inv, inv, len(p.rows), f)
			}
			if got := events(res); got != tc.badEv {
				t.Errorf("undefended timeline %s\nwant %s", got, tc.badEv)
			}
			if tc.kind == "rate_limit" {
				// the defended agent waits the retry-after on the time
				// package: run in a bubble whose clock is the run's, so
				// retry_paced judges the wait
				synctest.Test(t, func(t *testing.T) {
					p = newProvider(true)
					res = runClocked(t, system{p: p, pol: tc.good, opts: opts}, at(tc.kind))
				})
			} else {
				p = newProvider(true)
				res = run(t, system{p: p, pol: tc.good, opts: opts}, at(tc.kind))
			}
			if !res.Held() || len(p.rows) != tc.goodRows || res.Faults[0].Fired != 1 {
				t.Errorf("defended: held %v %+v, %d rows, fault %+v", res.Held(), res.Invariants, len(p.rows), res.Faults[0])
			}
			if got := events(res); got != tc.goodEvs {
				t.Errorf("defended timeline %s\nwant %s", got, tc.goodEvs)
			}
		})
	}
	if len(mcpfault.Kinds()) != 15 { // the five outside the catalogue: TestTransportAfterCommit and the refusals' pairs
		t.Fatalf("Kinds %v", mcpfault.Kinds())
	}
}

// TestTransportAfterCommit: server_error and network_error after the
// provider deleted the snapshot (target after_commit). The agent that
// retries under a fresh key deletes twice (effect_at_most_once, from the
// provider's two rows); the one that keeps its key is replayed once.
func TestTransportAfterCommit(t *testing.T) {
	for _, kind := range []string{"server_error", "network_error"} {
		f := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: kind, Target: "after_commit"}
		p := newProvider(true)
		res := run(t, system{p: p, pol: policy{freshKey: true}}, f)
		inv, _ := res.Invariant(model.InvEffectAtMostOnce)
		if inv.Held || inv.Detail != "second ledger effect for task job-1" || len(p.rows) != 2 || res.Faults[0].Fired != 1 {
			t.Errorf("%s, fresh key: %+v, %d rows, fault %+v", kind, inv, len(p.rows), res.Faults[0])
		}
		if got, want := events(res), "worker.start/ tool.commit/unknown tool.commit/committed claim/release"; got != want {
			t.Errorf("%s, fresh key: timeline %s", kind, got)
		}
		p = newProvider(true)
		res = run(t, system{p: p, pol: policy{}}, f)
		if !res.Held() || len(p.rows) != 1 || res.Faults[0].Fired != 1 || res.Claims[0].Verdict != model.ClaimRelease {
			t.Errorf("%s, same key: held %v %+v, %d rows, fault %+v", kind, res.Held(), res.Invariants, len(p.rows), res.Faults[0])
		}
	}
}

// TestProviderRefusals: the provider's refusals outside the catalogue,
// once at the first tools/call of delete_snapshot, rendered as IsError
// results, on the janitor (production code, in a synctest bubble whose
// clock is the run's). The agent that takes the IsError result for a
// deletion done invents it; the agent that retries an IsError result
// after a back-off (600 ms, doubled) breaks retry_paced on the result
// that said not to retry, and outlasts the outage's 1,000 logical ms and
// the expiry's instant, deleting once; the agent that holds on an IsError
// result holds. A one-agent run has no fleet: no_retry_storm is not
// checked here.
func TestProviderRefusals(t *testing.T) {
	backoff := policy{backoff: 600 * time.Millisecond}
	const none = "release although the ledger holds no effect of the task"
	for _, tc := range []struct {
		kind        string
		pol         policy
		inv         string // "" holds
		detail      string
		rows, fired int
		claim       model.ClaimVerdict
	}{
		{"do_not_retry", policy{ignoreIsError: true}, model.InvNoInventedProgress, none, 0, 1, model.ClaimRelease},
		{"do_not_retry", backoff, "retry_paced", "attempt 2 of task job-1 sent at 600 ms: the provider answered at 0 ms that the request must not be retried", 1, 1, model.ClaimRelease},
		{"do_not_retry", policy{}, "", "", 0, 1, model.ClaimHold},
		{"provider_outage", policy{ignoreIsError: true}, model.InvNoInventedProgress, none, 0, 1, model.ClaimRelease},
		{"provider_outage", backoff, "", "", 1, 2, model.ClaimRelease},
		{"provider_outage", policy{}, "", "", 0, 1, model.ClaimHold},
		{"credential_expired", policy{ignoreIsError: true}, model.InvNoInventedProgress, none, 0, 1, model.ClaimRelease},
		{"credential_expired", backoff, "", "", 1, 1, model.ClaimRelease},
		{"credential_expired", policy{}, "", "", 0, 1, model.ClaimHold},
	} {
		synctest.Test(t, func(t *testing.T) {
			p := newProvider(true)
			res := runClocked(t, system{p: p, pol: tc.pol}, at(tc.kind))
			f := res.Faults[0]
			claim := model.ClaimVerdict("")
			if len(res.Claims) == 1 {
				claim = res.Claims[0].Verdict
			}
			if len(p.rows) != tc.rows || f.Fired != tc.fired || claim != tc.claim {
				t.Errorf("%s %+v: %d rows, fault %+v, claims %+v", tc.kind, tc.pol, len(p.rows), f, res.Claims)
			}
			if tc.inv == "" {
				if !res.Held() {
					t.Errorf("%s %+v: %+v", tc.kind, tc.pol, res.Invariants)
				}
				return
			}
			inv, _ := res.Invariant(tc.inv)
			if inv.Held || inv.FaultID != "f1" || inv.Detail != tc.detail {
				t.Errorf("%s %+v: %s %+v", tc.kind, tc.pol, tc.inv, inv)
			}
		})
	}
}
