package assay_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/model"
)

// smallConfig keeps the dossier tests fast: the typed profile, 200 trials.
func smallConfig() assay.EvidenceConfig {
	cfg := paperConfig()
	cfg.Trials = 200
	cfg.Profiles = []model.Profile{model.ProfileTyped}
	return cfg
}

func writeDossier(t *testing.T, cfg assay.EvidenceConfig) (string, *assay.Dossier) {
	t.Helper()
	d, err := assay.BuildDossier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "dossier")
	if err := assay.WriteDossier(dir, d); err != nil {
		t.Fatal(err)
	}
	return dir, d
}

// TestDossierContents: the dossier names its configuration, its catalogue
// by hash, every schedule it ran, the stop conditions, the evidence, the
// holds, the coverage gap and the six change triggers; writing it twice
// gives the same bytes; no temporary file is left behind.
func TestDossierContents(t *testing.T) {
	dir, d := writeDossier(t, smallConfig())
	cat, _ := json.Marshal(model.Catalogue())
	h := sha256.Sum256(append(cat, 0))
	if d.Manifest.CatalogueSHA256 != hex.EncodeToString(h[:]) || d.Manifest.CatalogueKinds != 10 {
		t.Errorf("catalogue hash %s", d.Manifest.CatalogueSHA256)
	}
	if d.Manifest.Module.Revision == "" && !strings.Contains(d.Manifest.Module.Note, "no VCS revision") {
		t.Errorf("module without revision and without a note: %+v", d.Manifest.Module)
	}
	seen := map[string]bool{}
	for _, st := range []*assay.Study{d.Evidence.Reference, d.Evidence.Variation} {
		for _, s := range st.Schedules {
			seen[s.SHA256] = true
		}
	}
	if n := len(d.Manifest.Schedules); n != len(seen) || n < 20 {
		t.Errorf("%d schedules in the manifest, %d distinct schedules ran", n, len(seen))
	}
	if d.Stop != assay.DefaultStop || len(d.Faults) != 10 || len(d.Invariants) != 4 || d.Coverage.Available {
		t.Errorf("stop %+v faults %d invariants %d coverage %+v", d.Stop, len(d.Faults), len(d.Invariants), d.Coverage)
	}
	if len(d.UnresolvedHolds) != 1 || d.UnresolvedHolds[0].Kind != "break_trace_lineage" || d.UnresolvedHolds[0].Effects != 1 {
		t.Errorf("holds %+v", d.UnresolvedHolds)
	}
	var names []string
	for _, c := range d.ChangeTriggers {
		names = append(names, c.Name)
		if len(c.SHA256) != 64 {
			t.Errorf("trigger %s sha %q", c.Name, c.SHA256)
		}
	}
	if strings.Join(names, ",") != "tool_semantics,state_schema,policy,retry_logic,orchestration,evidence_routing" {
		t.Errorf("triggers %v", names)
	}
	first, err := os.ReadFile(filepath.Join(dir, "dossier.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := assay.WriteDossier(dir, d); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(filepath.Join(dir, "dossier.json"))
	if string(first) != string(second) {
		t.Error("rewriting the dossier changed its bytes")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("dir holds %d entries, want dossier.json and dossier.md", len(entries))
	}
	md, _ := os.ReadFile(filepath.Join(dir, "dossier.md"))
	for _, want := range []string{"# Fault dossier (version 1)", "## Manifest", "## Fault specs", "## Stop conditions",
		"## Baseline runs (no fault)", "## Fault-transfer signatures", "## Release envelope", "## Counterfactual containment pairs",
		"## Fault-transfer coefficients", "## Diagnoses of counterexamples", "## Configuration variation", "## Coverage",
		"## Unresolved holds", "## Change triggers", "| typed | all | 200 | useful but unproved | shadow or hold |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("dossier.md lacks %q", want)
		}
	}
}

// TestDossierDiffTriggers: identical dossiers fire nothing; a changed
// retry budget fires retry_logic only; a system behind a deduplicating
// transport changes what the tool sees and fires tool_semantics; a
// tampered fingerprint fires its trigger.
func TestDossierDiffTriggers(t *testing.T) {
	a, _ := writeDossier(t, smallConfig())
	b, _ := writeDossier(t, smallConfig())
	d, err := assay.DiffDossiers(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Fired) != 0 || d.Diff != "" {
		t.Fatalf("identical dossiers: fired %v, diff %q", d.Fired, d.Diff)
	}
	fired := func(d *assay.DossierDiff) []string {
		var out []string
		for _, f := range d.Fired {
			out = append(out, f.Name)
		}
		return out
	}
	cfg := smallConfig()
	cfg.Base.Options.RetryBudget = 3
	c, _ := writeDossier(t, cfg)
	if d, err = assay.DiffDossiers(a, c); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(fired(d), ","); got != "retry_logic" || !strings.Contains(d.Diff, "RetryBudget") {
		t.Errorf("retry budget 3: fired %q", got)
	}
	cfg = smallConfig()
	cfg.System = hiddenFallback
	e, _ := writeDossier(t, cfg)
	if d, err = assay.DiffDossiers(a, e); err != nil {
		t.Fatal(err)
	}
	if got := fired(d); len(got) == 0 || got[len(got)-1] != "tool_semantics" {
		t.Errorf("hidden fallback: fired %v", got)
	}
	raw, _ := os.ReadFile(filepath.Join(b, "dossier.json"))
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatal(err)
	}
	obj["change_triggers"].([]any)[5].(map[string]any)["sha256"] = "0000"
	tampered := filepath.Join(t.TempDir(), "t.json")
	out, _ := json.Marshal(obj)
	os.WriteFile(tampered, out, 0o644)
	if d, err = assay.DiffDossiers(a, tampered); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(fired(d), ","); got != "evidence_routing" {
		t.Errorf("tampered: fired %q", got)
	}
}

func TestReadDossierRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	cases := map[string]string{
		filepath.Join(dir, "missing.json"):                 "no such file",
		write("bad.json", `{"version": 1,`):                "truncated JSON",
		write("syntax.json", "{\n\"version\": x}"):         "malformed JSON at line 2",
		write("noversion.json", `{"change_triggers": []}`): `missing "version"`,
		write("v2.json", `{"version": 2}`):                 "unsupported dossier version 2",
		write("notriggers.json", `{"version": 1}`):         `no "change_triggers"`,
	}
	for path, want := range cases {
		if _, _, err := assay.ReadDossier(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", filepath.Base(path), err, want)
		}
	}
}
