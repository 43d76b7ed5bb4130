package vet_test

import (
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/faultline/faultline/vet"
)

// retryKeyRun and unknownOutcomeRun load each analyzer's test data once
// for the tests of its packages (retrykeyteach's run without the
// -retrykey.consequential flag among them).
var (
	retryKeyRun       = &sharedRun{analyzer: vet.RetryKey, patterns: []string{"retrykey", "retrykeycall", "retrykeyclient", "retrykeysdk", "retrykeyteach"}}
	unknownOutcomeRun = &sharedRun{analyzer: vet.UnknownOutcome, patterns: []string{"unknownoutcome", "unknownoutcomeadapters"}}
)

func TestRetryKey(t *testing.T) {
	if raceDetector {
		// the analysis machinery under the detector over one package
		analysistest.Run(t, analysistest.TestData(), vet.RetryKey, "retrykey")
		return
	}
	retryKeyRun.result(t, "retrykey")
}

// TestRetryKeySDK: untaught, retrykey follows a key built from the
// attempt counter into stripe-go's SetIdempotencyKey (the params passed to
// the call that sends them) and into the header of a request a
// retryablehttp-style client's Do sends; a key computed once is not
// reported.
func TestRetryKeySDK(t *testing.T) {
	if raceDetector {
		t.Skip("the analysis machinery TestRetryKey runs under the race detector; go test ./... runs this suite")
	}
	retryKeyRun.result(t, "retrykeysdk")
}

// TestRetryKeyTaught: a user teaches retrykey a consequential call with
// the //faultline:consequential directive (on a method of another
// package, and on an interface method: a fact of that package) and with
// the -retrykey.consequential flag; a retry around a call taught neither
// way is not looked at. Without the flag, the flag's call goes unreported
// and only it.
func TestRetryKeyTaught(t *testing.T) {
	if raceDetector {
		t.Skip("the analysis machinery TestRetryKey runs under the race detector; go test ./... runs this suite")
	}
	f := vet.RetryKey.Flags.Lookup("consequential")
	require.NotNil(t, f)
	require.Equal(t, "", f.Value.String(), "the flag before the shared run")
	without := retryKeyRun.unmet("retrykeyteach")
	require.Len(t, without, 1, "without the flag: %v", without)
	assert.Contains(t, without[0], "teach.go:35: no diagnostic was reported matching", "the unmet expectation is Refund's")
	require.NoError(t, f.Value.Set("(*acmepay.Client).Refund, example.com/pay.Send"))
	defer f.Value.Set("")
	assert.Equal(t, "(acmepay.Client).Refund,example.com/pay.Send", f.Value.String())
	analysistest.Run(t, analysistest.TestData(), vet.RetryKey, "retrykeyteach")
	for _, bad := range []string{"Refund", "(acmepay.Client)", "(acmepay.Client).", "acmepay.", "(*acmepay).Refund", "a/b.c-d"} {
		assert.Error(t, f.Value.Set(bad), "%q", bad)
	}
}

func TestRetryKeyFix(t *testing.T) {
	if raceDetector {
		t.Skip("the analysis machinery TestRetryKey runs under the race detector; go test ./... runs this suite")
	}
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), vet.RetryKey, "retrykeyfix")
}

func TestUnknownOutcome(t *testing.T) {
	if raceDetector {
		t.Skip("the analysis machinery TestRetryKey runs under the race detector; go test ./... runs this suite")
	}
	unknownOutcomeRun.result(t, "unknownoutcome")
}

func TestWallClock(t *testing.T) {
	if raceDetector {
		t.Skip("the analysis machinery TestRetryKey runs under the race detector; go test ./... runs this suite")
	}
	analysistest.Run(t, analysistest.TestData(), vet.WallClock, "wallclock")
}

// TestRetryKeyCallSite: each finding carries the call its key is sent by
// (the one holding the literal, or the first after the store) and the tool
// the source fixes: a constant, or a parameter a guard pins; none when
// the parameter is unguarded, reassigned or pinned two ways.
func TestRetryKeyCallSite(t *testing.T) {
	if raceDetector {
		t.Skip("the analysis machinery TestRetryKey runs under the race detector; go test ./... runs this suite")
	}
	r := retryKeyRun.result(t, "retrykeycall")
	type site struct {
		finding, call int // lines
		callee, tool  string
	}
	var got []site
	for pos, c := range vet.SentCalls(r.Result) {
		assert.Equal(t, "tool.commit", c.Event)
		got = append(got, site{r.Pass.Fset.Position(pos).Line, r.Pass.Fset.Position(c.Pos).Line, c.Callee, c.Tool})
	}
	sort.Slice(got, func(i, j int) bool { return got[i].finding < got[j].finding })
	want := []site{
		{17, 17, "env.Tool.Commit", "refund"},            // literalTool
		{24, 25, "env.Tool.Commit", "payments.refund"},   // namedConst
		{34, 36, "env.Tool.Commit", "inventory.confirm"}, // guarded
		{45, 45, "env.Tool.Commit", "b"},                 // switched, case "b"
		{47, 47, "env.Tool.Commit", ""},                  // switched, case "c", "d"
		{58, 58, "env.Tool.Commit", ""},                  // unguarded
		{67, 67, "env.Tool.Commit", ""},                  // reassigned
		{77, 77, "env.Tool.Commit", ""},                  // disagree
		{86, 87, "env.Tool.Commit", ""},                  // fieldStore
	}
	assert.Equal(t, want, got)
	assert.Len(t, r.Diagnostics, len(want))
	for _, d := range r.Diagnostics {
		require.Len(t, d.Related, 1, "%s", d.Message)
		assert.Contains(t, d.Related[0].Message, "the key is sent by env.Tool.Commit")
	}
}

// TestUnknownOutcomeAdapters: the adapters' classifiers (mcpfault,
// httpfault, callfault and sqlfault's OutcomeOf), called in the branch or assigned
// to a variable the branch tests, are checked as res.Outcome is.
func TestUnknownOutcomeAdapters(t *testing.T) {
	if raceDetector {
		t.Skip("the analysis machinery TestRetryKey runs under the race detector; go test ./... runs this suite")
	}
	assert.Len(t, unknownOutcomeRun.result(t, "unknownoutcomeadapters").Diagnostics, 8)
}

// TestRetryKeyClient: a key a client's own request carries (an mcp.Meta
// or map entry named idempotencyKey, an Idempotency-Key header), set in
// the retry loop or by a function of the package the loop calls.
func TestRetryKeyClient(t *testing.T) {
	if raceDetector {
		t.Skip("the analysis machinery TestRetryKey runs under the race detector; go test ./... runs this suite")
	}
	r := retryKeyRun.result(t, "retrykeyclient")
	assert.Len(t, r.Diagnostics, 5)
	// the calls that send the keys: the MCP call's tool is its Name
	var got []string
	for pos, c := range vet.SentCalls(r.Result) {
		got = append(got, fmt.Sprintf("%d->%d %s %q %s", r.Pass.Fset.Position(pos).Line, r.Pass.Fset.Position(c.Pos).Line, c.Callee, c.Tool, c.Event))
	}
	sort.Strings(got)
	assert.Equal(t, []string{
		`42->41 j.cs.CallTool "delete_snapshot" tool.commit`,
		`52->53 j.hc.Do "" tool.commit`,
		`63->65 j.call "delete_snapshot" tool.commit`,
		`73->73 j.post "" tool.commit`,
		`81->82 j.cs.CallTool "charge" tool.commit`,
	}, got)
}
