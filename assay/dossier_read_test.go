package assay_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/internal/fileio"
)

// TestReadDossierIsStrict: a dossier decodes strictly as the Dossier it
// was written from: an unknown field, a key in another case, a repeated
// key and a change trigger without its fingerprint are errors that name
// the problem (dossier diff accepted each before).
func TestReadDossierIsStrict(t *testing.T) {
	if raceDetector {
		t.Skip("repeats the study's and the dossier's goroutines over another input (TestGatherIsDeterministic and TestDossierContents run them under the detector); go test ./... runs this test in full")
	}
	dir, _ := smallDossier(t)
	raw, err := os.ReadFile(filepath.Join(dir, "dossier.json"))
	if err != nil {
		t.Fatal(err)
	}
	good := string(raw)
	if _, _, err := assay.ReadDossier(dir); err != nil {
		t.Fatal(err)
	}
	// edit applies f to the dossier as generic JSON
	edit := func(f func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	trigger := func(m map[string]any, i int) map[string]any {
		return m["change_triggers"].([]any)[i].(map[string]any)
	}
	cases := []struct{ name, in, want string }{
		{"unknown field", strings.Replace(good, `"version": 4,`, `"version": 4, "extra": true,`, 1), `unknown field "extra"`},
		{"unknown trigger field", edit(func(m map[string]any) { trigger(m, 0)["note"] = "x" }), `change_triggers[0]: unknown field "note"`},
		{"case", strings.Replace(good, `"change_triggers"`, `"Change_Triggers"`, 1), `field "Change_Triggers" does not match "change_triggers": keys are case-sensitive`},
		{"repeated key", strings.Replace(good, `"version": 4,`, `"version": 4, "version": 4,`, 1), `key "version" appears twice`},
		{"no sha256", edit(func(m map[string]any) { delete(trigger(m, 2), "sha256") }), `change trigger "policy" has no "sha256" (its fingerprint)`},
		{"empty sha256", edit(func(m map[string]any) { trigger(m, 2)["sha256"] = "" }), `change trigger "policy" has no "sha256"`},
		{"no name", edit(func(m map[string]any) { delete(trigger(m, 1), "name") }), `change_triggers[1] has no "name"`},
		{"no covers", edit(func(m map[string]any) { delete(trigger(m, 1), "covers") }), `change trigger "state_schema" has no "covers"`},
		{"twice", edit(func(m map[string]any) { trigger(m, 1)["name"] = "tool_semantics" }), `change trigger "tool_semantics" is listed twice`},
		{"array", "[" + good + "]", "the top level must be a JSON object, not an array"},
		{"null", "null", "the top level must be a JSON object, not null"},
		{"byte-order mark", "\xEF\xBB\xBF" + good, "the file starts with a UTF-8 byte-order mark; save it without one"},
		{"empty", "", "empty input: the file is empty"},
	}
	for _, c := range cases {
		p := filepath.Join(t.TempDir(), "dossier.json")
		if err := os.WriteFile(p, []byte(c.in), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := assay.ReadDossier(p)
		if err == nil || !strings.Contains(err.Error(), p+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to name the file and say %q", c.name, err, c.want)
		}
		if _, err := assay.DiffDossiers(dir, p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: DiffDossiers error %v", c.name, err)
		}
	}
}

func TestReadDossierRefusesADevice(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, _, err := assay.ReadDossier("/dev/zero")
	if !errors.Is(err, fileio.ErrBadInput) || err.Error() != "/dev/zero: is a device, not a regular file" {
		t.Errorf("error %v", err)
	}
}
