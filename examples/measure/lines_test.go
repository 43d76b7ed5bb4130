package measure_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// glue names, per example folder, what a user writes for faultline (the
// glue: its Definition, the tests of the README's paths and, for production
// code, the world and the in-process stand-in of the provider) and the
// system under test (system; a pattern), with the ratio the glue is held
// to. scripts/glue-ratio.sh measures the first two rows the same way.
var glue = []struct {
	example, path string
	glue, system  []string
	bound         float64
}{
	{"billing", "model path", []string{"definition.go", "billing_test.go"}, []string{"billing.go", "invariants.go"}, 0.44},
	{"snapshots", "production code", []string{"definition.go", "world.go", "service.go", "readme_test.go"}, []string{"app/*.go"}, 1.17},
	{"inventory", "model path", []string{"definition.go", "example_test.go", "explore_test.go", "coverage_test.go", "replay_test.go"},
		[]string{"inventory.go", "invariants.go"}, 1},
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

// TestGlueTable: each example's glue stays within its bound of the
// system's code, docs/examples.md holds the table of the counts as
// computed here, and scripts/glue-ratio.sh prints the same counts.
func TestGlueTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/examples.md")
	if err != nil {
		t.Fatal(err)
	}
	var script []byte
	if _, err := exec.LookPath("bash"); err == nil {
		if script, err = exec.Command("bash", "../../scripts/glue-ratio.sh").CombinedOutput(); err != nil {
			t.Errorf("scripts/glue-ratio.sh: %v\n%s", err, script)
		}
	}
	for _, g := range glue {
		dir := filepath.Join("..", g.example)
		var system []string
		for _, pat := range g.system {
			files, err := filepath.Glob(filepath.Join(dir, pat))
			if err != nil || len(files) == 0 {
				t.Fatalf("%s: %s: no files (%v)", g.example, pat, err)
			}
			for _, f := range files {
				if !strings.HasSuffix(f, "_test.go") {
					rel, _ := filepath.Rel(dir, f)
					system = append(system, filepath.ToSlash(rel))
				}
			}
		}
		count := func(files []string) int {
			n := 0
			for _, f := range files {
				n += codeLines(t, filepath.Join(dir, f))
			}
			return n
		}
		n, own := count(g.glue), count(system)
		ratio := float64(n) / float64(own)
		if ratio > g.bound {
			t.Errorf("%s: %d lines of glue for %d of the system's: %.2f, more than %.2f", g.example, n, own, ratio, g.bound)
		}
		row := fmt.Sprintf("| `examples/%s` | %s | %s | %d | %s | %d | %.2f | %.2f |", g.example, g.path, strings.Join(g.glue, ", "), n, strings.Join(system, ", "), own, ratio, g.bound)
		if !strings.Contains(string(doc), "\n"+row+"\n") {
			t.Errorf("docs/examples.md lacks the row\n%s", row)
		}
		if script != nil && g.example != "inventory" {
			want := fmt.Sprintf("examples/%s (%s): glue %d lines (%s), system %d lines (%s): %.2f", g.example, g.path, n, strings.Join(g.glue, " "), own, strings.Join(system, " "), ratio)
			if !strings.Contains(string(script), want) {
				t.Errorf("scripts/glue-ratio.sh does not print %q:\n%s", want, script)
			}
		}
	}
}
