package mailfleet_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/faultline/faultline/examples/mailfleet"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

func TestScratchOutage(t *testing.T) {
	for _, sys := range []string{`{"outage":"at_once"}`, `{"outage":"backoff"}`} {
		rep, err := properties.Explore(mailfleet.Definition(), properties.WithConfig(model.Config{System: json.RawMessage(sys)}))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(sys, rep.Found, rep.Checks)
		if rep.Walk != nil {
			fmt.Println(" walk", rep.Walk.Schedules)
		}
		if cx := rep.Counterexample; cx != nil {
			fmt.Printf(" %s %q %+v\n", cx.Invariant, cx.Detail, cx.Shrunk.Faults)
		}
	}
}
