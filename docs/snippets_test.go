package docs

import (
	"regexp"
	"strings"
	"testing"
)

// goBlocks returns the Go code blocks of a Markdown page.
func goBlocks(page string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return out
}

// call returns the call starting at i in src, to its matching parenthesis.
func call(src string, i int) string {
	depth := 0
	for j := i; j < len(src); j++ {
		switch src[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return src[i : j+1]
			}
		}
	}
	return src[i:]
}

// TestSnippetsRunAsWritten: a snippet a user copies works as written. An
// exploration takes the system's Definition (properties.Check(t, def, ...)),
// never a factory or an API that is gone; an exhaustive walk's result is
// read for inconclusiveness as well as for a counterexample, or a test of
// a system that crosses nothing passes; and the pages that show fuzz.For
// say its default scope misses a bug on a later call and show the scope
// that finds it.
func TestSnippetsRunAsWritten(t *testing.T) {
	calls := regexp.MustCompile(`properties\.(Check|Explore|ExplorePair|Generator)\(`)
	gone := regexp.MustCompile(`properties\.(Factory|System|WithDefinition|CheckProduction|Exhaustive|WithCounterexampleDir)\b`)
	for _, p := range pages(t) {
		for _, b := range goBlocks(read(t, p)) {
			for _, loc := range calls.FindAllStringIndex(b, -1) {
				if c := call(b, loc[0]); strings.Contains(c, ".Factory") {
					t.Errorf("%s: %s gives a factory: a door takes the Definition", p, c)
				}
			}
			if m := gone.FindString(b); m != "" {
				t.Errorf("%s: a snippet uses %s, which is gone (docs/api-changes.md)", p, m)
			}
			if strings.Contains(b, "properties.WithExhaustive()") && strings.Contains(b, "rep.Found") && !strings.Contains(b, "rep.Inconclusive()") {
				t.Errorf("%s: an exhaustive snippet reads rep.Found without rep.Inconclusive():\n%s", p, b)
			}
		}
	}
	for _, p := range []string{"fuzzing.md", "own-system.md"} {
		s := read(t, p)
		if !strings.Contains(s, `fuzz.WithScope("ordinals")`) || !strings.Contains(s, "default scope is `designed`") {
			t.Errorf("%s: does not say fuzz.For's default scope is designed and show fuzz.WithScope(\"ordinals\")", p)
		}
	}
}
