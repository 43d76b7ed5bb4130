package coverage

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Column is one labelled record in a Comparison: the runs of one profile
// (or one configuration, one shard) kept apart from the others.
type Column struct {
	// Label names the column, e.g. "baseline"; labels are unique and not
	// empty.
	Label string
	Data  *Data
}

// Comparison sets several records side by side over one universe, so a
// reader sees under which column each key held and under which it broke: a
// single merged record calls a key violated when any of its runs broke an
// invariant, whatever configuration that run had. Compare builds it.
type Comparison struct {
	// Labels are the columns' labels, in the order given.
	Labels []string
	// Total is the report of every column merged (Merge), for the
	// summary, the unvisited keys, marginals, pairwise coverage and the
	// unreachable groups.
	Total *Report
	// Columns has each column's own report, in Labels order.
	Columns []*Report
	// Rows has one row per row of Total.Keys (every reachable key, then
	// the recorded keys outside the catalogue), in the same order.
	Rows []comparisonRow
}

// comparisonRow is one key across the columns.
type comparisonRow struct {
	// Key is the key's text form; Kinds are the catalogue kinds with it.
	Key   string
	Kinds []string
	// Cells has the key's row in each column's report, in Labels order
	// (a zero KeyRow with Status "" where a column has no row for an
	// outside key).
	Cells []KeyRow
}

// Compare returns the comparison of cols over universe u (nil means
// Default()); opts shape every report as in NewReport. It returns an error
// for no column, a column without a label or data, or a label given twice.
func Compare(u *Universe, cols []Column, opts ReportOptions) (*Comparison, error) {
	if u == nil {
		u = Default()
	}
	if len(cols) == 0 {
		return nil, errors.New("coverage comparison: no column")
	}
	c := &Comparison{}
	all := &Data{Keys: map[Key]*Entry{}}
	seen := map[string]bool{}
	for i, col := range cols {
		switch {
		case col.Label == "":
			return nil, fmt.Errorf("coverage comparison: column %d has no label", i+1)
		case seen[col.Label]:
			return nil, fmt.Errorf("coverage comparison: label %q given twice", col.Label)
		case col.Data == nil:
			return nil, fmt.Errorf("coverage comparison: column %q has no data", col.Label)
		}
		seen[col.Label] = true
		c.Labels = append(c.Labels, col.Label)
		c.Columns = append(c.Columns, NewReport(u, col.Data, opts))
		all.add(col.Data)
	}
	c.Total = NewReport(u, all, opts)
	byKey := make([]map[string]KeyRow, len(c.Columns))
	for i, r := range c.Columns {
		byKey[i] = map[string]KeyRow{}
		for _, k := range r.Keys {
			byKey[i][k.Key] = k
		}
	}
	for _, k := range c.Total.Keys {
		row := comparisonRow{Key: k.Key, Kinds: k.Kinds}
		for i := range c.Columns {
			row.Cells = append(row.Cells, byKey[i][k.Key])
		}
		c.Rows = append(c.Rows, row)
	}
	return c, nil
}

// cellText is a key's status in one column, with the violated invariants.
func cellText(k KeyRow) string {
	switch {
	case k.Status == "":
		return "-"
	case len(k.Counterexamples) == 0:
		return k.Status
	}
	var invs []string
	for _, c := range k.Counterexamples {
		invs = append(invs, c.Invariant)
	}
	return k.Status + " (" + strings.Join(invs, ", ") + ")"
}

// WriteText writes the comparison for a terminal: the merged summary; a
// line per column (visited keys, how many violated and held, runs); a
// table of the keys with their status in each column (a violated status
// names the invariants) and the kinds of each key; the counterexamples
// beside their keys and columns, with replay commands; then the merged
// record's unvisited reachable keys with reasons, marginals, pairwise
// coverage and unreachable groups.
func (c *Comparison) WriteText(w io.Writer) error {
	var b bytes.Buffer
	c.Total.textSummary(&b)
	fmt.Fprintln(&b, "\nBy "+strings.Join(c.Labels, ", ")+":")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for i, r := range c.Columns {
		s := r.Summary
		fmt.Fprintf(tw, "  %s\t%d of %d reachable keys visited: %d violated, %d held (%s)\n",
			c.Labels[i], s.Visited, s.Reachable, s.Violated, s.Held, runs(s.Runs))
	}
	tw.Flush()
	fmt.Fprintf(&b, "\nKeys by %s (violated names the broken invariants):\n", strings.Join(c.Labels, ", "))
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  key\t%s\tkinds\n", strings.Join(c.Labels, "\t"))
	for _, r := range c.Rows {
		cells := make([]string, len(r.Cells))
		for i, k := range r.Cells {
			cells[i] = cellText(k)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", r.Key, strings.Join(cells, "\t"), strings.Join(r.Kinds, ","))
	}
	tw.Flush()
	fmt.Fprintln(&b, "\nCounterexamples, beside their keys:")
	n := 0
	for _, r := range c.Rows {
		for i, k := range r.Cells {
			for _, x := range k.Counterexamples {
				n++
				textCounterexample(&b, r.Key+" under "+c.Labels[i], x)
			}
		}
	}
	for i, r := range c.Columns {
		for _, x := range r.Unattributed {
			n++
			textCounterexample(&b, "(no fault reached it) under "+c.Labels[i], x)
		}
	}
	if n == 0 {
		fmt.Fprintln(&b, "  none: every invariant held in every recorded run")
	}
	c.Total.textRest(&b)
	_, err := w.Write(b.Bytes())
	return err
}
