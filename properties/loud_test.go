package properties_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/properties"
)

// TestReplayOfACleanScheduleIsLabelled: FAULTLINE_REPLAY of a schedule
// with no fault is a clean run that passes (exit 0), and the test output
// says that the system's checks were replaced by one fault-free run.
func TestReplayOfACleanScheduleIsLabelled(t *testing.T) {
	rapidFlags(t, 100, 1)
	fixed, builds := false, 0
	sys := checkout(&fixed, &builds)
	clean := filepath.Join(t.TempDir(), "clean.json")
	start := strings.Index(plantedSchedule, `"faults": [`)
	if err := os.WriteFile(clean, []byte(plantedSchedule[:start]+`"faults": []`+"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(properties.ReplayEnv, clean)
	tb := &recordingTB{name: "TestY"}
	properties.CheckTB(tb, nil, sys, checkoutOptions()...)
	want := "properties: FAULTLINE_REPLAY=" + clean + ": replayed a clean schedule: the checks of " + sys.Name +
		" were replaced by one fault-free run, and every invariant in scope held (a clean run, exit 0; it tested no fault)"
	if tb.failed || builds != 1 || len(tb.logs) != 1 || tb.logs[0] != want {
		t.Fatalf("%d runs, errors %q, logs %q\nwant %q", builds, tb.errors, tb.logs, want)
	}
}

// TestOtelEnvWritesTheCounterexamplesTrace: with FAULTLINE_OTEL=DIR, Check
// writes the OpenTelemetry trace of the counterexample it found, and of the
// one FAULTLINE_REPLAY replays, into DIR, named by the run's id, and logs
// where; the fixed system's replay writes none.
func TestOtelEnvWritesTheCounterexamplesTrace(t *testing.T) {
	rapidFlags(t, 100, 1)
	fixed, builds := false, 0
	sys := checkout(&fixed, &builds)
	traces := filepath.Join(t.TempDir(), "traces")
	t.Setenv(properties.OtelEnv, traces)
	found := &recordingTB{name: "TestY"}
	fails := t.TempDir()
	properties.CheckTB(found, nil, sys, checkoutOptions(properties.WithFailDir(fails))...)
	files, _ := filepath.Glob(filepath.Join(traces, "run-*.otlp.json"))
	if !found.failed || len(files) != 1 || !strings.Contains(strings.Join(found.logs, "\n"), "properties: trace of the counterexample's run written to "+files[0]+" (FAULTLINE_OTEL)") {
		t.Fatalf("traces %v, logs %q, errors %q", files, found.logs, found.errors)
	}
	b, err := os.ReadFile(files[0])
	if err != nil || !strings.Contains(string(b), `"resourceSpans"`) || !strings.Contains(string(b), "confirmed_once") {
		t.Fatalf("trace %v:\n%.400s", err, b)
	}
	// the replay of the stored file writes the same run's trace again
	stored, _ := filepath.Glob(filepath.Join(fails, "cx-confirmed_once-????????.json"))
	if len(stored) != 1 {
		t.Fatalf("stored %v", stored)
	}
	t.Setenv(properties.ReplayEnv, stored[0])
	again := &recordingTB{name: "TestY"}
	properties.CheckTB(again, nil, sys, checkoutOptions()...)
	if files2, _ := filepath.Glob(filepath.Join(traces, "run-*.otlp.json")); !again.failed || len(files2) != 1 || files2[0] != files[0] {
		t.Fatalf("replayed: traces %v, errors %q", files2, again.errors)
	}
	if b2, _ := os.ReadFile(files[0]); string(b2) != string(b) {
		t.Fatal("the replayed run's trace differs from the found one's")
	}
	fixed = true
	ok := &recordingTB{name: "TestY"}
	properties.CheckTB(ok, nil, sys, checkoutOptions()...)
	if ok.failed || strings.Contains(strings.Join(ok.logs, "\n"), "trace") {
		t.Fatalf("fixed: errors %q, logs %q", ok.errors, ok.logs)
	}
}
