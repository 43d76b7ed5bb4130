package sqlfault_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDependsOnlyOnModel: the adapter imports the standard library's
// database/sql/driver and the model, nothing else of this module or
// outside it (the SQLite driver is the tests' only); what it adds to the
// model's dependencies is itself and standard packages.
func TestDependsOnlyOnModel(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	const module = "github.com/faultline/faultline/"
	list := func(pkg string) []string {
		out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		return strings.Fields(string(out))
	}
	model := list(module + "model")
	var extra []string
	for _, d := range list(module + "sqlfault") {
		std := !strings.Contains(strings.Split(d, "/")[0], ".")
		if d != module+"sqlfault" && !slices.Contains(model, d) && !std {
			extra = append(extra, d)
		}
	}
	if len(extra) > 0 {
		t.Errorf("sqlfault depends on %v beyond the model", extra)
	}
}
