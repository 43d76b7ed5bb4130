package properties_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestViolationRecordsKeepTheirJSON: Counterexample and PairWitness embed
// model.Violation and still write their JSON as before, key by key and in
// order, and read it back.
func TestViolationRecordsKeepTheirJSON(t *testing.T) {
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "s", Faults: []model.FaultEntry{}}
	v := model.Violation{Invariant: "inv", FirstSeq: 3, Event: model.EvToolCommit, FaultID: "f1", Detail: "why"}
	cx := properties.Counterexample{Schedule: s, Shrunk: s, Violation: v, FaultKind: "k", Timeline: []model.Event{},
		Interleaving: []int{1, 2}, ContextSwitches: 1, File: "f.json", Replay: "r", System: "sys"}
	w := properties.PairWitness{Off: s, On: s, Drawn: s, Draw: 2, Violation: v, FaultKind: "k", OnVerdict: model.Recovered}
	sched := `{"version":2,"seed":"s","config":{"harness":{},"system":{}},"faults":[]}`
	for _, c := range []struct {
		v    any
		back any
		want string
	}{
		{cx, &properties.Counterexample{}, `{"schedule":` + sched + `,"shrunk":` + sched + `,"invariant":"inv","first_seq":3,"event":"tool.commit","fault_id":"f1","fault_kind":"k","detail":"why","timeline":[],"interleaving":[1,2],"context_switches":1,"file":"f.json","replay":"r","system":"sys"}`},
		{properties.Counterexample{}, &properties.Counterexample{}, `{"schedule":null,"shrunk":null,"invariant":"","first_seq":0,"event":"","detail":"","timeline":null,"replay":""}`},
		{w, &properties.PairWitness{}, `{"off":` + sched + `,"on":` + sched + `,"drawn":` + sched + `,"draw":2,"invariant":"inv","first_seq":3,"event":"tool.commit","fault_id":"f1","fault_kind":"k","detail":"why","on_verdict":"recovered"}`},
		{properties.PairWitness{}, &properties.PairWitness{}, `{"off":null,"on":null,"drawn":null,"draw":0,"invariant":"","first_seq":0,"event":"","detail":"","on_verdict":""}`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.want {
			t.Errorf("%T: %v\n got %s\nwant %s", c.v, err, b, c.want)
			continue
		}
		if err := json.Unmarshal(b, c.back); err != nil {
			t.Fatal(err)
		}
		again, _ := json.Marshal(c.back)
		if string(again) != c.want || reflect.ValueOf(c.back).Elem().FieldByName("Violation").Interface() != reflect.ValueOf(c.v).FieldByName("Violation").Interface() {
			t.Errorf("%T: read back as %s", c.v, again)
		}
	}
}
