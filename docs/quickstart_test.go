//go:build !race

package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// quickStart returns the Go code of the README's quick start: its first
// ```go block.
func quickStart(t *testing.T) string {
	t.Helper()
	readme := read(t, "../README.md")
	_, rest, ok := strings.Cut(readme, "\n```go\n")
	if !ok {
		t.Fatal("README.md has no ```go block")
	}
	code, _, ok := strings.Cut(rest, "\n```\n")
	if !ok {
		t.Fatal("README.md's ```go block is not closed")
	}
	return code + "\n"
}

// runQuickStart runs the tests of code as a user's own module would: a
// fresh module in a temporary directory that requires this one through a
// replace directive (so fail files and caches stay out of the tree), and
// returns the go command's output and whether it passed.
func runQuickStart(t *testing.T, code string) (string, bool) {
	t.Helper()
	pkg, rest, ok := strings.Cut(code, "\n")
	if !ok || !strings.HasPrefix(pkg, "package ") {
		t.Fatalf("the quick start does not start with a package clause: %q", pkg)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module example.com/quickstart\n\ngo 1.26.0\n\nrequire github.com/faultline/faultline v0.0.0\n\nreplace github.com/faultline/faultline => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"go.mod":             []byte(gomod),
		"go.sum":             sum,
		"quickstart_test.go": []byte(pkg + "\n" + rest),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "test", "-count=1", "-run", "^(TestLostReply|TestExplore)$", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RAPID_CHECKS=100", "RAPID_NOFAILFILE=1", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	return string(out), err == nil
}

// TestQuickStart runs the README's quick start as written: both of its tests
// find the bug it describes; with the stable request key it names, both pass.
func TestQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the quick start with the go command")
	}
	code := quickStart(t)
	out, passed := runQuickStart(t, code)
	if passed {
		t.Fatalf("the quick start's tests passed; the README says they find the bug:\n%s", out)
	}
	for _, want := range []string{
		"--- FAIL: TestLostReply",
		"closed_once violated: first false after seq 3 (tool.commit), reached by f1: 2 close effects",
		"--- FAIL: TestExplore",
		"properties: counterexample at schedule 2 of the walk over the schedules of at most 2 faults",
		"closed_once violated",
		"minimal schedule (1 fault)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the quick start's output lacks %q:\n%s", want, out)
		}
	}
	readme := read(t, "../README.md")
	const bug, fix = "RequestKey: env.NewRequestID()", `RequestKey: t.ID + "-close"`
	if !strings.Contains(code, bug) || !strings.Contains(readme, "(`"+fix+"`)") {
		t.Fatalf("the quick start no longer has the bug %q and the fix %q the test applies", bug, fix)
	}
	if out, passed := runQuickStart(t, strings.Replace(code, bug, fix, 1)); !passed {
		t.Errorf("the quick start with the fix the README names still fails:\n%s", out)
	}
}

// TestProductionQuickStartIsTheExample: the README's quick start for
// production code is examples/snapshots/readme_test.go's code as written
// there (that test runs it), and holds as few lines as the README says.
func TestProductionQuickStartIsTheExample(t *testing.T) {
	readme := read(t, "../README.md")
	start := strings.Index(readme, "## Quick start: production code")
	if start < 0 {
		t.Fatal("README.md has no quick start for production code")
	}
	sec := readme[start:]
	b := strings.Index(sec, "```go\n")
	e := strings.Index(sec[b+6:], "```\n")
	if b < 0 || e < 0 {
		t.Fatal("the production quick start has no closed ```go block")
	}
	block := sec[b+6 : b+6+e]
	src := read(t, "../examples/snapshots/readme_test.go")
	i := strings.Index(src, "// sweeper is one worker")
	if i < 0 || strings.TrimRight(src[i:], "\n")+"\n" != block {
		t.Fatalf("README's production quick start is not examples/snapshots/readme_test.go from its type on:\n%s", block)
	}
	n := 0
	for _, l := range strings.Split(block, "\n") {
		if l := strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "//") {
			n++
		}
	}
	if want := "readme_test.go`, " + strconv.Itoa(n) + " lines of"; !strings.Contains(sec, want) || n >= 40 {
		t.Errorf("the glue has %d lines of code; the README should say %q (and keep it under 40)", n, want)
	}
}
