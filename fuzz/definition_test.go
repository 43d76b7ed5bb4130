package fuzz_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
)

// TestDecoderOfAUsersSystem: a decoder over another system's Definition
// runs that system on its own fixture under its own config (decoded by the
// system, which refuses what it does not have), and its violations name
// the config in the system's terms; only the invariants the system
// declares are in scope (not the refund world's).
func TestDecoderOfAUsersSystem(t *testing.T) {
	d := inventory.Definition()
	planted := model.Config{System: json.RawMessage(`{"variant":"planted"}`), RetryBudget: new(int)}
	*planted.RetryBudget = 3
	dec, err := fuzz.NewDecoder(d, fuzz.WithConfig(planted))
	if err != nil {
		t.Fatal(err)
	}
	if dec.Fixture().Name != "inventory" || dec.SystemName() != "inventory" {
		t.Fatalf("fixture %q system %q", dec.Fixture().Name, dec.SystemName())
	}
	s := dec.Decode(nil)
	s.Faults = []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 2, Kind: "tool_timeout"}}
	_, err = dec.Check(s)
	var v *fuzz.Violation
	if !errors.As(err, &v) {
		t.Fatalf("no violation: %v", err)
	}
	if msg := v.Error(); !strings.HasPrefix(msg, "invariant violated: controls stable_keys,hold_lookup,typed_outcomes,checkpoint_check,bind_request,recheck_authority, variant planted, retry_budget 3, fixture inventory, system inventory,") ||
		!strings.Contains(msg, "confirmed_once: first false after seq") || strings.Contains(msg, "current_entitlement") || strings.Contains(msg, "provable_outcome") {
		t.Errorf("violation:\n%s", msg)
	}
	for _, c := range []struct {
		def  *model.Definition
		opts []fuzz.Option
		want string
	}{
		{nil, nil, "fuzz: system definition: nil"},
		{d, []fuzz.Option{fuzz.WithConfig(model.Config{System: json.RawMessage(`{"mutant":"key_per_attempt"}`)})}, `fuzz: config of inventory: json: unknown field "mutant"`},
		{d, []fuzz.Option{fuzz.WithConfig(model.Config{System: json.RawMessage(`{"controls":["idempotency"]}`)})}, `fuzz: control "idempotency" is not a control of inventory`},
		{d, []fuzz.Option{fuzz.WithFixture("copperfin")}, `fuzz: unknown fixture "copperfin" (valid: inventory)`},
		{&model.Definition{Name: "x"}, nil, "fuzz: system definition x: no Configure"},
	} {
		if _, err := fuzz.NewDecoder(c.def, c.opts...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
