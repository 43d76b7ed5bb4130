package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRenderShowsTheFields: each update draws one line, rewritten in
// place, with what was found, done of total, the rate in the unit and the
// elapsed and left times; Finish clears it.
func TestRenderShowsTheFields(t *testing.T) {
	var w bytes.Buffer // the fake terminal
	bar := New(10, Options{Writer: &w, Unit: "trials", Found: "unsafe", Throttle: -1})
	bar.Update(3, 10, 0)
	bar.Update(4, 10, 2)
	lines := strings.Split(w.String(), "\r")
	var last string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			last = l
		}
	}
	re := regexp.MustCompile(`^unsafe: 2 +40% \|█{8} {12}\| \(4/10, \d+ trials/(s|min|hr)\) \[\d+s:\d+s\]$`)
	if !re.MatchString(last) {
		t.Fatalf("last line %q does not match %s", last, re)
	}
	if !strings.Contains(w.String(), "unsafe: 0  30% ") || !strings.Contains(w.String(), "(3/10, ") {
		t.Fatalf("the first update is not drawn: %q", w.String())
	}
	n := w.Len()
	bar.Finish()
	if tail := w.String()[n:]; strings.TrimSpace(tail) != "" || !strings.HasSuffix(tail, "\r") {
		t.Fatalf("Finish wrote %q, want the line blanked", tail)
	}
}

// TestTotalChanges: a total given to Update replaces New's.
func TestTotalChanges(t *testing.T) {
	var w bytes.Buffer
	bar := New(10, Options{Writer: &w, Throttle: -1})
	bar.Update(5, 50, 1)
	if !strings.Contains(w.String(), "(5/50, ") || !strings.Contains(w.String(), "counterexamples: 1") {
		t.Fatalf("%q", w.String())
	}
	if !regexp.MustCompile(`\d+ checks/(s|min|hr)`).MatchString(w.String()) {
		t.Fatalf("the default unit is not checks: %q", w.String())
	}
}

func TestIsTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var nilFile *os.File
	for name, w := range map[string]interface{ Write([]byte) (int, error) }{"buffer": &bytes.Buffer{}, "file": f, "nil file": nilFile} {
		if IsTerminal(w) {
			t.Errorf("%s taken for a terminal", name)
		}
	}
}
