package corpus_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
	"github.com/faultline/faultline/reference/schedulev1"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite "+golden+" from the current runs")

// dir is the corpus the tests replay: the reference system's files, in
// the reference wing.
const dir = "../reference/corpus"

const golden = dir + "/testdata/verdicts.golden"

func load(t *testing.T) *corpus.Corpus {
	t.Helper()
	c, err := corpus.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// referenceName is the name counterexample files give the reference
// system (FoundBy.System).
const referenceName = "copperfin"

func reference(t *testing.T) *fuzz.Decoder {
	t.Helper()
	d, err := fuzz.NewDecoder(copperfin.Definition(),
		fuzz.WithConfig(copperfin.ConfigOfProfile(copperfin.ProfileTyped)), fuzz.WithCatalogueSites())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// runOn runs s on d: its result, a violation included.
func runOn(d *fuzz.Decoder, s *model.Schedule) (*model.Result, error) {
	res, err := d.Check(s)
	if v := (*fuzz.Violation)(nil); errors.As(err, &v) {
		return res, nil
	}
	return res, err
}

func violated(res *model.Result) string {
	var names []string
	for _, i := range res.Invariants {
		if !i.Held {
			names = append(names, i.Invariant+"@"+string(i.Event))
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
// event) with reference/corpus/testdata/verdicts.golden (go test ./corpus -update rewrites
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
		for _, p := range copperfin.Profiles {
			// the file's mutant, budgets, join policy and fixture stay
			cfg := s.Schedule.Config
			own, err := copperfin.SettingsOf(cfg)
			if err != nil {
				t.Fatalf("%s: %v", s.Path, err)
			}
			cfg.System = copperfin.Settings{Profile: p, Mutant: own.Mutant}.JSON()
			configs = append(configs, cfg)
		}
		for i, cfg := range configs {
			run := *s.Schedule
			run.Config = cfg
			res, err := runOn(d, &run)
			if err != nil {
				t.Fatalf("%s: %v", s.Path, err)
			}
			label := "profile " + string(copperfin.Profiles[max(i-1, 0)])
			if i == 0 {
				label = "own: " + copperfin.Describe(cfg)
				if cfg.Fixture != "" {
					label += ", fixture " + cfg.Fixture
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Path, label, res.RunVerdict, res.Verdict, violated(res))
		}
	}
	tw.Flush()
	if *update {
		if err := fileio.WriteAtomic(golden, b.Bytes()); err != nil {
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
		if got := canonicalCounterexample(t, ce, e.Raw); !bytes.Equal(got, e.Raw) {
			t.Errorf("%s is not in canonical form; canonical:\n%s", e.Path, got)
		}
		if want := "go run ./cmd/faultline replay reference/corpus/" + e.Path; ce.Kind != corpus.KindScheduleDecode && ce.Replay != want {
			t.Errorf("%s: replay command %q, want %q", e.Path, ce.Replay, want)
		}
		if ce.FoundBy.System != referenceName {
			t.Errorf("%s: system %q: only the reference system can be replayed here", e.Path, ce.FoundBy.System)
			continue
		}
		switch ce.Kind {
		case corpus.KindViolation:
			res, err := runOn(d, ce.Schedule)
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
			raw, err := corpus.RawInput(ce)
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
	if len(specs) != 40 {
		t.Fatalf("%d kinds and world events, want 35 and 5", len(specs))
	}
	for _, spec := range specs {
		p := "kinds/" + spec.Kind + ".json"
		s, ok := byPath[p]
		if !ok {
			t.Errorf("no seed %s for fault kind %s", p, spec.Kind)
			continue
		}
		want := model.FaultEntry{Event: spec.Event, Ordinal: spec.Ordinal, Kind: spec.Kind}
		if len(s.Faults) != 1 || s.Faults[0] != want || !reflect.DeepEqual(s.Config, copperfin.ConfigOfProfile(copperfin.ProfileTyped)) {
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
// form of its version: model.Format writes the current one; a version-1
// file is kept in version 1's canonical form (schedulev1.Format).
func TestSeedFilesAreCanonical(t *testing.T) {
	for _, s := range load(t).Seeds {
		ok, got, err := schedulev1.Canonical(s.Raw, s.Schedule)
		if err != nil {
			t.Fatalf("%s: %v", s.Path, err)
		}
		if !ok {
			t.Errorf("%s is not in canonical form; canonical:\n%s", s.Path, got)
		}
	}
}

// canonicalCounterexample is the canonical form of a counterexample file
// (corpus.Format), with its schedule in version 1's canonical form when
// the file holds a version-1 schedule.
func canonicalCounterexample(t *testing.T, ce *corpus.Counterexample, raw []byte) []byte {
	t.Helper()
	got := corpus.Format(ce)
	var top struct {
		Schedule json.RawMessage `json:"schedule"`
	}
	if err := json.Unmarshal(raw, &top); err != nil || ce.Schedule == nil || !schedulev1.IsVersion1(top.Schedule) {
		return got
	}
	v1, err := schedulev1.Format(ce.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Replace(got, schedulev1.Reindent(model.Format(ce.Schedule)), schedulev1.Reindent(v1), 1)
}

// TestVersion1FilesRunAsVersion2: every schedule of the corpus (the seeds,
// the kinds and the counterexample, all version-1 files) decodes, formats
// as version 2, re-parses to the same schedule, and runs under its own
// config and under every profile to the identical result (verdicts,
// faults, invariants, claims, terms and the normalised timeline) in both
// forms, and to the run the version-1 decoder gave
// (reference/corpus/testdata/runs-v1.golden, recorded before version 2,
// when no run checked recorded_agrees_with_ledger: the paper's invariant
// set, Options.Compat, checks what they checked).
func TestVersion1FilesRunAsVersion2(t *testing.T) {
	c := load(t)
	d := reference(t)
	def := copperfin.Definition()
	goldenRaw, err := os.ReadFile(filepath.Join(dir, "testdata", "runs-v1.golden"))
	if err != nil {
		t.Fatal(err)
	}
	before := map[string]string{}
	for _, l := range strings.Split(string(goldenRaw), "\n") {
		if f := strings.Split(l, "\t"); len(f) == 3 && !strings.HasPrefix(l, "#") {
			before[f[0]+"\t"+f[1]] = f[2]
		}
	}
	if len(before) != 168 {
		t.Fatalf("%d recorded runs, want 168 (42 files, 4 configs each)", len(before))
	}
	digest := func(res *model.Result) string {
		// nor did they check retry_paced, which every run checks since:
		// a run that differs only in its result is the same run
		invs := slices.DeleteFunc(slices.Clone(res.Invariants), func(i model.InvariantResult) bool { return i.Invariant == "retry_paced" && i.Held })
		// nor did their fault reports carry the entry's target
		// (FaultReport.Target), which the schedule still holds
		faults := slices.Clone(res.Faults)
		for i := range faults {
			faults[i].Target = ""
		}
		view := []any{model.Normalize(res.Timeline.Events()), faults, invs, res.Claims, res.Terms, res.Verdict, res.RunVerdict, res.Tasks}
		j, err := json.Marshal(view)
		if err != nil {
			t.Fatal(err)
		}
		// the version-1 decoder's runs spelt the events by their old names
		// (docs/formats.md): a run that differs only in an event's name is
		// the same run
		for old, now := range map[model.EventName]model.EventName{"context.order": model.EvContextSubject} {
			j = bytes.ReplaceAll(j, []byte(`"`+string(now)+`"`), []byte(`"`+string(old)+`"`))
		}
		// nor did they mark a claim the deadline ended (model.Claim.TimedOut,
		// the timed_out terminal state): a run that differs only in the mark
		// is the same run
		j = bytes.ReplaceAll(j, []byte(`,"timed_out":true`), nil)
		// and their timelines left such a task failed, where it is now
		// timed_out
		for _, f := range []string{"state_before", "state_after"} {
			j = bytes.ReplaceAll(j, []byte(`"`+f+`":"timed_out"`), []byte(`"`+f+`":"failed"`))
		}
		return fmt.Sprintf("%x", sha256.Sum256(j))
	}
	checked := 0
	type file struct {
		path string
		raw  []byte
		s    *model.Schedule
	}
	var files []file
	for _, s := range c.Seeds {
		files = append(files, file{s.Path, s.Raw, s.Schedule})
	}
	for _, e := range c.Counterexamples {
		var top struct {
			Schedule json.RawMessage `json:"schedule"`
		}
		if e.Counterexample.Schedule != nil && json.Unmarshal(e.Raw, &top) == nil {
			files = append(files, file{e.Path, top.Schedule, e.Counterexample.Schedule})
		}
	}
	v1 := 0
	for _, f := range files {
		if !schedulev1.IsVersion1(f.raw) {
			continue // written as version 2 (the kinds added since)
		}
		v1++
		v2 := model.Format(f.s)
		if !bytes.Contains(v2, []byte(`"version": 2`)) || !bytes.Contains(v2, []byte(`"harness": {`)) || !bytes.Contains(v2, []byte(`"system": {`)) {
			t.Fatalf("%s: not formatted as version 2:\n%s", f.path, v2)
		}
		again, err := model.ParseSchedule(v2)
		if err != nil {
			t.Fatalf("%s: the version-2 form does not parse: %v\n%s", f.path, err, v2)
		}
		if diff := cmp.Diff(f.s, again); diff != "" {
			t.Errorf("%s: Parse(Format(s)) != s (-v1 +v2):\n%s", f.path, diff)
		}
		if !bytes.Equal(model.Format(again), v2) {
			t.Errorf("%s: the version-2 form is not canonical", f.path)
		}
		own, err := copperfin.SettingsOf(f.s.Config)
		if err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		configs := []model.Config{f.s.Config}
		labels := []string{"own"}
		for _, p := range copperfin.Profiles {
			cfg := f.s.Config
			cfg.System = copperfin.Settings{Profile: p, Mutant: own.Mutant}.JSON()
			configs = append(configs, cfg)
			labels = append(labels, "profile "+string(p))
		}
		for i, cfg := range configs {
			a, b := *f.s, *again
			a.Config, b.Config = cfg, cfg
			b.Config.System = append(json.RawMessage(nil), cfg.System...)
			ra, err := runOn(d, &a)
			if err != nil {
				t.Fatalf("%s: %v", f.path, err)
			}
			rb, err := runOn(d, &b)
			if err != nil {
				t.Fatalf("%s: %v", f.path, err)
			}
			type view struct {
				RunID      string
				Timeline   []model.Event
				Faults     []model.FaultReport
				Invariants []model.InvariantResult
				Claims     []model.TaskClaim
				Terms      model.Terms
				Verdict    model.ClaimVerdict
				RunVerdict model.RunVerdict
				Tasks      []model.TaskVerdict
			}
			va := view{ra.RunID, model.Normalize(ra.Timeline.Events()), ra.Faults, ra.Invariants, ra.Claims, ra.Terms, ra.Verdict, ra.RunVerdict, ra.Tasks}
			vb := view{rb.RunID, model.Normalize(rb.Timeline.Events()), rb.Faults, rb.Invariants, rb.Claims, rb.Terms, rb.Verdict, rb.RunVerdict, rb.Tasks}
			if diff := cmp.Diff(va, vb); diff != "" {
				t.Errorf("%s under %s: the version-1 and version-2 forms run differently (-v1 +v2):\n%s", f.path, copperfin.Describe(cfg), diff)
			}
			want, ok := before[f.path+"\t"+labels[i]]
			if !ok {
				t.Errorf("%s %s: no recorded run", f.path, labels[i])
				continue
			}
			rc, err := def.Run(&b, model.Options{Compat: true})
			if err != nil {
				t.Fatalf("%s: %v", f.path, err)
			}
			if got := digest(rc); got != want {
				t.Errorf("%s under %s: the run differs from the one the version-1 decoder gave", f.path, copperfin.Describe(cfg))
			}
			checked++
		}
	}
	if checked != 168 {
		t.Errorf("%d runs checked against the recorded ones, want 168", checked)
	}
	if v1 != 42 {
		t.Errorf("%d version-1 files, want the whole corpus as it was written (42)", v1)
	}
}

func TestLoadNamesTheBadFile(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "counterexamples"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"version":1,"config":{"profile":"typed"},"faults":[]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "counterexamples", "b.json"), []byte(`{"counterexample":3}`), 0o644)
	_, err := corpus.Load(dir)
	if err == nil || !strings.Contains(err.Error(), "b.json") || !strings.Contains(err.Error(), "unsupported version 3") {
		t.Fatalf("error %v does not name b.json and its version", err)
	}
	if _, err := corpus.Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "holds no schedule file") {
		t.Fatalf("empty dir: error %v", err)
	}
}
