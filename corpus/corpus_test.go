package corpus_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
)

var update = flag.Bool("update", false, "rewrite testdata/verdicts.golden from the current runs")

const golden = "testdata/verdicts.golden"

func load(t *testing.T) *corpus.Corpus {
	t.Helper()
	c, err := corpus.Load(".")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func reference(t *testing.T) *fuzz.Decoder {
	t.Helper()
	d, err := fuzz.NewDecoder()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func violated(res *model.Result) string {
	var names []string
	for _, i := range res.Invariants {
		if !i.Held {
			names = append(names, i.Name+"@"+string(i.Event))
		}
	}
	if len(names) == 0 {
		return "-"
	}
	return strings.Join(names, ",")
}

// TestSeedVerdictsAreRecorded replays every schedule file of the corpus
// under its own config and under every profile (keeping the file's
// mutant, budgets, join policy and fixture), and compares the run and
// claim verdicts and the violated invariants (with their first failing
// event) with testdata/verdicts.golden (go test ./corpus -update rewrites
// it; review the diff). It is the regression record of every file; the
// verdicts of the worked examples were also checked by hand, and
// model/corpus_test.go asserts those with the facts behind them.
func TestSeedVerdictsAreRecorded(t *testing.T) {
	c := load(t)
	d := reference(t)
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "# file\tconfig\trun_verdict\tclaim_verdict\tviolated")
	for _, s := range c.Seeds {
		configs := []model.Config{s.Schedule.Config}
		for _, p := range model.Profiles {
			// the file's mutant, budgets, join policy and fixture stay
			cfg := s.Schedule.Config
			cfg.Profile, cfg.Controls, cfg.HasControls = p, 0, false
			configs = append(configs, cfg)
		}
		for i, cfg := range configs {
			run := *s.Schedule
			run.Config = cfg
			res, err := d.Run(&run)
			if err != nil {
				t.Fatalf("%s: %v", s.Path, err)
			}
			label := "profile " + string(cfg.Profile)
			if i == 0 {
				label = "own: " + cfg.String()
				if cfg.Fixture != "" {
					label += ", fixture " + cfg.Fixture
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Path, label, res.RunVerdict, res.Verdict, violated(res))
		}
	}
	tw.Flush()
	if *update {
		if err := corpus.WriteFile(golden, b.Bytes()); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./corpus -update to record)", err)
	}
	if !bytes.Equal(want, b.Bytes()) {
		wl, gl := strings.Split(string(want), "\n"), strings.Split(b.String(), "\n")
		for i := 0; i < max(len(wl), len(gl)); i++ {
			var w, g string
			if i < len(wl) {
				w = wl[i]
			}
			if i < len(gl) {
				g = gl[i]
			}
			if w != g {
				t.Errorf("line %d:\nrecorded %s\nreplayed %s", i+1, w, g)
			}
		}
	}
}

// TestCounterexamplesReplay replays every counterexample file: a violation
// must reproduce its recorded verdicts and violations; a nondeterminism
// counterexample must now replay deterministically; a decode counterexample
// must now be rejected or round-trip. Each file must be in canonical form
// and name the command that replays it.
func TestCounterexamplesReplay(t *testing.T) {
	c := load(t)
	d := reference(t)
	for _, e := range c.Counterexamples {
		ce := e.Counterexample
		if got := corpus.Format(ce); !bytes.Equal(got, e.Raw) {
			t.Errorf("%s is not in canonical form; canonical:\n%s", e.Path, got)
		}
		if want := "go run ./cmd/faultline replay corpus/" + e.Path; ce.Kind != corpus.KindScheduleDecode && ce.Replay != want {
			t.Errorf("%s: replay command %q, want %q", e.Path, ce.Replay, want)
		}
		if ce.FoundBy.System != fuzz.ReferenceSystem().Name {
			t.Errorf("%s: system %q: only the reference system can be replayed here", e.Path, ce.FoundBy.System)
			continue
		}
		switch ce.Kind {
		case corpus.KindViolation:
			res, err := d.Run(ce.Schedule)
			if err != nil {
				t.Fatalf("%s: %v", e.Path, err)
			}
			if err := ce.Check(res); err != nil {
				t.Errorf("%s: replay differs from the recorded run: %v", e.Path, err)
			}
		case corpus.KindNondeterminism:
			if err := d.CheckDeterminism(ce.Schedule); err != nil {
				t.Errorf("%s: %v", e.Path, err)
			}
		case corpus.KindScheduleDecode:
			raw, err := ce.RawInput()
			if err != nil {
				t.Fatalf("%s: %v", e.Path, err)
			}
			if err := fuzz.CheckRoundTrip(raw); err != nil {
				t.Errorf("%s: %v", e.Path, err)
			}
		}
	}
}

// TestEveryKindHasASeed: kinds/KIND.json exists for every kind of the
// catalogue and every world event, and injects exactly that kind once, at
// its own event and default ordinal, under the typed profile; every file
// of kinds/ names one of them.
func TestEveryKindHasASeed(t *testing.T) {
	c := load(t)
	byPath := map[string]*model.Schedule{}
	for _, s := range c.Seeds {
		byPath[s.Path] = s.Schedule
	}
	specs := append(model.Catalogue(), model.WorldEvents()...)
	if len(specs) != 30 {
		t.Fatalf("%d kinds and world events, want 25 and 5", len(specs))
	}
	for _, spec := range specs {
		p := "kinds/" + spec.Kind + ".json"
		s, ok := byPath[p]
		if !ok {
			t.Errorf("no seed %s for fault kind %s", p, spec.Kind)
			continue
		}
		want := model.FaultEntry{Event: spec.Event, Ordinal: spec.Ordinal, Kind: spec.Kind}
		if len(s.Faults) != 1 || s.Faults[0] != want || s.Config != model.ConfigOfProfile(model.ProfileTyped) {
			t.Errorf("%s: faults %+v under %s, want exactly %+v under the typed profile", p, s.Faults, s.Config, want)
		}
	}
	n := 0
	for p := range byPath {
		if strings.HasPrefix(p, "kinds/") {
			n++
			if _, err := model.Spec(strings.TrimSuffix(strings.TrimPrefix(p, "kinds/"), ".json")); err != nil {
				t.Errorf("%s names no kind of the catalogue: %v", p, err)
			}
		}
	}
	if n != len(specs) {
		t.Errorf("%d files in kinds/, want %d", n, len(specs))
	}
}

// TestSeedFilesAreCanonical keeps every schedule file in the canonical
// form model.Format writes.
func TestSeedFilesAreCanonical(t *testing.T) {
	for _, s := range load(t).Seeds {
		if got := model.Format(s.Schedule); !bytes.Equal(got, s.Raw) {
			t.Errorf("%s is not in canonical form; canonical:\n%s", s.Path, got)
		}
	}
}

func TestLoadNamesTheBadFile(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "counterexamples"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"version":1,"config":{"profile":"typed"},"faults":[]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "counterexamples", "b.json"), []byte(`{"counterexample":2}`), 0o644)
	_, err := corpus.Load(dir)
	if err == nil || !strings.Contains(err.Error(), "b.json") || !strings.Contains(err.Error(), "unsupported version 2") {
		t.Fatalf("error %v does not name b.json and its version", err)
	}
	if _, err := corpus.Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "holds no schedule file") {
		t.Fatalf("empty dir: error %v", err)
	}
}
