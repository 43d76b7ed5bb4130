package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
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
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// exploreArgs explore the agent's tool faults, without world events, with
// rapid's seed 1 and 300 checks, and no walk before them (--max-schedules
// 0): these tests pin the random checks' counts.
var exploreArgs = []string{"explore", "--max-schedules", "0", "--domains", "tool", "--no-world", "--seed", "1", "--checks", "300"}

// plantedSeed is the seed (overriding exploreArgs' 1) of the explorations
// of the planted agent: since do_not_retry is drawn on every fixture, seed
// 1's 300 checks miss the planted bug (found at check 86 before); seed 8
// finds it at check 74.
const plantedSeed = "8"

// TestExploreAndReplayAUserSystem: explore finds the planted bug (exit 1,
// the agent's own invariant), writes its counterexample, and the printed
// replay command, run through the same program, replays the record (exit
// 1, the recorded run matched); with the bug off the same checks find
// nothing (exit 0); the coverage file the exploration wrote, which holds
// the user's invariant, reads back through coverage report (exit 0).
func TestExploreAndReplayAUserSystem(t *testing.T) {
	oneGoroutine(t)
	dir := t.TempDir()
	cov := filepath.Join(dir, "coverage.json")
	code, out, stderr := run(t, append(exploreArgs, "--seed", plantedSeed, "--config", `{"variant":"planted"}`, "--out", dir, "--json", "--coverage", cov)...)
	var j struct {
		Found     bool   `json:"found"`
		Invariant string `json:"invariant"`
		FaultKind string `json:"fault_kind"`
		File      string `json:"file"`
		Replay    string `json:"replay"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &j), "exit %d:\n%s%s", code, out, stderr)
	require.Equal(t, 1, code, "%+v", j)
	require.True(t, j.Found)
	assert.Equal(t, inventory.InvConfirmedOnce, j.Invariant)
	assert.Equal(t, "tool_timeout", j.FaultKind)
	require.Equal(t, "inventory replay "+j.File, j.Replay)
	// the printed command, and the record beside the schedule file, which
	// names the system that found it
	record := strings.TrimSuffix(j.File, ".json") + ".counterexample.json"
	data, err := os.ReadFile(record)
	require.NoError(t, err)
	ce, err := corpus.ReadCounterexample(data)
	require.NoError(t, err)
	assert.Equal(t, "inventory", ce.FoundBy.System)
	for _, file := range []string{strings.Fields(j.Replay)[2], record} {
		code, out, _ := run(t, "replay", file)
		require.Equal(t, 1, code, "replay %s:\n%s", file, out)
		assert.Regexp(t, `confirmed_once +VIOLATED +first false after seq \d+ \(tool.commit\) reached by f1`, out, "replay %s", file)
		assert.True(t, strings.HasPrefix(out, "run run-"), "replay %s:\n%s", file, out)
		assert.Contains(t, out, "config: controls stable_keys,hold_lookup,typed_outcomes,checkpoint_check,bind_request,recheck_authority, variant planted\n", "replay %s", file)
		if file == record {
			assert.Contains(t, out, "Recorded run: matches (confirmed_once first false after tool.commit)\n", "replay of the record")
		}
	}
	code, out, stderr = run(t, exploreArgs...)
	assert.Equal(t, 0, code, "the fixed agent: %s", stderr)
	assert.Equal(t, "no counterexample in 300 checks (seed 1, controls stable_keys,hold_lookup,typed_outcomes,checkpoint_check,bind_request,recheck_authority, variant fixed, fixture inventory)\nfaults: 588 of 592 scheduled reached (354 fired), 4 not reached\n", out, "the fixed agent")
	// with swarm draws, the same seed draws the most faults three checks
	// in four, from a subset of the kinds and sites
	code, out, stderr = run(t, append(exploreArgs, "--swarm")...)
	assert.Equal(t, 0, code, "the fixed agent, --swarm: %s", stderr)
	assert.Equal(t, "no counterexample in 300 checks (seed 1, controls stable_keys,hold_lookup,typed_outcomes,checkpoint_check,bind_request,recheck_authority, variant fixed, fixture inventory)\nfaults: 785 of 798 scheduled reached (402 fired), 13 not reached\n", out, "the fixed agent, --swarm")
	code, out, stderr = run(t, "coverage", "report", cov)
	require.Equal(t, 0, code, "coverage report: %s\n%s", stderr, out)
	// 9 keys under plantedSeed 8 (12 under seed 1 before do_not_retry was
	// drawn here, 11 before server_error and network_error were): drawn modifiers that act on one task put a repeated and a
	// persistent receipt fault (malformed_response, output_drift), a
	// persistent timeout_after_commit and a repeated tool_timeout among
	// them; the universe holds every repeated and persistent key of the
	// kinds the agent crosses (25 with stale_context's key at the
	// proposal, was 24 with duplicate_tool_call and model_refusal; so
	// 48.0%, 44.0% with 11), and the
	// 6 synchronized and shared keys are left not drawn, and so is one
	// key of a kind the default search draws on none of its runs (24
	// keys, 37.5%: 25 and 36.0% before); the runs, rapid's shrinking
	// included, are 3,724 at seed 8, 74 checks to the bug (2,326 at seed
	// 1, 86 checks to it; with swarm draws 9 keys and 1,450 runs)
	assert.Contains(t, out, "Coverage: 9 of 24 keys the systems can reach visited (37.5%; 40 reachable by the catalogue, 16 left out, each with why)")
	assert.Contains(t, out, "confirmed_once")
	assert.Contains(t, out, "inventory replay ")
	merged := filepath.Join(dir, "merged.json")
	code, out, stderr = run(t, "coverage", "merge", merged, cov)
	require.Equal(t, 0, code, "coverage merge: %s", stderr)
	assert.True(t, strings.HasPrefix(out, "merged 1 files into "+merged+": 3724 runs"), "coverage merge: %q", out)
}

// auditScreen is the audit of the agent's three named configurations,
// with the release evidence of package assay for them. Its 25 findings
// (24 undefended, 1 planted: tenant_swap, purpose_swap and
// malformed_tool_call joined with 35 kinds) show 9 lines before "and 16
// more" (was 13 of 22): recorded_agrees_with_ledger wraps their lines.
const auditScreen = `inventory audit: inventory, 3 configurations, 35 fault kinds, one single-fault run of each per configuration and tool

Per configuration: single-fault runs, faults reached, of those fired, runs that violated an invariant:
  inventory/defended    defended   47 runs   40 reached   40 fired    0 violated
  inventory/undefended             47 runs   40 reached   40 fired   24 violated
  inventory/planted                47 runs   40 reached   40 fired    1 violated

Findings (single-fault runs that violated an invariant, defended configurations first):
  inventory/undefended/subject_swap at proposal#1: right_subject violated
  inventory/undefended/revoked_capability at authority.grant#1: live_authority violated
  inventory/undefended/timeout_after_commit at tool.commit(inventory.reserve)#1: recorded_agrees_with_ledger,
    no_oversell violated
  inventory/undefended/timeout_after_commit at tool.commit(inventory.confirm)#1: recorded_agrees_with_ledger,
    confirmed_once violated
  inventory/undefended/sandbox_denial at tool.commit(inventory.reserve)#1: no_invented_progress, confirm_has_hold
    violated
  inventory/undefended/sandbox_denial at tool.commit(inventory.confirm)#1: no_invented_progress, checkout_confirmed
    violated
  inventory/undefended/reject_before_commit at tool.commit(inventory.reserve)#1: no_invented_progress, confirm_has_hold
    violated
  inventory/undefended/reject_before_commit at tool.commit(inventory.confirm)#1: no_invented_progress,
    checkout_confirmed violated
  inventory/undefended/malformed_response at tool.commit(inventory.reserve)#1: recorded_agrees_with_ledger, no_oversell
    violated
  and 16 more
  (pass --out DIR to write each finding's schedule, with the command that replays it)

Release evidence of inventory (200 trials each, seed 1): 105 signatures, 42 pairs, 17 diagnoses, 13 holds; placement:
  inventory/defended    contained but dead   redesign recovery
  inventory/undefended  unsafe escape        block
  inventory/planted     contained but dead   redesign recovery
The rest (signatures, pairs, reasons, diagnoses): inventory dossier --out DIR writes it.

Coverage of inventory by its 141 runs: 16 of 24 keys it can reach visited (of 40 reachable: 8 never crossed, 1 not
    applicable, 7 not drawn).
Faults: of the 141 runs' faults, 21 not reached and 0 reached but not fired; kinds reached under no configuration: 7
    (stale_policy, cross_source_conflict, drop_effect_receipt, memory_loss, branch_failure, lagging_readback,
    stale_state_read); kinds reached but fired under none: 0

Verdict: held: the 1 defended configuration held every invariant under the 40 of its 47 single faults that fired.
`

// TestAuditAUserSystem: the audit runs every kind once under each of the
// agent's named configurations and prints one screen (exact lines, at
// most 40 of at most 120 characters); it exits 0 while the defended
// configuration holds, 1 when a configuration marked defended breaks,
// and with --out each finding's replay command reproduces it.
func TestAuditAUserSystem(t *testing.T) {
	if raceDetector {
		t.Skip("the audit's goroutines (assay's studies) run under the detector in assay's tests, and cli starts none of its own; go test ./... runs it")
	}
	code, out, stderr := run(t, "audit")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, auditScreen, out)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, l := range lines {
		assert.LessOrEqual(t, len(l), cli.SummaryWidth, "line %q", l)
	}
	assert.LessOrEqual(t, len(lines), cli.SummaryLines, "lines")
	// the configuration without controls marked defended: the audit fails
	d := inventory.Definition()
	d.Configs[1].Defended = true
	code, out, stderr = runIn(t, program(d), "audit", "--out", t.TempDir())
	require.Equal(t, 1, code, out)
	assert.Equal(t, "inventory: audit failed: an invariant broke under the defended configuration inventory/undefended (24 runs)\n", stderr)
	assert.Contains(t, out, "Verdict: FAILED: 1 of the 2 defended configurations violated an invariant under a single fault.\n")
	m := regexp.MustCompile(`(?m)^    inventory replay (\S+undefended-subject_swap\.json)$`).FindStringSubmatch(out)
	require.NotNil(t, m, "no replay command:\n%s", out)
	code, out, _ = run(t, "replay", m[1], "--config", `{"controls":[]}`)
	assert.Equal(t, 1, code, "replay %s:\n%s", m[1], out)
	assert.Regexp(t, `right_subject +VIOLATED`, out, "replay %s", m[1])
	// one configuration: counted in the singular
	one := inventory.Definition()
	one.Configs = one.Configs[:1]
	code, out, stderr = runIn(t, program(one), "audit")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "inventory audit: inventory, 1 configuration, 35 fault kinds, one single-fault run of each per configuration and tool\n")
}

// TestExitCodesOfAUserSystem: every code of the table, for the agent.
func TestExitCodesOfAUserSystem(t *testing.T) {
	planted := write(t, "planted.json", `{"version":2,"seed":"s","config":{"harness":{"fixture":"inventory"},"system":{"variant":"planted"}},"faults":[{"event":"tool.commit","ordinal":2,"kind":"tool_timeout"}]}`)
	clean := write(t, "clean.json", `{"version":2,"seed":"s","config":{"harness":{"fixture":"inventory"},"system":{}},"faults":[{"event":"tool.commit","ordinal":2,"kind":"tool_timeout"}]}`)
	never := write(t, "never.json", `{"version":2,"seed":"s","config":{"harness":{"fixture":"inventory"},"system":{}},"faults":[{"event":"tool.commit","ordinal":9,"kind":"tool_timeout"}]}`)
	other := write(t, "other.json", `{"version":2,"seed":"s","config":{"harness":{"fixture":"copperfin"},"system":{}},"faults":[]}`)
	otherPart := write(t, "otherpart.json", `{"version":2,"seed":"s","config":{"harness":{"fixture":"copperfin"},"system":{"mutant":"key_per_attempt"}},"faults":[]}`)
	// a system part the agent no longer knows (a renamed flag)
	renamed := write(t, "renamed.json", `{"version":2,"seed":"s","config":{"harness":{"fixture":"inventory"},"system":{"bug":"planted"}},"faults":[{"event":"tool.commit","ordinal":2,"kind":"tool_timeout"}]}`)
	// a target on a kind that takes none
	targeted := write(t, "targeted.json", `{"version":2,"seed":"s","config":{"harness":{"fixture":"inventory"},"system":{}},"faults":[{"event":"tool.commit","ordinal":2,"kind":"tool_timeout","target":"after_commit"}]}`)
	// a transport fault after the commit, never reached: its place names the target
	neverAfter := write(t, "neverafter.json", `{"version":2,"seed":"s","config":{"harness":{"fixture":"inventory"},"system":{}},"faults":[{"event":"tool.commit","ordinal":9,"kind":"server_error","target":"after_commit"}]}`)
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
		{[]string{"replay", otherPart}, 2, `schedule: config: unknown fixture "copperfin" (valid: inventory)`},
		{[]string{"replay", renamed}, 2, renamed + ": "},
		{[]string{"replay", renamed, "--config", `{"variant":"planted"}`}, 1, ""},
		{[]string{"replay", renamed, "--config", `{}`}, 0, ""},
		{[]string{"replay", renamed, "--config", `{"bug":"planted"}`}, 2, "--config: "},
		{[]string{"replay", targeted}, 2, `schedule: faults[0]: kind "tool_timeout" takes no target, but target "after_commit" is set (the kinds that take one: memory_loss (a memory key), `},
		{[]string{"replay", neverAfter}, 3, "inconclusive: f1 server_error at tool.commit#9[after_commit] was not reached"},
		{[]string{"replay", never}, 3, "inconclusive: f1 tool_timeout at tool.commit#9 was not reached"},
		{append(exploreArgs, "--seed", plantedSeed, "--config", `{"variant":"planted"}`, "--out", filepath.Join(notDir, "sub")), 4, "not a directory"},
	} {
		code, _, stderr := run(t, c.args...)
		assert.Equal(t, c.code, code, "%v: exit code; stderr %q", c.args, stderr)
		assert.Contains(t, stderr, c.stderr, "%v", c.args)
	}
	// cli.Main registers the systems it is given
	var o, e bytes.Buffer
	require.Equal(t, 1, cli.Main([]string{"replay", planted}, &o, &e, inventory.Definition()), "cli.Main: %s", e.String())
	// a registration that is wrong: an internal error naming it
	bad := inventory.Definition()
	bad.Configs = append(bad.Configs, model.NamedConfig{Name: "defended"})
	code, _, stderr := runIn(t, program(bad), "audit")
	assert.Equal(t, 4, code, "a configuration twice")
	assert.Equal(t, "inventory: cli: system inventory: configuration \"defended\" listed twice\n", stderr, "a configuration twice")
	// a definition model.Definition.Validate refuses: bad input naming the
	// field, for explore (without --coverage too) and audit alike
	for _, c := range []struct {
		mutate func(d *model.Definition)
		want   string
	}{
		{func(d *model.Definition) { d.Name = "Inv-X" }, `cli: system definition: name "Inv-X": must start with a lower-case letter a-z`},
		{func(d *model.Definition) { d.Name = "i" + strings.Repeat("\x00", 300) }, `: 301 bytes, longer than 64`},
		{func(d *model.Definition) { d.Fixtures[0].Tasks = nil }, `cli: system definition inventory: fixture "inventory" has no tasks`},
	} {
		for _, args := range [][]string{{"explore", "--checks", "5"}, {"audit"}} {
			d := inventory.Definition()
			c.mutate(d)
			code, out, stderr := runIn(t, &cli.Program{Name: "inv", Systems: []*model.Definition{d}}, args...)
			assert.Equal(t, 2, code, "%v %q: %s%s", args, c.want, out, stderr)
			assert.Contains(t, stderr, c.want, "%v", args)
			assert.NotContains(t, stderr, "coverage:", "%v", args)
		}
	}
	// no system registered: an internal error
	code, _, stderr = runIn(t, &cli.Program{Name: "x"}, "audit")
	assert.Equal(t, 4, code, "no system")
	assert.Contains(t, stderr, "cli: no system registered", "no system")
}

// TestTwoSystems: with two systems registered, replay finds a file's by
// its fixture (or --system when it names none), and --system picks
// explore's.
func TestTwoSystems(t *testing.T) {
	inv := inventory.Definition()
	other := inventory.Definition()
	other.Name = "depot"
	other.Fixtures = []model.Fixture{inventory.Fixture()}
	other.Fixtures[0].Name = "depot"
	p := program(inv, other)
	f := write(t, "depot.json", `{"version":2,"seed":"s","config":{"harness":{"fixture":"depot"},"system":{"variant":"planted"}},"faults":[{"event":"tool.commit","ordinal":2,"kind":"tool_timeout"}]}`)
	code, out, stderr := runIn(t, p, "replay", f)
	require.Equal(t, 1, code, "%s\n%s", stderr, out)
	require.Contains(t, out, "Contract: depot; ")
	// a file naming no fixture fits both: it names its system with
	// --system (no system is configured just to ask)
	nofx := write(t, "nofx.json", `{"version":2,"seed":"s","config":{"system":{"variant":"planted"}},"faults":[{"event":"tool.commit","ordinal":2,"kind":"tool_timeout"}]}`)
	code, _, stderr = runIn(t, p, "replay", nofx)
	require.Equal(t, 2, code, stderr)
	require.Equal(t, "inventory: "+nofx+": schedule: config: it names no fixture, so it fits every registered system (inventory, depot): name one with --system\n", stderr)
	code, out, stderr = runIn(t, p, "replay", nofx, "--system", "depot")
	require.Equal(t, 1, code, "%s\n%s", stderr, out)
	require.Contains(t, out, "Contract: depot; ")
	code, _, stderr = runIn(t, p, "explore", "--system", "nope")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, `unknown system "nope" (registered: inventory, depot)`)
	code, out, _ = runIn(t, p, append(exploreArgs, "--system", "depot", "--checks", "20")...)
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "fixture depot)")
}

// TestAuditTheReferenceSystem: registered like a user's system, the
// reference system is audited under its profiles, typed marked defended
// (typed alone: fail_closed is not a defended profile), and holds;
// fail_closed denies refunds the provider made under six single faults
// (recorded_agrees_with_ledger), reported, not judged. With 35 kinds
// (was 30) the baseline's 18 findings (was 13: tenant_swap, purpose_swap,
// stale_context, omitted_context and malformed_tool_call join) fill the
// screen before fail_closed's six, which fall into "and 7 more": the
// screen says so, and the JSON form names them.
func TestAuditTheReferenceSystem(t *testing.T) {
	if raceDetector {
		t.Skip("the audit's goroutines (assay's studies) run under the detector in assay's tests, and cli starts none of its own; go test ./... runs it")
	}
	code, out, stderr := runIn(t, program(copperfin.Definition()), "audit")
	assert.Equal(t, 0, code, stderr)
	for _, want := range []string{
		"  copperfin/baseline                35 runs   33 reached   33 fired   18 violated\n",
		"  copperfin/typed        defended   35 runs   35 reached   35 fired    0 violated\n",
		"  copperfin/fail_closed             35 runs   35 reached   35 fired    6 violated\n",
		"  copperfin/baseline/omitted_context at proposal#1: current_entitlement violated\n  and 7 more\n",
		// a user system's audit runs no correlation modifier and no kind
		// outside the catalogue: the 7 repeated and persistent keys (in
		// the universe of a sequential system) and the two of
		// sliding_grant_cache and ambient_identity_leak stay unvisited,
		// the 10 synchronized and shared keys are left not drawn (105
		// runs, was 90: five kinds more, the keys as before)
		"Coverage of copperfin by its 105 runs: 21 of 28 keys it can reach visited (of 40 reachable: 12 not drawn).\n",
		"Verdict: held: the 1 defended configuration held every invariant under every single fault.\n",
	} {
		assert.Contains(t, out, want)
	}
	code, out, stderr = runIn(t, program(copperfin.Definition()), "audit", "--json")
	require.Equal(t, 0, code, stderr)
	var j struct {
		Configurations []struct {
			Configuration string `json:"configuration"`
			Defended      bool   `json:"defended"`
			Findings      []struct {
				Kind       string   `json:"kind"`
				Invariants []string `json:"invariants"`
			} `json:"findings"`
		} `json:"configurations"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &j), out)
	denied := map[string][]string{}
	for _, c := range j.Configurations {
		if c.Configuration != "fail_closed" {
			continue
		}
		assert.False(t, c.Defended, "fail_closed defended")
		for _, f := range c.Findings {
			denied[f.Kind] = f.Invariants
		}
	}
	assert.Len(t, denied, 6, "fail_closed's findings: %v", denied)
	assert.Equal(t, []string{model.InvRecordedAgreesWithLedger}, denied["timeout_after_commit"], "fail_closed/timeout_after_commit at tool.commit#1")
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
	d := model.Define("idle", fx, func() model.System { return idle{} })
	d.Builtin = []string{model.InvBudget}
	code, out, stderr := runIn(t, program(d), "audit")
	require.Equal(t, 3, code, out)
	assert.Equal(t, "inventory: inconclusive: none of the audit's 35 single-fault runs reached its fault: the audit tested no fault\n", stderr)
	assert.Contains(t, out, "Faults: of the 35 runs' faults, 35 not reached and 0 reached but not fired; kinds reached under no configuration: 35\n    (subject_swap,")
	// the verdict line says what the exit code says, defended or not
	assert.True(t, strings.HasSuffix(out, "\nVerdict: inconclusive: none of the audit's 35 single-fault runs reached its fault: the audit tested no fault.\n"), out)
	d.Configs = []model.NamedConfig{{Name: "default", Defended: true}}
	code, out, _ = runIn(t, program(d), "audit")
	require.Equal(t, 3, code, out)
	assert.True(t, strings.HasSuffix(out, "\nVerdict: inconclusive: none of the audit's 35 single-fault runs reached its fault: the audit tested no fault.\n"), out)
	d.Configs = nil
	code, _, stderr = runIn(t, program(d), "explore", "--seed", "1", "--checks", "5")
	assert.Equal(t, 3, code, "explore")
	assert.Equal(t, "inventory: inconclusive: no fault kind in scope can be placed at an event the system crosses, so no fault was scheduled or tested; the events the system crossed: worker.start\n", stderr, "explore")
}

// TestExploreProgressOnlyOnATerminal: on a buffer (not a terminal) explore
// writes nothing to stderr; on a terminal it shows its progress there,
// checks done of --checks, the rate and the counterexamples so far, and
// with --json nothing at all.
func TestExploreProgressOnlyOnATerminal(t *testing.T) {
	args := append(slices.Clone(exploreArgs), "--checks", "20")
	code, stdout, stderr := run(t, args...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "no counterexample in 20 checks")
	assert.Equal(t, "", stderr)

	defer cli.FakeTerminal()()
	code, stdout2, stderr := run(t, args...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, stdout, stdout2, "the progress changed stdout")
	// the bar clears itself on reaching the total: the last line drawn is 19 of 20
	assert.Contains(t, stderr, "(1/20, ")
	assert.Contains(t, stderr, "(19/20, ")
	assert.Contains(t, stderr, "counterexamples: 0")
	assert.Regexp(t, `\d+ checks/(s|min|hr)`, stderr)

	code, stdout, stderr = run(t, append(args, "--json")...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, `"checks": 20`)
	assert.Equal(t, "", stderr)

	// the planted bug: the failing check is shown as a counterexample
	code, _, stderr = run(t, append(slices.Clone(exploreArgs), "--seed", plantedSeed, "--config", `{"variant":"planted"}`)...)
	require.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "counterexamples: 1")
	assert.Regexp(t, `\(\d+/300, `, stderr)
}

