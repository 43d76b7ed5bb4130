package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReplayRecordCarriesCorrelationAndFleet: the run record of the retry
// storm names its fault's modifier and holds the fleet's load (100 agents,
// capacity 10 a window of 100 ms, 20 retries under typed_fleet), and the
// text report's fault line names the modifier.
func TestReplayRecordCarriesCorrelationAndFleet(t *testing.T) {
	oneGoroutine(t)
	code, out, stderr := runCLI(t, "replay", "../../reference/corpus/retry-storm.json", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rec struct {
		Faults []struct {
			Correlation string `json:"correlation"`
			Fired       int    `json:"fired"`
		} `json:"faults"`
		Fleet *struct {
			Capacity   int `json:"capacity"`
			WindowMs   int `json:"window_ms"`
			Agents     int `json:"agents"`
			Attempts   int `json:"attempts"`
			Retries    int `json:"retries"`
			StormPeak  int `json:"storm_peak"`
			Overloaded int `json:"overloaded"`
		} `json:"fleet"`
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Faults) != 1 || rec.Faults[0].Correlation != "synchronized" || rec.Faults[0].Fired != 100 {
		t.Errorf("faults %+v", rec.Faults)
	}
	if f := rec.Fleet; f == nil || f.Capacity != 10 || f.WindowMs != 100 || f.Agents != 100 || f.Attempts != 120 || f.Retries != 20 || f.StormPeak != 5 || f.Overloaded != 0 {
		t.Errorf("fleet %+v", rec.Fleet)
	}
	code, out, _ = runCLI(t, "replay", "../../reference/corpus/retry-storm.json")
	if code != 0 || !strings.Contains(out, "  f1 tool_timeout (synchronized) at tool.commit#1: reached, fired 100") {
		t.Errorf("exit %d, the text report's fault line:\n%s", code, out)
	}
	code, out, _ = runCLI(t, "replay", "../../reference/corpus/dropped-receipt.json", "--json")
	if strings.Contains(out, `"fleet"`) {
		t.Errorf("exit %d: a record of no fleet run names a fleet", code)
	}
}
