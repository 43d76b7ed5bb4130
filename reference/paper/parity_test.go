package paper_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

type modeRow struct {
	Controls []string `json:"controls"`
	Kind     string   `json:"kind"`
	Terms    []bool   `json:"terms"`
	Effects  int      `json:"effects"`
	Verdict  string   `json:"verdict"`
}

// TestModeParity runs every one of the paper's ten modes under every subset
// of its seven controls through the full model and compares the oracle's
// terms with the artefact's, row by row (1,280 rows).
func TestModeParity(t *testing.T) {
	data, err := os.ReadFile("testdata/paper188/modes.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Rows []modeRow `json:"rows"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Rows) != 1280 {
		t.Fatalf("want 1280 rows, got %d", len(file.Rows))
	}
	h := model.NewHarness(copperfin.Copperfin(), model.Options{})
	bad := 0
	for _, row := range file.Rows {
		cs, err := copperfin.ParseControls(row.Controls)
		if err != nil {
			t.Fatal(err)
		}
		s, err := model.SingleFault(row.Kind, copperfin.ConfigOfControls(cs))
		if err != nil {
			t.Fatal(err)
		}
		got, err := h.Terms(copperfin.Factory(cs), s)
		if err != nil {
			t.Fatal(err)
		}
		gotTerms := []bool{got.Detected, got.Contained, got.Recovered, got.Verified, got.UsefulService,
			got.UnsafeEscape, got.DuplicateEffect, got.UnverifiableRelease, got.ServiceLoss}
		same := got.Effects == row.Effects && string(got.Verdict) == row.Verdict
		for i := range gotTerms {
			same = same && gotTerms[i] == row.Terms[i]
		}
		if !same {
			bad++
			if bad <= 20 {
				t.Errorf("%s under [%s]: got %v effects %d %s; artefact %v effects %d %s",
					row.Kind, cs, gotTerms, got.Effects, got.Verdict, row.Terms, row.Effects, row.Verdict)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d rows differ", bad, len(file.Rows))
	}
}