// TestCommandsOfASystemThatChecksNothing: a definition that checks no
// invariant (Builtin empty, no Invariants of its own) is refused by audit
// and explore as bad input (exit 2) before any run, and a replay of one of
// its schedules is inconclusive (exit 3) for that reason, not another.
func TestCommandsOfASystemThatChecksNothing(t *testing.T) {
	d := inventory.Definition()
	d.Builtin, d.Invariants = []string{}, nil
	code, out, stderr := runIn(t, program(d), "audit")
	require.Equal(t, 2, code, out)
	assert.Equal(t, "", out)
	assert.Equal(t, `inventory: configuration "defended" of inventory: system inventory: inconclusive: no invariant in scope (Builtin empty and no Invariants of the system's own): every run would pass whatever the system does`+"\n", stderr)
	code, _, stderr = runIn(t, program(d), "explore", "--seed", "1", "--checks", "5")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "properties: system inventory: inconclusive: no invariant in scope (Builtin empty and no Invariants of the system's own): every run would pass whatever the system does")
	path := filepath.Join(t.TempDir(), "one.json")
	s, err := model.SingleFault("tool_timeout", model.Config{})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, model.Format(s), 0o644))
	code, _, stderr = runIn(t, program(d), "replay", path)
	assert.Equal(t, 3, code, stderr)
	assert.Equal(t, "inventory: inconclusive: no invariant in scope (Builtin empty and no Invariants of the system's own): every run would pass whatever the system does\n", stderr)
}

