package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// cliResult is one run's exit code and output.
type cliResult struct {
	code           int
	stdout, stderr string
}

// cached holds the runs of cachedCLI, one per argument list.
var cached struct {
	sync.Mutex
	runs map[string]*cliOnce
}

type cliOnce struct {
	once sync.Once
	res  cliResult
}

// cachedCLI is runCLI for commands that read no file and write none (the
// audit): each argument list runs once per test binary and the tests that
// give it share the result, since the whole audit takes a while.
func cachedCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	key := strings.Join(args, "\x00")
	cached.Lock()
	if cached.runs == nil {
		cached.runs = map[string]*cliOnce{}
	}
	c := cached.runs[key]
	if c == nil {
		c = &cliOnce{}
		cached.runs[key] = c
	}
	cached.Unlock()
	c.once.Do(func() {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		c.res = cliResult{code, out.String(), errb.String()}
	})
	return c.res.code, c.res.stdout, c.res.stderr
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBadInputExitsTwo(t *testing.T) {
	good := `{"version":1,"seed":"s","config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit"}]}`
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"malformed json", []string{"replay", writeFile(t, `{"version":1,`)}, "truncated JSON"},
		{"unknown kind", []string{"replay", writeFile(t, strings.Replace(good, "timeout_after_commit", "gremlin", 1))}, `unknown fault kind "gremlin"`},
		{"unknown event", []string{"replay", writeFile(t, strings.Replace(good, "tool.commit", "tool.comit", 1))}, `unknown event "tool.comit"`},
		{"unknown field", []string{"replay", writeFile(t, strings.Replace(good, `"seed"`, `"sed"`, 1))}, `unknown field "sed"`},
		{"ordinal 0", []string{"replay", writeFile(t, strings.Replace(good, `"ordinal":1`, `"ordinal":0`, 1))}, "ordinal 0 must be 1 or more"},
		{"missing config", []string{"replay", writeFile(t, strings.Replace(good, `"config":{"profile":"typed"},`, "", 1))}, `missing "config"`},
		{"missing file", []string{"replay", filepath.Join(t.TempDir(), "nope.json")}, "no such file"},
		{"trials 0", []string{"assay", "--trials", "0"}, "--trials must be between 1 and 100000000, got 0"},
		{"trials max int64", []string{"assay", "--trials", "9223372036854775807"}, "--trials must be between 1 and 100000000, got 9223372036854775807"},
		{"trials 99999999999", []string{"assay", "--trials", "99999999999"}, "--trials must be between 1 and 100000000, got 99999999999"},
		{"empty mode", []string{"assay", "--mode", ""}, "--mode is empty"},
		{"empty fault", []string{"assay", "--fault", ""}, "--fault is empty"},
		{"empty compat", []string{"assay", "--compat", ""}, "--compat is empty"},
		{"coverage unknown subcommand", []string{"coverage", "nope"}, `unknown command "nope" for "faultline coverage" (valid: gate, merge, report)`},
		{"dossier unknown subcommand", []string{"dossier", "nope"}, `unknown command "nope"`},
		{"unknown control", []string{"assay", "--controls", "bind_identity,magic"}, `unknown control "magic"`},
		{"unknown profile", []string{"assay", "--profile", "paranoid"}, `unknown profile "paranoid"`},
		{"unknown fault domain", []string{"assay", "--fault", "network"}, `unknown fault domain "network"`},
		{"unknown compat", []string{"assay", "--compat", "paper1"}, `unknown compatibility target "paper1"`},
		{"profile and controls", []string{"assay", "--profile", "typed", "--controls", "idempotency"}, "not both"},
		{"bad flag", []string{"assay", "--bogus"}, "unknown flag: --bogus"},
		{"bad flag value", []string{"assay", "--trials", "many"}, "invalid argument"},
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"replay without file", []string{"replay"}, "accepts 1 arg"},
		{"replay unknown without", []string{"replay", writeFile(t, good), "--without", "magic"}, `unknown control "magic"`},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (stderr %q)", c.name, code, stderr)
		}
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%s: stderr %q does not name %q", c.name, stderr, c.want)
		}
	}
}

