package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
)

// TestFleetCounterexampleReplaysAsFound: the exhaustive walk of the
// ten-agent fleet under typed_fleet (tool_timeout alone, no context switch
// beyond the default order) reports the storm at its schedule 14, exit 1,
// with the schedule it ran, seed and all (reference/corpus/
// retry-storm-jittered.json). Replayed,
// that schedule gives the walk's record: the same run id and the walk's
// 259 events byte for byte, and the same record twice; its counterexample
// file replays to its recorded run. The random phase (seed 2) keeps its
// seed too, and its schedule replays (exit 1). Before, both renamed the
// seed after confirming, which redrew every worker's jitter: the renamed
// schedule held no_retry_storm, and explore exited 4.
func TestFleetCounterexampleReplaysAsFound(t *testing.T) {
	oneGoroutine(t)
	raw, err := os.ReadFile(filepath.Join("..", "..", "reference", "corpus", "retry-storm-jittered.json"))
	if err != nil {
		t.Fatal(err)
	}
	fleetStormSchedule := string(raw)
	dir := t.TempDir()
	fleet := []string{"--fixture", "copperfin-fleet-10", "--concurrent", "10", "--profile", "typed_fleet", "--kinds", "tool_timeout", "--json"}
	code, out, stderr := runCLI(t, append([]string{"explore", "--exhaustive", "--max-faults", "2", "--max-switches", "0", "--out", dir}, fleet...)...)
	if code != 1 {
		t.Fatalf("walk: exit %d, want 1: %s", code, stderr)
	}
	var walk struct {
		Index     int               `json:"index"`
		Schedules int               `json:"schedules"`
		Invariant string            `json:"invariant"`
		FirstSeq  int               `json:"first_seq"`
		Schedule  json.RawMessage   `json:"schedule"`
		File      string            `json:"file"`
		Timeline  []json.RawMessage `json:"timeline"`
	}
	if err := json.Unmarshal([]byte(out), &walk); err != nil {
		t.Fatal(err)
	}
	s, err := model.ParseSchedule(walk.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	if walk.Index != 14 || walk.Schedules != 14 || walk.Invariant != model.InvNoRetryStorm || walk.FirstSeq != 259 ||
		len(walk.Timeline) != 259 || string(model.Format(s)) != fleetStormSchedule {
		t.Fatalf("walk: schedule %d of %d, %s after seq %d, %d events:\n%s", walk.Index, walk.Schedules, walk.Invariant, walk.FirstSeq, len(walk.Timeline), model.Format(s))
	}
	if file, err := os.ReadFile(walk.File); err != nil || string(file) != fleetStormSchedule {
		t.Fatalf("schedule file %s (%v):\n%s", walk.File, err, file)
	}
	var records [2]string
	for i := range records {
		code, rec, stderr := runCLI(t, "replay", "--json", walk.File)
		if code != 1 {
			t.Fatalf("replay %d: exit %d, want 1: %s", i, code, stderr)
		}
		records[i] = rec
	}
	if records[0] != records[1] {
		t.Fatal("two replays of the walk's schedule gave two records")
	}
	var rec struct {
		Timeline []json.RawMessage `json:"timeline"`
	}
	if err := json.Unmarshal([]byte(records[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Timeline) < len(walk.Timeline) {
		t.Fatalf("the replay has %d events, the walk's counterexample %d", len(rec.Timeline), len(walk.Timeline))
	}
	for i, ev := range walk.Timeline {
		var a, b bytes.Buffer
		if json.Compact(&a, ev) != nil || json.Compact(&b, rec.Timeline[i]) != nil || a.String() != b.String() {
			t.Fatalf("seq %d: the walk recorded\n%s\nthe replay\n%s", i+1, ev, rec.Timeline[i])
		}
	}
	cxFile := strings.TrimSuffix(walk.File, ".json") + ".counterexample.json"
	if code, out, stderr := runCLI(t, "replay", cxFile); code != 1 || !strings.Contains(out, "Recorded run: matches (no_retry_storm first false after tool.commit)") {
		t.Fatalf("replay %s: exit %d, want 1 matching its recorded run: %s\n%.1500s", filepath.Base(cxFile), code, stderr, out)
	}

	code, out, stderr = runCLI(t, append([]string{"explore", "--max-schedules", "0", "--seed", "2", "--out", dir}, fleet...)...)
	var drawn struct {
		Invariant string          `json:"invariant"`
		Schedule  json.RawMessage `json:"schedule"`
		File      string          `json:"file"`
	}
	if code != 1 || json.Unmarshal([]byte(out), &drawn) != nil {
		t.Fatalf("random phase: exit %d, want 1: %s\n%.1500s", code, stderr, out)
	}
	if s, err = model.ParseSchedule(drawn.Schedule); err != nil || s.Seed != "explore" || drawn.Invariant != model.InvNoRetryStorm {
		t.Fatalf("random phase: %s, seed %q (%v)", drawn.Invariant, s.Seed, err)
	}
	if code, _, stderr := runCLI(t, "replay", drawn.File); code != 1 {
		t.Fatalf("replay of the random phase's schedule: exit %d, want 1: %s", code, stderr)
	}
}