// TestReplayNamesTenUnreachedFaultsAtMost: replay of a schedule whose
// twelve faults are never reached exits 3 naming the first ten.
func TestReplayNamesTenUnreachedFaultsAtMost(t *testing.T) {
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "many", Faults: []model.FaultEntry{}}
	for i := range 12 {
		s.Faults = append(s.Faults, model.FaultEntry{Event: model.EvToolCommit, Ordinal: 50 + i, Kind: "timeout_after_commit"})
	}
	path := filepath.Join(t.TempDir(), "many.json")
	require.NoError(t, os.WriteFile(path, model.Format(s), 0o644))
	code, _, stderr := runIn(t, program(), "replay", path)
	assert.Equal(t, 3, code, stderr)
	assert.True(t, strings.HasSuffix(stderr, ", f10 timeout_after_commit at tool.commit#59 was not reached, and 2 more; the run tested less than its schedule\n"), stderr)
	assert.NotContains(t, stderr, "f11")
}

// TestCoverageWithoutReplayCommand: a system whose Definition declares no
// replay command records the program's own replay line, and its file
// merges with one a go test tracker wrote under its go test line.
func TestCoverageWithoutReplayCommand(t *testing.T) {
	p := program()
	dir := t.TempDir()
	cov := filepath.Join(dir, "cli.json")
	code, _, stderr := runIn(t, p, "explore", "--domains", "tool", "--no-world", "--seed", "1", "--checks", "20", "--coverage", cov)
	require.Equal(t, 0, code, stderr)
	d, err := coverage.ReadFile(cov)
	require.NoError(t, err)
	assert.Equal(t, "inventory replay %s", d.Systems["inventory"].Replay)

	def := inventory.Definition()
	def.ReplayCommand = "FAULTLINE_REPLAY=%s go test -run '^TestInventory$' ./inventory"
	tr, err := coverage.NewTracker(nil, def)
	require.NoError(t, err)
	res, err := inventory.Definition().Replay(&model.Schedule{Version: model.ScheduleVersion, Seed: "clean", Faults: []model.FaultEntry{}})
	require.NoError(t, err)
	require.NoError(t, tr.Record(res))
	test := filepath.Join(dir, "test.json")
	require.NoError(t, tr.FlushTo(test))
	code, out, stderr := runIn(t, p, "coverage", "merge", filepath.Join(dir, "all.json"), test, cov)
	require.Equal(t, 0, code, "%s%s", out, stderr)
	all, err := coverage.ReadFile(filepath.Join(dir, "all.json"))
	require.NoError(t, err)
	assert.Equal(t, "FAULTLINE_REPLAY=%s go test -run '^TestInventory$' ./inventory", all.Systems["inventory"].Replay)
	assert.Equal(t, d.Systems["inventory"].Runs+1, all.Systems["inventory"].Runs)
}

