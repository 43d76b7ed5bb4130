package vet_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/faultline/faultline/vet"
)

// expected is one finding the repository's systems carry on purpose: by
// analyzer and function (not file or line, which move with edits), and a
// snippet the flagged line holds.
type expected struct {
	analyzer, function, message, line string
	why                               string
}

// The reference system and the inventory example make a fresh key per
// attempt on purpose: the reference system's baseline (no idempotency
// control) and its key_per_attempt mutant, the inventory agent without its
// stable_keys control and its planted bug. Nothing else in their code is
// a finding.
var systemFindings = []expected{
	{"retrykey", "(*flow).effect", "env.NewRequestID() mints a fresh id", "env.NewRequestID()",
		"copperfin without the idempotency control: each send gets a fresh request identity (a blind retry)"},
	{"retrykey", "(*flow).effect", "built from the attempt counter f.attempt", "strconv.Itoa(f.attempt)",
		"copperfin's key_per_attempt mutant"},
	{"retrykey", "(*flow).step", "env.NewRequestID() mints a fresh id", "env.NewRequestID()",
		"the inventory agent without stable_keys"},
	{"retrykey", "(*flow).step", "env.NewRequestID() mints a fresh id", "env.NewRequestID()",
		"the inventory agent's planted bug: the confirm retry builds its request anew"},
}

func TestSystemFindings(t *testing.T) {
	rep, err := vet.Check([]string{"./model/copperfin", "./examples/inventory"}, vet.Options{Dir: ".."})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Version != 1 || rep.Packages != 2 {
		t.Errorf("version %d, %d packages; want 1, 2", rep.Version, rep.Packages)
	}
	left := append([]expected(nil), systemFindings...)
	for _, f := range rep.Findings {
		i := -1
		for j, e := range left {
			if e.analyzer == f.Analyzer && e.function == f.Function && strings.Contains(f.Message, e.message) {
				i = j
				break
			}
		}
		if i < 0 {
			t.Errorf("unexpected finding %s:%d %s in %s: %s", f.File, f.Line, f.Analyzer, f.Function, f.Message)
			continue
		}
		if got := sourceLine(t, filepath.Join("..", f.File), f.Line); !strings.Contains(got, left[i].line) {
			t.Errorf("%s finding at %s:%d flags %q, want a line holding %q", f.Analyzer, f.File, f.Line, got, left[i].line)
		}
		if f.FaultKind != "timeout_after_commit" {
			t.Errorf("%s finding's fault kind %q, want timeout_after_commit", f.Analyzer, f.FaultKind)
		}
		left = append(left[:i], left[i+1:]...)
	}
	for _, e := range left {
		t.Errorf("missing finding: %s in %s (%s)", e.analyzer, e.function, e.why)
	}
}

func sourceLine(t *testing.T, file string, line int) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	if line < 1 || line > len(lines) {
		t.Fatalf("%s has no line %d", file, line)
	}
	return lines[line-1]
}

func TestCheckBadInput(t *testing.T) {
	for _, tc := range []struct {
		patterns []string
		want     string
	}{
		{nil, "no package pattern given"},
		{[]string{"./cmd/faultline/testdata/..."}, "no package matched: ./cmd/faultline/testdata/..."},
		{[]string{"./nope"}, "do not load"},
	} {
		_, err := vet.Check(tc.patterns, vet.Options{Dir: ".."})
		var ie *vet.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check(%q) = %v, want an InputError saying %q", tc.patterns, err, tc.want)
		}
	}
}

// An analyzer that fails is an analysis error, not bad input.
func TestCheckAnalysisError(t *testing.T) {
	boom := &analysis.Analyzer{Name: "boom", Doc: "fails", Run: func(*analysis.Pass) (any, error) { return nil, errors.New("boom") }}
	_, err := vet.Check([]string{"./httpfault"}, vet.Options{Dir: "..", Analyzers: []*analysis.Analyzer{boom}})
	var ie *vet.InputError
	if err == nil || errors.As(err, &ie) || err.Error() != "analysis failed: boom on github.com/faultline/faultline/httpfault: boom" {
		t.Errorf("Check with a failing analyzer = %v, want the analysis error naming it and the package", err)
	}
}

func TestCheckClean(t *testing.T) {
	rep, err := vet.Check([]string{"./httpfault"}, vet.Options{Dir: "..", Tests: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 0 || rep.Packages != 1 {
		t.Errorf("httpfault: %d findings in %d packages, want 0 in 1: %v", len(rep.Findings), rep.Packages, rep.Findings)
	}
}

// Each analyzer's fault kind is the one its doc names.
func TestFaultKinds(t *testing.T) {
	want := map[string][]string{
		"retrykey":       {"timeout_after_commit"},
		"unknownoutcome": {"timeout_after_commit", "tool_timeout"},
		"wallclock":      {"replay --twice"},
	}
	if len(vet.Analyzers) != len(want) || len(vet.FaultKinds) != len(want) {
		t.Fatalf("%d analyzers, %d fault kinds; want %d", len(vet.Analyzers), len(vet.FaultKinds), len(want))
	}
	for _, a := range vet.Analyzers {
		for _, k := range want[a.Name] {
			if !strings.Contains(vet.FaultKinds[a.Name], k) || !strings.Contains(a.Doc, k) {
				t.Errorf("%s: fault kind %q and doc must both name %q", a.Name, vet.FaultKinds[a.Name], k)
			}
		}
	}
}

// BenchmarkCheckModule runs the three analyzers over the whole module,
// test files included, as "faultline vet ./..." does.
func BenchmarkCheckModule(b *testing.B) {
	for b.Loop() {
		if _, err := vet.Check([]string{"./..."}, vet.Options{Dir: "..", Tests: true}); err != nil {
			b.Fatal(err)
		}
	}
}
