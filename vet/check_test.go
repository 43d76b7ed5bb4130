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
	rep, err := vet.Check([]string{"./reference/copperfin", "./examples/inventory"}, vet.Options{Dir: ".."})
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
		{[]string{"./nope"}, "the packages do not load: stat "},
		{[]string{"./nonexistent/..."}, "the packages do not load: pattern ./nonexistent/...: lstat ./nonexistent/: no such file or directory"},
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

// moduleFindings are every finding "faultline vet ./..." reports over
// this module, test files included: each a defect planted on purpose (the
// reference system's undefended baseline and its key_per_attempt mutant,
// the examples' planted bugs, the test agents' bugs of the counterfactual
// pairs). A new one fails this test: fix it, silence it with a reasoned
// //faultline:ignore, or add it here and to docs/vet.md.
var moduleFindings = []struct{ analyzer, file, function, line, tool string }{
	{"retrykey", "examples/billing/billing.go", "(*invoice).pay", "key = env.NewRequestID()", "payments.charge"},
	{"retrykey", "examples/inventory/inventory.go", "(*flow).step", "key = env.NewRequestID()", ""},
	{"retrykey", "examples/inventory/inventory.go", "(*flow).step", "key = env.NewRequestID()", "inventory.confirm"},
	{"retrykey", "examples/snapshots/app/app.go", "(*Janitor).delete", `key = Key(id) + "+retry" + strconv.Itoa(attempt)`, "delete_snapshot"},
	{"retrykey", "fuzz/production_test.go", "(sleepyAgent).Run", `env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: key`, "pay"},
	{"retrykey", "httpfault/join_test.go", "(jpayer).pay", `key = id + ":charge-" + strconv.Itoa(attempt)`, ""},
	{"retrykey", "internal/archiver/archiver.go", "(Agent).Run", "key = env.NewRequestID()", "archive.put"},
	{"unknownoutcome", "internal/archiver/archiver.go", "(Agent).Run", "switch res.Outcome {", ""},
	{"retrykey", "internal/doors/doors_test.go", "(shelf).Run", `env.Calls.Commit(ctx, model.ToolCall{Tool: archiver.Tool, RequestKey: key`, "archive.put"},
	{"retrykey", "mcpfault/mcpfault_test.go", "expireSnapshot", `key = fmt.Sprintf("%s:delete-%d", job, attempt)`, "delete_snapshot"},
	{"retrykey", "model/billing_test.go", "(biller).Run", "key = env.NewRequestID()", "payments.charge"},
	{"retrykey", "model/crossing_test.go", "(agent).Run", `env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: key`, "pay"},
	{"retrykey", "model/definition_test.go", "(ticketCloser).Run", "key = env.NewRequestID()", "tickets.close"},
	{"retrykey", "model/example_test.go", "(closer).Run", "RequestKey: env.NewRequestID()", "tickets.close"},
	{"retrykey", "properties/example_test.go", "(blindRefund).Run", "RequestKey: env.NewRequestID()", "refund"},
	{"retrykey", "properties/production_internal_test.go", "(payAgent).Run", `key = task.ID + ":pay:" + string(rune('0'+i))`, "pay"},
	{"retrykey", "reference/copperfin/copperfin.go", "(*flow).effect", "key = env.NewRequestID()", "payments.refund"},
	{"retrykey", "reference/copperfin/copperfin.go", "(*flow).effect", `key = f.a.IdempotencyKey + ":" + strconv.Itoa(f.attempt)`, "payments.refund"},
}

// TestModuleFindings: over the whole module, test files included, the
// analyzers report exactly the planted defects, in file order.
func TestModuleFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the whole module")
	}
	if raceDetector {
		t.Skip("the analysis of the whole module repeats vet.Check's goroutines, which TestCheckClean and TestProductionFindingAndCounterexample run under the race detector over smaller inputs; go test ./... runs this test")
	}
	rep, err := vet.Check([]string{"./..."}, vet.Options{Dir: "..", Tests: true})
	require.NoError(t, err)
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.Analyzer+" "+f.File+" "+f.Function+" "+f.Call.Tool)
	}
	var want []string
	for _, e := range moduleFindings {
		want = append(want, e.analyzer+" "+e.file+" "+e.function+" "+e.tool)
	}
	require.Equal(t, want, got)
	for i, f := range rep.Findings {
		assert.Contains(t, sourceLine(t, filepath.Join("..", f.File), f.Line), moduleFindings[i].line, "the line %s flags at %s:%d", f.Analyzer, f.File, f.Line)
	}
}