// TestReplayConfiguresOncePerRun: a replay is its run and its clean
// attribution run, so the system's Configure runs twice (four times with
// --twice), never to validate or describe, for a schedule file and a
// counterexample file alike, and with --config.
func TestReplayConfiguresOncePerRun(t *testing.T) {
	calls := 0
	def := inventory.Definition()
	configure := def.Configure
	def.Configure = func(system json.RawMessage) (model.Factory, error) {
		calls++
		return configure(system)
	}
	cfg := model.Config{Fixture: "inventory", System: json.RawMessage(`{"variant":"planted"}`)}
	s, err := model.SingleFault("tool_timeout", cfg)
	require.NoError(t, err)
	sched := write(t, "s.json", string(model.Format(s)))
	res, err := inventory.Definition().Replay(s)
	require.NoError(t, err)
	cx := write(t, "cx.json", string(corpus.Format(corpus.NewViolation(res, corpus.FoundBy{Target: "test", System: "inventory"}, "", "inventory replay cx.json"))))
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"replay", sched}, 2},
		{[]string{"replay", "--twice", sched}, 4},
		{[]string{"replay", cx}, 2},
		{[]string{"replay", "--twice", cx}, 4},
		{[]string{"replay", "--config", `{"variant":"planted"}`, sched}, 2},
		{[]string{"replay", "--json", sched}, 2},
	} {
		calls = 0
		code, out, stderr := runIn(t, program(def), c.args...)
		require.Equal(t, 0, code, "%v: %s%s", c.args, out, stderr)
		assert.Equal(t, c.want, calls, "%v: calls to Configure", c.args)
	}
}

