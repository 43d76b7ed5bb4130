package model_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDependencyRules holds the module's dependency rules, from one go
// list of the packages they name:
//   - the libraries (the core, exploration, native fuzzing, coverage, the
//     corpus format, the adapters, the release evidence and the
//     command-line library, whose audit and dossier use it) depend on no
//     package of the reference system; the command, the lab and tests
//     wire it in, as a user wires theirs;
//   - model and the reference system stay free of OpenTelemetry (the
//     dependency goes one way, from otelrun to model);
//   - sqlfault adds to the model's dependencies only itself and the
//     standard library (the SQLite driver is its tests' only).
func TestDependencyRules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	if raceDetector {
		t.Skip("runs go list in one goroutine; go test ./... runs it")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	const module = "github.com/faultline/faultline/"
	libs := []string{"model", "properties", "fuzz", "coverage", "corpus", "httpfault", "internal/linearize", "otelrun", "sqlfault", "mcpfault", "callfault", "assay", "cli"}
	args := []string{"list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`}
	for _, l := range append(libs, "reference/copperfin") {
		args = append(args, module+l)
	}
	out, err := exec.Command(goTool, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := map[string][]string{} // a package's path in the module: its dependencies
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		deps[strings.TrimPrefix(f[0], module)] = f[1:]
	}
	for _, l := range append(libs, "reference/copperfin") {
		if _, ok := deps[l]; !ok {
			t.Fatalf("go list did not list %s:\n%s", l, out)
		}
	}
	for _, l := range libs {
		for _, d := range deps[l] {
			if d == module+"reference/copperfin" || strings.HasPrefix(d, module+"reference/") {
				t.Errorf("library %s depends on %s", l, d)
			}
		}
	}
	for _, l := range []string{"model", "reference/copperfin"} {
		for _, d := range deps[l] {
			if strings.HasPrefix(d, "go.opentelemetry.io/") {
				t.Errorf("%s depends on %s", l, d)
			}
		}
	}
	var extra []string
	for _, d := range deps["sqlfault"] {
		std := !strings.Contains(strings.Split(d, "/")[0], ".")
		if d != module+"model" && !slices.Contains(deps["model"], d) && !std {
			extra = append(extra, d)
		}
	}
	if len(extra) > 0 {
		t.Errorf("sqlfault depends on %v beyond the model", extra)
	}
}
