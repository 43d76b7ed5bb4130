package coverage_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/reference/copperfin"
)

func TestParseRequirements(t *testing.T) {
	qs, err := coverage.ParseRequirements([]byte(`# release 1.2 gate
tool/effect/after_commit/isolated/ledger_readback   # the commit boundary

state/*/*/*/*
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || qs[0].Line != 2 || qs[0].String() != "tool/effect/after_commit/isolated/ledger_readback" || qs[1].Line != 4 || qs[1].String() != "state/*/*/*/*" {
		t.Fatalf("requirements %+v", qs)
	}
	if !qs[1].Matches(mustKey(t, "state/state/before_commit/isolated/state_version")) || qs[1].Matches(mustKey(t, "tool/state/before_commit/isolated/state_version")) {
		t.Fatal("wildcard matching")
	}
	for in, want := range map[string]string{
		"":                   "no key pattern",
		"# only a comment\n": "no key pattern",
		"tool/effect\n":      "keys file line 1: \"tool/effect\": want 5 values",
		"\n\ntool/effect/after_commit/isolated/ledger\n": `keys file line 3: unknown oracle "ledger" (valid: ledger_readback,`,
		"state/*/*/*/*\nstate/*/*/*/*\n":                 "keys file line 2: state/*/*/*/* repeats line 1",
		"*/*/*/**/*\n":                                   `keys file line 1: unknown correlation "**"`,
	} {
		if _, err := coverage.ParseRequirements([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRequirements(%q) error %v, want %q", in, err, want)
		}
	}
}

func TestGate(t *testing.T) {
	d := record(t,
		single(t, "timeout_after_commit", copperfin.ProfileTyped),
		single(t, "partial_success_response", copperfin.ProfileTyped),
		single(t, "checkpoint_rollback", copperfin.ProfileTyped),
		at(t, "concurrent_version_change", 3, copperfin.ProfileTyped),
	).Data()
	u := coverage.Default()
	req := func(s string) []coverage.Requirement {
		q, err := coverage.ParseRequirements([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	ratio := func(r float64) coverage.GateOptions { return coverage.GateOptions{MinRatio: r, HasMinRatio: true} }

	// 3 of the 29 keys copperfin can reach visited (the 10 under a
	// modifier only a concurrent exploration draws are left out): ratio
	// 3/30 = 0.1000
	for _, c := range []struct {
		name    string
		opts    coverage.GateOptions
		passed  bool
		missing []string
	}{
		{"ratio met", ratio(0.10), true, nil},
		{"ratio met exactly", ratio(3.0 / 30), true, nil},
		{"ratio not met", ratio(0.11), false, nil},
		{"after-commit tool keys met", coverage.GateOptions{Require: req("tool/effect/after_commit/isolated/*")}, true, nil},
		{"tool keys", coverage.GateOptions{Require: req("tool/*/*/*/*")}, false,
			[]string{"tool/effect/before_commit/isolated/ledger_readback", "tool/effect/after_commit/repeated/ledger_readback", "tool/effect/after_commit/repeated/receipt",
				"tool/effect/after_commit/persistent/ledger_readback", "tool/effect/after_commit/persistent/receipt", "tool/effect/after_commit/synchronized/ledger_readback",
				"tool/effect/after_commit/synchronized/receipt", "tool/effect/after_commit/shared/ledger_readback", "tool/effect/after_commit/shared/receipt",
				"tool/sandbox/before_validation/isolated/ledger_readback", "tool/tool_call/before_commit/isolated/ledger_readback", "tool/tool_call/before_commit/isolated/budget_counter",
				"tool/tool_call/before_commit/repeated/ledger_readback", "tool/tool_call/before_commit/persistent/budget_counter", "tool/tool_call/before_commit/synchronized/ledger_readback",
				"tool/tool_call/before_commit/shared/ledger_readback"}},
		{"state keys", coverage.GateOptions{Require: req("state/*/*/*/*")}, false,
			[]string{"state/state/before_commit/isolated/state_version", "state/state/after_commit/isolated/ledger_readback", "state/state/after_checkpoint/repeated/ledger_readback",
				"state/state/after_checkpoint/persistent/ledger_readback", "state/worker/after_checkpoint/isolated/checkpoint_store", "state/checkpoint_store/after_checkpoint/isolated/checkpoint_store",
				"state/branch_join/before_commit/isolated/join_record"}},
		{"unreachable key", coverage.GateOptions{Require: req("tool/tool_call/before_commit/persistent/ledger_readback")}, false,
			[]string{"tool/tool_call/before_commit/persistent/ledger_readback"}},
		{"pattern matching nothing", coverage.GateOptions{Require: req("*/*/before_validation/repeated/*")}, false, []string{""}},
		{"both", coverage.GateOptions{MinRatio: 0.07, HasMinRatio: true, Require: req("*/*/*/*/*")}, false,
			[]string{"identity/proposal/before_validation/isolated/capability_record", "identity/authority/before_commit/isolated/capability_record",
				"identity/authority/before_commit/persistent/capability_record", "identity/worker/before_validation/persistent/capability_record", "context/proposal/before_validation/isolated/ledger_readback", "context/proposal/before_validation/isolated/state_version",
				"context/proposal/before_validation/isolated/policy_record", "context/proposal/before_validation/synchronized/policy_record", "context/proposal/before_validation/shared/policy_record",
				"context/memory/before_commit/isolated/checkpoint_store", "tool/effect/before_commit/isolated/ledger_readback", "tool/effect/after_commit/repeated/ledger_readback",
				"tool/effect/after_commit/repeated/receipt", "tool/effect/after_commit/persistent/ledger_readback", "tool/effect/after_commit/persistent/receipt",
				"tool/effect/after_commit/synchronized/ledger_readback", "tool/effect/after_commit/synchronized/receipt", "tool/effect/after_commit/shared/ledger_readback",
				"tool/effect/after_commit/shared/receipt", "tool/sandbox/before_validation/isolated/ledger_readback", "tool/tool_call/before_commit/isolated/ledger_readback",
				"tool/tool_call/before_commit/isolated/budget_counter", "tool/tool_call/before_commit/repeated/ledger_readback", "tool/tool_call/before_commit/persistent/budget_counter",
				"tool/tool_call/before_commit/synchronized/ledger_readback", "tool/tool_call/before_commit/shared/ledger_readback", "state/state/before_commit/isolated/state_version",
				"state/state/after_commit/isolated/ledger_readback", "state/state/after_checkpoint/repeated/ledger_readback", "state/state/after_checkpoint/persistent/ledger_readback",
				"state/worker/after_checkpoint/isolated/checkpoint_store", "state/checkpoint_store/after_checkpoint/isolated/checkpoint_store", "state/branch_join/before_commit/isolated/join_record",
				"evidence/effect/before_commit/isolated/trace_lineage", "evidence/proof/after_receipt/isolated/receipt", "evidence/proof/after_receipt/synchronized/receipt",
				"evidence/proof/after_receipt/shared/receipt"}},
	} {
		g, err := coverage.Gate(u, d, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var keys []string
		for _, m := range g.Missing {
			keys = append(keys, m.Key)
		}
		if g.Passed() != c.passed || strings.Join(keys, ",") != strings.Join(c.missing, ",") {
			t.Errorf("%s: passed %t, missing %v", c.name, g.Passed(), keys)
		}
	}

	g, _ := coverage.Gate(u, d, coverage.GateOptions{MinRatio: 0.5, HasMinRatio: true,
		Require: req("state/*/*/*/*\ntool/tool_call/before_commit/persistent/ledger_readback\n*/*/before_validation/repeated/*")})
	var b bytes.Buffer
	if err := g.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `coverage gate: FAILED
  ratio 0.1071 (3 of 28 keys the systems can reach visited; 40 reachable by the catalogue, the rest left out with why in the report), minimum 0.5000: NOT MET
  unvisited keys of the universe: 25
  unvisited identity/proposal/before_validation/isolated/capability_record: never_tried: no recorded run scheduled subject_swap or tenant_swap or purpose_swap
  unvisited identity/authority/before_commit/isolated/capability_record: never_tried: no recorded run scheduled revoked_capability
  unvisited context/proposal/before_validation/isolated/ledger_readback: never_tried: no recorded run scheduled duplicate_tool_call or model_refusal or malformed_tool_call
  unvisited context/proposal/before_validation/isolated/state_version: never_tried: no recorded run scheduled cross_source_conflict or stale_context or omitted_context
  unvisited context/proposal/before_validation/isolated/policy_record: never_tried: no recorded run scheduled stale_policy
  unvisited context/memory/before_commit/isolated/checkpoint_store: never_tried: no recorded run scheduled memory_loss
  unvisited tool/effect/before_commit/isolated/ledger_readback: never_tried: no recorded run scheduled reject_before_commit or false_success or server_error
  unvisited tool/effect/after_commit/repeated/ledger_readback: never_tried: no recorded run scheduled timeout_after_commit under the modifier repeated (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)
  unvisited tool/effect/after_commit/repeated/receipt: never_tried: no recorded run scheduled malformed_response or output_drift under the modifier repeated (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)
  unvisited tool/effect/after_commit/persistent/ledger_readback: never_tried: no recorded run scheduled timeout_after_commit under the modifier persistent (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)
  unvisited tool/effect/after_commit/persistent/receipt: never_tried: no recorded run scheduled malformed_response or output_drift under the modifier persistent (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)
  unvisited tool/sandbox/before_validation/isolated/ledger_readback: never_tried: no recorded run scheduled sandbox_denial
  unvisited tool/tool_call/before_commit/isolated/ledger_readback: never_tried: no recorded run scheduled timeout_before_send or tool_timeout or network_error
  unvisited tool/tool_call/before_commit/isolated/budget_counter: never_tried: no recorded run scheduled rate_limit
  unvisited tool/tool_call/before_commit/repeated/ledger_readback: never_tried: no recorded run scheduled tool_timeout under the modifier repeated (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)
  unvisited tool/tool_call/before_commit/persistent/budget_counter: never_tried: no recorded run scheduled budget_exhaustion
  unvisited state/state/before_commit/isolated/state_version: scheduled_not_reached: scheduled 1 time, but its event never occurred (concurrent_version_change or stale_state_read)
  unvisited state/state/after_commit/isolated/ledger_readback: never_tried: no recorded run scheduled lagging_readback
  unvisited state/state/after_checkpoint/repeated/ledger_readback: never_tried: no recorded run scheduled checkpoint_rollback under the modifier repeated (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)
  unvisited state/state/after_checkpoint/persistent/ledger_readback: never_tried: no recorded run scheduled checkpoint_rollback under the modifier persistent (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)
  unvisited state/worker/after_checkpoint/isolated/checkpoint_store: never_tried: no recorded run scheduled worker_restart
  unvisited state/checkpoint_store/after_checkpoint/isolated/checkpoint_store: never_tried: no recorded run scheduled missing_checkpoint or stale_checkpoint or future_version_checkpoint or corrupt_checkpoint
  unvisited state/branch_join/before_commit/isolated/join_record: never_tried: no recorded run scheduled branch_failure
  unvisited evidence/effect/before_commit/isolated/trace_lineage: never_tried: no recorded run scheduled break_trace_lineage or span_carry_over
  unvisited evidence/proof/after_receipt/isolated/receipt: never_tried: no recorded run scheduled drop_effect_receipt
  required keys: 9, unvisited: 8; patterns matching no reachable key: 1
  line 1 state/*/*/*/*: unvisited state/state/before_commit/isolated/state_version: scheduled_not_reached: scheduled 1 time, but its event never occurred (concurrent_version_change or stale_state_read)
  line 1 state/*/*/*/*: unvisited state/state/after_commit/isolated/ledger_readback: never_tried: no recorded run scheduled lagging_readback
  line 1 state/*/*/*/*: unvisited state/state/after_checkpoint/repeated/ledger_readback: never_tried: no recorded run scheduled checkpoint_rollback under the modifier repeated (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)
  line 1 state/*/*/*/*: unvisited state/state/after_checkpoint/persistent/ledger_readback: never_tried: no recorded run scheduled checkpoint_rollback under the modifier persistent (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)
  line 1 state/*/*/*/*: unvisited state/worker/after_checkpoint/isolated/checkpoint_store: never_tried: no recorded run scheduled worker_restart
  line 1 state/*/*/*/*: unvisited state/checkpoint_store/after_checkpoint/isolated/checkpoint_store: never_tried: no recorded run scheduled missing_checkpoint or stale_checkpoint or future_version_checkpoint or corrupt_checkpoint
  line 1 state/*/*/*/*: unvisited state/branch_join/before_commit/isolated/join_record: never_tried: no recorded run scheduled branch_failure
  line 2 tool/tool_call/before_commit/persistent/ledger_readback: unvisited tool/tool_call/before_commit/persistent/ledger_readback: unreachable: no tool fault kind at boundary tool_call in phase before_commit with correlation persistent is adjudicated by oracle ledger_readback; tool kinds at boundary tool_call in phase before_commit with correlation persistent are adjudicated by budget_counter (budget_exhaustion)
  line 3 */*/before_validation/repeated/*: no reachable key matches this pattern
`
	if b.String() != want {
		t.Fatalf("gate text:\n%s", b.String())
	}

	for _, bad := range []coverage.GateOptions{{}, ratio(1.5), ratio(-0.1), ratio(math.NaN())} {
		if _, err := coverage.Gate(u, d, bad); err == nil {
			t.Errorf("Gate(%+v) accepted bad options", bad)
		}
	}
	// --min-ratio -0 is the minimum 0, not "-0.0000"
	g, err := coverage.Gate(u, d, ratio(math.Copysign(0, -1)))
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := g.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if want := "coverage gate: passed\n  ratio 0.1071 (3 of 28 keys the systems can reach visited; 40 reachable by the catalogue, the rest left out with why in the report), minimum 0.0000: met\n"; b.String() != want || math.Signbit(g.MinRatio) {
		t.Errorf("gate of -0: %q (sign bit %t), want %q", b.String(), math.Signbit(g.MinRatio), want)
	}
}
