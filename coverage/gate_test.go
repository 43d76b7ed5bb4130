package coverage_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
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
		single(t, "timeout_after_commit", model.ProfileTyped),
		single(t, "partial_success_response", model.ProfileTyped),
		single(t, "checkpoint_rollback", model.ProfileTyped),
		at(t, "concurrent_version_change", 3, model.ProfileTyped),
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

	for _, c := range []struct {
		name    string
		opts    coverage.GateOptions
		passed  bool
		missing []string
	}{
		{"ratio met", ratio(0.3), true, nil},
		{"ratio not met", ratio(0.31), false, nil},
		{"tool keys met", coverage.GateOptions{Require: req("tool/*/*/*/*")}, true, nil},
		{"state keys", coverage.GateOptions{Require: req("state/*/*/*/*")}, false,
			[]string{"state/state/before_commit/isolated/state_version"}},
		{"unreachable key", coverage.GateOptions{Require: req("tool/effect/after_commit/synchronized/ledger_readback")}, false,
			[]string{"tool/effect/after_commit/synchronized/ledger_readback"}},
		{"pattern matching nothing", coverage.GateOptions{Require: req("*/sandbox/*/*/*")}, false, []string{""}},
		{"both", coverage.GateOptions{MinRatio: 0.3, HasMinRatio: true, Require: req("*/*/*/*/*")}, false,
			[]string{"identity/proposal/before_validation/isolated/capability_record", "identity/authority/before_commit/isolated/capability_record",
				"context/proposal/before_validation/isolated/state_version", "context/proposal/before_validation/isolated/policy_record",
				"state/state/before_commit/isolated/state_version", "evidence/effect/before_commit/isolated/trace_lineage",
				"evidence/proof/after_receipt/isolated/receipt"}},
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
		Require: req("state/*/*/*/*\ntool/effect/after_commit/synchronized/ledger_readback\n*/sandbox/*/*/*")})
	var b bytes.Buffer
	if err := g.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `coverage gate: FAILED
  ratio 0.3000 (3 of 10 reachable keys visited), minimum 0.5000: NOT MET
  required keys: 3, unvisited: 3
  line 1 state/*/*/*/*: unvisited state/state/before_commit/isolated/state_version: scheduled_not_reached: scheduled 1 time, but its event never occurred (concurrent_version_change)
  line 2 tool/effect/after_commit/synchronized/ledger_readback: unvisited tool/effect/after_commit/synchronized/ledger_readback: unreachable: no tool fault kind at boundary effect in phase after_commit has correlation synchronized; tool kinds at boundary effect in phase after_commit have isolated (timeout_after_commit, partial_success_response)
  line 3 */sandbox/*/*/*: no reachable key matches this pattern
`
	if b.String() != want {
		t.Fatalf("gate text:\n%s", b.String())
	}

	for _, bad := range []coverage.GateOptions{{}, ratio(1.5), ratio(-0.1), ratio(math.NaN())} {
		if _, err := coverage.Gate(u, d, bad); err == nil {
			t.Errorf("Gate(%+v) accepted bad options", bad)
		}
	}
}
