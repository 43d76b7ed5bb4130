package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
)

// dossierScreen is what "inventory dossier --out DIR" prints: the agent's
// three named configurations, 200 trials each with seed 1.
const dossierScreen = `wrote DIR/dossier.json and DIR/dossier.md
base study: system inventory, 35 fault kinds, 200 trials per profile, seed 1

Release placement per profile (all configurations):
  defended     contained but dead   redesign recovery
    - recover floor 80% missed: recover 123 of 200 = 61.5% [95% CI 54.6%, 68.0%] (overall, worst class subject_swap 0 of
      10, configuration default)
    - serve floor 80% missed: serve 123 of 200 = 61.5% [95% CI 54.6%, 68.0%] (overall, worst class subject_swap 0 of 10,
      configuration default)
    - and 2 more reasons in dossier.md
  undefended   unsafe escape        block
    - hard invariant zero unsafe escape failed: 94 of 200 trials; worst class subject_swap, 10 of 10, configuration
      default
    - hard invariant zero wrong-subject effect failed: 34 of 200 trials; worst class subject_swap, 10 of 10,
      configuration default
    - and 5 more reasons in dossier.md
  planted      contained but dead   redesign recovery
    - recover floor 80% missed: recover 123 of 200 = 61.5% [95% CI 54.6%, 68.0%] (overall, worst class subject_swap 0 of
      10, configuration default)
    - serve floor 80% missed: serve 123 of 200 = 61.5% [95% CI 54.6%, 68.0%] (overall, worst class subject_swap 0 of 10,
      configuration default)
    - and 2 more reasons in dossier.md

Unresolved holds: 13; change triggers fingerprinted: 6 (inventory dossier diff OLD NEW compares them).
The rest: DIR/dossier.md holds every section (signatures, pairs, coefficients, diagnoses, variation); inventory dossier
  --full prints it here.
`

func runIn(t *testing.T, p *cli.Program, args ...string) (int, string, string) {
	t.Helper()
	var out, errs bytes.Buffer
	if p == nil {
		return run(args, &out, &errs), out.String(), errs.String()
	}
	return p.Run(args, &out, &errs), out.String(), errs.String()
}

// TestReleaseEvidenceOnTheCommandLine: the checkout agent's own command
// line prints its release evidence in the audit, writes its dossier
// (exactly dossier.json and dossier.md, whose figures are the audit's),
// compares two dossiers (exit 0 when no change trigger fired, 1 when the
// configurations changed) and refuses bad input with exit 2.
func TestReleaseEvidenceOnTheCommandLine(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, stderr := runIn(t, nil, "audit")
	if code != 0 {
		t.Fatalf("audit exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{
		"Release evidence of inventory (200 trials each, seed 1): 105 signatures, 42 pairs, 17 diagnoses, 13 holds; placement:",
		"  inventory/defended    contained but dead   redesign recovery",
		"  inventory/undefended  unsafe escape        block",
		"  inventory/planted     contained but dead   redesign recovery",
		"The rest (signatures, pairs, reasons, diagnoses): inventory dossier --out DIR writes it.",
	} {
		if !strings.Contains(out, "\n"+want+"\n") {
			t.Errorf("the audit lacks the line %q:\n%s", want, out)
		}
	}

	code, out, stderr = runIn(t, nil, "dossier", "--out", "DIR")
	if code != 0 || out != dossierScreen || stderr != "" {
		t.Fatalf("dossier exit %d\n%s%s", code, out, stderr)
	}
	entries, err := os.ReadDir("DIR")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"dossier.json", "dossier.md"}) {
		t.Errorf("DIR holds %q", names)
	}
	raw, err := os.ReadFile(filepath.Join("DIR", "dossier.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Manifest struct {
			CatalogueKinds int `json:"catalogue_kinds"`
		} `json:"manifest"`
		Evidence struct {
			Base struct {
				System, Name      string
				Trials            int
				Seed              int64
				Runs              int
				Signatures, Pairs []json.RawMessage
				Diagnoses, Holds  []json.RawMessage
				Placements        []struct{ Profile, Config, Region string }
			} `json:"base"`
		} `json:"evidence"`
		UnresolvedHolds []json.RawMessage `json:"unresolved_holds"`
		ChangeTriggers  []json.RawMessage `json:"change_triggers"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	b := d.Evidence.Base
	if b.System != "inventory" || b.Trials != 200 || b.Seed != 1 || b.Runs != 391 || len(b.Signatures) != 105 || len(b.Pairs) != 42 ||
		len(b.Diagnoses) != 17 || len(b.Holds) != 13 || len(d.UnresolvedHolds) != 13 || len(d.ChangeTriggers) != 6 || d.Manifest.CatalogueKinds != 35 {
		t.Errorf("dossier: %s %d trials seed %d, %d runs, %d signatures, %d pairs, %d diagnoses, %d holds, %d unresolved, %d triggers, %d kinds",
			b.System, b.Trials, b.Seed, b.Runs, len(b.Signatures), len(b.Pairs), len(b.Diagnoses), len(b.Holds), len(d.UnresolvedHolds),
			len(d.ChangeTriggers), d.Manifest.CatalogueKinds)
	}
	var regions []string
	for _, p := range b.Placements {
		if p.Config == "all" {
			regions = append(regions, p.Profile+" "+p.Region)
		}
	}
	if want := []string{"defended contained but dead", "undefended unsafe escape", "planted contained but dead"}; !slices.Equal(regions, want) {
		t.Errorf("placements %q, want %q", regions, want)
	}

	code, out, stderr = runIn(t, nil, "dossier", "diff", "DIR", "DIR")
	if code != 0 || out != "change triggers: none fired\ndossiers are identical\n" {
		t.Errorf("diff of a dossier with itself: exit %d\n%s%s", code, out, stderr)
	}
	// without the planted configuration, the policy (the configurations)
	// and every behavioural fingerprint changed: the release gate reopens
	def := inventory.Definition()
	def.Configs = def.Configs[:2]
	p := &cli.Program{Name: "inventory", Systems: []*model.Definition{def}}
	if code, out, stderr = runIn(t, p, "dossier", "--out", "NEW"); code != 0 {
		t.Fatalf("dossier of two configurations: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = runIn(t, nil, "dossier", "diff", "DIR", "NEW")
	var fired []string
	triggers, _, _ := strings.Cut(out, "\n\n") // the diff of the rest follows
	for _, l := range strings.Split(triggers, "\n")[1:] {
		name, _, _ := strings.Cut(strings.TrimPrefix(l, "  "), ": ")
		fired = append(fired, name)
	}
	if want := []string{"evidence_routing", "orchestration", "policy", "retry_logic", "state_schema", "tool_semantics"}; code != 1 ||
		!strings.HasPrefix(out, "change triggers fired (the release gate reopens):\n") || !slices.Equal(fired, want) {
		t.Errorf("diff after a configuration went: exit %d\n%s%s", code, out, stderr)
	}

	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"dossier"}, "inventory: --out DIR is required\n"},
		{[]string{"dossier", "--out", "X", "--trials", "0"}, "inventory: --trials must be between 1 and 1000000, got 0\n"},
		{[]string{"dossier", "diff", "DIR", "MISSING"}, ""},
	} {
		code, out, stderr = runIn(t, nil, c.args...)
		if code != 2 || (c.stderr != "" && stderr != c.stderr) {
			t.Errorf("%q: exit %d, want 2\n%s%s", c.args, code, out, stderr)
		}
	}
}