// TestExploreAndAuditConfigureOncePerRun: explore, its exhaustive walk
// and audit call the system's Configure only for their runs, never to
// check a config first. An exploration's runs (clean, prefix, check and
// shrinking runs alike) each build one instance here (no kind in scope
// restarts a worker), so Configure runs as often as the factory does; an
// audit is one replay (a run and its clean attribution run) per kind and
// configuration plus the configuration's clean replay, and then one per
// distinct run of its release evidence (the studies' Runs; their runs
// go side by side, hence the lock). A config that does not apply is bad
// input (exit 2) from the first run, which configures the system once.
func TestExploreAndAuditConfigureOncePerRun(t *testing.T) {
	// the audit's single-fault runs a configuration: 35 kinds, the 12 at
	// tool.commit once per tool (reserve, confirm)
	const auditRuns = 47
	calls, instances := 0, 0
	var mu sync.Mutex
	def := inventory.Definition()
	configure := def.Configure
	def.Configure = func(system json.RawMessage) (model.Factory, error) {
		mu.Lock()
		calls++
		mu.Unlock()
		f, err := configure(system)
		if err != nil {
			return nil, err
		}
		return func() model.System { mu.Lock(); instances++; mu.Unlock(); return f() }, nil
	}
	ev, err := assay.Gather(inventory.Definition(), assay.EvidenceConfig{Trials: 200, Seed: 1, Envelope: assay.DefaultEnvelope()})
	require.NoError(t, err)
	// no Variation declared: the variation study is the base study, run once
	evidenceRuns := ev.Base.Runs
	for _, c := range []struct {
		args  []string
		code  int
		calls int // 0: as many as instances
	}{
		{append(slices.Clone(exploreArgs), "--checks", "20"), 0, 0},
		{append(slices.Clone(exploreArgs), "--checks", "90", "--seed", plantedSeed, "--config", `{"variant":"planted"}`), 1, 0}, // found at check 74
		{slices.Clone(exhaustiveArgs), 0, 0},
		{append(slices.Clone(exhaustiveArgs), "--config", `{"variant":"planted"}`), 1, 0},
		{[]string{"audit"}, 0, (2*auditRuns+1)*len(def.Configs) + evidenceRuns},
		{[]string{"explore", "--config", `{"nope":1}`}, 2, 1},
		{[]string{"explore", "--exhaustive", "--config", `{"nope":1}`}, 2, 1},
	} {
		calls, instances = 0, 0
		code, out, stderr := runIn(t, program(def), c.args...)
		require.Equal(t, c.code, code, "%v: %s%s", c.args, out, stderr)
		if c.calls == 0 {
			assert.Equal(t, instances, calls, "%v: calls to Configure", c.args)
			assert.Greater(t, calls, 1, "%v: calls to Configure", c.args)
		} else {
			assert.Equal(t, c.calls, calls, "%v: calls to Configure", c.args)
		}
		if c.code == 2 {
			assert.Equal(t, "inventory: config of inventory: config of inventory: json: unknown field \"nope\"\n", stderr, "%v", c.args)
		}
	}
	// a named configuration the system refuses: bad input naming it, from
	// its clean run
	calls = 0
	def.Configs = append(slices.Clone(def.Configs), model.NamedConfig{Name: "renamed", System: json.RawMessage(`{"bug":"planted"}`)})
	code, out, stderr := runIn(t, program(def), "audit")
	require.Equal(t, 2, code, out)
	assert.Equal(t, "inventory: configuration \"renamed\" of inventory: config of inventory: json: unknown field \"bug\"\n", stderr)
	assert.Equal(t, (2*auditRuns+1)*3+1, calls, "calls to Configure")
}

