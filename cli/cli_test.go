package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/model/copperfin"
)

// program is a user's command line registering the inventory agent, a
// system of another domain than the reference one.
func program(defs ...*model.Definition) *cli.Program {
	if len(defs) == 0 {
		defs = []*model.Definition{inventory.Definition()}
	}
	return &cli.Program{Name: "inventory", Systems: defs}
}

func runIn(t *testing.T, p *cli.Program, args ...string) (int, string, string) {
	t.Helper()
	var o, e bytes.Buffer
	code := p.Run(args, &o, &e)
	return code, o.String(), e.String()
}

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runIn(t, program(), args...)
}

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// exploreArgs explore the agent's tool faults, without world events, with
// rapid's seed 1 and 300 checks.
var exploreArgs = []string{"explore", "--domains", "tool", "--no-world", "--seed", "1", "--checks", "300"}

// TestExploreAndReplayAUserSystem: explore finds the planted bug (exit 1,
// the agent's own invariant), writes its counterexample, and the printed
// replay command, run through the same program, replays the record (exit
// 1, the recorded run matched); with the bug off the same checks find
// nothing (exit 0); the coverage file the exploration wrote, which holds
// the user's invariant, reads back through coverage report (exit 0).
func TestExploreAndReplayAUserSystem(t *testing.T) {
	dir := t.TempDir()
	cov := filepath.Join(dir, "coverage.json")
	code, out, stderr := run(t, append(exploreArgs, "--config", `{"variant":"planted"}`, "--out", dir, "--json", "--coverage", cov)...)
	var j struct {
		Found     bool   `json:"found"`
		Invariant string `json:"invariant"`
		FaultKind string `json:"fault_kind"`
		File      string `json:"file"`
		Replay    string `json:"replay"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", code, err, out, stderr)
	}
	if code != 1 || !j.Found || j.Invariant != inventory.InvConfirmedOnce || j.FaultKind != "tool_timeout" || j.Replay != "inventory replay "+j.File {
		t.Fatalf("exit %d: %+v", code, j)
	}
	// the printed command, and the record beside the schedule file
	record := strings.TrimSuffix(j.File, ".json") + ".counterexample.json"
	for _, file := range []string{strings.Fields(j.Replay)[2], record} {
		code, out, _ := run(t, "replay", file)
		if code != 1 || !regexp.MustCompile(`confirmed_once +VIOLATED +first false after seq \d+ \(tool.commit\) reached by f1`).MatchString(out) ||
			!strings.HasPrefix(out, "run run-") || !strings.Contains(out, "config: controls stable_keys,hold_lookup,typed_outcomes,checkpoint_check,bind_request,recheck_authority, variant planted\n") {
			t.Fatalf("replay %s: exit %d\n%s", file, code, out)
		}
		if file == record && !strings.Contains(out, "Recorded run: matches (confirmed_once first false after tool.commit)\n") {
			t.Fatalf("replay of the record:\n%s", out)
		}
	}
	code, out, stderr = run(t, exploreArgs...)
	if code != 0 || out != "no counterexample in 300 checks (seed 1, controls stable_keys,hold_lookup,typed_outcomes,checkpoint_check,bind_request,recheck_authority, variant fixed, fixture inventory)\nfaults: 588 of 592 scheduled reached, 4 not reached\n" {
		t.Fatalf("the fixed agent: exit %d %q %s", code, out, stderr)
	}
	code, out, stderr = run(t, "coverage", "report", cov)
	if code != 0 || !strings.Contains(out, "Coverage: 7 of 19 reachable keys visited") || !strings.Contains(out, "confirmed_once") || !strings.Contains(out, "inventory replay ") {
		t.Fatalf("coverage report: exit %d %s\n%s", code, stderr, out)
	}
	merged := filepath.Join(dir, "merged.json")
	if code, out, stderr := run(t, "coverage", "merge", merged, cov); code != 0 || !strings.HasPrefix(out, "merged 1 files into "+merged+": 2290 runs") {
		t.Fatalf("coverage merge: exit %d %q %s", code, out, stderr)
	}
}

// auditScreen is the audit of the agent's three named configurations.
const auditScreen = `inventory audit: inventory, 3 configurations, 25 fault kinds, one single-fault run of each per configuration

Per configuration: single-fault runs, faults reached, runs that violated an invariant:
  inventory/defended    defended   25 runs   20 reached    0 violated
  inventory/undefended             25 runs   20 reached   12 violated
  inventory/planted                25 runs   20 reached    0 violated

Findings (single-fault runs that violated an invariant, defended configurations first):
  inventory/undefended/subject_swap at proposal#1: right_subject violated
  inventory/undefended/revoked_capability at authority.grant#1: live_authority violated
  inventory/undefended/timeout_after_commit at tool.commit#1: no_oversell violated
  inventory/undefended/sandbox_denial at tool.commit#1: confirm_has_hold violated
  inventory/undefended/reject_before_commit at tool.commit#1: confirm_has_hold violated
  inventory/undefended/malformed_response at tool.commit#1: no_oversell violated
  inventory/undefended/rate_limit at tool.commit#1: confirm_has_hold violated
  inventory/undefended/tool_timeout at tool.commit#1: no_oversell violated
  inventory/undefended/missing_checkpoint at checkpoint.write#3: resume_from_checkpoint, no_oversell violated
  inventory/undefended/stale_checkpoint at checkpoint.write#3: resume_from_checkpoint violated
  inventory/undefended/future_version_checkpoint at checkpoint.write#3: resume_from_checkpoint, no_oversell violated
  inventory/undefended/corrupt_checkpoint at checkpoint.write#3: resume_from_checkpoint, no_oversell violated
  (pass --out DIR to write each finding's schedule, with the command that replays it)

Coverage of inventory: 14 of 19 applicable keys visited by its 75 runs; 5 never crossed by this system.
Faults: 15 of the 75 runs' faults not reached; kinds reached under no configuration: 5 (stale_policy,
    cross_source_conflict, drop_effect_receipt, memory_loss, branch_failure)

Verdict: held: the 1 defended configuration held every invariant under every single fault.
`

// TestAuditAUserSystem: the audit runs every kind once under each of the
// agent's named configurations and prints one screen (exact lines, at
// most 40 of at most 120 characters); it exits 0 while the defended
// configuration holds, 1 when a configuration marked defended breaks,
// and with --out each finding's replay command reproduces it.
func TestAuditAUserSystem(t *testing.T) {
	code, out, stderr := run(t, "audit")
	if code != 0 || out != auditScreen {
		t.Fatalf("exit %d %s\n%s", code, stderr, out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, l := range lines {
		if len(l) > cli.SummaryWidth {
			t.Errorf("line of %d characters: %q", len(l), l)
		}
	}
	if len(lines) > cli.SummaryLines {
		t.Errorf("%d lines", len(lines))
	}
	// the configuration without controls marked defended: the audit fails
	d := inventory.Definition()
	d.Configs[1].Defended = true
	code, out, stderr = runIn(t, program(d), "audit", "--out", t.TempDir())
	if code != 1 || stderr != "inventory: audit failed: an invariant broke under the defended configuration inventory/undefended (12 runs)\n" ||
		!strings.Contains(out, "Verdict: FAILED: 1 of the 2 defended configurations violated an invariant under a single fault.\n") {
		t.Fatalf("exit %d %q\n%s", code, stderr, out)
	}
	m := regexp.MustCompile(`(?m)^    inventory replay (\S+undefended-subject_swap\.json)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no replay command:\n%s", out)
	}
	if code, out, _ := run(t, "replay", m[1], "--config", `{"controls":[]}`); code != 1 || !regexp.MustCompile(`right_subject +VIOLATED`).MatchString(out) {
		t.Fatalf("replay %s: exit %d\n%s", m[1], code, out)
	}
}

