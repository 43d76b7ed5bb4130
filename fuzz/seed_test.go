package fuzz_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestFailureKeepsItsSeed: a failure's shrunk schedule keeps the seed
// string its runs had (the seed of every worker's random stream), so the
// file written replays to the failure's own run: the same run id, the
// same violation. A seed renamed after the run ("fuzz counterexample:
// no_retry_storm") redrew the jitter, and that schedule held.
func TestFailureKeepsItsSeed(t *testing.T) {
	// a schedule that breaks no_retry_storm on the ten-agent fleet under
	// typed_fleet, whose jittered backoff draws from Env.Rand: under this
	// seed string, not under every other
	raw, err := os.ReadFile(filepath.Join("..", "reference", "corpus", "retry-storm-jittered.json"))
	if err != nil {
		t.Fatal(err)
	}
	fleetStorm := string(raw)
	s, err := model.ParseSchedule(raw)
	if err != nil {
		t.Fatal(err)
	}
	d, err := fuzz.NewDecoder(copperfin.Definition(), fuzz.WithConfig(s.Config), fuzz.WithFailDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	var f *fuzz.Failure
	if err := d.Verify(s); !errors.As(err, &f) {
		t.Fatalf("want a failure, got %v", err)
	}
	file, err := os.ReadFile(f.File)
	if err != nil || string(file) != fleetStorm || f.Invariant != model.InvNoRetryStorm {
		t.Fatalf("%s in %s (%v):\n%s", f.Invariant, f.File, err, file)
	}
	stored, err := model.ParseSchedule(file)
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Check(stored)
	var v *fuzz.Violation
	if !errors.As(err, &v) || res.RunID != f.Result.RunID {
		t.Fatalf("the stored schedule, replayed: run %s (the failure's %s), %v", res.RunID, f.Result.RunID, err)
	}
	if ir, _ := res.Invariant(model.InvNoRetryStorm); ir.Held {
		t.Fatal("the stored schedule holds no_retry_storm")
	}
}
