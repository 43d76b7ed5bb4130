package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/internal/catalog"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/internal/outflag"
	"github.com/faultline/faultline/model"
)

// Limits of the audit's one-screen summary.
const (
	summaryLines = 40
	summaryWidth = 120
)

// auditRow is one single-fault run of an audit.
type auditRow struct {
	kind string
	// fired: the fault was reached and fired (tested); reached: it was
	// reached, fired or not
	fired, reached bool
	violated       []string
	res            *model.Result
}

// auditConfig is the audit of one named configuration.
type auditConfig struct {
	def  *model.Definition
	nc   model.NamedConfig
	rows []auditRow
}

// configsOf returns def's named configurations (Definition.Configs, or the
// one default).
func configsOf(def *model.Definition) []model.NamedConfig {
	if len(def.Configs) == 0 {
		return []model.NamedConfig{{Name: "default"}}
	}
	return def.Configs
}

// placeSingle returns the single-fault schedules of kind under cfg:
// those p (model.SingleFaults on the configuration's clean run) placed
// (one a tool for a kind at tool.commit when the run calls two or more
// tools), else, for a kind whose event the clean run never crosses, the
// kind's designed placement (model.SingleFault), which is never reached.
func placeSingle(kind string, cfg model.Config, p *model.Placements) ([]*model.Schedule, error) {
	var out []*model.Schedule
	for _, s := range p.Schedules {
		if s.Faults[0].Kind == kind {
			out = append(out, s)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	s, err := model.SingleFault(kind, cfg)
	if err != nil {
		return nil, err
	}
	return []*model.Schedule{s}, nil
}

// runAudit runs every catalogue kind def's path enacts (Definition.Enacts)
// once as a single fault under each of def's named configurations,
// recording coverage into t.
func runAudit(def *model.Definition, t *coverage.Tracker) ([]auditConfig, error) {
	var out []auditConfig
	for _, nc := range configsOf(def) {
		cfg := model.Config{System: nc.System}
		// the clean run SingleFaults places the faults on is the first to
		// configure the system: a configuration it refuses is bad input
		// from there
		p, err := model.SingleFaults(marking(def), "", cfg)
		if ce := (*configureError)(nil); errors.As(err, &ce) {
			err = ce.err
		}
		if err != nil {
			return nil, BadInput("configuration %q of %s: %v", nc.Name, def.Name, err)
		}
		if err := def.Check(cfg, model.Options{}); err != nil {
			return nil, BadInput("configuration %q of %s: %v", nc.Name, def.Name, err)
		}
		ac := auditConfig{def: def, nc: nc}
		for _, spec := range model.Catalogue() {
			if !catalog.Enacted(def, spec.Kind) {
				continue // reached, it could never fire
			}
			ss, err := placeSingle(spec.Kind, cfg, p)
			if err != nil {
				return nil, err
			}
			for _, s := range ss {
				res, err := replay(def, s)
				if err != nil {
					return nil, fmt.Errorf("configuration %q of %s, kind %s: %w", nc.Name, def.Name, spec.Kind, err)
				}
				if err := t.Record(res); err != nil {
					return nil, err
				}
				row := auditRow{kind: spec.Kind, fired: res.Faults[0].Reached && res.Faults[0].Fired > 0, reached: res.Faults[0].Reached, res: res}
				for _, inv := range res.Invariants {
					if !inv.Held {
						row.violated = append(row.violated, inv.Invariant)
					}
				}
				ac.rows = append(ac.rows, row)
			}
		}
		out = append(out, ac)
	}
	return out, nil
}

func (p *Program) auditCmd() *cobra.Command {
	var system, out, covFile string
	var ofmt *outflag.Flag
	c := &cobra.Command{
		Use:   "audit",
		Short: "Run every fault kind once under each named configuration and print one screen",
		Long: `Audit runs each registered system (or the one --system names) under each of
its named configurations (Definition.Configs; a system without any has one,
"default", its {} config): every kind of the fault catalogue once, as a
single-fault schedule (only the kinds its path enacts, Definition.Enacts, when
it lists them) at the kind's own event and default occurrence, or at
the last occurrence of that event the system's clean run crosses
(model.SingleFaults); a kind at tool.commit runs once per tool when the clean
run calls two or more tools, aimed at that tool's crossing. It prints one
screen (at most 40 lines of at most 120 characters): per configuration its
runs, the faults reached, those of them that fired and the runs that violated
an invariant; the worst findings with the command that replays each (with
--out DIR, which writes their schedules there); the coverage of the runs
(keys visited, faults not reached, keys never crossed by the system); and the
verdict.

The verdict: a configuration marked defended (NamedConfig.Defended) must hold
every invariant under every single fault; one that does not fails the audit.
A fault that was reached and did not fire tested nothing: the verdict counts
the single faults that fired, and how many were reached when more were.
Undefended configurations (a baseline, a planted bug) are reported, not
judged.

--coverage FILE (or FAULTLINE_COVERAGE=FILE) merges the runs' coverage into
FILE.

--format json (or --json) prints one object instead of the screen:
{"version": 2, "configurations": [{"system", "configuration", "defended",
"runs", "reached", "fired", "findings": [{"kind", "invariants", "tool",
"file", "replay"}]}]}, "reached" the runs whose fault was reached, "fired"
those of them whose fault fired (version 1's "reached" counted these), "tool"
when the fault was aimed at one tool, "file" and "replay" when --out wrote
the finding's schedule.

Exit codes: 0 every defended configuration held and at least one run's
fault fired; 1 a run under a defended configuration violated an invariant;
2 bad input (a configuration that does not apply to its system, a system
that checks no invariant, an unknown --system, production code: a
Definition with a Clock, which runs only in a test, through
properties.Check); 3 inconclusive: no run's fault fired; 4 an I/O or
internal error (the output, --out or --coverage could not be written).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			format, err := ofmt.Format(c)
			if err != nil {
				return BadInput("%v", err)
			}
			if out != "" {
				if err := writableDir("--out", out); err != nil {
					return err
				}
			}
			if err := CheckCoverageFile(coverageFlag(covFile), CoveragePath(covFile)); err != nil {
				return err
			}
			defs := p.Systems
			if system != "" {
				d, err := p.system(system)
				if err != nil {
					return err
				}
				defs = []*model.Definition{d}
			}
			for _, def := range defs {
				if err := runnable(def); err != nil {
					return err
				}
			}
			var all []auditConfig
			var data []*coverage.Data
			var evs []auditEvidence
			for _, def := range defs {
				t, err := p.tracker(def)
				if err != nil {
					return err
				}
				acs, err := runAudit(def, t)
				if err != nil {
					return err
				}
				ev, err := gatherEvidence(def)
				if err != nil {
					return err
				}
				all = append(all, acs...)
				data = append(data, t.Data())
				evs = append(evs, ev)
			}
			files := map[string]string{}
			if out != "" {
				if err := writeFindings(out, all, files); err != nil {
					return IOFailure(err)
				}
			}
			if format == "json" {
				err = p.writeAuditJSON(c.OutOrStdout(), all, files)
			} else {
				err = writeAuditSummary(c.OutOrStdout(), p.name(), all, data, evs, files)
			}
			if err != nil {
				return OutputError(err)
			}
			if path := CoveragePath(covFile); path != "" {
				for i, d := range data {
					t, err := p.tracker(defs[i])
					if err != nil {
						return err
					}
					t.Add(d)
					if err := FlushCoverage(t, path); err != nil {
						return err
					}
				}
			}
			return auditVerdict(all)
		},
	}
	if len(p.Systems) > 1 {
		c.Flags().StringVar(&system, "system", "", "audit only this registered system: "+strings.Join(p.systemNames(), ", "))
	}
	c.Flags().StringVar(&out, "out", "", "write the schedule of every finding into this directory")
	c.Flags().StringVar(&covFile, "coverage", "", "merge the audit's coverage into this file (default $"+CoverageEnv+")")
	ofmt = outflag.Add(c, "the audit", "text", "json")
	return c
}

// auditJSON is audit's --format json output.
type auditJSON struct {
	Version        int               `json:"version"`
	Configurations []auditConfigJSON `json:"configurations"`
}

type auditConfigJSON struct {
	System        string             `json:"system"`
	Configuration string             `json:"configuration"`
	Defended      bool               `json:"defended"`
	Runs          int                `json:"runs"`
	Reached       int                `json:"reached"`
	Fired         int                `json:"fired"`
	Findings      []auditFindingJSON `json:"findings"`
}

type auditFindingJSON struct {
	Kind       string   `json:"kind"`
	Invariants []string `json:"invariants"`
	// Tool is the tool the fault was aimed at (FaultEntry.Tool), absent
	// for a fault placed on every tool's crossings.
	Tool   string `json:"tool,omitempty"`
	File   string `json:"file,omitempty"`
	Replay string `json:"replay,omitempty"`
}

// writeAuditJSON writes the audit as one JSON object: per configuration
// its runs, the faults reached and the runs that violated an invariant,
// with the schedule file --out wrote and its replay command.
func (p *Program) writeAuditJSON(w io.Writer, all []auditConfig, files map[string]string) error {
	j := auditJSON{Version: 2, Configurations: []auditConfigJSON{}}
	for _, ac := range all {
		cj := auditConfigJSON{System: ac.def.Name, Configuration: ac.nc.Name, Defended: ac.nc.Defended, Runs: len(ac.rows), Findings: []auditFindingJSON{}}
		for _, r := range ac.rows {
			if r.reached {
				cj.Reached++
			}
			if r.fired {
				cj.Fired++
			}
			if len(r.violated) == 0 {
				continue
			}
			f := auditFindingJSON{Kind: r.kind, Invariants: r.violated, Tool: r.res.Faults[0].Tool}
			if path, ok := files[findingName(ac, r)]; ok {
				f.File, f.Replay = path, fmt.Sprintf(p.replayCommand(ac.def), path)
			}
			cj.Findings = append(cj.Findings, f)
		}
		j.Configurations = append(j.Configurations, cj)
	}
	return writeJSON(w, j)
}

// findingName is the file name of a finding's schedule.
func findingName(ac auditConfig, r auditRow) string {
	if tool := r.res.Faults[0].Tool; tool != "" {
		return fmt.Sprintf("%s-%s-%s-%s.json", ac.def.Name, ac.nc.Name, r.kind, tool)
	}
	return fmt.Sprintf("%s-%s-%s.json", ac.def.Name, ac.nc.Name, r.kind)
}

// writeFindings writes the schedule of every violating run into dir and
// records each file's path in files by its name.
func writeFindings(dir string, all []auditConfig, files map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, ac := range all {
		for _, r := range ac.rows {
			if len(r.violated) == 0 {
				continue
			}
			name := findingName(ac, r)
			path := filepath.Join(dir, name)
			if err := fileio.WriteAtomic(path, model.Format(r.res.Schedule)); err != nil {
				return err
			}
			files[name] = path
		}
	}
	return nil
}

// auditVerdict maps an audit onto the exit-code table.
func auditVerdict(all []auditConfig) error {
	rows, fired, reached := 0, 0, 0
	var broke []string
	for _, ac := range all {
		n := 0
		for _, r := range ac.rows {
			rows++
			if r.fired {
				fired++
			}
			if r.reached {
				reached++
			}
			if len(r.violated) > 0 {
				n++
			}
		}
		if ac.nc.Defended && n > 0 {
			broke = append(broke, fmt.Sprintf("%s/%s (%d runs)", ac.def.Name, ac.nc.Name, n))
		}
	}
	if len(broke) > 0 {
		return &ExitError{Code: ExitViolation, Err: fmt.Errorf("audit failed: an invariant broke under the defended configuration %s", strings.Join(broke, ", "))}
	}
	if rows > 0 && fired == 0 {
		return Inconclusive("inconclusive: %s", noneFired(rows, reached))
	}
	return nil
}

// WrapText returns s as one line when it fits in width characters, else
// broken at spaces into lines of at most width characters (a word longer
// than that stays whole), each after the first starting with indent.
func WrapText(s string, width int, indent string) []string {
	if len(s) <= width {
		return []string{s}
	}
	lead := s[:len(s)-len(strings.TrimLeft(s, " "))]
	var lines []string
	line := ""
	for i, w := range strings.Fields(s) {
		if i == 0 {
			w = lead + w
		}
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) > width:
			lines = append(lines, line)
			line = indent + w
		default:
			line += " " + w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// writeAuditSummary prints the audit on one screen: at most summaryLines
// lines of at most summaryWidth characters.
func writeAuditSummary(w io.Writer, prog string, all []auditConfig, data []*coverage.Data, evs []auditEvidence, files map[string]string) error {
	var head, mid, tail []string
	add := func(l *[]string, format string, args ...any) {
		*l = append(*l, WrapText(fmt.Sprintf(format, args...), summaryWidth, "    ")...)
	}
	var systems []string
	seen := map[string]bool{}
	for _, ac := range all {
		if !seen[ac.def.Name] {
			seen[ac.def.Name] = true
			systems = append(systems, ac.def.Name)
		}
	}
	each := "one single-fault run of each per configuration"
	kinds := map[string]bool{}
	for _, ac := range all {
		n := map[string]bool{}
		for _, r := range ac.rows {
			kinds[r.kind], n[r.kind] = true, true
		}
		if len(ac.rows) > len(n) && !strings.HasSuffix(each, " and tool") {
			each += " and tool"
		}
	}
	ofKinds := fmt.Sprintf("%d fault kinds", len(model.Catalogue()))
	if len(kinds) < len(model.Catalogue()) {
		ofKinds = fmt.Sprintf("%d enacted fault kinds", len(kinds)) // Definition.Enacts
	}
	add(&head, "%s audit: %s, %s, %s, %s",
		prog, strings.Join(systems, ", "), plural(len(all), "configuration"), ofKinds, each)
	head = append(head, "")
	add(&head, "Per configuration: single-fault runs, faults reached, of those fired, runs that violated an invariant:")
	width := 0
	for _, ac := range all {
		if n := len(ac.def.Name) + 1 + len(ac.nc.Name); n > width {
			width = n
		}
	}
	rows, unreached, unfired := 0, 0, 0
	notReached, notFired := map[string]int{}, map[string]int{}
	for _, ac := range all {
		v, r, f := 0, 0, 0
		for _, row := range ac.rows {
			rows++
			if row.reached {
				r++
			}
			switch {
			case row.fired:
				f++
			case row.reached:
				unfired++
				notFired[row.kind]++
			default:
				unreached++
				notReached[row.kind]++
			}
			if len(row.violated) > 0 {
				v++
			}
		}
		mark := "          "
		if ac.nc.Defended {
			mark = "defended  "
		}
		add(&head, "  %-*s  %s%3d runs  %3d reached  %3d fired  %3d violated", width, ac.def.Name+"/"+ac.nc.Name, mark, len(ac.rows), r, f, v)
	}
	// the tail: the release evidence, coverage, the kinds no configuration
	// reached, the verdict
	tail = append(tail, "")
	for _, e := range evs {
		st := e.ev.Base
		add(&tail, "Release evidence of %s (%d trials each, seed %d): %d signatures, %d pairs, "+
			"%d diagnoses, %d holds; placement:", e.def.Name, st.Trials, st.Seed, len(st.Signatures), len(st.Pairs), len(st.Diagnoses), len(st.Holds))
		for _, pl := range st.Placements {
			if pl.Config == "all" {
				add(&tail, "  %-*s  %-20s %s", width, e.def.Name+"/"+pl.Profile, pl.Region, pl.Decision)
			}
		}
	}
	if len(evs) > 0 {
		add(&tail, "The rest (signatures, pairs, reasons, diagnoses): %s dossier --out DIR writes it.", prog)
		tail = append(tail, "")
	}
	for i, d := range data {
		sum := coverage.NewReport(coverage.Default(), d, coverage.ReportOptions{}).Summary
		line := fmt.Sprintf("Coverage of %s by its %d runs: %s", systems[i], sum.Runs, universeLine(sum, "it"))
		add(&tail, "%s.", line)
	}
	var never, unfiredKinds []string
	for _, spec := range model.Catalogue() {
		switch {
		case notReached[spec.Kind] == len(all):
			never = append(never, spec.Kind)
		case notReached[spec.Kind]+notFired[spec.Kind] == len(all):
			unfiredKinds = append(unfiredKinds, spec.Kind)
		}
	}
	add(&tail, "Faults: of the %d runs' faults, %d not reached and %d reached but not fired; kinds reached under no configuration: %d%s; "+
		"kinds reached but fired under none: %d%s", rows, unreached, unfired, len(never), listOrNone(never), len(unfiredKinds), listOrNone(unfiredKinds))
	tail = append(tail, "")
	add(&tail, "Verdict: %s", verdictLine(all))

	// the middle: as many findings as fit, the defended configurations' first
	type finding struct {
		ac  auditConfig
		row auditRow
	}
	var fs []finding
	for _, defended := range []bool{true, false} {
		for _, ac := range all {
			if ac.nc.Defended != defended {
				continue
			}
			for _, r := range ac.rows {
				if len(r.violated) > 0 {
					fs = append(fs, finding{ac, r})
				}
			}
		}
	}
	mid = append(mid, "")
	if len(fs) == 0 {
		add(&mid, "Findings: no single-fault run violated an invariant.")
	} else {
		add(&mid, "Findings (single-fault runs that violated an invariant, defended configurations first):")
		room := summaryLines - len(head) - len(tail) - len(mid) - 2 // "and N more", the --out hint
		shown := 0
		for _, f := range fs {
			var l []string
			add(&l, "  %s/%s/%s at %s: %s violated", f.ac.def.Name, f.ac.nc.Name, f.row.kind, f.row.res.Faults[0].Placement(), strings.Join(f.row.violated, ", "))
			if path, ok := files[findingName(f.ac, f.row)]; ok {
				add(&l, "    %s replay %s", prog, path)
			}
			if len(l) > room {
				break
			}
			mid, room, shown = append(mid, l...), room-len(l), shown+1
		}
		if shown < len(fs) {
			add(&mid, "  and %d more", len(fs)-shown)
		}
		if len(files) == 0 {
			add(&mid, "  (pass --out DIR to write each finding's schedule, with the command that replays it)")
		}
	}
	var b strings.Builder
	for _, l := range append(append(head, mid...), tail...) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return ""
	}
	return " (" + strings.Join(l, ", ") + ")"
}

// verdictLine says what the audit's exit code says, and how many of the
// defended configurations' single faults fired (a fault reached that did
// not fire tested nothing) and were reached.
func verdictLine(all []auditConfig) string {
	defended, broke, rows, reached, fired, drows, dreached, dfired := 0, 0, 0, 0, 0, 0, 0, 0
	for _, ac := range all {
		bad := false
		for _, r := range ac.rows {
			rows++
			if r.reached {
				reached++
			}
			if r.fired {
				fired++
			}
			if ac.nc.Defended {
				drows++
				if r.reached {
					dreached++
				}
				if r.fired {
					dfired++
				}
			}
			bad = bad || len(r.violated) > 0
		}
		if ac.nc.Defended {
			defended++
			if bad {
				broke++
			}
		}
	}
	switch {
	case broke > 0:
		return fmt.Sprintf("FAILED: %d of the %s violated an invariant under a single fault.", broke, configurations(defended))
	case rows > 0 && fired == 0:
		return fmt.Sprintf("inconclusive: %s.", noneFired(rows, reached))
	case defended == 0:
		return "no configuration is marked defended: the findings are reported, not judged."
	case dfired < drows:
		// the faults line above names the kinds not reached or not fired
		// a fault reached that did not fire tested nothing: said when
		// there is one
		also := ""
		if dreached > dfired {
			also = fmt.Sprintf("; %d reached", dreached)
		}
		return fmt.Sprintf("held: the %s held every invariant under the %d of its %d single faults that fired%s.", configurations(defended), dfired, drows, also)
	}
	return fmt.Sprintf("held: the %s held every invariant under every single fault.", configurations(defended))
}

// noneFired says that none of an audit's rows single-fault runs fired
// its fault, of which reached reached it.
func noneFired(rows, reached int) string {
	if reached == 0 {
		return fmt.Sprintf("none of the audit's %d single-fault runs reached its fault: the audit tested no fault", rows)
	}
	return fmt.Sprintf("none of the audit's %d single-fault runs fired its fault (%d reached it): the audit tested no fault", rows, reached)
}

// plural counts n of a noun ("1 configuration", "3 configurations").
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// configurations counts n defended configurations in words.
func configurations(n int) string {
	if n == 1 {
		return "1 defended configuration"
	}
	return fmt.Sprintf("%d defended configurations", n)
}
