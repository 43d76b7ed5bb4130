package properties_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestExploreADefinition: Explore runs the system a Definition describes on
// its default fixture with its own invariants in scope, so a user's
// system needs no refund fixture or config; without a fixture an
// exploration is an error that says what to give.
func TestExploreADefinition(t *testing.T) {
	rapidFlags(t, 100, 1)
	d := inventory.Definition()
	planted := model.Config{System: json.RawMessage(`{"variant":"planted"}`)}
	rep, err := properties.Explore(d, properties.WithConfig(planted),
		properties.WithKinds("tool_timeout"), properties.WithMaxFaults(1), properties.WithHarnessOptions(model.Options{RetryBudget: 3}))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Found || rep.Counterexample.Invariant != inventory.InvConfirmedOnce || rep.Counterexample.Schedule.Config.Fixture != "inventory" ||
		string(rep.Counterexample.Schedule.Config.System) != `{"variant":"planted"}` {
		t.Fatalf("found %t: %+v", rep.Found, rep.Counterexample)
	}
	fixed, err := properties.Explore(d, properties.WithKinds("tool_timeout"), properties.WithMaxFaults(1),
		properties.WithHarnessOptions(model.Options{RetryBudget: 3}))
	if err != nil || fixed.Found {
		t.Fatalf("the fixed agent: %v %+v", err, fixed.Counterexample)
	}
	if _, err := properties.Explore(&model.Definition{Name: "x", Configure: d.Configure}); err == nil || err.Error() != "properties: system definition x: no fixture" {
		t.Errorf("no fixture: %v", err)
	}
	if _, err := properties.Explore(d, properties.WithFixture("nope")); err == nil || err.Error() != "properties: WithFixture: unknown fixture \"nope\" (valid: inventory)" {
		t.Errorf("an unknown fixture: %v", err)
	}
	if _, err := properties.Explore(d, properties.WithConfig(model.Config{System: json.RawMessage(`{"profile":"typed"}`)})); err == nil ||
		!strings.Contains(err.Error(), `config of inventory: json: unknown field "profile"`) {
		t.Errorf("a config the system does not have: %v", err)
	}
	if _, err := properties.Explore(&model.Definition{Name: "x"}); err == nil || err.Error() != "properties: system definition x: no Configure" {
		t.Errorf("bad definition: %v", err)
	}
}
