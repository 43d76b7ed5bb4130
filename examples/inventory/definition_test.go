package inventory_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestDefinitionRecord: run through its Definition, the agent's record
// names its config in its own terms and, in the next step, its own
// controls: never "controls none" nor a control of the reference system.
func TestDefinitionRecord(t *testing.T) {
	d := inventory.Definition()
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "planted", Config: model.Config{System: json.RawMessage(`{"variant":"planted"}`)},
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 2, Kind: "tool_timeout"}}}
	res, err := d.Run(s, model.Options{RetryBudget: 3})
	if err != nil {
		t.Fatal(err)
	}
	rec := res.Record()
	inv, _ := res.Invariant(inventory.InvConfirmedOnce)
	if inv.Held || rec.Contract.System != "inventory" ||
		rec.Contract.Config != "controls stable_keys,hold_lookup,typed_outcomes,checkpoint_check,bind_request,recheck_authority, variant planted" {
		t.Fatalf("confirmed_once %+v, contract %+v", inv, rec.Contract)
	}
	if !strings.Contains(rec.NextCheck, "with control stable_keys or hold_lookup enabled") {
		t.Errorf("next step %q", rec.NextCheck)
	}
	b, _ := json.Marshal(rec)
	if strings.Contains(string(b), "controls none") {
		t.Errorf("record says controls none:\n%s", rec.Summary)
	}
	for _, c := range copperfin.AllControls {
		if strings.Contains(string(b), string(c)) {
			t.Errorf("record names the reference system's control %s:\n%s", c, rec.Summary)
		}
	}
	for system, want := range map[string]string{
		`{"controls":["bind_identity"]}`:             `control "bind_identity" is not a control of inventory (valid: stable_keys, hold_lookup, typed_outcomes, checkpoint_check, bind_request, recheck_authority)`,
		`{"profile":"typed"}`:                        `config of inventory: json: unknown field "profile"`,
		`{"variant":"broken"}`:                       `config of inventory: unknown variant "broken" (valid: fixed, planted)`,
		`{"controls":["hold_lookup","hold_lookup"]}`: `control "hold_lookup" listed twice`,
	} {
		if _, err := d.Configure(json.RawMessage(system)); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", system, err, want)
		}
	}
}
