package model_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLibrariesDoNotImportTheReferenceSystem: the libraries (the core,
// exploration, native fuzzing, coverage, the corpus format and the
// adapters) depend on no package of the reference system; the command,
// the lab, the assay and tests wire it in, as a user wires theirs.
func TestLibrariesDoNotImportTheReferenceSystem(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	const module = "github.com/faultline/faultline/"
	libs := []string{"model", "properties", "fuzz", "coverage", "corpus", "httpfault", "linearize", "otelrun"}
	args := []string{"list", "-deps", "-f", "{{.ImportPath}}"}
	for _, l := range libs {
		args = append(args, module+l)
	}
	out, err := exec.Command(goTool, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	for _, l := range libs {
		found := false
		for _, d := range deps {
			found = found || d == module+l
		}
		if !found {
			t.Fatalf("go list did not list %s:\n%s", l, out)
		}
	}
	for _, d := range deps {
		if d == module+"model/copperfin" || strings.HasPrefix(d, module+"model/copperfin/") || d == module+"assay" || d == module+"lab" {
			t.Errorf("a library depends on %s", d)
		}
	}
	// each library alone, so the message names which one
	for _, l := range libs {
		out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", module+l).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", l, err, out)
		}
		if strings.Contains(string(out), module+"model/copperfin") {
			t.Errorf("%s depends on the reference system (model/copperfin)", l)
		}
	}
}