// TestExitCodesOfAUserSystem: every code of the table, for the agent.
func TestExitCodesOfAUserSystem(t *testing.T) {
	planted := write(t, "planted.json", `{"version":2,"seed":"s","config":{"harness":{"fixture":"inventory"},"system":{"variant":"planted"}},"faults":[{"event":"tool.commit","ordinal":2,"kind":"tool_timeout"}]}`)
	clean := write(t, "clean.json", `{"version":2,"seed":"s","config":{"harness":{"fixture":"inventory"},"system":{}},"faults":[{"event":"tool.commit","ordinal":2,"kind":"tool_timeout"}]}`)
	never := write(t, "never.json", `{"version":2,"seed":"s","config":{"harness":{"fixture":"inventory"},"system":{}},"faults":[{"event":"tool.commit","ordinal":9,"kind":"tool_timeout"}]}`)
	other := write(t, "other.json", `{"version":2,"seed":"s","config":{"harness":{"fixture":"copperfin"},"system":{}},"faults":[]}`)
	notDir := write(t, "file", "")
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"replay", clean}, 0, ""},
		{[]string{"replay", planted}, 1, ""},
		{[]string{"replay", clean, "--config", `{"controls":["bind_identity"]}`}, 2,
			`control "bind_identity" is not a control of inventory (valid: stable_keys, hold_lookup, typed_outcomes, checkpoint_check, bind_request, recheck_authority)`},
		{[]string{"explore", "--config", `{"controls":["bind_identity"]}`}, 2, `control "bind_identity" is not a control of inventory`},
		{[]string{"explore", "--fixture", "copperfin"}, 2, `--fixture: unknown fixture "copperfin" (valid: inventory)`},
		{[]string{"explore", "--config", `[1]`}, 2, `--config: "[1]" is not a JSON object`},
		{[]string{"replay", other}, 2, `schedule: config: unknown fixture "copperfin" (valid: inventory)`},
		{[]string{"replay", never}, 3, "inconclusive: f1 tool_timeout at tool.commit#9 was not reached"},
		{append(exploreArgs, "--config", `{"variant":"planted"}`, "--out", filepath.Join(notDir, "sub")), 4, "not a directory"},
	} {
		code, _, stderr := run(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.stderr) {
			t.Errorf("%v: exit %d, want %d; stderr %q, want %q", c.args, code, c.code, stderr, c.stderr)
		}
	}
	// cli.Main registers the systems it is given
	var o, e bytes.Buffer
	if code := cli.Main([]string{"replay", planted}, &o, &e, inventory.Definition()); code != 1 {
		t.Fatalf("cli.Main: exit %d %s", code, e.String())
	}
	// a registration that is wrong: an internal error naming it
	bad := inventory.Definition()
	bad.Configs = append(bad.Configs, model.NamedConfig{Name: "defended"})
	if code, _, stderr := runIn(t, program(bad), "audit"); code != 4 || stderr != "inventory: cli: system inventory: configuration \"defended\" listed twice\n" {
		t.Errorf("a configuration twice: exit %d %q", code, stderr)
	}
	// no system registered: an internal error
	if code, _, stderr := runIn(t, &cli.Program{Name: "x"}, "audit"); code != 4 || !strings.Contains(stderr, "cli: no system registered") {
		t.Errorf("no system: exit %d %q", code, stderr)
	}
}

