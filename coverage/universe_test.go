package coverage_test

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
)

// The reachable keys of the catalogue, in report order (by the position of
// each value in the model's lists, domain first). The 25 kinds have 19
// keys: partial_success_response, malformed_response and output_drift
// share one, timeout_before_send and tool_timeout another, and the four
// checkpoint-store kinds a third.
var catalogueKeys = []string{
	"identity/proposal/before_validation/isolated/capability_record",
	"identity/authority/before_commit/isolated/capability_record",
	"identity/authority/before_commit/persistent/capability_record",
	"identity/worker/before_validation/persistent/capability_record",
	"context/proposal/before_validation/isolated/ledger_readback",
	"context/proposal/before_validation/isolated/state_version",
	"context/proposal/before_validation/isolated/policy_record",
	"context/proposal/before_validation/synchronized/policy_record",
	"context/proposal/before_validation/shared/policy_record",
	"context/memory/before_commit/isolated/checkpoint_store",
	"tool/effect/before_commit/isolated/ledger_readback",
	"tool/effect/after_commit/isolated/ledger_readback",
	"tool/effect/after_commit/isolated/receipt",
	"tool/effect/after_commit/repeated/ledger_readback",
	"tool/effect/after_commit/repeated/receipt",
	"tool/effect/after_commit/persistent/ledger_readback",
	"tool/effect/after_commit/persistent/receipt",
	"tool/effect/after_commit/synchronized/ledger_readback",
	"tool/effect/after_commit/synchronized/receipt",
	"tool/effect/after_commit/shared/ledger_readback",
	"tool/effect/after_commit/shared/receipt",
	"tool/sandbox/before_validation/isolated/ledger_readback",
	"tool/tool_call/before_commit/isolated/ledger_readback",
	"tool/tool_call/before_commit/isolated/budget_counter",
	"tool/tool_call/before_commit/repeated/ledger_readback",
	"tool/tool_call/before_commit/persistent/budget_counter",
	"tool/tool_call/before_commit/synchronized/ledger_readback",
	"tool/tool_call/before_commit/shared/ledger_readback",
	"state/state/before_commit/isolated/state_version",
	"state/state/after_commit/isolated/ledger_readback",
	"state/state/after_checkpoint/isolated/ledger_readback",
	"state/state/after_checkpoint/repeated/ledger_readback",
	"state/state/after_checkpoint/persistent/ledger_readback",
	"state/worker/after_checkpoint/isolated/checkpoint_store",
	"state/checkpoint_store/after_checkpoint/isolated/checkpoint_store",
	"state/branch_join/before_commit/isolated/join_record",
	"evidence/effect/before_commit/isolated/trace_lineage",
	"evidence/proof/after_receipt/isolated/receipt",
	"evidence/proof/after_receipt/synchronized/receipt",
	"evidence/proof/after_receipt/shared/receipt",
}

func TestParseKey(t *testing.T) {
	u := coverage.Default()
	for _, k := range u.Keys() {
		back, err := coverage.ParseKey(k.String())
		if err != nil || back != k {
			t.Fatalf("ParseKey(%q) = %v, %v", k, back, err)
		}
	}
	for in, want := range map[string]string{
		"tool/effect": "want 5 values domain/boundary/phase/correlation/oracle, got 2",
		"network/effect/after_commit/isolated/receipt": `unknown domain "network" (valid: identity, context, tool, state, evidence)`,
		"tool/effect/after_commit/isolated/ledger":     `unknown oracle "ledger"`,
		"tool/effect/later/isolated/receipt":           `unknown phase "later"`,
		"tool/effect/after_commit/bursty/receipt":      `unknown correlation "bursty"`,
		"tool/network/after_commit/isolated/receipt":   `unknown boundary "network"`,
	} {
		_, err := coverage.ParseKey(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseKey(%q) error %v, want it to contain %q", in, err, want)
		}
	}
}

// checkPartition asserts that every key of u is reachable or in exactly
// one gap, that the gap sizes add up, and that Reason agrees.
func checkPartition(t *testing.T, u *coverage.Universe) {
	t.Helper()
	gaps := u.Gaps()
	sum := 0
	for _, g := range gaps {
		sum += g.Keys
	}
	if sum != u.Size()-len(u.Reachable()) {
		t.Fatalf("gaps hold %d keys, want %d", sum, u.Size()-len(u.Reachable()))
	}
	perGap := make([]int, len(gaps))
	for _, k := range u.Keys() {
		in := 0
		for i, g := range gaps {
			if g.Contains(k) {
				in++
				perGap[i]++
			}
		}
		switch {
		case u.IsReachable(k) && (in != 0 || u.Reason(k) != "" || len(u.Kinds(k)) == 0):
			t.Fatalf("reachable key %s is in %d gaps, reason %q, kinds %v", k, in, u.Reason(k), u.Kinds(k))
		case !u.IsReachable(k) && (in != 1 || u.Reason(k) == ""):
			t.Fatalf("unreachable key %s is in %d gaps (want 1), reason %q", k, in, u.Reason(k))
		}
	}
	for i, g := range gaps {
		if perGap[i] != g.Keys {
			t.Fatalf("gap %s says %d keys, contains %d", g.Pattern(), g.Keys, perGap[i])
		}
	}
}

