package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
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
	oneGoroutine(t)
	dir := t.TempDir()
	code, out, stderr := runCLI(t, "explore", "--max-schedules", "0", "--without", "idempotency", "--seed", "1", "--json", "--out", dir)
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
	// with 35 kinds, server_error, network_error and do_not_retry seed
	// 1's 100 checks reach 177 of their 203 faults (175 without
	// do_not_retry, 177 without the transport kinds too, 174 with 30)
	code, out, _ = runCLI(t, "explore", "--max-schedules", "0", "--seed", "1")
	if code != 0 || out != "no counterexample in 100 checks (seed 1, profile typed, fixture copperfin)\nfaults: 177 of 203 scheduled reached (156 fired), 26 not reached\n" {
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
		{[]string{"explore", "--checks", "0"}, "--checks must be between 1 and 100000000, got 0"},
		{[]string{"explore", "--checks", "100000001"}, "--checks must be between 1 and 100000000, got 100000001"},
		{[]string{"explore", "--max-faults", "0"}, "--max-faults must be between 1 and 16, got 0"},
		{[]string{"explore", "--max-faults", "17"}, "--max-faults must be between 1 and 16, got 17"},
		{[]string{"explore", "--kinds", ""}, "--kinds is empty"},
		{[]string{"explore", "--kinds", "subject_swap,"}, `--kinds "subject_swap," holds an empty element`},
		{[]string{"explore", "--domains", ""}, "--domains is empty"},
		{[]string{"explore", "--without", ""}, "--without is empty"},
		{[]string{"explore", "--fixture", ""}, "--fixture is empty"},
		{[]string{"explore", "--out", ""}, "--out is empty"},
		{[]string{"explore", "--coverage", ""}, "--coverage is empty"},
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

// visitedKeys counts the reachable keys the coverage file at p visited.
func visitedKeys(t *testing.T, p string) int {
	t.Helper()
	d := readCov(t, p)
	n := 0
	for _, k := range coverage.Default().Reachable() {
		if d.Keys[k].Visited() {
			n++
		}
	}
	return n
}

// TestExploreRecordsCoverage: --coverage and FAULTLINE_COVERAGE merge
// every run into one file without changing the output; the 38 checks of
// seed 1 visit 18 keys unguided (16 before server_error and network_error
// were drawn here; without swarm draws, the default, as the guide draws:
// keys of the kinds' own specs and of modifiers, which a sequential
// draw puts on a last fault one time in four) and all 20 keys of the
// kinds' own specs guided (the curves of properties'
// TestGuidedVisitsEveryKeyWithinTwiceTheKeys), and the guided
// output says so; the same seed gives a byte-equal file; --coverage-in
// steers the first checks to the keys the input lacks.
func TestExploreRecordsCoverage(t *testing.T) {
	oneGoroutine(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "explore.json")
	args := []string{"explore", "--max-schedules", "0", "--seed", "1", "--checks", "38"}
	_, plain, _ := runCLI(t, args...)
	code, out, stderr := runCLI(t, append(args, "--coverage", p)...)
	if code != 0 || out != plain || out != "no counterexample in 38 checks (seed 1, profile typed, fixture copperfin)\nfaults: 67 of 75 scheduled reached (62 fired), 8 not reached\n" {
		t.Fatalf("exit %d, output with --coverage %q, without %q: %s", code, out, plain, stderr)
	}
	if d := readCov(t, p); d.Runs != 38 || visitedKeys(t, p) != 18 {
		t.Fatalf("runs %d, keys visited %d", d.Runs, visitedKeys(t, p))
	}
	t.Setenv(coverageEnv, p)
	if code, _, _ := runCLI(t, args...); code != 0 || readCov(t, p).Runs != 76 {
		t.Fatalf("through %s: exit %d, runs %d", coverageEnv, code, readCov(t, p).Runs)
	}
	t.Setenv(coverageEnv, "")

	g1, g2 := filepath.Join(dir, "g1.json"), filepath.Join(dir, "g2.json")
	for _, g := range []string{g1, g2} {
		code, out, _ := runCLI(t, append(args, "--guided", "--coverage", g)...)
		if code != 0 || out != "no counterexample in 38 checks (seed 1, profile typed, fixture copperfin)\nfaults: 73 of 75 scheduled reached (59 fired), 2 not reached\nguided: 21 of 40 reachable keys visited in 38 runs\n" {
			t.Fatalf("guided: exit %d %q", code, out)
		}
	}
	if a, b := readFile(t, g1), readFile(t, g2); a != b || visitedKeys(t, g1) != 21 {
		t.Fatalf("two guided explorations with seed 1 wrote different files, or visited %d keys", visitedKeys(t, g1))
	}
	// guided by the unguided record, the first 6 checks visit 5 keys, 22
	// with the record (4 and 22 before do_not_retry was drawn here, 6 and
	// 21 before server_error and network_error were)
	code, out, _ = runCLI(t, "explore", "--max-schedules", "0", "--seed", "1", "--checks", "6", "--guided", "--coverage-in", p, "--json")
	var j struct {
		Guided               bool `json:"guided"`
		KeysVisited          int  `json:"keys_visited"`
		KeysVisitedWithInput int  `json:"keys_visited_with_input"`
		Keys                 int  `json:"keys_reachable"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != 0 {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if !j.Guided || j.KeysVisited != 5 || j.KeysVisitedWithInput != 22 || j.Keys != 40 {
		t.Fatalf("%+v", j)
	}
	code, out, _ = runCLI(t, "explore", "--max-schedules", "0", "--seed", "1", "--checks", "20", "--guided", "--coverage-in", p)
	if code != 0 || !strings.HasSuffix(out, "\nguided: 12 of 40 reachable keys visited in 20 runs; with --coverage-in, 22 of 40\n") {
		t.Fatalf("exit %d %q", code, out)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestExploreCoverageMergesWithAssay: the coverage file explore writes
// merges with one the assay writes, and the merge equals one file both
// recorded into: byte for byte.
func TestExploreCoverageMergesWithAssay(t *testing.T) {
	dir := t.TempDir()
	ex, as, both, merged := filepath.Join(dir, "explore.json"), filepath.Join(dir, "assay.json"), filepath.Join(dir, "both.json"), filepath.Join(dir, "merged.json")
	explore := []string{"explore", "--max-schedules", "0", "--without", "idempotency", "--seed", "1", "--guided"}
	assayArgs := []string{"assay", "--profile", "baseline", "--fault", "tool", "--trials", "20", "--seed", "5"}
	for _, c := range [][]string{append(explore, "--coverage", ex), append(assayArgs, "--coverage", as),
		append(explore, "--coverage", both), append(assayArgs, "--coverage", both)} {
		if code, _, stderr := runCLI(t, c...); code > 1 {
			t.Fatalf("%v: exit %d: %s", c, code, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "coverage", "merge", merged, ex, as); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	e, a, m := readCov(t, ex), readCov(t, as), readCov(t, merged)
	if m.Runs != e.Runs+a.Runs || a.Runs != 20 || e.Runs < 2 || readFile(t, merged) != readFile(t, both) {
		t.Fatalf("runs: explore %d, assay %d, merged %d; merged equals both: %t", e.Runs, a.Runs, m.Runs, readFile(t, merged) == readFile(t, both))
	}
	// the explore's counterexample (a tool_timeout whose retry, without
	// idempotency, goes out under a fresh request id, and whose record
	// names only the retry's refund) and the assay's tool_timeout sit
	// under one key, their counts added, invariant by invariant
	k := mustKey(t, "tool/tool_call/before_commit/isolated/ledger_readback")
	ec, ac := e.Keys[k].Counterexamples, a.Keys[k].Counterexamples
	cx := m.Keys[k].Counterexamples
	if len(cx) != 2 || cx[0].Invariant != "effect_at_most_once" || cx[1].Invariant != "recorded_agrees_with_ledger" || len(ec) != 2 || len(ac) != 2 {
		t.Fatalf("%s: %+v", k, m.Keys[k])
	}
	for i := range cx {
		if ac[i].Count != 1 || cx[i].Count != ec[i].Count+ac[i].Count {
			t.Fatalf("%s: %+v", k, m.Keys[k])
		}
	}
}

func mustKey(t *testing.T, s string) coverage.Key {
	t.Helper()
	k, err := coverage.ParseKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestExploreCoverageBadInput(t *testing.T) {
	bad := writeFile(t, `{"version": 4}`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explore", "--coverage-in", bad}, "--coverage-in needs --guided"},
		{[]string{"explore", "--guided", "--coverage-in", bad}, "unsupported version 4"},
		{[]string{"explore", "--guided", "--coverage-in", filepath.Join(t.TempDir(), "none.json")}, "no such file"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "explore", "--checks", "3", "--coverage", filepath.Join(bad, "x.json")); code == 0 || !strings.Contains(stderr, "recording coverage") {
		t.Fatalf("unwritable coverage file: exit %d, %s", code, stderr)
	}
}

// TestExploreShardsOfTheReferenceSystem: the four shards of 100 checks of
// the typed profile, their coverage files merged by coverage merge, give
// the coverage file of the one run, byte for byte, and their fault counts
// add up to its "177 of 203" (175 before do_not_retry was drawn here,
// 177 before server_error and network_error were, 174 with 30 kinds).
func TestExploreShardsOfTheReferenceSystem(t *testing.T) {
	oneGoroutine(t)
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.json")
	code, out, stderr := runCLI(t, "explore", "--max-schedules", "0", "--seed", "1", "--coverage", whole)
	if code != 0 || out != "no counterexample in 100 checks (seed 1, profile typed, fixture copperfin)\nfaults: 177 of 203 scheduled reached (156 fired), 26 not reached\n" {
		t.Fatalf("exit %d %q %s", code, out, stderr)
	}
	merge := []string{"coverage", "merge", filepath.Join(dir, "merged.json")}
	checks, faults, reached := 0, 0, 0
	for i := 1; i <= 4; i++ {
		cov := filepath.Join(dir, "cov-"+itoa(i)+".json")
		code, out, stderr := runCLI(t, "explore", "--max-schedules", "0", "--seed", "1", "--shard", itoa(i)+"/4", "--coverage", cov, "--json")
		var j struct {
			Checks, Faults int
			FaultsReached  int `json:"faults_reached"`
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil || code != 0 {
			t.Fatalf("shard %d: exit %d %s %s", i, code, out, stderr)
		}
		checks, faults, reached = checks+j.Checks, faults+j.Faults, reached+j.FaultsReached
		merge = append(merge, cov)
	}
	if checks != 100 || faults != 203 || reached != 177 {
		t.Errorf("the shards: %d checks, %d of %d faults reached", checks, reached, faults)
	}
	if code, out, stderr := runCLI(t, merge...); code != 0 {
		t.Fatalf("merge: exit %d %s %s", code, out, stderr)
	}
	want, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(merge[2])
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("the merged coverage of the shards differs from the run's:\n%s\nthe run's:\n%s", got, want)
	}
}

// TestExhaustiveConcurrent: --exhaustive with --concurrent walks every
// fault schedule under each interleaving of at most one context switch of
// the reference system's three tasks (79: the default order and 78 that
// switch once), and typed holds under all of them.
func TestExhaustiveConcurrent(t *testing.T) {
	code, out, stderr := runCLI(t, "explore", "--concurrent", "3", "--fixture", "copperfin-batch", "--exhaustive", "--max-faults", "1",
		"--kinds", "timeout_after_commit", "--no-world")
	want := "no counterexample among 1027 schedules of at most 1 faults\n" +
		"enumerated: 79 of 0 faults, 948 of 1\n" +
		"scope: 1 kinds (timeout_after_commit); world events off; placement any event; profile typed, concurrency: 3 workers, fixture copperfin-batch; 79 interleavings (at most one context switch); modifiers on any fault repeated (2 crossings), persistent (to the run's end), synchronized (the default window); not enumerated: shared (one tenant), other repeat counts, until events and windows\n" +
		"faults: 948 of 948 scheduled reached (948 fired), 0 not reached\n"
	if code != 0 || out != want {
		t.Fatalf("exit %d %s\n%s", code, stderr, out)
	}
}

// TestExploreConcurrentDrawsModifiers: explore --concurrent draws
// correlation modifiers with the faults, and a counterexample that needs
// one keeps it: with idempotency alone, a persistent rollback of the
// checkpoint store breaks the three workers' retry budget.
func TestExploreConcurrentDrawsModifiers(t *testing.T) {
	oneGoroutine(t)
	code, out, stderr := runCLI(t, "explore", "--max-schedules", "0", "--concurrent", "3", "--fixture", "copperfin-batch", "--controls", "idempotency",
		"--kinds", "checkpoint_rollback", "--max-faults", "1", "--no-world", "--seed", "1", "--checks", "100")
	if code != 1 || !strings.HasPrefix(out, "counterexample after 12 checks (seed 1)\n") ||
		!strings.Contains(out, "budget violated: first false after seq 36 (tool.commit), reached by f1 (checkpoint_rollback): attempt 4 exceeds one plus the retry budget of 2\n") ||
		!strings.Contains(out, `"kind": "checkpoint_rollback",`+"\n"+`      "correlation": "persistent"`) {
		t.Fatalf("exit %d %s\n%s", code, stderr, out)
	}
}

// TestExhaustiveWalksModifiers: the walk places correlation modifiers and
// worker-scoped kinds. One tool_timeout on ten workers, repeated, is the
// fleet's retry storm (exit 1); a persistent rollback of the checkpoint
// store breaks the three workers' retry budget under idempotency alone
// (what random draws find in TestExploreConcurrentDrawsModifiers); and
// ambient_identity_leak is walked at worker.start: on the fleet, whose
// tasks share actor and tenant, the leaked trace breaks provable_outcome
// for a system that adopts it (worker_span_adopted), and typed, which
// starts each task's own trace, holds over the whole walk.
func TestExhaustiveWalksModifiers(t *testing.T) {
	oneGoroutine(t)
	code, out, stderr := runCLI(t, "explore", "--exhaustive", "--max-faults", "1", "--fixture", "copperfin-fleet-10", "--concurrent", "10", "--kinds", "tool_timeout")
	if code != 1 || !strings.HasPrefix(out, "counterexample at schedule 1182 of the exhaustive walk") ||
		!strings.Contains(out, "no_retry_storm violated: ") || !strings.Contains(out, `"correlation": "repeated"`) {
		t.Errorf("storm: exit %d %s\n%s", code, stderr, out)
	}
	code, out, stderr = runCLI(t, "explore", "--exhaustive", "--concurrent", "3", "--fixture", "copperfin-batch", "--controls", "idempotency",
		"--kinds", "checkpoint_rollback", "--max-faults", "1", "--no-world", "--max-switches", "0")
	if code != 1 || !strings.HasPrefix(out, "counterexample at schedule 15 of the exhaustive walk") ||
		!strings.Contains(out, "budget violated: first false after seq 36 (tool.commit), reached by f1 (checkpoint_rollback): attempt 4 exceeds one plus the retry budget of 2\n") ||
		!strings.Contains(out, `"kind": "checkpoint_rollback",`+"\n"+`      "correlation": "persistent"`) {
		t.Errorf("rollback: exit %d %s\n%s", code, stderr, out)
	}
	ambient := []string{"explore", "--exhaustive", "--max-faults", "1", "--concurrent", "3", "--fixture", "copperfin-fleet-10", "--kinds", "ambient_identity_leak"}
	code, out, stderr = runCLI(t, append(ambient, "--mutant", "worker_span_adopted")...)
	if code != 1 || !strings.HasPrefix(out, "counterexample at schedule 236 of the exhaustive walk: no schedule of fewer faults breaks an invariant\nenumerated: 235 of 0 faults, 1 of 1\n") ||
		!strings.Contains(out, `"event": "worker.start"`) {
		t.Errorf("ambient: exit %d %s\n%s", code, stderr, out)
	}
	code, out, stderr = runCLI(t, ambient...)
	if code != 0 || !strings.HasPrefix(out, "no counterexample among 2585 schedules of at most 1 faults\nenumerated: 235 of 0 faults, 2350 of 1\n") {
		t.Errorf("ambient, typed: exit %d %s\n%s", code, stderr, out)
	}
}