// TestDossierOfAConfigThatDoesNotApply: the dossier of a named
// configuration the system refuses is bad input (exit 2) naming it, with
// the same message whether Armed reads it first (inventory) or its first
// run's Configure does (a system without arms, after its good
// configuration ran), and nothing is written.
func TestDossierOfAConfigThatDoesNotApply(t *testing.T) {
	inv := inventory.Definition()
	inv.Configs = append(slices.Clone(inv.Configs), model.NamedConfig{Name: "renamed", System: json.RawMessage(`{"bug":"planted"}`)})
	plain := model.Define("plain", copperfin.Copperfin(), copperfin.Factory(0))
	plain.Configs = []model.NamedConfig{{Name: "good"}, {Name: "renamed", System: json.RawMessage(`{"bug":"planted"}`)}}
	for def, want := range map[*model.Definition]string{
		inv:   `inventory: bad assay configuration: configuration "renamed" of inventory: config of inventory: json: unknown field "bug"`,
		plain: `plain: bad assay configuration: configuration "renamed" of plain: system plain takes no config of its own (got {"bug":"planted"})`,
	} {
		p := &cli.Program{Name: def.Name, Systems: []*model.Definition{def}}
		dir := filepath.Join(t.TempDir(), "dossier")
		code, out, stderr := runIn(t, p, "dossier", "--out", dir)
		assert.Equal(t, 2, code, out)
		// the base study meets it, once (with no Variation declared no
		// variation study runs)
		assert.Equal(t, want+"\n", stderr)
		_, err := os.Stat(dir)
		assert.True(t, os.IsNotExist(err), "%s: %v", dir, err)
	}
}

