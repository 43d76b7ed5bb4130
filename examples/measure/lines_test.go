package measure_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// glue names, per example folder, the test files the README's paths need
// (one run, exploration, fuzzing, replay, coverage): what a user writes.
// The example's own code is every non-test Go file of its folder.
var glue = []struct {
	example string
	files   []string
}{
	{"billing", []string{"billing_test.go"}},
	{"inventory", []string{"example_test.go", "explore_test.go", "coverage_test.go", "replay_test.go"}},
}

// codeLines counts the lines of a Go file that are neither blank nor
// comment (a line with code and a trailing comment counts).
func codeLines(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, block := 0, false
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case block:
			block = !strings.Contains(l, "*/")
		case l == "", strings.HasPrefix(l, "//"):
		case strings.HasPrefix(l, "/*"):
			block = !strings.Contains(l, "*/")
		default:
			n++
		}
	}
	return n
}

// TestGlueTable: each example's glue stays under half its own code, and
// docs/examples.md holds the table of both counts as computed here.
func TestGlueTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/examples.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range glue {
		dir := filepath.Join("..", g.example)
		sources, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		var system []string
		own := 0
		for _, f := range sources {
			if !strings.HasSuffix(f, "_test.go") {
				system = append(system, filepath.Base(f))
				own += codeLines(t, f)
			}
		}
		n := 0
		for _, f := range g.files {
			n += codeLines(t, filepath.Join(dir, f))
		}
		if 2*n >= own {
			t.Errorf("%s: %d lines of glue for %d of its own: not under half", g.example, n, own)
		}
		row := fmt.Sprintf("| `examples/%s` | %s | %d | %s | %d | %.2f |", g.example, strings.Join(system, ", "), own, strings.Join(g.files, ", "), n, float64(n)/float64(own))
		if !strings.Contains(string(doc), "\n"+row+"\n") {
			t.Errorf("docs/examples.md lacks the row\n%s", row)
		}
	}
}
