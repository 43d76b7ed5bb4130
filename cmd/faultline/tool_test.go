package main

import (
	"strings"
	"testing"
)

// TestReplayNamesTheAimedTool: replay prints a fault aimed at a tool with
// its tool, where the ordinal counts that tool's calls.
func TestReplayNamesTheAimedTool(t *testing.T) {
	s := writeFile(t, `{"version":1,"seed":"s","config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit","tool":"payments.refund"}]}`)
	code, out, _ := runCLI(t, "replay", s)
	if code != 0 || !strings.Contains(out, "f1 timeout_after_commit at tool.commit(payments.refund)#1: reached, fired 1") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	other := writeFile(t, `{"version":1,"seed":"s","config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit","tool":"search"}]}`)
	if _, out, _ := runCLI(t, "replay", other); !strings.Contains(out, "f1 timeout_after_commit at tool.commit(search)#1: NOT REACHED") {
		t.Fatalf("a tool never called:\n%s", out)
	}
	bad := writeFile(t, `{"version":1,"seed":"s","config":{"profile":"typed"},"faults":[{"event":"proposal","ordinal":1,"kind":"subject_swap","tool":"search"}]}`)
	if code, _, errOut := runCLI(t, "replay", bad); code != 2 || !strings.Contains(errOut, `event "proposal" has no tool`) {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
}