func TestUniverseOfTheCatalogue(t *testing.T) {
	oneGoroutine(t)
	u := coverage.Default()
	// 5 domains, 11 boundaries, 5 phases, 5 correlations, 9 oracles
	if u.Size() != 5*11*5*5*9 {
		t.Fatalf("size %d, want 12375", u.Size())
	}
	var got []string
	for _, k := range u.Reachable() {
		got = append(got, k.String())
	}
	if strings.Join(got, "\n") != strings.Join(catalogueKeys, "\n") {
		t.Fatalf("reachable keys:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(catalogueKeys, "\n"))
	}
	for key, want := range map[string]string{
		"tool/effect/after_commit/isolated/ledger_readback":                 "timeout_after_commit",
		"tool/effect/after_commit/isolated/receipt":                         "partial_success_response,malformed_response,output_drift",
		"tool/tool_call/before_commit/isolated/ledger_readback":             "timeout_before_send,tool_timeout,network_error",
		"tool/tool_call/before_commit/persistent/budget_counter":            "budget_exhaustion",
		"state/checkpoint_store/after_checkpoint/isolated/checkpoint_store": "missing_checkpoint,stale_checkpoint,future_version_checkpoint,corrupt_checkpoint",
		"state/branch_join/before_commit/isolated/join_record":              "branch_failure",
		"state/state/before_commit/isolated/state_version":                  "concurrent_version_change,stale_state_read",
		"state/state/after_commit/isolated/ledger_readback":                 "lagging_readback",
	} {
		if k := u.Kinds(mustKey(t, key)); strings.Join(k, ",") != want {
			t.Errorf("Kinds(%s) = %v, want %s", key, k, want)
		}
	}
	if k, ok := u.KindKey("output_drift"); !ok || k.String() != "tool/effect/after_commit/isolated/receipt" {
		t.Fatalf("KindKey(output_drift) = %s, %t", k, ok)
	}
	// a kind's key under a correlation modifier it accepts; none under one
	// it does not
	if k, ok := u.KindKeyOf("timeout_after_commit", model.Correlation("shared")); !ok || k.String() != "tool/effect/after_commit/shared/ledger_readback" {
		t.Fatalf("KindKeyOf(timeout_after_commit, shared) = %s, %t", k, ok)
	}
	if k, ok := u.KindKeyOf("output_drift", ""); !ok || k.String() != "tool/effect/after_commit/isolated/receipt" {
		t.Fatalf("KindKeyOf(output_drift, \"\") = %s, %t", k, ok)
	}
	if _, ok := u.KindKeyOf("rate_limit", model.Correlation("repeated")); ok {
		t.Fatal("KindKeyOf(rate_limit, repeated): a key for a modifier the kind does not accept")
	}
	// one gap per domain (boundaries), per (domain, boundary) pair (14:
	// phases), per (domain, boundary, phase) triple but tool/effect/after_commit
	// and tool/tool_call/before_commit, which have every correlation (15:
	// correlations), and per (domain, boundary, phase, correlation)
	// quadruple (32: oracles; identity/authority/before_commit/persistent
	// and identity/worker/before_validation/persistent are those of the
	// kinds outside the catalogue)
	if len(u.Gaps()) != 5+14+15+32 {
		t.Fatalf("%d gaps, want 66", len(u.Gaps()))
	}
	checkPartition(t, u)
	for key, want := range map[string]string{
		"tool/proposal/before_validation/isolated/receipt": "no tool fault kind enters at boundary proposal; tool kinds enter at effect (timeout_after_commit, partial_success_response, " +
			"reject_before_commit, malformed_response, output_drift, false_success, server_error), sandbox (sandbox_denial), tool_call (timeout_before_send, rate_limit, tool_timeout, budget_exhaustion, network_error)",
		"tool/effect/after_commit/repeated/budget_counter": "no tool fault kind at boundary effect in phase after_commit with correlation repeated is adjudicated by oracle budget_counter; " +
			"tool kinds at boundary effect in phase after_commit with correlation repeated are adjudicated by ledger_readback (timeout_after_commit), receipt (malformed_response, output_drift)",
		"tool/effect/before_commit/repeated/ledger_readback": "no tool fault kind at boundary effect in phase before_commit has correlation repeated; " +
			"tool kinds at boundary effect in phase before_commit have isolated (reject_before_commit, false_success, server_error)",
		"tool/effect/after_commit/isolated/budget_counter": "no tool fault kind at boundary effect in phase after_commit with correlation isolated is adjudicated by oracle budget_counter; " +
			"tool kinds at boundary effect in phase after_commit with correlation isolated are adjudicated by ledger_readback (timeout_after_commit), receipt (partial_success_response, malformed_response, output_drift)",
		"tool/tool_call/before_commit/persistent/ledger_readback": "no tool fault kind at boundary tool_call in phase before_commit with correlation persistent is adjudicated by oracle ledger_readback; " +
			"tool kinds at boundary tool_call in phase before_commit with correlation persistent are adjudicated by budget_counter (budget_exhaustion)",
		"state/state/after_receipt/isolated/ledger_readback": "no state fault kind at boundary state enters in phase after_receipt; " +
			"state kinds at boundary state enter in before_commit (concurrent_version_change, stale_state_read), after_commit (lagging_readback), after_checkpoint (checkpoint_rollback)",
		"state/state/after_commit/isolated/state_version": "no state fault kind at boundary state in phase after_commit with correlation isolated is adjudicated by oracle state_version; " +
			"state kinds at boundary state in phase after_commit with correlation isolated are adjudicated by ledger_readback (lagging_readback)",
		"state/branch_join/before_commit/isolated/checkpoint_store": "no state fault kind at boundary branch_join in phase before_commit with correlation isolated is adjudicated by oracle checkpoint_store; " +
			"state kinds at boundary branch_join in phase before_commit with correlation isolated are adjudicated by join_record (branch_failure)",
	} {
		if got := u.Reason(mustKey(t, key)); got != want {
			t.Errorf("Reason(%s):\n got %s\nwant %s", key, got, want)
		}
	}
	g := u.Gaps()[0]
	if g.Pattern() != "identity/{effect,state,proof,sandbox,tool_call,checkpoint_store,branch_join,memory}/*/*/*" || g.Keys != 8*5*5*9 {
		t.Fatalf("first gap %s (%d keys)", g.Pattern(), g.Keys)
	}
	// the context kinds at proposal before_validation: correlations
	// repeated and persistent are missing (isolated, synchronized and
	// shared are present: stale_policy's modifiers)
	found := false
	for _, g := range u.Gaps() {
		if g.Pattern() == "context/proposal/before_validation/{repeated,persistent}/*" {
			found = g.Keys == 2*9 && g.Dim == coverage.DimCorrelation
		}
	}
	if !found {
		t.Fatal("no gap context/proposal/before_validation/{repeated,persistent}/* of 18 keys")
	}
}

// TestUniverseFollowsTheCatalogue adds a kind with a new correlation and a
// domain with no kind: the universe changes with no code change.
func TestUniverseFollowsTheCatalogue(t *testing.T) {
	oneGoroutine(t)
	specs := model.Catalogue()
	storm := specs[15] // rate_limit, as one quota hitting every worker at once
	storm.Kind, storm.Correlation = "quota_storm", model.Correlation("synchronized")
	var noIdentity []model.FaultSpec
	for _, s := range append(specs, storm) {
		if s.Domain != model.Domain("identity") {
			noIdentity = append(noIdentity, s)
		}
	}
	u, err := coverage.NewUniverse(noIdentity)
	if err != nil {
		t.Fatal(err)
	}
	k := mustKey(t, "tool/tool_call/before_commit/synchronized/budget_counter")
	// 38 keys, less the two identity keys, plus the storm's
	if !u.IsReachable(k) || len(u.Reachable()) != 37 {
		t.Fatalf("reachable %d keys, storm key reachable %t", len(u.Reachable()), u.IsReachable(k))
	}
	if got, want := u.Reason(mustKey(t, "identity/authority/before_commit/isolated/capability_record")),
		"no fault kind in the catalogue has domain identity; the catalogue's kinds have context (stale_policy, cross_source_conflict, memory_loss, duplicate_tool_call, model_refusal, "+
			"stale_context, omitted_context, malformed_tool_call), "+
			"tool (timeout_after_commit, partial_success_response, sandbox_denial, timeout_before_send, reject_before_commit, malformed_response, "+
			"output_drift, rate_limit, tool_timeout, budget_exhaustion, false_success, quota_storm), "+
			"state (checkpoint_rollback, concurrent_version_change, worker_restart, missing_checkpoint, stale_checkpoint, future_version_checkpoint, "+
			"corrupt_checkpoint, branch_failure, lagging_readback, stale_state_read), evidence (drop_effect_receipt, break_trace_lineage)"; got != want {
		t.Fatalf("reason:\n got %s\nwant %s", got, want)
	}
	checkPartition(t, u)

	if _, err := coverage.NewUniverse(append(specs, specs[0])); err == nil || !strings.Contains(err.Error(), `kind "subject_swap" appears twice`) {
		t.Fatalf("duplicate kind: %v", err)
	}
	bad := specs[0]
	bad.Kind, bad.Oracle = "odd", "gut_feeling"
	if _, err := coverage.NewUniverse([]model.FaultSpec{bad}); err == nil || !strings.Contains(err.Error(), `kind "odd"`) || !strings.Contains(err.Error(), `unknown oracle "gut_feeling"`) {
		t.Fatalf("bad oracle: %v", err)
	}
}
