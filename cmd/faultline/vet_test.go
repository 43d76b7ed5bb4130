package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/vet"
)

// sentByLine matches the end of a text finding of copperfin's retry loop.
var sentByLine = regexp.MustCompile(` \[sent by env\.Tool\.Commit at \S*reference/copperfin/copperfin\.go:\d+:\d+, tool "payments\.refund", event tool\.commit\] \(at run time: timeout_after_commit, tool_timeout\)$`)

func TestVetFindings(t *testing.T) {
	if raceDetector {
		t.Skip("loads and type-checks packages in one goroutine of faultline's (the x/tools loader's goroutines are its own); go test ./... runs this test")
	}
	code, stdout, stderr := runCLI(t, "vet", "--no-tests", "../../reference/copperfin")
	if code != cli.ExitViolation {
		t.Fatalf("exit %d, want 1 (findings); stderr %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 2 findings and a summary:\n%s", len(lines), stdout)
	}
	for _, l := range lines[:2] {
		if !strings.Contains(l, "reference/copperfin/") || !strings.Contains(l, ": retrykey: ") || !strings.HasSuffix(l, "(at run time: timeout_after_commit, tool_timeout)") {
			t.Errorf("finding line %q lacks the file, the analyzer or the fault kind", l)
		}
		// the call that sends the key: where, what, the tool and event a
		// counterexample's fault names
		if !sentByLine.MatchString(l) {
			t.Errorf("finding line %q lacks the call that sends the key", l)
		}
	}
	if lines[2] != "faultline vet: 2 finding(s) in 1 package(s)" {
		t.Errorf("summary %q", lines[2])
	}
}

func TestVetJSON(t *testing.T) {
	if raceDetector {
		t.Skip("loads and type-checks packages in one goroutine of faultline's (the x/tools loader's goroutines are its own); go test ./... runs this test")
	}
	code, stdout, stderr := runCLI(t, "vet", "--json", "--no-tests", "../../reference/copperfin")
	if code != cli.ExitViolation {
		t.Fatalf("exit %d, want 1; stderr %s", code, stderr)
	}
	var rep vet.Report
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatal(err)
	}
	if rep.Version != 1 || rep.Packages != 1 || len(rep.Findings) != 2 {
		t.Fatalf("version %d, %d packages, %d findings; want 1, 1, 2", rep.Version, rep.Packages, len(rep.Findings))
	}
	for _, f := range rep.Findings {
		if f.Analyzer != "retrykey" || f.Function != "(*flow).effect" || f.FaultKind != "timeout_after_commit, tool_timeout" || f.Line == 0 || f.Column == 0 ||
			!strings.HasSuffix(f.File, ".go") || !strings.Contains(f.File, "reference/copperfin/") {
			t.Errorf("finding %+v", f)
		}
		if c := f.Call; c.File != f.File || c.Line <= f.Line || c.Column == 0 || c.Callee != "env.Tool.Commit" || c.Tool != "payments.refund" || c.Event != "tool.commit" {
			t.Errorf("finding at line %d: call %+v, want env.Tool.Commit of payments.refund (tool.commit) after it in %s", f.Line, c, f.File)
		}
	}
	for _, key := range []string{`"analyzer"`, `"file"`, `"line"`, `"column"`, `"function"`, `"message"`, `"fault_kind"`, `"call"`, `"callee"`, `"tool"`, `"event"`} {
		if !strings.Contains(stdout, key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

func TestVetExitCodes(t *testing.T) {
	if raceDetector {
		t.Skip("loads and type-checks packages in one goroutine of faultline's (the x/tools loader's goroutines are its own); go test ./... runs this test")
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"vet", "--no-tests", "../../httpfault"}, cli.ExitOK, ""},
		{[]string{"vet", "../../httpfault"}, cli.ExitViolation, ""}, // its tests' planted fresh key per retry
		{[]string{"vet"}, cli.ExitBadInput, "at least one package pattern"},
		{[]string{"vet", "./testdata/..."}, cli.ExitBadInput, "no package matched: ./testdata/..."},
		{[]string{"vet", "../../nope"}, cli.ExitBadInput, "faultline: vet: the packages do not load: stat "},
		{[]string{"vet", "--json=maybe", "./..."}, cli.ExitBadInput, "invalid argument"},
		// analyzers switched off and on as go vet's flags do
		{[]string{"vet", "--no-tests", "--retrykey=false", "../../reference/copperfin"}, cli.ExitOK, ""},
		{[]string{"vet", "--no-tests", "--wallclock", "../../reference/copperfin"}, cli.ExitOK, ""},
		{[]string{"vet", "--no-tests", "--wallclock", "--retrykey", "../../reference/copperfin"}, cli.ExitViolation, ""},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.msg)
		}
		if tc.code == cli.ExitOK && stdout != "faultline vet: 0 finding(s) in 1 package(s)\n" {
			t.Errorf("%q: stdout %q", tc.args, stdout)
		}
	}
}

