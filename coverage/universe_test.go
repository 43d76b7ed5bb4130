package coverage_test

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
)

// The reachable keys of the catalogue, in report order: one per kind.
var catalogueKeys = []string{
	"identity/proposal/before_validation/isolated/capability_record",
	"identity/authority/before_commit/isolated/capability_record",
	"context/proposal/before_validation/isolated/state_version",
	"context/proposal/before_validation/isolated/policy_record",
	"tool/effect/after_commit/isolated/ledger_readback",
	"tool/effect/after_commit/isolated/receipt",
	"state/state/before_commit/isolated/state_version",
	"state/state/after_checkpoint/isolated/ledger_readback",
	"evidence/effect/before_commit/isolated/trace_lineage",
	"evidence/proof/after_receipt/isolated/receipt",
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
	u := coverage.Default()
	if u.Size() != 5*11*5*4*8 {
		t.Fatalf("size %d, want 8800", u.Size())
	}
	var got []string
	for _, k := range u.Reachable() {
		got = append(got, k.String())
	}
	if strings.Join(got, "\n") != strings.Join(catalogueKeys, "\n") {
		t.Fatalf("reachable keys:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(catalogueKeys, "\n"))
	}
	if k := u.Kinds(mustKey(t, "tool/effect/after_commit/isolated/ledger_readback")); len(k) != 1 || k[0] != "timeout_after_commit" {
		t.Fatalf("kinds %v", k)
	}
	if len(u.Gaps()) != 28 {
		t.Fatalf("%d gaps, want 28", len(u.Gaps()))
	}
	checkPartition(t, u)
	for key, want := range map[string]string{
		"tool/proposal/before_validation/isolated/receipt": "no tool fault kind enters at boundary proposal; tool kinds enter at effect (timeout_after_commit, partial_success_response)",
		"tool/effect/after_commit/repeated/ledger_readback": "no tool fault kind at boundary effect in phase after_commit has correlation repeated; " +
			"tool kinds at boundary effect in phase after_commit have isolated (timeout_after_commit, partial_success_response)",
		"tool/effect/after_commit/isolated/budget_counter": "no tool fault kind at boundary effect in phase after_commit with correlation isolated is adjudicated by oracle budget_counter; " +
			"tool kinds at boundary effect in phase after_commit with correlation isolated are adjudicated by ledger_readback (timeout_after_commit), receipt (partial_success_response)",
		"state/state/after_commit/isolated/ledger_readback": "no state fault kind at boundary state enters in phase after_commit; " +
			"state kinds at boundary state enter in before_commit (concurrent_version_change), after_checkpoint (checkpoint_rollback)",
	} {
		if got := u.Reason(mustKey(t, key)); got != want {
			t.Errorf("Reason(%s):\n got %s\nwant %s", key, got, want)
		}
	}
	g := u.Gaps()[0]
	if g.Pattern() != "identity/{effect,state,proof,sandbox,tool_call,worker,checkpoint_store,branch_join,memory}/*/*/*" || g.Keys != 9*5*4*8 {
		t.Fatalf("first gap %s (%d keys)", g.Pattern(), g.Keys)
	}
}

// TestUniverseFollowsTheCatalogue adds a kind with a new correlation and a
// domain with no kind: the universe changes with no code change.
func TestUniverseFollowsTheCatalogue(t *testing.T) {
	specs := model.Catalogue()
	storm := specs[4] // timeout_after_commit, as a retry storm across tenants
	storm.Kind, storm.Correlation = "retry_storm", model.CorrelationSynchronized
	var noIdentity []model.FaultSpec
	for _, s := range append(specs, storm) {
		if s.Domain != model.DomainIdentity {
			noIdentity = append(noIdentity, s)
		}
	}
	u, err := coverage.NewUniverse(noIdentity)
	if err != nil {
		t.Fatal(err)
	}
	k := mustKey(t, "tool/effect/after_commit/synchronized/ledger_readback")
	if !u.IsReachable(k) || len(u.Reachable()) != 9 {
		t.Fatalf("reachable %d keys, storm key reachable %t", len(u.Reachable()), u.IsReachable(k))
	}
	if got, want := u.Reason(mustKey(t, "identity/authority/before_commit/isolated/capability_record")),
		"no fault kind in the catalogue has domain identity; the catalogue's kinds have context (stale_policy, cross_source_conflict), "+
			"tool (timeout_after_commit, partial_success_response, retry_storm), state (checkpoint_rollback, concurrent_version_change), "+
			"evidence (drop_effect_receipt, break_trace_lineage)"; got != want {
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
