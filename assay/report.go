package assay

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// fmtTerm prints a term as "count rate [lo, hi]".
func fmtTerm(t Term) string {
	return fmt.Sprintf("%d %5.1f%% [%.1f, %.1f]", t.Count, 100*t.Rate, 100*t.Interval.Lo, 100*t.Interval.Hi)
}

func fmtT(x float64) string {
	if x == 0 {
		return "0"
	}
	return fmt.Sprintf("%+.3f", x)
}

// table is a report table: a header and rows, printed as aligned text or
// as a Markdown table.
type table struct {
	header []string
	rows   [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) text(w io.Writer, indent string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, indent+strings.Join(t.header, "\t"))
	for _, r := range t.rows {
		fmt.Fprintln(tw, indent+strings.Join(r, "\t"))
	}
	tw.Flush()
}

func (t *table) markdown(w io.Writer) {
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	h := make([]string, len(t.header))
	for i, x := range t.header {
		h[i] = esc(x)
	}
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(h, " | "), strings.Repeat(" --- |", len(t.header)))
	for _, r := range t.rows {
		c := make([]string, len(r))
		for i, x := range r {
			c[i] = esc(x)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(c, " | "))
	}
}

// section is one titled part of the evidence report.
type section struct {
	title  string
	intro  []string
	tables []namedTable
	notes  []string
}

type namedTable struct {
	name string
	t    table
}

func (s *Study) signatureTables() []namedTable {
	var out []namedTable
	var cur *namedTable
	for _, sig := range s.Signatures {
		name := fmt.Sprintf("profile %s (controls: %s)", sig.Profile, sig.Controls)
		if cur == nil || cur.name != name {
			out = append(out, namedTable{name: name, t: table{header: []string{"kind", "boundary/phase", "config", "n", "detect", "contain", "recover", "prove", "serve"}}})
			cur = &out[len(out)-1]
		}
		q := sig.Q
		cur.t.add(sig.Kind, string(sig.Boundary)+"/"+string(sig.Phase), sig.Config, fmt.Sprint(sig.Trials),
			fmtTerm(q.Detect), fmtTerm(q.Contain), fmtTerm(q.Recover), fmtTerm(q.Prove), fmtTerm(q.Serve))
	}
	return out
}

func (s *Study) aggregateTable() table {
	t := table{header: []string{"profile", "domain", "config", "n", "detect", "contain", "recover", "prove", "serve", "worst critical class (contain, prove, recover, serve, detect)"}}
	for _, a := range s.Aggregates {
		worst := "-"
		if a.WorstClass != nil {
			worst = a.WorstClass.Kind + " under " + a.WorstClass.Config
		}
		q := a.Q
		t.add(a.Profile, a.Domain, a.Config, fmt.Sprint(a.Trials), fmtTerm(q.Detect), fmtTerm(q.Contain), fmtTerm(q.Recover), fmtTerm(q.Prove), fmtTerm(q.Serve), worst)
	}
	return t
}

func (s *Study) placementTable() table {
	t := table{header: []string{"profile", "config", "n", "region", "decision"}}
	for _, p := range s.Placements {
		t.add(p.Profile, p.Config, fmt.Sprint(p.Trials), string(p.Region), p.Decision)
	}
	return t
}

func (s *Study) placementNotes() []string {
	var out []string
	for _, p := range s.Placements {
		for _, r := range p.Reasons {
			out = append(out, fmt.Sprintf("%s (%s): %s", p.Profile, p.Config, r))
		}
	}
	return out
}

// defenceOf names a kind's declared defence: its nominated controls joined
// by "+", and "behaviour (defect M)" when the defence is a behaviour of the
// system that the seeded defect M lacks.
func defenceOf(nominated []string, mutant string) string {
	var parts []string
	if len(nominated) > 0 {
		parts = append(parts, strings.Join(nominated, "+"))
	}
	if mutant != "" {
		parts = append(parts, "behaviour (defect "+mutant+")")
	}
	return strings.Join(parts, " and ")
}

