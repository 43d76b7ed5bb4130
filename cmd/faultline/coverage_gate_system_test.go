package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// billingDeclaring returns billingFile rewritten (version 3, sequential)
// with extra boundaries declared not applicable and the key patterns
// pats ("" for none), as the billing agent's Definition would record
// them.
func billingDeclaring(t *testing.T, boundaries, pats string) string {
	t.Helper()
	b, err := os.ReadFile(billingFile)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), `"version": 2,`, `"version": 3,`, 1)
	s = strings.Replace(s, `"not_applicable": [`, `"not_applicable": [`+boundaries, 1)
	extra := `"concurrent_runs": 0, `
	if pats != "" {
		extra += `"not_applicable_keys": {` + pats + `}, `
	}
	s = strings.Replace(s, `"replay": "FAULTLINE_REPLAY`, extra+`"replay": "FAULTLINE_REPLAY`, 1)
	return writeFile(t, s)
}

// gateJSON is what the tests read of coverage gate --format json.
type gateJSON struct {
	Version       int  `json:"version"`
	Passed        bool `json:"passed"`
	NotApplicable int  `json:"not_applicable"`
	Missing       []struct {
		Line        int    `json:"line"`
		Requirement string `json:"requirement"`
		Key         string `json:"key"`
		Reason      string `json:"reason"`
	} `json:"missing"`
	Contradicted []struct {
		System, Declaration, Key, Evidence string
	} `json:"contradicted_declarations"`
	Violations   int  `json:"violations"`
	ViolatedKeys int  `json:"violated_keys"`
	NoViolations bool `json:"no_violations"`
}

func runGateJSON(t *testing.T, code int, args ...string) gateJSON {
	t.Helper()
	c, out, stderr := runCLI(t, append([]string{"coverage", "gate", "--format", "json"}, args...)...)
	var g gateJSON
	if c != code || json.Unmarshal([]byte(out), &g) != nil {
		t.Fatalf("%v: exit %d (want %d)\n%s%s", args, c, code, out, stderr)
	}
	return g
}

// TestGateOfAUserSystem: the billing agent's file (1 of its 29 keys
// visited, charged_once broken once). A ratio of 1 fails naming each of
// the 28 unvisited keys, in text and in JSON "missing" (before: the ratio
// alone, "missing": []); the violation is counted, and fails the gate
// only under --no-violations.
func TestGateOfAUserSystem(t *testing.T) {
	oneGoroutine(t)
	code, out, _ := runCLI(t, "coverage", "gate", billingFile, "--min-ratio", "1")
	if code != 1 || !strings.Contains(out, "minimum 1.0000: NOT MET\n  not applicable: 2 of the 40 reachable keys, left out of the ratio because the systems declare them (model.Definition.NotApplicable, NotApplicableKeys)\n  unvisited keys of the universe: 28\n") ||
		!strings.Contains(out, "\n  unvisited identity/proposal/before_validation/isolated/capability_record: never_tried: no recorded run scheduled subject_swap or tenant_swap or purpose_swap\n") {
		t.Fatalf("text: exit %d\n%s", code, out)
	}
	g := runGateJSON(t, 1, billingFile, "--min-ratio", "1")
	if g.Version != 2 || g.Passed || len(g.Missing) != 28 || g.Missing[0].Requirement != "min_ratio" || g.Missing[0].Line != 0 ||
		g.Missing[0].Key != "identity/proposal/before_validation/isolated/capability_record" || g.NotApplicable != 2 || g.Violations != 1 || g.ViolatedKeys != 1 {
		t.Fatalf("json %+v", g)
	}
	code, out, _ = runCLI(t, "coverage", "gate", billingFile, "--min-ratio", "0")
	if code != 0 || !strings.Contains(out, "  invariants: 1 violation of an invariant recorded under 1 key (a run counts once per invariant it broke; the counterexamples are in the report); the gate measures visits, not verdicts (--no-violations fails it on any)\n") {
		t.Fatalf("violations: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "coverage", "gate", billingFile, "--min-ratio", "0", "--no-violations")
	if code != 1 || !strings.HasPrefix(out, "coverage gate: FAILED\n") || !strings.Contains(out, ", --no-violations: NOT MET\n") {
		t.Fatalf("--no-violations: exit %d\n%s", code, out)
	}
	if g := runGateJSON(t, 1, billingFile, "--min-ratio", "0", "--no-violations"); !g.NoViolations || g.Passed || len(g.Missing) != 0 {
		t.Fatalf("--no-violations json %+v", g)
	}
}

// TestGateRefusesABlanketDeclaration: the billing agent declaring every
// key not applicable, or the authority boundary its runs cross, passed
// the gate at ratio 1 over the one key it visited; now the gate fails and
// names the declarations its own runs contradict.
func TestGateRefusesABlanketDeclaration(t *testing.T) {
	oneGoroutine(t)
	blanket := billingDeclaring(t, `"authority", `, `"*/*/*/*/*": "billing has nothing else"`)
	code, out, _ := runCLI(t, "coverage", "gate", blanket, "--min-ratio", "1")
	for _, want := range []string{
		"coverage gate: FAILED\n  ratio 1.0000 (1 of 1 keys the systems can reach visited; 40 reachable by the catalogue, the rest left out with why in the report), minimum 1.0000: met\n",
		"  not applicable: 39 of the 40 reachable keys, left out of the ratio because the systems declare them (model.Definition.NotApplicable, NotApplicableKeys)\n",
		"  not-applicable declarations the recorded runs contradict: 2 (the ratio's universe rests on them: fix the declaration, delete the file and record again)\n",
		"  billing declares no authority boundary, yet its runs crossed authority.grant, where only authority kinds enter\n",
		"  billing declares */*/*/*/*: billing has nothing else, yet a fault of tool/effect/after_commit/isolated/ledger_readback reached its event and fired (1 time)\n",
	} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
	if g := runGateJSON(t, 1, blanket, "--min-ratio", "1"); len(g.Contradicted) != 2 || g.Contradicted[1].Key != "tool/effect/after_commit/isolated/ledger_readback" || g.NotApplicable != 39 {
		t.Fatalf("json %+v", g)
	}
}

// TestMergeNamesAChangedReason: two files of the billing agent whose one
// pattern's reason alone differs are refused (exit 2), naming the pattern
// and both reasons and what to do (before: "not-applicable key patterns
// differ").
func TestMergeNamesAChangedReason(t *testing.T) {
	oneGoroutine(t)
	a := billingDeclaring(t, "", `"identity/worker/*/*/*": "one task a run"`)
	b := billingDeclaring(t, "", `"identity/worker/*/*/*": "one task per run"`)
	code, _, stderr := runCLI(t, "coverage", "merge", writeFile(t, "")+".out", a, b)
	want := `merging ` + b + `: systems["billing"]: not-applicable key patterns differ: identity/worker/*/*/*: only the reason changed, "one task a run" in the record merged into and "one task per run" in the one merged in; the two were recorded under different declarations of the system (model.Definition.NotApplicableKeys), which one file cannot hold (bad input, exit 2): delete the file, or record into a new one, to start afresh under the new declaration`
	if code != 2 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
}