// TestTwoSystems: with two systems registered, replay finds a file's by
// its fixture, and --system picks explore's.
func TestTwoSystems(t *testing.T) {
	inv := inventory.Definition()
	other := inventory.Definition()
	other.Name = "depot"
	other.Fixtures = []model.Fixture{inventory.Fixture()}
	other.Fixtures[0].Name = "depot"
	p := program(inv, other)
	f := write(t, "depot.json", `{"version":2,"seed":"s","config":{"harness":{"fixture":"depot"},"system":{"variant":"planted"}},"faults":[{"event":"tool.commit","ordinal":2,"kind":"tool_timeout"}]}`)
	if code, out, stderr := runIn(t, p, "replay", f); code != 1 || !strings.Contains(out, "Contract: depot; ") {
		t.Fatalf("exit %d %s\n%s", code, stderr, out)
	}
	if code, _, stderr := runIn(t, p, "explore", "--system", "nope"); code != 2 || !strings.Contains(stderr, `unknown system "nope" (registered: inventory, depot)`) {
		t.Fatalf("exit %d %q", code, stderr)
	}
	if code, out, _ := runIn(t, p, append(exploreArgs, "--system", "depot", "--checks", "20")...); code != 0 || !strings.Contains(out, "fixture depot)") {
		t.Fatalf("exit %d %q", code, out)
	}
}

// TestNoReferenceSystem: package cli, a library, depends on no package of
// the reference system.
func TestNoReferenceSystem(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/faultline/faultline/cli").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, "github.com/faultline/faultline/model/copperfin") || d == "github.com/faultline/faultline/assay" || d == "github.com/faultline/faultline/lab" {
			t.Errorf("cli depends on %s", d)
		}
	}
}

// TestAuditTheReferenceSystem: registered like a user's system, the
// reference system is audited under its profiles, typed and fail_closed
// marked defended, and holds.
func TestAuditTheReferenceSystem(t *testing.T) {
	code, out, stderr := runIn(t, program(copperfin.Definition()), "audit")
	for _, want := range []string{
		"  copperfin/baseline                25 runs   25 reached   13 violated\n",
		"  copperfin/typed        defended   25 runs   25 reached    0 violated\n",
		"  copperfin/fail_closed  defended   25 runs   25 reached    0 violated\n",
		"Coverage of copperfin: 19 of 19 applicable keys visited by its 75 runs; 0 never crossed by this system.\n",
		"Verdict: held: the 2 defended configurations held every invariant under every single fault.\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d %s: output lacks %q\n%s", code, stderr, want, out)
		}
	}
}

// idle is a system that never acts: it crosses no event a fault could be
// placed at.
type idle struct{}

func (idle) Run(context.Context, model.Env, model.Task) (model.Claim, error) {
	return model.Claim{Verdict: model.ClaimHold, Reason: "nothing to do"}, nil
}

// TestAuditOfASystemNoFaultReaches: an audit or an exploration in which no
// run reached its fault is inconclusive (exit 3) and says so.
func TestAuditOfASystemNoFaultReaches(t *testing.T) {
	fx := inventory.Fixture()
	fx.Name = "idle"
	d := &model.Definition{Name: "idle", Fixtures: []model.Fixture{fx}, Builtin: []string{model.InvBudget},
		Configure: func(json.RawMessage) (model.Factory, error) { return func() model.System { return idle{} }, nil }}
	code, out, stderr := runIn(t, program(d), "audit")
	if code != 3 || stderr != "inventory: inconclusive: none of the audit's 25 single-fault runs reached its fault: the audit tested no fault\n" ||
		!strings.Contains(out, "Faults: 25 of the 25 runs' faults not reached; kinds reached under no configuration: 25 (") {
		t.Fatalf("exit %d %q\n%s", code, stderr, out)
	}
	if code, _, stderr := runIn(t, program(d), "explore", "--seed", "1", "--checks", "5"); code != 3 || stderr != "inventory: inconclusive: no fault kind in scope can be placed at an event the system crosses, so no fault was scheduled or tested; the events the system crossed: worker.start\n" {
		t.Fatalf("explore: exit %d %q", code, stderr)
	}
}
