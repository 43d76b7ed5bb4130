package coverage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteJSON writes the report as one indented JSON object with a trailing
// newline: "version", "summary", "keys", "unvisited", "unreachable",
// "marginals", "pairwise", "heatmaps", "unattributed_counterexamples".
func (r *Report) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("coverage report: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// headline is the report's first line.
func (r *Report) headline() string { return "Coverage: " + r.Summary.VisitedText() }

// VisitedText says the visited keys over the systems' universe with the
// ratio, as a report's headline does: "17 of 22 keys the systems can
// reach visited (77.3%; 39 reachable by the catalogue, 17 left out, each
// with why)", or "39 of 39 reachable keys visited (100.0%)" when no
// reachable key is left out.
func (s Summary) VisitedText() string {
	if s.Applicable != s.Reachable {
		return fmt.Sprintf("%s visited (%s; %d reachable by the catalogue, %d left out, each with why)", s.over(), pct(s.Ratio), s.Reachable, s.Reachable-s.Applicable)
	}
	return fmt.Sprintf("%s visited (%s)", s.over(), pct(s.Ratio))
}

// over is "V of U keys the systems can reach", or "V of R reachable keys"
// when the universe is every reachable key.
func (s Summary) over() string {
	if s.Applicable != s.Reachable {
		return fmt.Sprintf("%d of %d keys the systems can reach", s.Visited, s.Applicable)
	}
	return fmt.Sprintf("%d of %d reachable keys", s.Visited, s.Reachable)
}

// systemsLine names the file's systems with their runs, crossed events
// and declared boundaries.
func (r *Report) systemsLine() string {
	var p []string
	for _, sy := range r.Systems {
		x := fmt.Sprintf("%s (%s, %d events crossed", sy.Name, runs(sy.Runs), len(sy.Crossed))
		if len(sy.NotApplicable) > 0 {
			x += "; no " + strings.Join(strs(sy.NotApplicable), ", ")
		}
		if n := len(sy.NotApplicableKeys); n > 0 {
			x += fmt.Sprintf("; %d key pattern%s not applicable", n, map[bool]string{true: "s"}[n > 1])
		}
		if sy.Enacts != nil {
			x += fmt.Sprintf("; its path enacts %d kinds", len(sy.Enacts))
		}
		p = append(p, x+")")
	}
	return "systems: " + strings.Join(p, ", ")
}

// counts are the report's summary lines after the headline.
func (r *Report) counts() []string {
	s := r.Summary
	lines := []string{
		fmt.Sprintf("%d keys in all: %d reachable by the catalogue, %d unreachable (each group below gives its reason)", s.Keys, s.Reachable, s.Unreachable),
		fmt.Sprintf("visited keys: %d violated an invariant, %d held; unvisited reachable keys: %d scheduled but not reached, %d never tried", s.Violated, s.Held, s.NotReached, s.NeverTried),
		fmt.Sprintf("runs %d (%d not adjudicated); fault visits %d, scheduled not reached %d, reached not fired %d; counterexamples %d", s.Runs, s.NotAdjudicated, s.Visits, s.FaultsNotReached, s.FaultsNotFired, s.Counterexamples),
		fmt.Sprintf("pairwise (t = 2): %d of %d reachable value pairs covered (%s; %d pairs possible)", s.PairsCovered, s.PairsReachable, pct(s.PairRatio), s.PairsPossible),
	}
	if len(r.Systems) > 0 && !s.Crossings {
		lines = append(lines, fmt.Sprintf("crossings unknown for %d of %d runs (recorded without their timelines): no key is reported never crossed", s.Runs-s.Traced, s.Runs),
			r.systemsLine())
	}
	if s.Crossings {
		lines = append(lines, fmt.Sprintf("left out of the systems' universe and of the ratio: %d never crossed, %d not applicable (declared), %d not enacted by their path, %d exploration does not draw (a modifier, or a kind on that workload)", s.NeverCrossed, s.NotApplicable, s.NotEnacted, s.NotDrawn),
			r.systemsLine())
	} else if s.NotApplicable+s.NotEnacted+s.NotDrawn > 0 {
		lines = append(lines, fmt.Sprintf("left out of the systems' universe and of the ratio: %d not applicable (declared), %d not enacted by their path, %d exploration does not draw (a modifier, or a kind on that workload)", s.NotApplicable, s.NotEnacted, s.NotDrawn))
	}
	if s.Outside > 0 {
		lines = append(lines, fmt.Sprintf("%d recorded keys are outside this catalogue (not counted as reachable)", s.Outside))
	}
	return lines
}

func cxLine(c counterexampleRow) string {
	return fmt.Sprintf("%s violated in %s: first false after seq %d (%s): %s", c.Invariant, runs(c.Count), c.FirstSeq, c.Event, c.Detail)
}

func runs(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

func cxSummary(cs []counterexampleRow) string {
	if len(cs) == 0 {
		return "-"
	}
	var p []string
	for _, c := range cs {
		p = append(p, fmt.Sprintf("%s ×%d", c.Invariant, c.Count))
	}
	return strings.Join(p, ", ")
}

func marginalCell(v marginalValue) string {
	if v.Reachable == 0 {
		return v.Value + " -"
	}
	return fmt.Sprintf("%s %d/%d", v.Value, v.Visited, v.Reachable)
}

// WriteText writes the report for a terminal: the summary, a table of the
// reachable keys with their status and counterexamples, the
// counterexamples beside their keys with replay commands, the unvisited
// reachable keys with reasons, marginals, pairwise coverage, and every
// unreachable key grouped by reason.
func (r *Report) WriteText(w io.Writer) error {
	var b bytes.Buffer
	r.textSummary(&b)
	fmt.Fprintln(&b, "\nKeys (domain/boundary/phase/correlation/oracle):")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  key\tkinds\tstatus\tvisits\tnot_reached\tnot_fired\tcounterexamples")
	for _, k := range r.Keys {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%d\t%d\t%s\n", k.Key, strings.Join(k.Kinds, ","), k.Status, k.Visits, k.NotReached, k.NotFired, cxSummary(k.Counterexamples))
	}
	tw.Flush()
	if r.Saved || r.Summary.Counterexamples == 0 {
		fmt.Fprintln(&b, "\nCounterexamples, beside their keys:")
	} else {
		// the files the replay commands name exist only once saved
		fmt.Fprintln(&b, "\nCounterexamples, beside their keys (no schedule file written: save each schedule under the file name its replay command gives, or write them all with coverage report --schedules DIR):")
	}
	n := 0
	for _, k := range r.Keys {
		for _, c := range k.Counterexamples {
			n++
			textCounterexample(&b, k.Key, c)
		}
	}
	for _, c := range r.Unattributed {
		n++
		textCounterexample(&b, "(no fault reached it)", c)
	}
	if n == 0 {
		fmt.Fprintln(&b, "  none: every invariant held in every recorded run")
	}
	r.textRest(&b)
	_, err := w.Write(b.Bytes())
	return err
}

// textSummary writes the headline and the summary lines.
func (r *Report) textSummary(b *bytes.Buffer) {
	fmt.Fprintln(b, r.headline())
	for _, l := range r.counts() {
		fmt.Fprintln(b, "  "+l)
	}
}

// textCounterexample writes one counterexample under its heading (the key,
// and whatever else names where it was found).
func textCounterexample(b *bytes.Buffer, heading string, c counterexampleRow) {
	fmt.Fprintf(b, "  %s\n    %s\n    replay: %s\n    schedule: %s\n", heading, cxLine(c), c.Schedule.Replay, compact(c.Schedule.Schedule))
}

// textRest writes the sections after the counterexamples: the unvisited
// reachable keys, marginals, pairwise coverage and the unreachable groups.
func (r *Report) textRest(b *bytes.Buffer) {
	fmt.Fprintln(b, "\nUnvisited reachable keys:")
	if len(r.Unvisited) == 0 {
		fmt.Fprintln(b, "  none")
	}
	for _, k := range r.Unvisited {
		fmt.Fprintf(b, "  %s  %s: %s\n", k.Key, k.Status, k.Reason)
	}
	for _, sec := range r.sections() {
		fmt.Fprintf(b, "\n%s (%d):\n", sec.title, len(sec.rows))
		if len(sec.rows) == 0 {
			fmt.Fprintln(b, "  none")
		}
		for _, k := range sec.rows {
			fmt.Fprintf(b, "  %s  %s: %s\n", k.Key, k.Status, k.Reason)
		}
	}
	if len(r.Contradicted) > 0 {
		fmt.Fprintf(b, "\nNot-applicable declarations the recorded runs contradict (%d; coverage gate fails on them):\n", len(r.Contradicted))
		for _, c := range r.Contradicted {
			fmt.Fprintf(b, "  %s declares %s, yet %s\n", c.System, c.Declaration, c.Evidence)
		}
	}
	fmt.Fprintln(b, "\nMarginals (visited/reachable keys per value; - = no catalogue kind has the value):")
	for _, m := range r.Marginals {
		var cells []string
		for _, v := range m.Values {
			cells = append(cells, marginalCell(v))
		}
		fmt.Fprintf(b, "  %-12s %s\n", m.Dimension, strings.Join(cells, ", "))
	}
	fmt.Fprintln(b, "\nPairwise (t = 2) coverage (covered/reachable value pairs, of possible):")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, p := range r.Pairwise {
		miss := ""
		if len(p.Missing) > 0 {
			miss = "missing: " + strings.Join(p.Missing, ", ")
		}
		fmt.Fprintf(tw, "  %s × %s\t%d/%d\tof %d\t%s\n", p.Dimensions[0], p.Dimensions[1], p.Covered, p.Reachable, p.Possible, miss)
	}
	tw.Flush()
	fmt.Fprintf(b, "\nUnreachable keys (%d), grouped by reason:\n", r.Summary.Unreachable)
	for _, g := range r.Gaps {
		fmt.Fprintf(b, "  %s (%d keys): %s\n", g.Pattern(), g.Keys, g.Reason)
	}
}

// section is a list of keys the report prints under a title.
type section struct {
	title string
	rows  []KeyRow
}

// sections are the lists of keys a version-2 record adds: the keys never
// crossed (when every run's crossings are known) and the keys not
// applicable (then, or when some are declared).
func (r *Report) sections() []section {
	var out []section
	if r.Summary.Crossings {
		out = append(out, section{"Keys never crossed by this system", r.NeverCrossed})
	}
	if r.Summary.Crossings || r.Summary.NotApplicable > 0 {
		out = append(out, section{"Keys not applicable to this system", r.NotApplicable})
	}
	if r.Summary.NotEnacted > 0 {
		out = append(out, section{"Keys this system's path cannot enact", r.NotEnacted})
	}
	if r.Summary.NotDrawn > 0 {
		out = append(out, section{"Keys exploration does not draw (a modifier, or a kind on that workload)", r.NotDrawn})
	}
	return out
}

// mdEscape escapes text for a Markdown table cell.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}

var statusMark = map[string]string{
	StatusViolated:      "❌ violated",
	StatusHeld:          "✅ held",
	StatusNotReached:    "⚠️ scheduled, not reached",
	StatusNeverTried:    "⬜ never tried",
	StatusOutside:       "❔ outside catalogue",
	StatusNeverCrossed:  "🚫 never crossed",
	StatusNotApplicable: "➖ not applicable",
	StatusNotEnacted:    "➖ not enacted",
	StatusNotDrawn:      "➖ not drawn",
}

// WriteMarkdown writes the report as Markdown for a pull-request comment:
// the summary, a table of keys with counterexamples beside them, the
// unvisited keys with reasons, marginals, pairwise coverage, and the
// unreachable groups in a collapsed section.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "### %s\n\n", r.headline())
	for _, l := range r.counts() {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	fmt.Fprintln(&b, "\n| key | kinds | status | visits | not reached or not fired | counterexamples |")
	fmt.Fprintln(&b, "| --- | --- | --- | ---: | ---: | --- |")
	for _, k := range r.Keys {
		var cx []string
		for _, c := range k.Counterexamples {
			cx = append(cx, fmt.Sprintf("`%s` ×%d, first false after seq %d (%s); `%s`", c.Invariant, c.Count, c.FirstSeq, c.Event, c.Schedule.Replay))
		}
		cxs := "-"
		if len(cx) > 0 {
			cxs = strings.Join(cx, "<br>")
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %d | %d | %s |\n", k.Key, mdEscape(strings.Join(k.Kinds, ", ")), statusMark[k.Status], k.Visits, k.NotReached+k.NotFired, cxs)
	}
	if len(r.Unattributed) > 0 {
		fmt.Fprintln(&b, "\nCounterexamples no fault reached:")
		for _, c := range r.Unattributed {
			fmt.Fprintf(&b, "- %s; `%s`\n", mdEscape(cxLine(c)), c.Schedule.Replay)
		}
	}
	fmt.Fprintln(&b, "\n#### Unvisited reachable keys")
	if len(r.Unvisited) == 0 {
		fmt.Fprintln(&b, "\nNone.")
	} else {
		fmt.Fprintln(&b)
		for _, k := range r.Unvisited {
			fmt.Fprintf(&b, "- `%s` (%s): %s\n", k.Key, statusMark[k.Status], mdEscape(k.Reason))
		}
	}
	for _, sec := range r.sections() {
		fmt.Fprintf(&b, "\n#### %s (%d)\n\n", sec.title, len(sec.rows))
		if len(sec.rows) == 0 {
			fmt.Fprintln(&b, "None.")
		}
		for _, k := range sec.rows {
			fmt.Fprintf(&b, "- `%s` (%s): %s\n", k.Key, statusMark[k.Status], mdEscape(k.Reason))
		}
	}
	fmt.Fprintln(&b, "\n#### Marginals (visited/reachable keys per value; - = no catalogue kind has it)")
	fmt.Fprintln(&b, "\n| dimension | values |\n| --- | --- |")
	for _, m := range r.Marginals {
		var cells []string
		for _, v := range m.Values {
			cells = append(cells, marginalCell(v))
		}
		fmt.Fprintf(&b, "| %s | %s |\n", m.Dimension, strings.Join(cells, ", "))
	}
	fmt.Fprintln(&b, "\n#### Pairwise (t = 2) coverage\n\n| dimensions | covered | reachable | possible | missing |\n| --- | ---: | ---: | ---: | --- |")
	for _, p := range r.Pairwise {
		miss := "-"
		if len(p.Missing) > 0 {
			miss = strings.Join(p.Missing, ", ")
		}
		fmt.Fprintf(&b, "| %s × %s | %d | %d | %d | %s |\n", p.Dimensions[0], p.Dimensions[1], p.Covered, p.Reachable, p.Possible, mdEscape(miss))
	}
	fmt.Fprintf(&b, "\n<details><summary>Unreachable keys (%d), grouped by reason</summary>\n\n| keys | count | reason |\n| --- | ---: | --- |\n", r.Summary.Unreachable)
	for _, g := range r.Gaps {
		fmt.Fprintf(&b, "| `%s` | %d | %s |\n", g.Pattern(), g.Keys, mdEscape(g.Reason))
	}
	fmt.Fprintln(&b, "\n</details>")
	_, err := w.Write(b.Bytes())
	return err
}
