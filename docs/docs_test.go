// Package docs holds the reference pages the front page (README.md) links
// to; its tests check that the front page stays a front page and that every
// link between the pages resolves.
package docs

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// maxFrontPage is the most bytes README.md may hold (25 KB).
const maxFrontPage = 25 * 1024

// pages returns the Markdown files checked: README.md and every docs page,
// by path relative to this directory.
func pages(t *testing.T) []string {
	t.Helper()
	ps, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 {
		t.Fatal("no docs pages found")
	}
	return append([]string{"../README.md"}, ps...)
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// withoutCode blanks fenced code blocks (keeping line count) so links and
// headings are read from prose only.
func withoutCode(s string) string {
	lines := strings.Split(s, "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			lines[i] = ""
			continue
		}
		if in {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// slug is the anchor GitHub gives a heading: lower case, punctuation other
// than '-' and '_' dropped, spaces turned into '-'.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of the headings of a Markdown page.
func anchors(page string) []string {
	var as []string
	for _, l := range strings.Split(withoutCode(page), "\n") {
		if h, ok := strings.CutPrefix(l, "#"); ok {
			as = append(as, slug(strings.TrimSpace(strings.TrimLeft(h, "#"))))
		}
	}
	return as
}

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

func TestLinksResolve(t *testing.T) {
	n := 0
	for _, p := range pages(t) {
		text := withoutCode(read(t, p))
		for _, m := range linkRE.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
				continue
			}
			n++
			file, anchor, _ := strings.Cut(target, "#")
			path := p
			if file != "" {
				path = filepath.Join(filepath.Dir(p), file)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link %q: %v", p, target, err)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(path, ".md") {
				t.Errorf("%s: link %q: an anchor into a file that is not Markdown", p, target)
				continue
			}
			if as := anchors(read(t, path)); !slices.Contains(as, anchor) {
				t.Errorf("%s: link %q: no heading with anchor %q in %s (anchors: %v)", p, target, anchor, path, as)
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d relative links checked; the pages lost their links", n)
	}
}

func TestFrontPage(t *testing.T) {
	readme := read(t, "../README.md")
	if len(readme) > maxFrontPage {
		t.Errorf("README.md is %d bytes, more than %d: move reference material into docs/", len(readme), maxFrontPage)
	}
	// The first code on the page is the two set-up commands.
	const setup = "```sh\n" +
		"go run ./cmd/faultline audit   # the main job: audit the built-in reference system\n" +
		"go test ./...                  # the tests\n" +
		"```\n"
	if i, j := strings.Index(readme, "```"), strings.Index(readme, setup); i < 0 || i != j {
		t.Errorf("README.md's first code block is not the two set-up commands:\n%s", setup)
	}
	const exitCodes = "| code | meaning |\n" +
		"| --- | --- |\n" +
		"| 0 | it ran, every invariant in scope held, and every scheduled fault was reached and fired (a schedule with no faults is a clean run: 0); for a campaign (explore, assay, audit, fuzz) at least one scheduled fault was reached; for `vet`: no finding |\n" +
		"| 1 | an invariant was violated (a counterexample), a gate failed, or `vet` reported a finding |\n" +
		"| 2 | bad input: usage, flags, a malformed or oversized file, a config that does not apply to the system |\n" +
		"| 3 | inconclusive: for one run, a scheduled fault was never reached or never fired; for a campaign, no scheduled fault was reached at all |\n" +
		"| 4 | an I/O or internal error (a full disk, an unreadable directory) |\n"
	if !strings.Contains(readme, "## Exit codes\n") || !strings.Contains(readme, exitCodes) {
		t.Errorf("README.md lacks the exit-code section with the table:\n%s", exitCodes)
	}
	for _, cmd := range []string{"assay", "replay", "audit", "explore", "coverage report", "coverage merge",
		"coverage gate", "dossier", "dossier diff", "lab", "vet"} {
		if !strings.Contains(readme, "| `"+cmd+"` |") || !strings.Contains(readme, "\nfaultline "+cmd+" ") {
			t.Errorf("README.md's command list lacks %q (a synopsis line and a table row)", cmd)
		}
	}
	// The README's test command is what .ci/run runs, and the packages
	// that run more than one goroutine again under the race detector.
	ci := read(t, "../.ci/run")
	for _, line := range []string{"\ngo test ./...\n", "go test -race -vet=off -skip '^(TestSweep|TestDefaultCheckFindsSpanCarryOver)$' $(bash scripts/race-packages.sh)", "staticcheck"} {
		if !strings.Contains(ci, line) {
			t.Errorf(".ci/run does not run %q", strings.TrimSpace(line))
		}
	}
}

// TestRacePackages checks the race pass's list: the packages that start
// goroutines (the exhaustive walk's workers, the lab's server, the file
// lock's writers, the model's scheduler) are in it, a package whose code
// and tests run in one goroutine is not.
func TestRacePackages(t *testing.T) {
	out, err := exec.Command("bash", "../scripts/race-packages.sh").Output()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, l := range strings.Fields(string(out)) {
		got[strings.TrimPrefix(l, "github.com/faultline/faultline/")] = true
	}
	for _, p := range []string{"properties", "reference/lab", "internal/fileio", "model", "coverage", "cli", "httpfault", "examples/snapshots"} {
		if !got[p] {
			t.Errorf("the race pass leaves out %s, which runs more than one goroutine", p)
		}
	}
	for _, p := range []string{"docs", "internal/linearize", "corpus", "examples/billing", "vet", "internal/strictjson"} {
		if got[p] {
			t.Errorf("the race pass lists %s, whose code and tests run in one goroutine", p)
		}
	}
}

// TestSourcesByTitle checks that the two documents faultline is built from
// are cited by title in sources.md and called "the paper" and "the harness
// practice" elsewhere, never by a file name a reader does not have.
func TestSourcesByTitle(t *testing.T) {
	if raceDetector {
		t.Skip("reads every file of the module in one goroutine, where the race detector has nothing to check; go test ./... runs this test")
	}
	src := read(t, "sources.md")
	for _, title := range []string{"*Failure injection as the primary evaluation*", "*Agent Harness Fault Injection*"} {
		if !strings.Contains(src, title) {
			t.Errorf("sources.md does not cite %s", title)
		}
	}
	banned := regexp.MustCompile(`(?i)seed ?00[03]|\.\./shared|00[03]_[0-9a-f]{8}`)
	for _, p := range pages(t) {
		for i, l := range strings.Split(read(t, p), "\n") {
			if m := banned.FindString(l); m != "" {
				t.Errorf("%s:%d: %q names a document by a file readers do not have; say the paper or the harness practice", p, i+1, m)
			}
		}
	}
	// the code, tests, scripts and data of the whole module as well
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != ".." && (strings.HasPrefix(name, ".") && name != ".ci" && name != ".clusterfuzzlite" || name == "testdata" && strings.Contains(path, "faultline")) {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".json", ".sh", ".js", ".tmpl", ".html", ".yml", ".yaml", ".txt", ".golden", "":
		default:
			return nil
		}
		if strings.HasSuffix(path, "docs_test.go") {
			return nil // this test names what it bans
		}
		if fi, err := d.Info(); err != nil || fi.Size() > 4<<20 {
			return err // a build output, not the project's text
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, l := range strings.Split(string(data), "\n") {
			if m := banned.FindString(l); m != "" {
				t.Errorf("%s:%d: %q names a document by a file readers do not have; say the paper or the harness practice", path, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGeneratedTables checks that the scripts that regenerate the mutants
// table, the default search table and the guide curve splice into the
// pages that hold them.
func TestGeneratedTables(t *testing.T) {
	for _, c := range []struct{ script, page, marker string }{
		{"../scripts/mutants-table.sh", "exploration.md", "mutants-table"},
		{"../scripts/default-search-table.sh", "exploration.md", "default-search-table"},
		{"../scripts/guide-curve.sh", "coverage.md", "guide-curve"},
	} {
		page := read(t, c.page)
		b, e := strings.Index(page, "<!-- "+c.marker+":begin -->"), strings.Index(page, "<!-- "+c.marker+":end -->")
		if b < 0 || e < b {
			t.Errorf("%s: no %s markers in order", c.page, c.marker)
		}
		if s := read(t, c.script); !strings.Contains(s, "' docs/"+c.page+" >docs/"+c.page+".tmp") {
			t.Errorf("%s does not splice its table into docs/%s", c.script, c.page)
		}
	}
}

// TestNoMergeConflictMarkers: no page, source, script or workflow of the
// module holds an unresolved merge's conflict markers.
func TestNoMergeConflictMarkers(t *testing.T) {
	if raceDetector {
		t.Skip("reads every file of the module in one goroutine, where the race detector has nothing to check; go test ./... runs this test")
	}
	marker := regexp.MustCompile(`(?m)^(<{7} |>{7} |={7}$)`)
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != ".." && strings.HasPrefix(name, ".") && name != ".ci" && name != ".github" && name != ".clusterfuzzlite" {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".sh", ".yml", ".yaml", ".json", ".html", ".js", "":
		default:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if loc := marker.FindIndex(b); loc != nil {
			t.Errorf("%s:%d: an unresolved merge conflict marker", path, 1+strings.Count(string(b[:loc[0]]), "\n"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