// TestRegistrationOfFlagsAndCoverage: flags of a system that is not
// registered are a programming error (exit 4); a Definition whose
// NotApplicable or ReplayCommand a coverage file could not hold is the
// system's own bad input (exit 2), refused before any command runs.
func TestRegistrationOfFlagsAndCoverage(t *testing.T) {
	p := program()
	p.Flags = map[string]func() cli.SystemFlags{"nope": nil}
	code, _, stderr := runIn(t, p, "coverage")
	assert.Equal(t, 4, code)
	assert.Equal(t, "inventory: cli: flags for \"nope\", which is not a registered system\n", stderr)
	for _, c := range []struct {
		set  func(*model.Definition)
		want string
	}{
		{func(d *model.Definition) { d.NotApplicable = []model.Boundary{"vault"} }, `inventory: cli: coverage: system inventory: not applicable: unknown boundary "vault"`},
		{func(d *model.Definition) { d.ReplayCommand = "go test ./inventory" }, `inventory: cli: coverage: system inventory: replay template "go test ./inventory": holds 0 %s`},
	} {
		def := inventory.Definition()
		c.set(def)
		code, _, stderr := runIn(t, program(def), "coverage")
		assert.Equal(t, 2, code, stderr)
		assert.True(t, strings.HasPrefix(stderr, c.want), stderr)
	}
}

