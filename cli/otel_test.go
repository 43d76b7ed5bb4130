package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// traceSpans reads an OTLP/JSON trace file with the collector's
// unmarshaler and returns its spans in file order.
func traceSpans(t *testing.T, path string) []ptrace.Span {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(data)
	if err != nil {
		t.Fatalf("%s: the collector cannot read it: %v", path, err)
	}
	var spans []ptrace.Span
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		rs := td.ResourceSpans().At(i)
		for j := 0; j < rs.ScopeSpans().Len(); j++ {
			ss := rs.ScopeSpans().At(j).Spans()
			for k := 0; k < ss.Len(); k++ {
				spans = append(spans, ss.At(k))
			}
		}
	}
	return spans
}

// replayedTimeline replays file through p with --json and returns the
// run's timeline and its distinct tasks.
func replayedTimeline(t *testing.T, p *cli.Program, file string) ([]model.Event, int) {
	t.Helper()
	_, out, stderr := runIn(t, p, "replay", file, "--json")
	var rec model.RunRecord
	if err := json.Unmarshal([]byte(out), &rec); err != nil || len(rec.Timeline) == 0 {
		t.Fatalf("replay --json %s: %v %s\n%s", file, err, stderr, out)
	}
	tasks := map[string]bool{}
	for _, e := range rec.Timeline {
		tasks[e.Task] = true
	}
	return rec.Timeline, len(tasks)
}

// checkTrace reads the trace at path and checks it against the run's
// timeline: one span a crossing, named by its event, in timeline order,
// then one root span a task; exactly the spans of the violated invariants'
// first failing crossings (failing of them) and their task have an error
// status, and the counterexample's crossing carries its invariant's span
// event.
func checkTrace(t *testing.T, path string, timeline []model.Event, tasks int, invariant string, firstSeq, failing int) {
	t.Helper()
	spans := traceSpans(t, path)
	if len(spans) != len(timeline)+tasks {
		t.Fatalf("%s: %d spans, want %d (%d crossings and %d tasks)", path, len(spans), len(timeline)+tasks, len(timeline), tasks)
	}
	errored := 0
	for i, s := range spans {
		if s.Status().Code() == ptrace.StatusCodeError {
			errored++
		}
		if i >= len(timeline) {
			if !s.ParentSpanID().IsEmpty() || !strings.HasPrefix(s.Name(), "task ") {
				t.Errorf("span %d: %q with parent %s, want a task's root span", i, s.Name(), s.ParentSpanID())
			}
			continue
		}
		e := timeline[i]
		seq, _ := s.Attributes().Get("faultline.seq")
		if s.Name() != string(e.Event) || seq.Int() != int64(e.Seq) || s.ParentSpanID().IsEmpty() {
			t.Errorf("span %d: %q seq %d, want %q seq %d under its task", i, s.Name(), seq.Int(), e.Event, e.Seq)
		}
		if e.Seq != firstSeq {
			continue
		}
		found := false
		for k := 0; k < s.Events().Len(); k++ {
			ev := s.Events().At(k)
			if name, _ := ev.Attributes().Get("faultline.invariant.name"); ev.Name() == "faultline.invariant" && name.Str() == invariant {
				found = true
			}
		}
		if !found || s.Status().Code() != ptrace.StatusCodeError {
			t.Errorf("span of seq %d: no error status with the event of %s", firstSeq, invariant)
		}
	}
	if errored != failing+1 {
		t.Errorf("%d spans have an error status, want %d (the first failing crossings and their task)", errored, failing+1)
	}
}