func TestReplayExitCodes(t *testing.T) {
	s := writeFile(t, `{"version":1,"seed":"s","config":{"profile":"baseline"},"faults":[{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit"}]}`)
	code, out, _ := runCLI(t, "replay", s)
	if code != 1 || !regexp.MustCompile(`effect_at_most_once +VIOLATED`).MatchString(out) || !strings.Contains(out, "Run verdict: unrecoverable") {
		t.Fatalf("baseline replay: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "replay", s, "--profile", "typed")
	if code != 0 || !strings.Contains(out, "Run verdict: recovered") {
		t.Fatalf("typed replay: exit %d\n%s", code, out)
	}
	// removing both nominated controls from typed brings the duplicate back
	code, out, _ = runCLI(t, "replay", s, "--profile", "typed", "--without", "idempotency,effect_readback", "--json")
	if code != 1 {
		t.Fatalf("typed without idempotency and readback: exit %d", code)
	}
	var res struct {
		RunVerdict string            `json:"run_verdict"`
		Invariants map[string]string `json:"invariants"`
		Faults     []struct {
			At      string `json:"at"`
			Reached bool   `json:"reached"`
			Fired   int    `json:"fired"`
			Handled bool   `json:"handled"`
		} `json:"faults"`
		Terms struct {
			Effects int `json:"effects"`
		} `json:"terms"`
		Summary string `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.RunVerdict != "unrecoverable" || res.Terms.Effects != 2 || res.Faults[0].At != "tool.commit#1" ||
		!res.Faults[0].Reached || res.Faults[0].Fired != 1 || res.Faults[0].Handled {
		t.Fatalf("json record %+v", res)
	}
	// the eight, recorded_agrees_with_ledger (the retry's record names
	// only the second refund) and retry_paced
	if len(res.Invariants) != 10 || res.Invariants["retry_paced"] != "pass" {
		t.Errorf("want 10 invariants, got %v", res.Invariants)
	}
	for name, v := range res.Invariants {
		if want := map[bool]string{true: "fail", false: "pass"}[name == "effect_at_most_once" || name == "recorded_agrees_with_ledger"]; v != want {
			t.Errorf("invariant %s = %s, want %s", name, v, want)
		}
	}
	if !strings.Contains(res.Summary, "Failed invariants: effect_at_most_once after seq") {
		t.Errorf("summary: %s", res.Summary)
	}
}

func TestReplayReportsUnreachedFault(t *testing.T) {
	s := writeFile(t, `{"version":1,"seed":"s","config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":3,"kind":"timeout_after_commit"}]}`)
	code, out, stderr := runCLI(t, "replay", s)
	// every invariant held, but the fault was never tested: 3, not 0
	if code != 3 || !strings.Contains(out, "NOT REACHED") || !strings.Contains(out, "Run verdict: inconclusive") ||
		stderr != "faultline: inconclusive: f1 timeout_after_commit at tool.commit#3 was not reached; the run tested less than its schedule\n" {
		t.Fatalf("exit %d stderr %q\n%s", code, stderr, out)
	}
}

func TestAssayCompatMatchesArtefact(t *testing.T) {
	want, err := os.ReadFile("../../reference/paper/testdata/paper188/baseline-2000-188.txt")
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "assay", "--compat", "paper188", "--profile", "baseline", "--trials", "2000", "--seed", "188")
	if code != 0 || out != string(want) {
		t.Fatalf("exit %d, output differs:\n%s", code, out)
	}
	want, _ = os.ReadFile("../../reference/paper/testdata/paper188/baseline-tool-77-5.json")
	code, out, _ = runCLI(t, "assay", "--compat", "paper188", "--profile", "baseline", "--fault", "tool", "--trials", "77", "--seed", "5", "--json")
	if code != 0 || out != string(want) {
		t.Fatalf("exit %d, json differs:\n%s", code, out)
	}
	// an empty --controls list is the baseline
	code, out2, _ := runCLI(t, "assay", "--compat", "paper188", "--controls", "", "--fault", "tool", "--trials", "77", "--seed", "5", "--json")
	if code != 0 || strings.Replace(out2, `"profile": "custom"`, `"profile": "baseline"`, 1) != string(want) {
		t.Fatalf("empty --controls differs from baseline:\n%s", out2)
	}
}

func TestAuditPlacesProfiles(t *testing.T) {
	if raceDetector {
		t.Skip("the whole audit repeats the goroutines of assay.Run and assay.Gather, which the assay package's race tests run over smaller inputs, and renders in one goroutine; go test ./... runs this test in full")
	}
	code, out, _ := cachedCLI(t, "audit", "--full")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"baseline     BLOCK OR REDESIGN            unsafe  45.0%  unproved  21.9%  contained  55.0%  useful service  14.0%",
		"typed        BLOCK OR REDESIGN            unsafe   0.0%  unproved   0.0%  contained 100.0%  useful service  69.5%",
		"fail_closed  BLOCK OR REDESIGN            unsafe   0.0%  unproved   0.0%  contained 100.0%  useful service  43.5%",
		"stale_checkpoint           state     hold     x       x        .        .       .        .       .     .         x     1        -",
		"== profile fail_closed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("audit output lacks %q", want)
		}
	}
}

func TestReplayTwiceAndMutant(t *testing.T) {
	code, _, stderr := runCLI(t, "replay", "../../reference/corpus/harness-practice-fixture.json", "--twice")
	if code != 0 || !strings.Contains(stderr, "deterministic: two runs crossed the same events to the same verdict (39 events)") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "replay", "../../reference/corpus/harness-practice-fixture.json", "--mutant", "gremlin")
	if code != 2 || !strings.Contains(stderr, `unknown mutant "gremlin"`) {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	code, out, _ := runCLI(t, "replay", "../../reference/corpus/stale-checkpoint-rejected.json", "--profile", "baseline", "--mutant", "stale_checkpoint_accepted")
	if code != 1 || !regexp.MustCompile(`resume_from_checkpoint +VIOLATED`).MatchString(out) {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// TestReplayOverrideKeepsTheFilesConfig: --without, --profile and
// --controls change only the control selection; the file's fixture,
// mutant, retry budget, deadline and join policy stay. Before, --without
// bind_identity on this copperfin-batch schedule ran the one-task fixture,
// never reached the fault at proposal#2 and exited 0.
func TestReplayOverrideKeepsTheFilesConfig(t *testing.T) {
	s := writeFile(t, `{"version":1,"seed":"s","config":{"profile":"typed","mutant":"stale_checkpoint_accepted","fixture":"copperfin-batch","retry_budget":1,"deadline_ms":1500,"join":"best_effort"},"faults":[{"event":"proposal","ordinal":2,"kind":"subject_swap"}]}`)
	const rest = ", mutant stale_checkpoint_accepted, retry_budget 1, deadline_ms 1500, join best_effort"
	const contract = ", mutant stale_checkpoint_accepted; 1 retries, 1500 ms deadline, best_effort join."
	for _, c := range []struct {
		args     []string
		code     int
		config   string // after "config: ", up to the retry budget
		controls string // the summary's contract controls
		fault    string
	}{
		{nil, 0, "profile typed", "bind_identity, pre_effect_authority, refresh_context, state_precondition, idempotency, effect_readback, evidence_gate",
			"reached, fired 1 (seq 32), oracle capability_record, detected by the system"},
		{[]string{"--without", "bind_identity"}, 1, "controls pre_effect_authority,refresh_context,state_precondition,idempotency,effect_readback,evidence_gate",
			"pre_effect_authority, refresh_context, state_precondition, idempotency, effect_readback, evidence_gate",
			"reached, fired 1 (seq 32), oracle capability_record, observed by right_subject, effect_at_most_once, detected by the system"},
		{[]string{"--profile", "baseline"}, 1, "profile baseline", "none",
			"reached, fired 1 (seq 25), oracle capability_record, observed by right_subject, effect_at_most_once"},
		{[]string{"--controls", "idempotency,bind_identity"}, 0, "controls bind_identity,idempotency", "bind_identity, idempotency",
			"reached, fired 1 (seq 25), oracle capability_record, detected by the system"},
		{[]string{"--profile", "baseline", "--without", "idempotency"}, 1, "controls none", "none",
			"reached, fired 1 (seq 25), oracle capability_record, observed by right_subject, effect_at_most_once"},
	} {
		code, out, stderr := runCLI(t, append([]string{"replay", s}, c.args...)...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d: %s", c.args, code, c.code, stderr)
		}
		for _, want := range []string{
			"config: " + c.config + rest + " (controls: " + strings.ReplaceAll(c.controls, ", ", ",") + ")\n",
			"Contract: copperfin-batch; " + c.config + contract,
			"f1 subject_swap at proposal#2: " + c.fault + "\n",
			"Claim for ref-dc323b32", // the task refund-O-732, redacted as every output redacts it
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: output lacks %q\n%s", c.args, want, out)
			}
		}
	}
}

// TestReplayCacheAndWorkerCorpus: the corpus's revoked grant kept alive
// by a sliding cache, its identity leaked from one task into the next by
// a long-lived worker and its retry's span carried by a worker into the
// next task (under typed with worker_span_adopted) each exit 1 under their
// own config, naming the violated invariant, and 0 under the control that
// defends: bounded_grant_age and per_task_identity, neither of a profile;
// the carried span also under typed without the defect, which starts each
// task's own trace.
func TestReplayCacheAndWorkerCorpus(t *testing.T) {
	typedPerTask := []string{"--controls", "bind_identity,pre_effect_authority,refresh_context,state_precondition,idempotency,effect_readback,evidence_gate,per_task_identity"}
	for _, c := range []struct {
		file, violated string
		defended       []string
		fired          string
	}{
		{"revoked-grant-sliding-cache.json", `current_entitlement +VIOLATED  first false after seq 17 \(tool.commit\) reached by f1: capability revoked at effect time`, []string{"--controls", "bounded_grant_age"}, "reached, fired 1"},
		{"identity-leaked-by-worker.json", `right_subject +VIOLATED  first false after seq 35 \(tool.commit\) reached by f1`, []string{"--controls", "per_task_identity"}, "reached, fired 1"},
		// the span is opened at the first task's retry and handed to the
		// second at its worker's start: two firings either way
		{"span-carried-by-worker.json", `provable_outcome +VIOLATED  first false after seq 57 \(claim\) reached by f2: release without correlated proof`, typedPerTask, "f2 span_carry_over at tool.commit#2: reached, fired 2"},
		{"span-carried-by-worker.json", `provable_outcome +VIOLATED  first false after seq 57 \(claim\) reached by f2: release without correlated proof`, []string{"--mutant", ""}, "f2 span_carry_over at tool.commit#2: reached, fired 2"},
	} {
		path := "../../reference/corpus/" + c.file
		code, out, _ := runCLI(t, "replay", path)
		if code != 1 || !regexp.MustCompile(c.violated).MatchString(out) || !strings.Contains(out, "Run verdict: unrecoverable") {
			t.Errorf("%s: exit %d\n%s", c.file, code, out)
		}
		code, out, _ = runCLI(t, append([]string{"replay", path, "--twice"}, c.defended...)...)
		if code != 0 || strings.Contains(out, "VIOLATED") || !strings.Contains(out, c.fired) {
			t.Errorf("%s %v: exit %d\n%s", c.file, c.defended, code, out)
		}
	}
}