// TestVetTaughtCall: --retrykey.consequential passes through to the
// analyzer. The ledger module under testdata retries a call retrykey does
// not know with a key built from the attempt counter: untaught, vet finds
// nothing; taught (*Ledger).Post, it reports the key; the flag does not
// outlive the run; a value the analyzer refuses, a call that matches no
// function or method of the packages vetted or their imports (a typo
// would pass having checked nothing), or go vet's one-dash spelling, is
// bad input (exit 2) naming the flag.
func TestVetTaughtCall(t *testing.T) {
	if raceDetector {
		t.Skip("loads and type-checks packages in one goroutine of faultline's (the x/tools loader's goroutines are its own); go test ./... runs this test")
	}
	t.Chdir("testdata/vetteach")
	const taught = "--retrykey.consequential=(*example.com/ledger.Ledger).Post"
	untaught := "faultline vet: 0 finding(s) in 1 package(s)\n"
	finding := "ledger.go:37:41: retrykey: the key WithIdempotencyKey sets varies across the attempts of the retry loop at line 36: " +
		"it is built from the attempt counter attempt on each attempt, so a retry after a lost reply is a new request to the provider and can commit the effect twice; " +
		"compute the key once, before the retry, from the logical action [sent by l.Post at ledger.go:37:12, event tool.commit] (at run time: timeout_after_commit, tool_timeout)\n" +
		"faultline vet: 1 finding(s) in 1 package(s)\n"
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"vet", "."}, cli.ExitOK, untaught, ""},
		{[]string{"vet", taught, "."}, cli.ExitViolation, finding, ""},
		{[]string{"vet", "."}, cli.ExitOK, untaught, ""}, // the flag does not outlive its run
		{[]string{"vet", "--retrykey.consequential", "example.com/ledger.Settle,(*example.com/ledger.Ledger).Post", "."}, cli.ExitViolation, finding, ""},
		{[]string{"vet", "--retrykey.consequential=Post", "."}, cli.ExitBadInput, "",
			"faultline: vet: --retrykey.consequential: consequential call \"Post\": want PKG.Func or (PKG.Type).Method, as (*net/http.Client).Do\n"},
		{[]string{"vet", "--retrykey.consequential=example.com/ledger.Settle,,", "."}, cli.ExitBadInput, "",
			"faultline: vet: --retrykey.consequential: consequential call \"\": want PKG.Func or (PKG.Type).Method, as (*net/http.Client).Do\n"},
		{[]string{"vet", "--retrykey.consequential=(*example.com/ledger.Ledgr).Post", "."}, cli.ExitBadInput, "",
			"faultline: vet: --retrykey.consequential: consequential call \"(*example.com/ledger.Ledgr).Post\" matches no function or method of the loaded packages or their imports, so it would teach nothing (did you mean (*example.com/ledger.Ledger).Post?)\n"},
		{[]string{"vet", "--retrykey.consequential=example.com/ledger.Settle,(*example.com/user/pay.Clent).Refund", "."}, cli.ExitBadInput, "",
			"faultline: vet: --retrykey.consequential: consequential call \"(*example.com/user/pay.Clent).Refund\" matches no function or method of the loaded packages or their imports, so it would teach nothing\n"},
		{[]string{"vet", "-retrykey.consequential=(*example.com/ledger.Ledger).Post", "."}, cli.ExitBadInput, "",
			"faultline: unknown shorthand flag: 'r' in -retrykey.consequential=(*example.com/ledger.Ledger).Post (an analyzer's flag takes two dashes here: --retrykey.consequential)\n"},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != tc.code || stdout != tc.stdout || stderr != tc.stderr {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
		}
	}
	code, stdout, _ := runCLI(t, "vet", "--format", "json", "--retrykey.consequential=nope", ".")
	if want := `{"version":1,"error":"vet: --retrykey.consequential: consequential call \"nope\": want PKG.Func or (PKG.Type).Method, as (*net/http.Client).Do","exit":2}` + "\n"; code != cli.ExitBadInput || stdout != want {
		t.Errorf("--format json, bad value: exit %d, stdout %q; want 2, %q", code, stdout, want)
	}
}
