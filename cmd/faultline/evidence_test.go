package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditEvidenceSections: the audit keeps its lines and adds the
// signature table with intervals, the region of each profile, the pairs
// and the coefficients over the whole catalogue; --compat paper188 gives
// the paper's ten with the paper's numbers; json and markdown carry the
// same evidence.
func TestAuditEvidenceSections(t *testing.T) {
	if raceDetector {
		t.Skip("renders the audit in one goroutine: the assay package's race tests cover its goroutines; go test ./... runs this test in full")
	}
	code, out, _ := cachedCLI(t, "audit", "--full")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"faultline audit: reference system (Copperfin refund workflow), 35 fault kinds (the whole catalogue), profiles 3",
		"typed        BLOCK OR REDESIGN            unsafe   0.0%",
		"== Fault-transfer signatures",
		"break_trace_lineage        effect/before_commit               default  188  188 100.0% [98.0, 100.0]  188 100.0% [98.0, 100.0]  0   0.0% [0.0, 2.0]",
		"memory_loss                memory/before_commit               default  44   44 100.0% [92.0, 100.0]  44 100.0% [92.0, 100.0]   0   0.0% [0.0, 8.0]",
		"baseline     all     2000  unsafe escape       block",
		"typed        all     2000  contained but dead  redesign recovery",
		"fail_closed  all     2000  contained but dead  redesign recovery",
		"typed (all): recover floor 80% missed: recover 1389 of 2000 = 69.5% [95% CI 67.4%, 71.4%] (overall, worst class memory_loss 0 of 44, configuration default)",
		"typed (all): prove floor 80% missed: prove 212 of 400 = 53.0% [95% CI 48.1%, 57.8%] (domain evidence, worst class break_trace_lineage 0 of 188, configuration default)",
		"typed        default  timeout_after_commit       idempotency+effect_readback                                                    leverage_shown       yes           effect_at_most_once,recorded_agrees_with_ledger                         recovered",
		"typed        default  sandbox_denial             behaviour (defect rejection_as_success)                                        leverage_shown       yes           no_invented_progress                                                    contained_failure",
		"typed        default  memory_loss                bind_identity+pre_effect_authority and behaviour (defect fabricated_approval)  leverage_shown       yes           no_invented_progress                                                    contained_failure",
		"typed        default  branch_failure             behaviour (defect failed_branch_dropped)                                       leverage_shown       yes           join_preserved                                                          contained_failure",
		"== Fault-transfer coefficients",
		"subject_swap               default  104/104  +1.000 (104/104 - 0/104)",
		"Remediation: add recovery",
		"no trial run met a declared stop condition",
		// 35 kinds (420 pairs); recorded_agrees_with_ledger takes four of
		// the 374 the 35 kinds showed without it
		"pairs across configurations: 370 of 420 show leverage",
		"== Composition pairs",
		// with do_not_retry drawn on every fixture the draws of seed 1
		// move again: state_precondition has its witness at draw 4428
		// (2916 with server_error and network_error, 2154 before),
		// pre_effect_authority none in 10000 draws (its witness at draw
		// 2636 was a network_error then a revocation) and refresh_context
		// none either (its witness at draw 656 was with 30 kinds)
		"  - pre_effect_authority: no composition witness in 10000 draws from seed 1 (521 single-fault pairs passed over)",
		"  - state_precondition: draw 4428 of seed 1: [tool.commit#1 state_version_change, tool.commit#1 timeout_before_send] violates current_entitlement after seq 24 (tool.commit, reached by state_version_change) without it; " +
			"typed holds (contained_failure); replay: faultline replay --profile typed --without state_precondition composition-state_precondition.json (exit 1), faultline replay --profile typed composition-state_precondition.json (exit 0)",
		"  - refresh_context: no composition witness in 10000 draws from seed 1 (901 single-fault pairs passed over)",
		// without effect_readback a resumed worker denies a refund its
		// rolled-back record lost; with it the refund is found and the
		// retry the denial needs never happens (inconclusive, exit 3);
		// draw 416, a false success at the second commit (854 with a
		// sandbox denial before do_not_retry was drawn)
		"  - effect_readback: draw 416 of seed 1: [checkpoint.write#3 checkpoint_rollback, tool.commit#2 false_success] violates recorded_agrees_with_ledger after seq 33 (claim, reached by false_success) without it; " +
			"typed holds (inconclusive); replay: faultline replay --profile typed --without effect_readback composition-effect_readback.json (exit 1), faultline replay --profile typed composition-effect_readback.json (exit 3)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("audit output lacks %q", want)
		}
	}
	if !strings.HasSuffix(out, "not proof of production safety.\n") {
		t.Error("the interpretation boundary is no longer the last line")
	}
	if raceDetector {
		t.Log("the compat, json and markdown audits repeat the audit's goroutines over other inputs and formats: left to go test ./...")
		return
	}
	code, out, _ = cachedCLI(t, "audit", "--compat", "paper188", "--full")
	if code != 0 {
		t.Fatalf("compat: exit %d", code)
	}
	for _, want := range []string{
		"faultline audit: reference system (Copperfin refund workflow), 10 fault kinds (the paper's modes, --compat paper188), profiles 3",
		"typed        PASS ON THIS SYNTHETIC ASSAY unsafe   0.0%",
		"break_trace_lineage        effect/before_commit        default  188  188 100.0% [98.0, 100.0]  188 100.0% [98.0, 100.0]  0   0.0% [0.0, 2.0]",
		"baseline     all     2000  unsafe escape        block",
		"typed        all     2000  useful but unproved  shadow or hold",
		"fail_closed  all     2000  contained but dead   redesign recovery",
		"typed (all): prove floor 80% missed: prove 212 of 400 = 53.0% [95% CI 48.1%, 57.8%] (domain evidence, worst class break_trace_lineage 0 of 188, configuration default)",
		"pairs across configurations: 112 of 120 show leverage",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("compat audit output lacks %q", want)
		}
	}
	if strings.Contains(out, "sandbox_denial") {
		t.Error("compat audit shows a kind outside the paper's ten")
	}
	code, out, _ = cachedCLI(t, "audit", "--format", "json")
	if code != 0 {
		t.Fatalf("json: exit %d", code)
	}
	var obj struct {
		Compat   string `json:"compat"`
		Profiles []struct {
			Profile string            `json:"profile"`
			Rows    []json.RawMessage `json:"rows"`
			Assay   struct {
				Assessment string `json:"assessment"`
			} `json:"assay"`
		} `json:"profiles"`
		Evidence struct {
			Base struct {
				Placements []struct {
					Profile, Config, Region string
				} `json:"placements"`
				Pairs        []json.RawMessage `json:"pairs"`
				Coefficients []json.RawMessage `json:"coefficients"`
			} `json:"base"`
		} `json:"evidence"`
	}
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatal(err)
	}
	// 35 rows a profile, 105 pairs, 1050 coefficients (3 profiles, 35
	// kinds, 10 invariants: the eight, recorded_agrees_with_ledger and
	// retry_paced)
	if obj.Compat != "" || len(obj.Profiles) != 3 || len(obj.Profiles[1].Rows) != 35 || obj.Profiles[1].Assay.Assessment != "BLOCK OR REDESIGN" ||
		len(obj.Evidence.Base.Pairs) != 105 || len(obj.Evidence.Base.Coefficients) != 1050 ||
		obj.Evidence.Base.Placements[1].Region != "contained but dead" {
		t.Errorf("json audit: %+v", obj.Profiles)
	}
	code, out, _ = cachedCLI(t, "audit", "--format", "markdown")
	if code != 0 || !strings.Contains(out, "| typed | all | 2000 | contained but dead | redesign recovery |") || !strings.Contains(out, "## Release envelope") {
		t.Errorf("markdown audit: exit %d", code)
	}
	for _, c := range [][]string{{"audit", "--format", "xml"}, {"audit", "--compat", "paper200"}} {
		want := `unknown format "xml"`
		if c[1] == "--compat" {
			want = `unknown compatibility target "paper200"`
		}
		if code, _, stderr := runCLI(t, c...); code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d %q", c, code, stderr)
		}
	}
}

