package paper_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
	"github.com/faultline/faultline/reference/paper"
)

type runCase struct {
	Controls   []string                      `json:"controls"`
	Fault      string                        `json:"fault"`
	Trials     int                           `json:"trials"`
	Seed       int64                         `json:"seed"`
	ByDomain   map[string]map[string]float64 `json:"by_domain"`
	Overall    map[string]float64            `json:"overall"`
	Assessment string                        `json:"assessment"`
	Reasons    []string                      `json:"reasons"`
}

// TestRunParity runs each recorded artefact case (control subsets, single
// domains, one trial, seeds 0 and 2^32-1, 200,000 trials) and requires every
// rate to equal the artefact's exactly.
func TestRunParity(t *testing.T) {
	data, err := os.ReadFile("testdata/paper188/runs.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []runCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) < 20 {
		t.Fatalf("want at least 20 cases, got %d", len(file.Cases))
	}
	for _, c := range file.Cases {
		if raceDetector && c.Trials > 20000 {
			continue // the same workers as the smaller cases, ten times as long: left to go test ./...
		}
		cs, err := copperfin.ParseControls(c.Controls)
		if err != nil {
			t.Fatal(err)
		}
		domains := model.Domains
		if c.Fault != "all" {
			d, err := model.ParseDomain(c.Fault)
			if err != nil {
				t.Fatal(err)
			}
			domains = []model.Domain{d}
		}
		rep, err := assay.Run(copperfin.Definition(), assay.Config{Profile: "custom", System: copperfin.ConfigOfControls(cs).System, Domains: domains, Trials: c.Trials, Seed: c.Seed, Compat: true})
		if err != nil {
			t.Fatal(err)
		}
		name := func() string { return cs.String() + "/" + c.Fault }
		obj := paper.Object(rep)
		check := func(where string, got map[string]any, want map[string]float64) {
			for k, w := range want {
				var g float64
				switch v := got[k].(type) {
				case int:
					g = float64(v)
				default:
					g = float64(mustFloat(t, v))
				}
				if g != w {
					t.Errorf("%s trials %d seed %d: %s.%s = %v, artefact %v", name(), c.Trials, c.Seed, where, k, g, w)
				}
			}
		}
		check("overall", obj["overall"].(map[string]any), c.Overall)
		bd := obj["by_domain"].(map[string]any)
		if len(bd) != len(c.ByDomain) {
			t.Errorf("%s: %d domains, artefact %d", name(), len(bd), len(c.ByDomain))
		}
		for d, want := range c.ByDomain {
			check("by_domain."+d, bd[d].(map[string]any), want)
		}
		if rep.Assessment != c.Assessment || len(rep.Reasons) != len(c.Reasons) {
			t.Errorf("%s: assessment %q %q, artefact %q %q", name(), rep.Assessment, rep.Reasons, c.Assessment, c.Reasons)
		}
	}
}

func mustFloat(t *testing.T, v any) float64 {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestOutputBytes compares the text table and the JSON object with the
// artefact's own output for the same arguments, byte for byte.
func TestOutputBytes(t *testing.T) {
	cases := []struct {
		file    string
		profile copperfin.Profile
		domains []model.Domain
		trials  int
		seed    int64
		json    bool
	}{
		{"baseline-2000-188.txt", copperfin.ProfileBaseline, nil, 2000, 188, false},
		{"typed-2000-188.txt", copperfin.ProfileTyped, nil, 2000, 188, false},
		{"typed-2000-188.json", copperfin.ProfileTyped, nil, 2000, 188, true},
		{"baseline-tool-77-5.json", copperfin.ProfileBaseline, []model.Domain{model.Domain("tool")}, 77, 5, true},
	}
	for _, c := range cases {
		want, err := os.ReadFile("testdata/paper188/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		cs, _ := copperfin.ProfileControls(c.profile)
		rep, err := assay.Run(copperfin.Definition(), assay.Config{Profile: string(c.profile), System: copperfin.ConfigOfControls(cs).System, Domains: c.domains, Trials: c.trials, Seed: c.seed, Compat: true})
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if c.json {
			err = paper.WriteJSON(&got, rep)
		} else {
			err = paper.WriteText(&got, rep)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: output differs from the artefact's:\n%s", c.file, got.String())
		}
	}
}

// TestPaperHeadlineNumbers pins the figures the paper quotes (seed 188,
// 2,000 trials) as counts.
func TestPaperHeadlineNumbers(t *testing.T) {
	base, _ := copperfin.ProfileControls(copperfin.ProfileBaseline)
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	b, err := assay.Run(copperfin.Definition(), assay.Config{System: copperfin.ConfigOfControls(base).System, Trials: 2000, Seed: 188, Compat: true})
	if err != nil {
		t.Fatal(err)
	}
	o := b.Overall
	if o.Detected != 189 || o.Contained != 611 || o.UnsafeEscape != 1389 || o.DuplicateEffect != 382 || o.UnverifiableRelease != 611 {
		t.Errorf("baseline overall counts %+v", o)
	}
	ty, err := assay.Run(copperfin.Definition(), assay.Config{System: copperfin.ConfigOfControls(typed).System, Trials: 2000, Seed: 188, Compat: true})
	if err != nil {
		t.Fatal(err)
	}
	o = ty.Overall
	if o.Detected != 2000 || o.Contained != 2000 || o.Recovered != 1812 || o.Verified != 1812 || o.UsefulService != 1812 || o.UnsafeEscape != 0 {
		t.Errorf("typed overall counts %+v", o)
	}
	if ev := ty.ByDomain[model.Domain("evidence")]; ev.Recovered != 212 || ev.Trials != 400 {
		t.Errorf("typed evidence counts %+v (want 212 of 400 recovered: 53.0%%)", ev)
	}
}
