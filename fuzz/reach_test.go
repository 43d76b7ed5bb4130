package fuzz_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
)

// TestReachCountsACampaign: Check counts every run, the faults it
// scheduled and those reached, and the events the runs crossed; a
// campaign whose faults were all left unreached is inconclusive, and says
// which events the system did cross; one that reached any is not.
func TestReachCountsACampaign(t *testing.T) {
	d := decoder(t)
	start := d.Reach().Counts()
	// timeout_after_commit at tool.commit#3: the typed run commits once
	if _, err := d.Check(schedule(typed, entry("timeout_after_commit", 3))); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Check(schedule(typed, entry("timeout_after_commit", 3), entry("stale_policy", 5))); err != nil {
		t.Fatal(err)
	}
	c := d.Reach().Counts().Since(start)
	if c.Runs != 2 || c.Faults != 3 || c.Reached != 0 {
		t.Fatalf("counts %+v", c)
	}
	if !slices.Contains(c.Crossed, model.EvToolCommit) || !slices.Contains(c.Crossed, model.EvContextPolicy) || slices.Contains(c.Crossed, model.EvEvidenceDenial) {
		t.Fatalf("crossed %v", c.Crossed)
	}
	names := make([]string, len(c.Crossed))
	for i, ev := range c.Crossed {
		names[i] = string(ev)
	}
	if err := c.Err(); err == nil || err.Error() != "inconclusive: none of the 3 faults scheduled in 2 runs was reached, so no fault was tested; the events the system crossed: "+strings.Join(names, ", ") {
		t.Fatalf("Err() = %v", err)
	}
	if _, err := d.Check(schedule(typed, entry("timeout_after_commit", 1))); err != nil {
		t.Fatal(err)
	}
	c = d.Reach().Counts().Since(start)
	if c.Runs != 3 || c.Faults != 4 || c.Reached != 1 || c.Fired != 1 || c.Err() != nil {
		t.Fatalf("counts %+v, Err %v", c, c.Err())
	}
	// faults reached that never fired tested nothing either (an adapter
	// that does not enact their kind)
	if err := (fuzz.ReachCounts{Runs: 8, Faults: 8, Reached: 8}).Err(); err == nil || err.Error() != "inconclusive: 8 of the 8 faults scheduled in 8 runs were reached but none fired (the system's adapters enact none of the kinds at the crossings they reached), so no fault was tested; set Definition.Enacts to the adapters' Kinds(), which every door then draws from" {
		t.Errorf("reached, never fired: %v", err)
	}
	// runs whose inputs decoded to no fault tested nothing: never green
	if err := (fuzz.ReachCounts{Runs: 4}).Err(); err == nil || err.Error() != "inconclusive: the 4 runs scheduled no fault, so no fault was tested (add seed inputs that decode to faults); the events the system crossed: (none)" {
		t.Errorf("runs without faults: %v", err)
	}
}