// TestDossierCommand: dossier writes both files; diff of a dossier with
// itself exits 0; with a tampered change trigger exits 1 and names it;
// bad input exits 2.
func TestDossierCommand(t *testing.T) {
	if raceDetector {
		t.Skip("renders and checks the audit's and the dossier's results in one goroutine: the assay package's race tests cover their goroutines; go test ./... runs this test in full")
	}
	dir := filepath.Join(t.TempDir(), "out")
	code, out, stderr := runCLI(t, "dossier", "--profile", "typed", "--out", dir)
	if code != 0 || !strings.Contains(out, "dossier.json") {
		t.Fatalf("exit %d %s %s", code, out, stderr)
	}
	// one screen: what was written, the placement with its first reasons,
	// where the rest is
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > summaryLines {
		t.Errorf("dossier printed %d lines", len(lines))
	}
	for _, l := range lines {
		if len(l) > summaryWidth {
			t.Errorf("dossier line of %d characters: %q", len(l), l)
		}
	}
	for _, want := range []string{
		"wrote " + filepath.Join(dir, "dossier.json") + " and " + filepath.Join(dir, "dossier.md") + "\n",
		"\n  typed        contained but dead   redesign recovery\n    - recover floor 80% missed: recover 1389 of 2000",
		"    - and 2 more reasons in dossier.md\n",
		"faultline dossier --full prints it here.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dossier output lacks %q:\n%s", want, out)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "dossier.md"))
	if err != nil || !strings.Contains(string(md), "| profile typed | controls: bind_identity") || strings.Contains(string(md), "| profile baseline |") ||
		!strings.Contains(string(md), "The evidence covers 35 of the catalogue's 35 kinds.") {
		t.Fatalf("dossier.md: %v", err)
	}
	// the composition witnesses are written beside the dossier, and their
	// replay commands hold: off violates (exit 1), typed holds (exit 0;
	// effect_readback's path never reaches the denied retry: exit 3); with
	// 35 kinds state_precondition has a witness and refresh_context none
	for c, on := range map[string]int{"state_precondition": 0, "idempotency": 0, "effect_readback": 3, "evidence_gate": 0} {
		f := filepath.Join(dir, "composition-"+c+".json")
		if code, _, stderr := runCLI(t, "replay", "--profile", "typed", "--without", c, f); code != 1 {
			t.Errorf("%s off: exit %d %s", c, code, stderr)
		}
		if code, _, stderr := runCLI(t, "replay", "--profile", "typed", f); code != on {
			t.Errorf("%s on: exit %d, want %d %s", c, code, on, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "composition-refresh_context.json")); !os.IsNotExist(err) {
		t.Errorf("a witness file for a control without a witness: %v", err)
	}
	if !strings.Contains(string(md), "## Composition pairs") {
		t.Error("dossier.md lacks the composition pairs")
	}
	paper := filepath.Join(t.TempDir(), "paper")
	if code, _, stderr := runCLI(t, "dossier", "--profile", "typed", "--compat", "paper188", "--out", paper); code != 0 {
		t.Fatalf("compat dossier: exit %d %s", code, stderr)
	}
	md, _ = os.ReadFile(filepath.Join(paper, "dossier.md"))
	if !strings.Contains(string(md), "The evidence covers 10 of the catalogue's 35 kinds.") || !strings.Contains(string(md), "| typed | all | 2000 | useful but unproved | shadow or hold |") {
		t.Error("compat dossier.md lacks the paper's coverage or placement")
	}
	// the catalogue grew from the paper's ten to 35 kinds: every trigger fires
	code, out, _ = runCLI(t, "dossier", "diff", paper, dir)
	if code != 1 || !strings.Contains(out, "  state_schema: ") || !strings.Contains(out, "  orchestration: ") {
		t.Fatalf("paper -> catalogue diff: exit %d\n%.2000s", code, out)
	}
	// one screen by default, the whole diff with --full
	if n := strings.Count(out, "\n"); n > 40 || !strings.Contains(out, "more lines: --full prints the whole diff") {
		t.Errorf("dossier diff prints %d lines by default:\n%.3000s", n, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if len(l) > 120 {
			t.Errorf("dossier diff line of %d characters: %.130s", len(l), l)
		}
	}
	codeFull, outFull, _ := runCLI(t, "dossier", "diff", paper, dir, "--full")
	if codeFull != 1 || strings.Count(outFull, "\n") <= 40 || strings.Contains(outFull, "more lines: --full") {
		t.Errorf("dossier diff --full: exit %d, %d lines", codeFull, strings.Count(outFull, "\n"))
	}
	code, out, _ = runCLI(t, "dossier", "diff", dir, filepath.Join(dir, "dossier.json"))
	if code != 0 || !strings.Contains(out, "change triggers: none fired") || !strings.Contains(out, "dossiers are identical") {
		t.Fatalf("self diff: exit %d\n%s", code, out)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "dossier.json"))
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatal(err)
	}
	obj["change_triggers"].([]any)[2].(map[string]any)["sha256"] = "changed"
	b, _ := json.Marshal(obj)
	other := filepath.Join(t.TempDir(), "new.json")
	os.WriteFile(other, b, 0o644)
	code, out, _ = runCLI(t, "dossier", "diff", dir, other)
	if code != 1 || !strings.Contains(out, "change triggers fired (the release gate reopens):") || !strings.Contains(out, "  policy: ") {
		t.Fatalf("tampered diff: exit %d\n%s", code, out)
	}
	// the catalogue's JSON beside the paper's Markdown: not one dossier
	mixed := t.TempDir()
	os.WriteFile(filepath.Join(mixed, "dossier.json"), raw, 0o644)
	os.WriteFile(filepath.Join(mixed, "dossier.md"), md, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"dossier", "diff", dir, mixed}, "dossier.md are not one dossier: the JSON names Markdown sha256 "},
		{[]string{"dossier"}, "--out DIR is required"},
		{[]string{"dossier", "--out", dir, "--profile", "paranoid"}, `unknown profile "paranoid"`},
		{[]string{"dossier", "--out", dir, "--profile", "typed,typed"}, `"typed" given twice`},
		{[]string{"dossier", "--out", dir, "--compat", "paper"}, `unknown compatibility target "paper"`},
		{[]string{"dossier", "diff", dir, filepath.Join(dir, "nope.json")}, "no such file"},
		{[]string{"dossier", "diff", dir}, "accepts 2 arg"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
}