// TestCoverageWithReplayCommand: a Definition's ReplayCommand is the replay
// line its coverage records, in place of the program's own.
func TestCoverageWithReplayCommand(t *testing.T) {
	def := inventory.Definition()
	def.ReplayCommand = "go run ./cmd/inventory replay %s"
	cov := filepath.Join(t.TempDir(), "cov.json")
	code, _, stderr := runIn(t, program(def), "explore", "--domains", "tool", "--no-world", "--seed", "1", "--checks", "20", "--coverage", cov)
	require.Equal(t, 0, code, stderr)
	d, err := coverage.ReadFile(cov)
	require.NoError(t, err)
	assert.Equal(t, "go run ./cmd/inventory replay %s", d.Systems["inventory"].Replay)
}

// TestAuditWordsReachedAndFiredApart: on the reference system with one
// subject in its fixture, subject_swap reaches the proposal but has no
// other subject to swap in: the audit counts it reached but not fired,
// never among the kinds no configuration reached.
func TestAuditWordsReachedAndFiredApart(t *testing.T) {
	fx := copperfin.Copperfin()
	fx.Name, fx.Subjects = "one_subject", fx.Subjects[:1]
	d := model.Define("one_subject", fx, copperfin.Factory(0))
	_, out, _ := runIn(t, program(d), "audit")
	i := strings.Index(out, "\nFaults: ")
	require.GreaterOrEqual(t, i, 0, out)
	faults := strings.Join(strings.Fields(out[i:strings.Index(out[i+1:], "\n\n")+i+1]), " ")
	assert.Equal(t, "Faults: of the 35 runs' faults, 2 not reached and 1 reached but not fired; kinds reached under no configuration: 2 "+
		"(lagging_readback, stale_state_read); kinds reached but fired under none: 1 (subject_swap)", faults)
}

// TestNotApplicablePatternIsBadInput: a registered system declaring a
// not-applicable key pattern that matches no reachable key, or one without
// a reason, is bad input (exit 2) naming the pattern.
func TestNotApplicablePatternIsBadInput(t *testing.T) {
	for pat, want := range map[string]string{
		"tool/proposal/*/*/*":   `not-applicable key pattern "tool/proposal/*/*/*" matches no reachable key of the coverage universe`,
		"identity/worker/*/*/*": `not-applicable key pattern "identity/worker/*/*/*": no reason given`,
	} {
		def := inventory.Definition()
		def.NotApplicableKeys = map[string]string{pat: ""}
		if !strings.Contains(want, "no reason") {
			def.NotApplicableKeys[pat] = "because"
		}
		code, _, stderr := runIn(t, program(def), "audit")
		assert.Equal(t, 2, code, stderr)
		assert.Contains(t, stderr, want)
	}
}
