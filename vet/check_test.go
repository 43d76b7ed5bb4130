package vet_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Version)
	assert.Equal(t, 2, rep.Packages)
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
		assert.Contains(t, sourceLine(t, filepath.Join("..", f.File), f.Line), left[i].line, "the line %s flags at %s:%d", f.Analyzer, f.File, f.Line)
		assert.Equal(t, "timeout_after_commit, tool_timeout", f.FaultKind, "%s finding's fault kind", f.Analyzer)
		left = append(left[:i], left[i+1:]...)
	}
	for _, e := range left {
		t.Errorf("missing finding: %s in %s (%s)", e.analyzer, e.function, e.why)
	}
}

func sourceLine(t *testing.T, file string, line int) string {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	require.True(t, line >= 1 && line <= len(lines), "%s has no line %d", file, line)
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
		assert.ErrorAs(t, err, &ie, "Check(%q)", tc.patterns)
		assert.ErrorContains(t, err, tc.want, "Check(%q)", tc.patterns)
	}
}

// An analyzer that fails is an analysis error, not bad input.
func TestCheckAnalysisError(t *testing.T) {
	boom := &analysis.Analyzer{Name: "boom", Doc: "fails", Run: func(*analysis.Pass) (any, error) { return nil, errors.New("boom") }}
	_, err := vet.Check([]string{"./httpfault"}, vet.Options{Dir: "..", Analyzers: []*analysis.Analyzer{boom}})
	var ie *vet.InputError
	assert.EqualError(t, err, "analysis failed: boom on github.com/faultline/faultline/httpfault: boom")
	assert.False(t, errors.As(err, &ie), "an analysis error is not bad input: %v", err)
}

// httpfault's own code is clean; its tests carry one planted defect, the
// joined payer's fresh key per retry (an Idempotency-Key header built
// from the attempt counter, sent by p.post).
func TestCheckClean(t *testing.T) {
	rep, err := vet.Check([]string{"./httpfault"}, vet.Options{Dir: ".."})
	require.NoError(t, err)
	assert.Empty(t, rep.Findings, "httpfault")
	assert.Equal(t, 1, rep.Packages)
	rep, err = vet.Check([]string{"./httpfault"}, vet.Options{Dir: "..", Tests: true})
	require.NoError(t, err)
	require.Len(t, rep.Findings, 1, "httpfault with its tests")
	f := rep.Findings[0]
	assert.Equal(t, "retrykey", f.Analyzer)
	assert.Equal(t, "(jpayer).pay", f.Function)
	assert.Contains(t, f.Message, `the "Idempotency-Key" header that p.post sends varies across the attempts`)
	assert.Contains(t, sourceLine(t, filepath.Join("..", f.File), f.Line), `key = id + ":charge-" + strconv.Itoa(attempt)`)
	assert.Equal(t, "p.post", f.Call.Callee)
}

// Each analyzer's fault kind is the one its doc names.
func TestFaultKinds(t *testing.T) {
	want := map[string][]string{
		"retrykey":       {"timeout_after_commit", "tool_timeout"},
		"unknownoutcome": {"timeout_after_commit", "tool_timeout"},
		"wallclock":      {"replay --twice"},
	}
	require.Len(t, vet.Analyzers, len(want))
	require.Len(t, vet.FaultKinds, len(want))
	for _, a := range vet.Analyzers {
		for _, k := range want[a.Name] {
			assert.Contains(t, vet.FaultKinds[a.Name], k, "%s's fault kind", a.Name)
			assert.Contains(t, a.Doc, k, "%s's doc", a.Name)
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
