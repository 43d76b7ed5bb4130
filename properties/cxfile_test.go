package properties_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestWriteCounterexampleFiles: the schedule and its record are written
// with mode 0644 (like every file faultline writes) and nothing else is
// left in the directory.
func TestWriteCounterexampleFiles(t *testing.T) {
	s, err := model.SingleFault("timeout_after_commit", func() model.Config {
		c := copperfin.Settings{Profile: copperfin.ProfileBaseline}.Config()
		c.Fixture = "copperfin"
		return c
	}())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cx := &properties.Counterexample{Schedule: s, Shrunk: s, Violation: model.Violation{Invariant: model.InvEffectAtMostOnce}, FaultKind: "timeout_after_commit"}
	if err := properties.WriteCounterexample(dir, cx, nil, "faultline replay %s"); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
		fi, err := os.Stat(filepath.Join(dir, e.Name()))
		if err != nil || fi.Mode() != 0o644 {
			t.Errorf("%s: mode %v (%v), want -rw-r--r--", e.Name(), fi.Mode(), err)
		}
	}
	base := filepath.Base(cx.File)
	if want := []string{base[:len(base)-len(".json")] + ".counterexample.json", base}; !slices.Equal(names, want) {
		t.Fatalf("directory holds %v, want %v", names, want)
	}
	// the record is renamed before its schedule: a kill between the two
	// renames never leaves a schedule without its record
	if got, want := properties.PairPaths(cx.File, &corpus.Counterexample{Schedule: s}), []string{filepath.Join(dir, names[0]), cx.File}; !slices.Equal(got, want) {
		t.Fatalf("rename order %v, want %v", got, want)
	}
}
