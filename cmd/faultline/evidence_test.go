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
// and the coefficients; json and markdown carry the same evidence.
func TestAuditEvidenceSections(t *testing.T) {
	code, out, _ := runCLI(t, "audit")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"typed        PASS ON THIS SYNTHETIC ASSAY unsafe   0.0%",
		"== Fault-transfer signatures",
		"break_trace_lineage        effect/before_commit        default  188  188 100.0% [98.0, 100.0]  188 100.0% [98.0, 100.0]  0   0.0% [0.0, 2.0]",
		"baseline     all     2000  unsafe escape        block",
		"typed        all     2000  useful but unproved  shadow or hold",
		"fail_closed  all     2000  contained but dead   redesign recovery",
		"typed (all): prove floor 80% missed: prove 212 of 400 = 53.0% [95% CI 48.1%, 57.8%] (domain evidence, worst class break_trace_lineage 0 of 188, configuration default)",
		"typed        default  timeout_after_commit       idempotency+effect_readback    leverage_shown  yes           effect_at_most_once  recovered",
		"== Fault-transfer coefficients",
		"subject_swap               default  212/212  +1.000 (212/212 - 0/212)",
		"Remediation: add recovery",
		"no run met a declared stop condition",
		"pairs across configurations: 116 of 120 show leverage",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("audit output lacks %q", want)
		}
	}
	if !strings.HasSuffix(out, "not proof of production safety.\n") {
		t.Error("the interpretation boundary is no longer the last line")
	}
	code, out, _ = runCLI(t, "audit", "--format", "json")
	if code != 0 {
		t.Fatalf("json: exit %d", code)
	}
	var obj struct {
		Profiles []struct {
			Profile string `json:"profile"`
			Assay   struct {
				Assessment string `json:"assessment"`
			} `json:"assay"`
		} `json:"profiles"`
		Evidence struct {
			Reference struct {
				Placements []struct {
					Profile, Config, Region string
				} `json:"placements"`
				Pairs        []json.RawMessage `json:"pairs"`
				Coefficients []json.RawMessage `json:"coefficients"`
			} `json:"reference"`
		} `json:"evidence"`
	}
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatal(err)
	}
	if len(obj.Profiles) != 3 || obj.Profiles[1].Assay.Assessment != "PASS ON THIS SYNTHETIC ASSAY" ||
		len(obj.Evidence.Reference.Pairs) != 30 || len(obj.Evidence.Reference.Coefficients) != 120 ||
		obj.Evidence.Reference.Placements[1].Region != "useful but unproved" {
		t.Errorf("json audit: %+v", obj.Profiles)
	}
	code, out, _ = runCLI(t, "audit", "--format", "markdown")
	if code != 0 || !strings.Contains(out, "| typed | all | 2000 | useful but unproved | shadow or hold |") || !strings.Contains(out, "## Release envelope") {
		t.Errorf("markdown audit: exit %d", code)
	}
	if code, _, stderr := runCLI(t, "audit", "--format", "xml"); code != 2 || !strings.Contains(stderr, `unknown format "xml"`) {
		t.Errorf("--format xml: exit %d %q", code, stderr)
	}
}

// TestDossierCommand: dossier writes both files; diff of a dossier with
// itself exits 0; with a tampered change trigger exits 1 and names it;
// bad input exits 2.
func TestDossierCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, out, stderr := runCLI(t, "dossier", "--profile", "typed", "--out", dir)
	if code != 0 || !strings.Contains(out, "dossier.json") {
		t.Fatalf("exit %d %s %s", code, out, stderr)
	}
	md, err := os.ReadFile(filepath.Join(dir, "dossier.md"))
	if err != nil || !strings.Contains(string(md), "| profile typed | controls: bind_identity") || strings.Contains(string(md), "| profile baseline |") {
		t.Fatalf("dossier.md: %v", err)
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
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"dossier"}, "--out DIR is required"},
		{[]string{"dossier", "--out", dir, "--profile", "paranoid"}, `unknown profile "paranoid"`},
		{[]string{"dossier", "--out", dir, "--profile", "typed,typed"}, `"typed" given twice`},
		{[]string{"dossier", "diff", dir, filepath.Join(dir, "nope.json")}, "no such file"},
		{[]string{"dossier", "diff", dir}, "accepts 2 arg"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
}
