package assay

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/internal/buildvcs"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/internal/strictjson"
	"github.com/faultline/faultline/model"
)

// dossierVersion is the version of the dossier format this package writes.
// Version 2 added "markdown_sha256", version 3 named the evidence's first
// study "base", version 4 filled the coverage section (the keys visited
// over those the system can reach, the unvisited ones with why);
// readDossier still reads versions 1 to 3.
const dossierVersion = 4

// Module is the build's identity from runtime/debug.ReadBuildInfo. A build
// without VCS stamping (GOFLAGS=-buildvcs=false, a build outside a
// repository, go test) has an empty Revision and a Note that says so; it is
// never guessed.
type Module struct {
	Path      string `json:"path"`
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
	VCS       string `json:"vcs,omitempty"`
	Revision  string `json:"revision,omitempty"`
	Time      string `json:"time,omitempty"`
	Modified  *bool  `json:"modified,omitempty"`
	Note      string `json:"note,omitempty"`
}

// buildModule reads the running binary's build info.
func buildModule() Module {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Module{Note: "no build information in this binary"}
	}
	vcs := buildvcs.Of(bi.Settings)
	m := Module{Path: bi.Main.Path, Version: bi.Main.Version, GoVersion: bi.GoVersion,
		VCS: vcs.System, Revision: vcs.Revision, Time: vcs.Time, Modified: vcs.Modified}
	if m.Revision == "" {
		m.Note = "no VCS revision in the build information (built with -buildvcs=false, outside a repository, or by go test); the catalogue, configuration and schedule hashes identify the evidence"
	}
	return m
}

// profileManifest is one profile's control set.
type profileManifest = struct {
	Profile  string   `json:"profile"`
	Controls []string `json:"controls"`
}

// ConfigManifest is the frozen configuration of the dossier's runs (seed
// 000, step 3): everything its hash covers.
type ConfigManifest struct {
	System    string            `json:"system"`
	Fixture   string            `json:"fixture"`
	Profiles  []profileManifest `json:"profiles"`
	Options   model.Options     `json:"options"`
	Trials    int               `json:"trials"`
	Seed      int64             `json:"seed"`
	Compat    bool              `json:"compat"`
	Variation []Dimension       `json:"variation"`
	Envelope  Envelope          `json:"envelope"`
}

// Manifest is the configured-system manifest of a dossier. The catalogue
// hash and count identify the whole fault catalogue of the build (its
// version); CoveredKinds counts the kinds the evidence covers (the
// dossier's Faults: all of them, or the paper's ten with Compat).
type Manifest struct {
	Module              Module         `json:"module"`
	CatalogueSHA256     string         `json:"catalogue_sha256"`
	CatalogueKinds      int            `json:"catalogue_kinds"`
	CoveredKinds        int            `json:"covered_kinds"`
	Configuration       ConfigManifest `json:"configuration"`
	ConfigurationSHA256 string         `json:"configuration_sha256"`
	FixtureSHA256       string         `json:"fixture_sha256"`
	Schedules           []ScheduleRef  `json:"schedules"`
}

// coverageSummary is the dossier's coverage section: the keys the
// evidence's distinct runs visited over the keys the system can reach
// (package coverage), under Config, and every reachable key not visited
// with its status and why. Dossiers before version 4 held a placeholder
// (Placeholder true, Available false, a Note saying so).
type coverageSummary = struct {
	Available   bool   `json:"available"`
	Placeholder bool   `json:"placeholder"`
	Note        string `json:"note"`
	// Config names what the runs were recorded under; Visited of
	// Reachable keys (the system's universe), Ratio their rate.
	Config    string            `json:"config,omitempty"`
	Visited   int               `json:"visited,omitempty"`
	Reachable int               `json:"reachable,omitempty"`
	Ratio     float64           `json:"ratio,omitempty"`
	Unvisited []coverageKeyNote `json:"unvisited,omitempty"`
}