func (s *Study) pairTable() (table, []string) {
	t := table{header: []string{"profile", "config", "kind", "defence", "class", "as predicted", "off (violated)", "on (verdict)"}}
	var notes []string
	for _, p := range s.Pairs {
		off := strings.Join(p.Contrast.Off.Violated, ",")
		if off == "" {
			off = "held"
		}
		t.add(p.Profile, p.Config, p.Kind, defenceOf(p.Nominated, p.Mutant), string(p.Contrast.Class), yesNo(p.Predicted), off, string(p.Contrast.On.RunVerdict))
		if p.Contrast.Class != LeverageShown {
			notes = append(notes, fmt.Sprintf("%s/%s (%s): %s", p.Profile, p.Kind, p.Config, p.Contrast.Reason))
		}
		for _, f := range p.PerControl {
			notes = append(notes, fmt.Sprintf("%s/%s (%s), %s alone: %s: %s", p.Profile, p.Kind, p.Config, f.part(), f.Contrast.Class, f.Finding))
		}
	}
	return t, notes
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func (s *Study) coefficientTables() []namedTable {
	var out []namedTable
	var invs []string
	for _, c := range s.Coefficients {
		found := false
		for _, x := range invs {
			found = found || x == c.Invariant
		}
		if !found {
			invs = append(invs, c.Invariant)
		}
	}
	var cur *namedTable
	row := map[string][]string{}
	var order []string
	flush := func() {
		for _, k := range order {
			cur.t.add(row[k]...)
		}
		row, order = map[string][]string{}, nil
	}
	for _, c := range s.Coefficients {
		name := fmt.Sprintf("profile %s", c.Profile)
		if cur == nil || cur.name != name {
			if cur != nil {
				flush()
			}
			h := append([]string{"kind", "config", "runs"}, invs...)
			out = append(out, namedTable{name: name, t: table{header: h}})
			cur = &out[len(out)-1]
		}
		key := c.Kind + "\x00" + c.Config
		if _, ok := row[key]; !ok {
			order = append(order, key)
			row[key] = []string{c.Kind, c.Config, fmt.Sprintf("%d/%d", c.Runs, c.BaselineRuns)}
		}
		row[key] = append(row[key], fmt.Sprintf("%s (%d/%d - %d/%d)", fmtT(c.T), c.Violations, c.Runs, c.BaselineViolations, c.BaselineRuns))
	}
	if cur != nil {
		flush()
	}
	return out
}

func (s *Study) diagnosisNotes() []string {
	var out []string
	for _, d := range s.Diagnoses {
		c := strings.Join(d.Control, "+")
		if c == "" {
			c = "none"
		}
		out = append(out, fmt.Sprintf("%s/%s (%s, %d trials): %s false first at seq %d (%s#%d, boundary %s): %s. Earliest signal: %s. Control that interrupts: %s. Missing evidence: %s. Remediation: %s (%s).",
			d.Profile, d.Kind, d.Config, d.Trials, d.Invariant, d.FirstSeq, d.FirstEvent, d.FirstOrdinal, d.FirstBoundary, d.Detail,
			d.Signal.Text, c, strings.Join(d.Missing, "; "), d.Remediation, d.Why))
	}
	return out
}

func (s *Study) worstConfigTable() table {
	t := table{header: []string{"profile", "kind", "worst config", "of", "contain", "prove", "recover", "serve", "detect", "configuration matters"}}
	for _, w := range s.WorstConfigs {
		q := w.Q
		t.add(w.Profile, w.Kind, w.Config, fmt.Sprint(w.Configs), fmtTerm(q.Contain), fmtTerm(q.Prove), fmtTerm(q.Recover), fmtTerm(q.Serve), fmtTerm(q.Detect), yesNo(!w.AllEqual))
	}
	return t
}

func (s *Study) holdNotes() []string {
	var out []string
	for _, h := range s.Holds {
		out = append(out, fmt.Sprintf("%s/%s (%s): %d trials held with %d ledger effect(s): %s", h.Profile, h.Kind, h.Config, h.Trials, h.Effects, h.Reason))
	}
	return out
}

// sections returns the evidence report's sections in order.
func (e *Evidence) sections() []section {
	ref, vary := e.Base, e.Variation
	head := fmt.Sprintf("%s study: system %s, %d trials per profile, seed %d, configurations: %s; %d distinct model runs.",
		ref.Name, ref.System, ref.Trials, ref.Seed, strings.Join(ref.Configurations, "; "), ref.Runs)
	pairs, pairNotes := ref.pairTable()
	var stops []string
	for _, st := range []*Study{ref, vary} {
		for _, c := range st.Stops {
			stops = append(stops, fmt.Sprintf("%s study, %s: %d runs stopped by %s", st.Name, c.Profile, c.Runs, c.Condition))
		}
	}
	if len(stops) == 0 {
		stops = []string{"no trial run met a declared stop condition"}
	}
	for _, st := range []*Study{ref, vary} {
		for _, ps := range st.PairStops {
			v := strings.Join(ps.Violated, ", ")
			if v == "" {
				v = "none"
			}
			stops = append(stops, fmt.Sprintf("%s study, counterfactual pair %s/%s (%s), %s run: stopped by %s; violated by then: %s",
				st.Name, ps.Profile, ps.Kind, ps.Config, ps.Side, ps.Condition, v))
		}
	}
	on := "the configuration"
	if len(e.Compositions) > 0 {
		on = e.Compositions[0].Profile
	}
	secs := []section{
		{title: "Fault-transfer signatures", intro: []string{head,
			"Q = (detect, contain, recover, prove, serve) per typed fault, each as count, rate and 95 % Wilson score interval; never averaged into one score."},
			tables: append(ref.signatureTables(), namedTable{name: "pooled, with the worst critical class", t: ref.aggregateTable()})},
		{title: "Release envelope", intro: []string{"Hard invariants: zero unsafe escape, zero duplicate effect, zero wrong-subject effect, zero recovery-contract violation, zero unproved release; floors as declared."},
			tables: []namedTable{{t: ref.placementTable()}}, notes: ref.placementNotes()},
		{title: "Counterfactual containment pairs", intro: []string{"on = the profile with the kind's declared defence, off = the profile without it: without its nominated controls, or with the seeded defect that lacks the defending behaviour; schedule, fixture, options and oracle fixed."},
			tables: []namedTable{{t: pairs}}, notes: pairNotes},
		{title: "Composition pairs", intro: []string{"For each control of " + on + ", ordered compositions of two or more faults drawn for the pair " + on + " (on) against " + on + " without the control (off); " +
			"the first under which off violates and on holds is reduced as a pair, every step keeping both, to a schedule whose every fault is needed."},
			notes: compositionNotes(e.Compositions)},
		{title: "Fault-transfer coefficients", intro: []string{"T_ij = P(violation j | do(fault i)) - P(violation j | no fault) over matched runs: T (violations/runs - baseline violations/baseline runs)."},
			tables: ref.coefficientTables()},
		{title: "Diagnoses of counterexamples", notes: ref.diagnosisNotes()},
		{title: "Unresolved holds", notes: ref.holdNotes()},
		{title: "Stop conditions", notes: stops},
		{title: "Configuration variation", intro: []string{fmt.Sprintf("%s study: each trial's configuration drawn alongside its fault from: %s; %d distinct model runs.",
			vary.Name, strings.Join(vary.Configurations, "; "), vary.Runs)},
			tables: []namedTable{{name: "worst configuration per critical fault", t: vary.worstConfigTable()}, {name: "placements per configuration", t: vary.placementTable()}},
			notes:  append(vary.leverageSummary(), vary.placementNotesFor("all")...)},
	}
	if len(secs[3].notes) == 0 {
		secs[3].notes = []string{"not explored"}
	}
	if len(secs[5].notes) == 0 {
		secs[5].notes = []string{"no counterexample: every invariant held in every run"}
	}
	if len(secs[6].notes) == 0 {
		secs[6].notes = []string{"none"}
	}
	return secs
}

// leverageSummary summarises a study's pairs: how many show leverage, and
// the reasons of those that do not.
func (s *Study) leverageSummary() []string {
	n := 0
	var bad []string
	for _, p := range s.Pairs {
		if p.Contrast.Class == LeverageShown {
			n++
		} else {
			bad = append(bad, fmt.Sprintf("%s/%s (%s): %s: %s", p.Profile, p.Kind, p.Config, p.Contrast.Class, p.Contrast.Reason))
		}
	}
	return append([]string{fmt.Sprintf("pairs across configurations: %d of %d show leverage", n, len(s.Pairs))}, bad...)
}

func (s *Study) placementNotesFor(config string) []string {
	var out []string
	for _, p := range s.Placements {
		if p.Config == config {
			out = append(out, fmt.Sprintf("%s over all configurations: %s (%s)", p.Profile, p.Region, p.Decision))
		}
	}
	return out
}

// WriteText prints the evidence for people: signatures with intervals,
// pooled aggregates with the worst critical class, the region of each
// profile with its reasons, the pairs, the coefficients, the diagnoses,
// the unresolved holds, the stop conditions met and the configuration
// variation.
func (e *Evidence) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, s := range e.sections() {
		fmt.Fprintf(&b, "\n== %s\n", s.title)
		for _, l := range s.intro {
			fmt.Fprintln(&b, l)
		}
		for _, t := range s.tables {
			if t.name != "" {
				fmt.Fprintf(&b, "-- %s\n", t.name)
			}
			t.t.text(&b, "")
		}
		for _, n := range s.notes {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown prints the same sections as WriteText as Markdown, headed
// at level (2 gives "##").
func (e *Evidence) WriteMarkdown(w io.Writer, level int) error {
	var b strings.Builder
	h := strings.Repeat("#", level)
	for _, s := range e.sections() {
		fmt.Fprintf(&b, "\n%s %s\n\n", h, s.title)
		for _, l := range s.intro {
			fmt.Fprintf(&b, "%s\n\n", l)
		}
		for _, t := range s.tables {
			if t.name != "" {
				fmt.Fprintf(&b, "**%s**\n\n", t.name)
			}
			t.t.markdown(&b)
			fmt.Fprintln(&b)
		}
		for _, n := range s.notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
