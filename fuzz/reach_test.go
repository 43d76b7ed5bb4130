package fuzz_test

import (
	"testing"

	"github.com/faultline/faultline/fuzz"
)

// TestReachCountsACampaign: Check counts every run, the faults it
// scheduled and those reached; a campaign whose faults were all left
// unreached is inconclusive, one that reached any is not.
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
	if c != (fuzz.ReachCounts{Runs: 2, Faults: 3, Reached: 0}) {
		t.Fatalf("counts %+v", c)
	}
	if err := c.Err(); err == nil || err.Error() != "inconclusive: none of the 3 faults scheduled in 2 runs was reached, so no fault was tested" {
		t.Fatalf("Err() = %v", err)
	}
	if _, err := d.Check(schedule(typed, entry("timeout_after_commit", 1))); err != nil {
		t.Fatal(err)
	}
	c = d.Reach().Counts().Since(start)
	if c != (fuzz.ReachCounts{Runs: 3, Faults: 4, Reached: 1}) || c.Err() != nil {
		t.Fatalf("counts %+v, Err %v", c, c.Err())
	}
	if err := (fuzz.ReachCounts{Runs: 4}).Err(); err != nil {
		t.Errorf("runs without faults: %v", err)
	}
}