// coverageKeyNote is one reachable key the runs did not visit: its
// status in the coverage report and why.
type coverageKeyNote struct {
	Key    string `json:"key"`
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// coverageOf summarises the coverage of data (the runs of def recorded
// under cfg).
func coverageOf(def *model.Definition, cfg EvidenceConfig, data *coverage.Data) coverageSummary {
	r := coverage.NewReport(coverage.Default(), data, coverage.ReportOptions{})
	s := r.Summary
	c := coverageSummary{Available: true, Visited: s.Visited, Reachable: s.Applicable, Ratio: s.Ratio,
		Config: fmt.Sprintf("the %d distinct runs of the base and variation studies of %s (%d trials per profile, seed %d, %s)",
			s.Runs, def.Name, cfg.Trials, cfg.Seed, profileNames(def, cfg)),
		Unvisited: []coverageKeyNote{}}
	c.Note = fmt.Sprintf("%d of %d keys %s can reach visited (%.1f%%); of the catalogue's %d reachable keys, %d are left out of the ratio, each with why: %d never crossed, %d not applicable, %d not enacted, %d not drawn",
		s.Visited, s.Applicable, def.Name, 100*s.Ratio, s.Reachable, s.Reachable-s.Applicable, s.NeverCrossed, s.NotApplicable, s.NotEnacted, s.NotDrawn)
	if !s.Crossings {
		c.Note += " (the runs' crossings are not recorded: no key is found never crossed)"
	}
	for _, k := range r.Keys {
		if k.Status != coverage.StatusHeld && k.Status != coverage.StatusViolated && k.Status != coverage.StatusOutside {
			c.Unvisited = append(c.Unvisited, coverageKeyNote{Key: k.Key, Status: k.Status, Reason: k.Reason})
		}
	}
	return c
}

// profileNames lists the profiles cfg studies ("profiles a, b").
func profileNames(def *model.Definition, cfg EvidenceConfig) string {
	ps := cfg.Profiles
	if ps == nil {
		ps = def.Configs
	}
	var n []string
	for _, p := range ps {
		n = append(n, p.Name)
	}
	if len(n) == 0 {
		return "the default profile"
	}
	return "profiles " + strings.Join(n, ", ")
}

// ChangeTrigger is one change trigger with the fingerprint of what it
// covers in this dossier: a later dossier with another fingerprint for it
// reopens the release gate.
type ChangeTrigger struct {
	Name   string `json:"name"`
	Covers string `json:"covers"`
	SHA256 string `json:"sha256"`
}

// Dossier is the versioned fault dossier of the paper ("Let the injected
// path decide release"): the configured-system manifest, the specs of the
// fault kinds the evidence covers and the invariants, the declared stop conditions, the evidence (baseline and
// intervention runs, signatures, placements, pairs, coefficients,
// diagnoses, configuration variation), the coverage summary, the
// unresolved holds and the change triggers.
type Dossier struct {
	Version int `json:"version"`
	// MarkdownSHA256 is the SHA-256 (hex) of the bytes of the dossier.md
	// written beside the JSON; WriteDossier sets it.
	MarkdownSHA256  string                `json:"markdown_sha256"`
	Manifest        Manifest              `json:"manifest"`
	Faults          []DossierFault        `json:"faults"`
	Invariants      []model.UserInvariant `json:"invariants"`
	Stop            model.Stop            `json:"stop"`
	Evidence        *Evidence             `json:"evidence"`
	Coverage        coverageSummary       `json:"coverage"`
	UnresolvedHolds []Hold                `json:"unresolved_holds"`
	ChangeTriggers  []ChangeTrigger       `json:"change_triggers"`
	// ReleaseVerdicts are the one release verdict of each profile: its
	// release envelope's decision over all configurations (the envelope
	// gates a release; the assay's pooled assessment does not).
	ReleaseVerdicts []ReleaseVerdict `json:"release_verdicts,omitempty"`
}

// ReleaseVerdict is a profile's release verdict: its region and decision
// in the release envelope, and the first reason.
type ReleaseVerdict struct {
	Profile  string `json:"profile"`
	Region   Region `json:"region"`
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// releaseVerdicts returns the base study's placement of each profile over
// all configurations.
func releaseVerdicts(st *Study) []ReleaseVerdict {
	out := []ReleaseVerdict{}
	for _, p := range st.Placements {
		if p.Config != "all" {
			continue
		}
		v := ReleaseVerdict{Profile: p.Profile, Region: p.Region, Decision: p.Decision}
		if len(p.Reasons) > 0 {
			v.Reason = p.Reasons[0]
		}
		out = append(out, v)
	}
	return out
}

func jsonOf(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("assay: encoding plain data: " + err.Error())
	}
	return b
}

// DossierFault is a fault kind's spec as a dossier records it: the
// catalogue's spec and the system's declared defence against it
// (Definition.Defences and Defect): the nominated controls and the seeded
// defect that lacks the behaviour defending against it.
type DossierFault struct {
	model.FaultSpec
	Nominated []string `json:"nominated"`
	Mutant    string   `json:"counterfactual_mutant,omitempty"`
}

// dossierFaults returns specs with the system's defences.
func (s *system) dossierFaults(specs []model.FaultSpec) []DossierFault {
	out := make([]DossierFault, len(specs))
	for i, spec := range specs {
		n, m := s.defences(spec.Kind)
		out[i] = DossierFault{FaultSpec: spec, Mutant: m}
		if len(n) > 0 {
			out[i].Nominated = s.namesOf(n)
		}
	}
	return out
}

// BuildDossier gathers the evidence of cfg on def and assembles its
// dossier. It returns Gather's errors.
func BuildDossier(def *model.Definition, cfg EvidenceConfig) (*Dossier, error) {
	tr, err := coverage.NewTracker(nil, def)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	var recErr error
	var mu sync.Mutex
	ev, err := gather(def, cfg, func(res *model.Result) {
		if err := tr.Record(res); err != nil {
			mu.Lock()
			if recErr == nil {
				recErr = err
			}
			mu.Unlock()
		}
	})
	if err != nil {
		return nil, err
	}
	if recErr != nil {
		return nil, recErr
	}
	sys, err := newSystem(def)
	if err != nil {
		return nil, err
	}
	profs, err := sys.profiles(cfg.Profiles)
	if err != nil {
		return nil, err
	}
	setup := sys.setup(cfg.Base)
	cat := sys.dossierFaults(model.Catalogue())
	covered := []DossierFault{}
	for _, spec := range cat {
		if spec.Paper || !cfg.Compat {
			covered = append(covered, spec)
		}
	}
	conf := ConfigManifest{System: def.Name, Fixture: setup.Fixture.Name, Options: cfg.Base.Options,
		Trials: cfg.Trials, Seed: cfg.Seed, Compat: cfg.Compat, Variation: cfg.Variation, Envelope: cfg.Envelope}
	if conf.Variation == nil {
		conf.Variation = Variation{}
	}
	for _, p := range profs {
		conf.Profiles = append(conf.Profiles, profileManifest{Profile: p.name, Controls: sys.names(p.cs)})
	}
	d := &Dossier{Version: dossierVersion, Faults: covered, Invariants: model.Invariants, Stop: cfg.Base.Options.Stop, Evidence: ev,
		Coverage: coverageOf(def, cfg, tr.Data()), ReleaseVerdicts: releaseVerdicts(ev.Base), UnresolvedHolds: append([]Hold{}, ev.Base.Holds...)}
	d.Manifest = Manifest{Module: buildModule(), CatalogueSHA256: sha(string(jsonOf(cat))), CatalogueKinds: len(cat), CoveredKinds: len(covered),
		Configuration: conf, ConfigurationSHA256: sha(string(jsonOf(conf))), FixtureSHA256: sha(string(jsonOf(setup.Fixture)))}
	seen := map[string]bool{}
	for _, st := range []*Study{ev.Base, ev.Variation} {
		for _, s := range st.Schedules {
			if !seen[s.SHA256] {
				seen[s.SHA256] = true
				d.Manifest.Schedules = append(d.Manifest.Schedules, s)
			}
		}
	}
	// static facts behind each trigger, then the behavioural fingerprints
	specs := map[string][]DossierFault{}
	for _, s := range covered {
		for _, t := range specTriggers(s.FaultSpec) {
			specs[t] = append(specs[t], s)
		}
	}
	static := map[string]string{
		triggerToolSemantics: typeSchema(reflect.TypeFor[model.ToolCall]()) + typeSchema(reflect.TypeFor[model.ToolResult]()),
		triggerStateSchema: typeSchema(reflect.TypeFor[model.Checkpoint]()) + typeSchema(reflect.TypeFor[model.Subject]()) +
			typeSchema(reflect.TypeFor[model.Policy]()) + typeSchema(reflect.TypeFor[model.Capability]()) +
			typeSchema(reflect.TypeFor[model.LedgerEntry]()) + typeSchema(reflect.TypeFor[model.EvidenceRecord]()) +
			typeSchema(reflect.TypeFor[model.Action]()) + typeSchema(reflect.TypeFor[model.Task]()) +
			typeSchema(reflect.TypeFor[model.JoinRecord]()),
		triggerPolicy:          string(jsonOf(setup.Fixture)) + string(jsonOf(conf.Profiles)),
		triggerRetryLogic:      string(jsonOf(cfg.Base.Options)) + string(jsonOf(conf.Variation)),
		triggerOrchestration:   def.Name,
		triggerEvidenceRouting: string(jsonOf(model.Invariants)),
	}
	for _, t := range triggers {
		d.ChangeTriggers = append(d.ChangeTriggers, ChangeTrigger{Name: t.Name, Covers: t.Covers,
			SHA256: sha(static[t.Name], string(jsonOf(specs[t.Name])), ev.Base.Fingerprints[t.Name], ev.Variation.Fingerprints[t.Name])})
	}
	return d, nil
}

// WriteDossier writes d into dir (created if missing) as dossier.md and
// dossier.json, the JSON naming the Markdown's SHA-256, and each
// composition witness's schedule as composition-CONTROL.json (the file its
// replay commands name). Every file is first written and synced to a
// temporary file in dir (a failure there changes nothing); then the
// witnesses, the Markdown and last the JSON are renamed into place, so an
// interrupted write leaves a JSON whose hash the Markdown beside it does
// not match, which readDossier refuses. Files have mode 0644; d is not
// changed.
func WriteDossier(dir string, d *Dossier) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var j, m bytes.Buffer
	if err := d.WriteMarkdown(&m); err != nil {
		return err
	}
	h := sha256.Sum256(m.Bytes())
	named := *d
	named.MarkdownSHA256 = hex.EncodeToString(h[:])
	if err := writeJSON(&j, &named); err != nil {
		return err
	}
	var files []fileio.File
	if d.Evidence != nil {
		for _, c := range d.Evidence.Compositions {
			if c.Schedule != nil {
				files = append(files, fileio.File{Path: filepath.Join(dir, c.file()), Data: model.Format(c.Schedule)})
			}
		}
	}
	files = append(files, fileio.File{Path: filepath.Join(dir, "dossier.md"), Data: m.Bytes()},
		fileio.File{Path: filepath.Join(dir, "dossier.json"), Data: j.Bytes()})
	return fileio.WriteFiles(files...)
}

