package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/model/copperfin"
)

func TestExploreListMutants(t *testing.T) {
	code, out, _ := runCLI(t, "explore", "--list-mutants")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != len(copperfin.Mutants()) || len(lines) < 12 || lines[0] != string(copperfin.Mutants()[0].Name) {
		t.Fatalf("exit %d, %d lines:\n%s", code, len(lines), out)
	}
}

// TestExploreFindsAndReplays: without idempotency, explore exits 1 with a
// one-fault counterexample in JSON; the schedule file it writes replays to
// the same violation, at the same crossing; with idempotency restored it
// exits 0.
func TestExploreFindsAndReplays(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := runCLI(t, "explore", "--without", "idempotency", "--seed", "1", "--json", "--out", dir)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var j struct {
		Found           bool            `json:"found"`
		Invariant       string          `json:"invariant"`
		ChecksToFailure int             `json:"checks_to_failure"`
		FirstSeq        int             `json:"first_seq"`
		Schedule        json.RawMessage `json:"schedule"`
		File            string          `json:"file"`
		Replay          string          `json:"replay"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	s, err := model.ParseSchedule(j.Schedule)
	if err != nil {
		t.Fatalf("the schedule is not in the schedule-file format: %v", err)
	}
	if !j.Found || j.Invariant != model.InvEffectAtMostOnce || j.ChecksToFailure < 1 || j.ChecksToFailure > 100 || len(s.Faults) != 1 ||
		s.Faults[0].Kind != "tool_timeout" || filepath.Dir(j.File) != dir || j.Replay != "faultline replay "+j.File {
		t.Fatalf("%+v", j)
	}
	code, rout, _ := runCLI(t, strings.Fields(j.Replay)[1:]...)
	if code != 1 || !regexp.MustCompile(`effect_at_most_once +VIOLATED +first false after seq `+itoa(j.FirstSeq)+` \(tool.commit\) reached by f1`).MatchString(rout) {
		t.Fatalf("replay exit %d:\n%s", code, rout)
	}
	code, out, _ = runCLI(t, "explore", "--seed", "1")
	if code != 0 || out != "no counterexample in 100 checks (seed 1, profile typed, fixture copperfin)\n" {
		t.Fatalf("typed: exit %d %q", code, out)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestExploreBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explore", "--mutant", "gremlin"}, `unknown mutant "gremlin"`},
		{[]string{"explore", "--checks", "0"}, "--checks must be at least 1"},
		{[]string{"explore", "--max-faults", "0"}, "max faults 0"},
		{[]string{"explore", "--fixture", "nowhere"}, `unknown fixture "nowhere"`},
		{[]string{"explore", "--kinds", "gremlin"}, `unknown fault kind "gremlin"`},
		{[]string{"explore", "--profile", "paranoid"}, `unknown profile "paranoid"`},
		{[]string{"explore", "--without", "magic"}, `unknown control "magic"`},
		{[]string{"explore", "extra"}, "unknown command"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, stderr)
		}
	}
}
