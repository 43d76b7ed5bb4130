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
		{[]string{"vet", "../../nope"}, cli.ExitBadInput, "do not load"},
		{[]string{"vet", "--json=maybe", "./..."}, cli.ExitBadInput, "invalid argument"},
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
