package coverage

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
)

//go:embed report.html.tmpl
var htmlTemplate string

var htmlPage = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct":    pct,
	"join":   strings.Join,
	"status": func(s string) string { return strings.ReplaceAll(s, "_", " ") },
	"mulf":   func(x float64) float64 { return 200 * x },
}).Parse(htmlTemplate))

// svgCell is one heatmap cell laid out for the template.
type svgCell struct {
	X, Y, W, H   int
	TX, TY       int
	Fill, Stroke string
	Label        string
	Title        string
	Class        string
}

// svgLabel is an axis label.
type svgLabel struct {
	X, Y   int
	Text   string
	Rotate bool
}

// svgMap is a heatmap laid out as an SVG.
type svgMap struct {
	Title         string
	Width, Height int
	Cells         []svgCell
	Labels        []svgLabel
}

// Heatmap geometry, in SVG user units.
const (
	cellW, cellH    = 64, 30
	mapLeft, mapTop = 130, 110
)

// Heatmap fills: no reachable key, every key outside the systems'
// universe, none visited, some visited, all
// visited and held, some violated.
const (
	fillEmpty    = "#e9ecef"
	fillOutside  = "#f8f9fa"
	fillNone     = "#ffffff"
	fillPartial  = "#ffe8a3"
	fillHeld     = "#b2f2bb"
	fillViolated = "#ffc9c9"
)

func layout(h heatmap) svgMap {
	m := svgMap{Title: h.Rows + " × " + h.Cols,
		Width: mapLeft + cellW*len(h.ColValues) + 100, Height: mapTop + cellH*len(h.RowValues) + 10}
	for j, v := range h.ColValues {
		m.Labels = append(m.Labels, svgLabel{X: mapLeft + j*cellW + cellW/2, Y: mapTop - 8, Text: v, Rotate: true})
	}
	for i, v := range h.RowValues {
		m.Labels = append(m.Labels, svgLabel{X: mapLeft - 8, Y: mapTop + i*cellH + cellH/2 + 4, Text: v})
		for j, c := range h.Cells[i] {
			sc := svgCell{X: mapLeft + j*cellW, Y: mapTop + i*cellH, W: cellW, H: cellH, Stroke: "#adb5bd", Class: "cell"}
			sc.TX, sc.TY = sc.X+cellW/2, sc.Y+cellH/2+4
			where := h.Rows + " " + h.RowValues[i] + ", " + h.Cols + " " + h.ColValues[j]
			in := c.Reachable - c.Outside // the cell's keys in the systems' universe
			switch {
			case c.Reachable == 0:
				sc.Fill, sc.Label, sc.Title = fillEmpty, "·", where+": unreachable: "+c.Reason
			case in == 0:
				sc.Fill, sc.Label, sc.Title = fillOutside, "n/a", where+": "+c.Reason
			case c.Violated > 0:
				sc.Fill, sc.Stroke = fillViolated, "#c92a2a"
			case c.Visited == in:
				sc.Fill = fillHeld
			case c.Visited > 0:
				sc.Fill = fillPartial
			default:
				sc.Fill, sc.Stroke = fillNone, "#d9480f"
			}
			if in > 0 {
				sc.Label = fmt.Sprintf("%d/%d", c.Visited, in)
				sc.Title = fmt.Sprintf("%s: %d of %d keys in the systems' universe visited, %d violated", where, c.Visited, in, c.Violated)
				if c.Outside > 0 {
					sc.Title += "; " + c.Reason
				}
				if c.Violated > 0 {
					sc.Label += fmt.Sprintf(" ✗%d", c.Violated)
				}
			}
			m.Cells = append(m.Cells, sc)
		}
	}
	return m
}

// WriteHTML writes the report as one self-contained HTML page (no script,
// no external resource): the summary, the three heatmaps as inline SVG
// (domain × phase, boundary × oracle, correlation × domain; a cell shows
// visited/reachable keys and the violated count), the keys with their
// counterexamples beside them (invariant, schedule, replay command), the
// unvisited reachable keys and the unreachable groups with their reasons,
// marginals and pairwise coverage.
func (r *Report) WriteHTML(w io.Writer) error {
	var maps []svgMap
	for _, h := range r.Heatmaps {
		maps = append(maps, layout(h))
	}
	legend := []struct{ Fill, Text string }{
		{fillHeld, "every reachable key visited, all held"},
		{fillViolated, "an invariant was violated under a key"},
		{fillPartial, "some reachable keys visited"},
		{fillNone, "reachable, none visited"},
		{fillOutside, "n/a: every key left out of the systems' universe, with why (not applicable, never crossed, not enacted, not drawn)"},
		{fillEmpty, "no catalogue kind reaches this cell"},
	}
	return htmlPage.Execute(w, struct {
		R        *Report
		Title    string
		Headline string
		Counts   []string
		Maps     []svgMap
		Legend   []struct{ Fill, Text string }
	}{r, "faultline coverage: " + strings.TrimPrefix(r.headline(), "Coverage: "), r.headline(), r.counts(), maps, legend})
}