// readDossier reads a dossier.json (or a directory holding one) and
// returns its parsed JSON and change triggers. The file must be a regular
// file of at most fileio.DossierLimit bytes (else an error matching
// fileio.ErrBadInput) and decode strictly as a Dossier. An error names a
// missing, empty or malformed file, a missing or unsupported version, a
// version 2 dossier whose "markdown_sha256" is invalid or differs from
// the Markdown's beside it, an unknown, misspelt or repeated key, and
// missing, incomplete or repeated change triggers.
func readDossier(path string) (any, []ChangeTrigger, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, "dossier.json")
	}
	data, err := fileio.ReadFile(path, fileio.DossierLimit)
	if err != nil {
		return nil, nil, err
	}
	if err := strictjson.Validate(data); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	var head struct {
		Version        *int    `json:"version"`
		MarkdownSHA256 *string `json:"markdown_sha256"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if head.Version == nil {
		return nil, nil, fmt.Errorf(`%s: missing "version" (want %d): not a dossier`, path, dossierVersion)
	}
	if *head.Version < 1 || *head.Version > dossierVersion {
		return nil, nil, fmt.Errorf("%s: unsupported dossier version %d (want 1 to %d)", path, *head.Version, dossierVersion)
	}
	if *head.Version >= 2 {
		if err := checkMarkdown(path, head.MarkdownSHA256); err != nil {
			return nil, nil, err
		}
	}
	var d Dossier
	if *head.Version < 3 {
		// the evidence of versions 1 and 2 named its first study otherwise:
		// it is read as JSON, the rest strictly
		var old legacyDossier
		if err := strictjson.Decode(data, &old); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		d.ChangeTriggers = old.ChangeTriggers
	} else if err := strictjson.Decode(data, &d); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(d.ChangeTriggers) == 0 {
		return nil, nil, fmt.Errorf(`%s: no "change_triggers": not a complete dossier`, path)
	}
	names := map[string]bool{}
	for i, t := range d.ChangeTriggers {
		switch {
		case t.Name == "":
			return nil, nil, fmt.Errorf(`%s: change_triggers[%d] has no "name"`, path, i)
		case t.Covers == "":
			return nil, nil, fmt.Errorf(`%s: change trigger %q has no "covers"`, path, t.Name)
		case t.SHA256 == "":
			return nil, nil, fmt.Errorf(`%s: change trigger %q has no "sha256" (its fingerprint)`, path, t.Name)
		case names[t.Name]:
			return nil, nil, fmt.Errorf(`%s: change trigger %q is listed twice`, path, t.Name)
		}
		names[t.Name] = true
	}
	var all any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&all); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return all, d.ChangeTriggers, nil
}

// legacyDossier is a dossier of versions 1 and 2 with its evidence as
// JSON.
type legacyDossier struct {
	Version         int                   `json:"version"`
	MarkdownSHA256  string                `json:"markdown_sha256"`
	Manifest        Manifest              `json:"manifest"`
	Faults          []DossierFault        `json:"faults"`
	Invariants      []model.UserInvariant `json:"invariants"`
	Stop            model.Stop            `json:"stop"`
	Evidence        json.RawMessage       `json:"evidence"`
	Coverage        coverageSummary       `json:"coverage"`
	UnresolvedHolds []Hold                `json:"unresolved_holds"`
	ChangeTriggers  []ChangeTrigger       `json:"change_triggers"`
}

// checkMarkdown checks a version 2 dossier's "markdown_sha256" and, when
// the Markdown beside the JSON at path exists, that its hash is the one
// named.
func checkMarkdown(path string, named *string) error {
	if named == nil {
		return fmt.Errorf(`%s: missing "markdown_sha256" (a dossier of version 2 or later names its Markdown's hash)`, path)
	}
	if b, err := hex.DecodeString(*named); err != nil || len(b) != sha256.Size {
		return fmt.Errorf(`%s: "markdown_sha256" is %q, not 64 hexadecimal digits`, path, *named)
	}
	md := strings.TrimSuffix(path, ".json") + ".md"
	data, err := fileio.ReadFile(md, fileio.DossierLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	h := sha256.Sum256(data)
	if got := hex.EncodeToString(h[:]); got != *named {
		return fmt.Errorf("%s and %s are not one dossier: the JSON names Markdown sha256 %s, the Markdown's is %s (an interrupted write or a replaced file; write the dossier again)",
			path, md, *named, got)
	}
	return nil
}

// TriggerChange is a change trigger whose fingerprint differs between two
// dossiers (or that one of them lacks).
type TriggerChange struct {
	Name string `json:"name"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// DossierDiff is what changed between two dossiers: the triggers that
// fired and a human-readable diff of their JSON (go-cmp's, which is
// deliberately unstable: show it, never store it).
type DossierDiff struct {
	Fired []TriggerChange
	Diff  string
}

// DiffDossiers compares the dossiers at oldPath and newPath (files or
// directories holding dossier.json). It returns readDossier's errors.
func DiffDossiers(oldPath, newPath string) (*DossierDiff, error) {
	a, ta, err := readDossier(oldPath)
	if err != nil {
		return nil, err
	}
	b, tb, err := readDossier(newPath)
	if err != nil {
		return nil, err
	}
	out := &DossierDiff{Diff: cmp.Diff(a, b, keyedSlices)}
	old := map[string]string{}
	for _, t := range ta {
		old[t.Name] = t.SHA256
	}
	now := map[string]string{}
	for _, t := range tb {
		now[t.Name] = t.SHA256
	}
	for _, name := range sortedKeys(unionKeys(old, now)) {
		if old[name] != now[name] {
			out.Fired = append(out.Fired, TriggerChange{Name: name, Old: old[name], New: now[name]})
		}
	}
	return out, nil
}

// keyedSlices compares JSON arrays as maps keyed by each element's
// identity (its profile, config, kind, name, term, invariant and sha256
// fields, or its index): a change shows at the element it concerns, and
// large dossiers diff in linear time instead of cmp's edit distance.
var keyedSlices = cmp.Transformer("keyed", func(xs []any) map[string]any {
	out := make(map[string]any, len(xs))
	for i, x := range xs {
		key := ""
		if m, ok := x.(map[string]any); ok {
			var parts []string
			for _, f := range []string{"profile", "config", "kind", "name", "term", "invariant", "dimension", "value", "sha256", "condition"} {
				if v, ok := m[f].(string); ok {
					parts = append(parts, f+"="+v)
				}
			}
			key = strings.Join(parts, " ")
		}
		if key == "" {
			key = fmt.Sprintf("#%04d", i)
		} else if _, dup := out[key]; dup {
			key = fmt.Sprintf("%s #%04d", key, i)
		}
		out[key] = x
	}
	return out
})

func unionKeys(a, b map[string]string) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

// WriteMarkdown writes the dossier as Markdown for a pull request.
func (d *Dossier) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	m := d.Manifest
	fmt.Fprintf(&b, "# Fault dossier (version %d)\n\n", d.Version)
	fmt.Fprintln(&b, "## Manifest")
	fmt.Fprintln(&b)
	mt := table{header: []string{"item", "value"}}
	mod := m.Module.Path + " " + m.Module.Version
	mt.add("module", strings.TrimSpace(mod))
	mt.add("go", m.Module.GoVersion)
	rev := m.Module.Revision
	if rev == "" {
		rev = "(none) " + m.Module.Note
	} else if m.Module.Modified != nil && *m.Module.Modified {
		rev += " (modified)"
	}
	mt.add("vcs revision", rev)
	mt.add("system / fixture", m.Configuration.System+" / "+m.Configuration.Fixture)
	mt.add("catalogue", fmt.Sprintf("%d kinds, sha256 %s", m.CatalogueKinds, m.CatalogueSHA256))
	mt.add("configuration sha256", m.ConfigurationSHA256)
	mt.add("fixture sha256", m.FixtureSHA256)
	mt.add("trials / seed / compat", fmt.Sprintf("%d / %d / %t", m.Configuration.Trials, m.Configuration.Seed, m.Configuration.Compat))
	o := m.Configuration.Options
	mt.add("options", fmt.Sprintf("retry budget %d, deadline %d ms, max restarts %d (0 = model default: 2, 2000 ms, 3)", o.RetryBudget, o.Deadline, o.MaxRestarts))
	for _, p := range m.Configuration.Profiles {
		mt.add("profile "+p.Profile, strings.Join(append([]string{"controls:"}, p.Controls...), " "))
	}
	for _, dim := range m.Configuration.Variation {
		vals := make([]string, len(dim.Levels))
		for i, l := range dim.Levels {
			vals[i] = l.Value
		}
		mt.add("variation "+dim.Name, strings.Join(vals, ", "))
	}
	for _, f := range m.Configuration.Envelope.Floors {
		mt.add("floor "+f.Term, fmt.Sprintf("%.0f%% (%s)", 100*f.Min, f.Scope))
	}
	mt.markdown(&b)
	fmt.Fprintf(&b, "\n%d schedules ran, each identified by the SHA-256 of its canonical encoding:\n\n", len(m.Schedules))
	st := table{header: []string{"sha256", "seed", "config", "faults"}}
	for _, s := range m.Schedules {
		st.add(s.SHA256, s.Seed, s.Config, s.Faults)
	}
	st.markdown(&b)
	fmt.Fprintln(&b, "\n## Fault specs")
	fmt.Fprintln(&b)
	fmt.Fprintf(&b, "The evidence covers %d of the catalogue's %d kinds. The defence is the nominated controls or, for a behaviour of the system, the seeded defect that lacks it.\n\n", m.CoveredKinds, m.CatalogueKinds)
	ft := table{header: []string{"kind", "domain", "event", "boundary", "phase", "correlation", "withheld", "oracle", "threatens", "defence", "change triggers"}}
	for _, f := range d.Faults {
		ft.add(f.Kind, string(f.Domain), fmt.Sprintf("%s#%d", f.Event, f.Ordinal), string(f.Boundary), string(f.Phase), string(f.Correlation),
			string(f.Signal), string(f.Oracle), strings.Join(f.Threatens, ", "), defenceOf(f.Nominated, f.Mutant), strings.Join(specTriggers(f.FaultSpec), ", "))
	}
	ft.markdown(&b)
	fmt.Fprintln(&b, "\n## Declared stop conditions")
	fmt.Fprintln(&b)
	s := d.Stop
	fmt.Fprintf(&b, "Declared before the runs: max effects %d, max faults %d, abort when %s is above %d, expiry %d logical ms (0 = none).\n",
		s.MaxEffects, s.MaxFaults, orNone(string(s.Abort)), s.AbortAbove, s.Expiry)
	fmt.Fprintln(&b, "\n## Baseline runs (no fault)")
	fmt.Fprintln(&b)
	bt := table{header: []string{"study", "profile", "config", "runs", "claim", "run verdict", "effects", "violated"}}
	for _, stdy := range []*Study{d.Evidence.Base, d.Evidence.Variation} {
		for _, r := range stdy.Baselines {
			bt.add(stdy.Name, r.Profile, r.Config, fmt.Sprint(r.Runs), string(r.Claim), string(r.RunVerdict), fmt.Sprint(r.Effects), orNone(strings.Join(r.Violated, ", ")))
		}
	}
	bt.markdown(&b)
	fmt.Fprintln(&b, "\nIntervention runs are summarised by the signatures below.")
	if err := d.Evidence.WriteMarkdown(&b, 2); err != nil {
		return err
	}
	if len(d.ReleaseVerdicts) > 0 {
		fmt.Fprintln(&b, "\n## Release verdict")
		fmt.Fprintln(&b)
		fmt.Fprintln(&b, "The release envelope gates a release: its decision is the one verdict of each profile. (The assay's pooled assessment, "+
			"one threshold per rate, is a synthetic screen: it has no per-domain proof floor and no interval, so it can pass where the envelope holds or shadows.)")
		fmt.Fprintln(&b)
		for _, v := range d.ReleaseVerdicts {
			fmt.Fprintf(&b, "- %s: **%s** (%s): %s\n", v.Profile, v.Decision, v.Region, orNone(v.Reason))
		}
	}
	// the unresolved holds are the evidence's section of that name
	if d.Coverage.Placeholder {
		fmt.Fprintln(&b, "\n## Coverage (placeholder)")
	} else {
		fmt.Fprintln(&b, "\n## Coverage")
	}
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, d.Coverage.Note+".")
	if d.Coverage.Config != "" {
		fmt.Fprintf(&b, "\nRecorded over %s.\n", d.Coverage.Config)
	}
	if d.Coverage.Available {
		fmt.Fprintln(&b, "\nThe catalogue's reachable keys not visited, each with its status and why:")
		fmt.Fprintln(&b)
		if len(d.Coverage.Unvisited) == 0 {
			fmt.Fprintln(&b, "None.")
		}
		for _, k := range d.Coverage.Unvisited {
			fmt.Fprintf(&b, "- `%s` (%s): %s\n", k.Key, strings.ReplaceAll(k.Status, "_", " "), k.Reason)
		}
	}
	fmt.Fprintln(&b, "\n## Change triggers")
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "A change to any of these reopens the release gate; `faultline dossier diff OLD NEW` exits 1 when a fingerprint differs.")
	fmt.Fprintln(&b)
	tt := table{header: []string{"trigger", "sha256", "covers"}}
	for _, t := range d.ChangeTriggers {
		tt.add(t.Name, t.SHA256, t.Covers)
	}
	tt.markdown(&b)
	fmt.Fprintf(&b, "\n%s\n", boundary)
	_, err := io.WriteString(w, b.String())
	return err
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