// TestExploreAndReplayWriteTraces: on a user's system, explore --otel DIR
// writes the counterexample's trace into DIR and names it; replay --otel
// FILE of the counterexample's schedule file writes the same bytes; both
// read back with the collector's unmarshaler as the replayed timeline;
// the exit codes stay the runs' own (1 for the counterexample, 0 for the
// same schedule on the fixed agent); a trace file that cannot be written
// is exit 4; an exploration without a counterexample writes nothing.
func TestExploreAndReplayWriteTraces(t *testing.T) {
	dir := t.TempDir()
	traces := filepath.Join(dir, "traces")
	code, out, stderr := run(t, append(exploreArgs, "--seed", plantedSeed, "--config", `{"variant":"planted"}`, "--out", dir, "--otel", traces, "--json")...)
	var j struct {
		Invariant string `json:"invariant"`
		FirstSeq  int    `json:"first_seq"`
		File      string `json:"file"`
		Otel      string `json:"otel"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", code, err, out, stderr)
	}
	if code != 1 || j.Invariant != inventory.InvConfirmedOnce || filepath.Dir(j.Otel) != traces ||
		!regexp.MustCompile(`^run-[0-9a-f]{16}\.otlp\.json$`).MatchString(filepath.Base(j.Otel)) {
		t.Fatalf("exit %d: %+v", code, j)
	}
	if ls, _ := os.ReadDir(traces); len(ls) != 1 {
		t.Fatalf("%s holds %d files, want 1", traces, len(ls))
	}
	timeline, tasks := replayedTimeline(t, program(), j.File)
	checkTrace(t, j.Otel, timeline, tasks, j.Invariant, j.FirstSeq, 2) // and recorded_agrees_with_ledger at the claim

	// replay --otel: the same bytes, exit 1 as without --otel
	again := filepath.Join(dir, "again.otlp.json")
	code, _, stderr = run(t, "replay", j.File, "--otel", again)
	want := "trace: wrote " + again + " (" + strconv.Itoa(len(timeline)+tasks) + " spans)\n"
	if code != 1 || stderr != want {
		t.Fatalf("replay --otel: exit %d %q, want 1 %q", code, stderr, want)
	}
	a, _ := os.ReadFile(j.Otel)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Fatalf("replay --otel wrote other bytes than explore --otel")
	}

	// the same schedule on the fixed agent holds: exit 0, and a trace
	// without errors
	fixed := filepath.Join(dir, "fixed.otlp.json")
	if code, _, stderr := run(t, "replay", j.File, "--config", `{"variant":"fixed"}`, "--otel", fixed); code != 0 || !strings.HasPrefix(stderr, "trace: wrote "+fixed) {
		t.Fatalf("replay --otel of the fixed agent: exit %d %q", code, stderr)
	}
	for _, s := range traceSpans(t, fixed) {
		if s.Status().Code() == ptrace.StatusCodeError {
			t.Errorf("the fixed agent's trace: span %q has an error status", s.Name())
		}
	}

	// a file that cannot be written: exit 4, naming the flag
	notDir := write(t, "plain", "x")
	code, _, stderr = run(t, "replay", j.File, "--otel", filepath.Join(notDir, "t.json"))
	if code != 4 || !strings.Contains(stderr, "--otel: ") || !strings.Contains(stderr, "not a directory") {
		t.Fatalf("replay --otel under a file: exit %d %q", code, stderr)
	}
	code, _, stderr = run(t, append(exploreArgs, "--seed", plantedSeed, "--config", `{"variant":"planted"}`, "--otel", filepath.Join(notDir, "traces"))...)
	if code != 4 || !strings.Contains(stderr, "--otel: ") || !strings.Contains(stderr, "not a directory") {
		t.Fatalf("explore --otel under a file: exit %d %q", code, stderr)
	}
	if code, _, stderr := run(t, "replay", j.File, "--otel", ""); code != 2 || !strings.Contains(stderr, "--otel is empty") {
		t.Fatalf("replay --otel '': exit %d %q", code, stderr)
	}

	// no counterexample: no trace written; the directory is made (and
	// checked writable) before the exploration runs, and stays empty
	none := filepath.Join(dir, "none")
	if code, out, _ := run(t, append(exploreArgs, "--otel", none)...); code != 0 || strings.Contains(out, "trace:") {
		t.Fatalf("explore --otel without a counterexample: exit %d %q", code, out)
	}
	if ents, err := os.ReadDir(none); err != nil || len(ents) != 0 {
		t.Fatalf("explore without a counterexample: %s holds %v (%v), want an empty directory", none, ents, err)
	}
}

// TestExploreWritesTheReferenceSystemsTrace: the same for the reference
// system registered like a user's: the text output names the trace, which
// reads back as the replayed timeline.
func TestExploreWritesTheReferenceSystemsTrace(t *testing.T) {
	p := &cli.Program{Name: "faultline", Systems: []*model.Definition{copperfin.Definition()}}
	dir := t.TempDir()
	cfg := `{"profile":"baseline"}`
	code, out, stderr := runIn(t, p, "explore", "--max-schedules", "0", "--seed", "1", "--checks", "50", "--kinds", "timeout_after_commit", "--config", cfg, "--out", dir, "--otel", dir)
	m := regexp.MustCompile(`(?m)^trace: (\S+)$`).FindStringSubmatch(out)
	file := regexp.MustCompile(`(?m)faultline replay (\S+)`).FindStringSubmatch(out)
	inv := regexp.MustCompile(`(?m)^counterexample after \d+ checks`).MatchString(out)
	if code != 1 || m == nil || file == nil || !inv {
		t.Fatalf("exit %d %s\n%s", code, stderr, out)
	}
	var rec struct {
		Invariant string `json:"invariant"`
		FirstSeq  int    `json:"first_seq"`
	}
	data, err := os.ReadFile(strings.TrimSuffix(file[1], ".json") + ".counterexample.json")
	if err != nil || json.Unmarshal(data, &rec) != nil {
		t.Fatalf("the record: %v", err)
	}
	timeline, tasks := replayedTimeline(t, p, file[1])
	checkTrace(t, m[1], timeline, tasks, rec.Invariant, rec.FirstSeq, 2) // and recorded_agrees_with_ledger at the claim
}
