package coverage_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
)

// partialReport records the tool kinds under baseline (both violate), the
// state kinds under typed (both hold) and stale_policy scheduled at a
// policy read that never happens.
func partialReport(t *testing.T) *coverage.Report {
	t.Helper()
	tr := record(t,
		single(t, "timeout_after_commit", model.ProfileBaseline),
		single(t, "partial_success_response", model.ProfileBaseline),
		single(t, "checkpoint_rollback", model.ProfileTyped),
		single(t, "concurrent_version_change", model.ProfileTyped),
		at(t, "stale_policy", 4, model.ProfileTyped),
	)
	return coverage.NewReport(coverage.Default(), tr.Data(), coverage.ReportOptions{})
}

func TestReportNumbers(t *testing.T) {
	r := partialReport(t)
	s := r.Summary
	want := coverage.Summary{Keys: 8800, Reachable: 10, Unreachable: 8790, Visited: 4, Ratio: 0.4, Violated: 2, Held: 2,
		NotReached: 1, NeverTried: 5, Runs: 5, Visits: 4, FaultsNotReached: 1, Counterexamples: 2,
		PairsPossible: 419, PairsReachable: 72, PairsCovered: 30, PairRatio: 30.0 / 72}
	if s != want {
		t.Fatalf("summary\n got %+v\nwant %+v", s, want)
	}
	var unvisited []string
	for _, k := range r.Unvisited {
		unvisited = append(unvisited, k.Key+" "+k.Status+": "+k.Reason)
	}
	wantU := []string{
		"identity/proposal/before_validation/isolated/capability_record never_tried: no recorded run scheduled subject_swap",
		"identity/authority/before_commit/isolated/capability_record never_tried: no recorded run scheduled revoked_capability",
		"context/proposal/before_validation/isolated/state_version never_tried: no recorded run scheduled cross_source_conflict",
		"context/proposal/before_validation/isolated/policy_record scheduled_not_reached: scheduled 1 time, but its event never occurred (stale_policy)",
		"evidence/effect/before_commit/isolated/trace_lineage never_tried: no recorded run scheduled break_trace_lineage",
		"evidence/proof/after_receipt/isolated/receipt never_tried: no recorded run scheduled drop_effect_receipt",
	}
	if strings.Join(unvisited, "\n") != strings.Join(wantU, "\n") {
		t.Fatalf("unvisited:\n%s", strings.Join(unvisited, "\n"))
	}
	// marginals: the boundary dimension
	var b []string
	for _, v := range r.Marginals[1].Values {
		b = append(b, v.Value+" "+itoa(v.Visited)+"/"+itoa(v.Reachable))
	}
	if got := strings.Join(b, ", "); got != "proposal 0/3, authority 0/1, effect 2/3, state 2/2, proof 0/1, sandbox 0/0, tool_call 0/0, worker 0/0, checkpoint_store 0/0, branch_join 0/0, memory 0/0" {
		t.Fatalf("boundary marginal: %s", got)
	}
	if r.Marginals[3].Values[1].Reason != "no fault kind in the catalogue has correlation repeated" {
		t.Fatalf("repeated: %+v", r.Marginals[3].Values[1])
	}
	// pairwise domain × boundary: 7 reachable pairs, tool×effect and state×state covered
	p := r.Pairwise[0]
	if p.Dimensions != [2]string{"domain", "boundary"} || p.Possible != 55 || p.Reachable != 7 || p.Covered != 2 ||
		strings.Join(p.Missing, ", ") != "identity × proposal, identity × authority, context × proposal, evidence × effect, evidence × proof" {
		t.Fatalf("pairwise %+v", p)
	}
	// heatmap domain × phase: tool × after_commit has 2 keys, both visited and violated
	h := r.Heatmaps[0]
	if h.Rows != "domain" || h.Cols != "phase" || len(h.Cells) != 5 || len(h.Cells[0]) != 5 {
		t.Fatalf("heatmap %s × %s %dx%d", h.Rows, h.Cols, len(h.Cells), len(h.Cells[0]))
	}
	if c := h.Cells[2][2]; c != (coverage.Cell{Reachable: 2, Visited: 2, Violated: 2}) {
		t.Fatalf("tool × after_commit %+v", c)
	}
	if c := h.Cells[0][2]; c.Reachable != 0 || c.Reason != "no fault kind in the catalogue has domain identity and phase after_commit" {
		t.Fatalf("identity × after_commit %+v", c)
	}
	if r.Heatmaps[1].Rows != "boundary" || r.Heatmaps[1].Cols != "oracle" || r.Heatmaps[2].Rows != "correlation" || r.Heatmaps[2].Cols != "domain" {
		t.Fatal("heatmap axes")
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestReportFormats(t *testing.T) {
	r := partialReport(t)
	var text, md, js bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Coverage: 4 of 10 reachable keys visited (40.0%)\n",
		"  tool/effect/after_commit/isolated/ledger_readback               timeout_after_commit       violated               1       0            0          effect_at_most_once ×1\n",
		"    effect_at_most_once violated in 1 run: first false after seq 12 (tool.commit): second ledger effect for task refund-O-731\n    replay: faultline replay timeout_after_commit-",
		"  context/proposal/before_validation/isolated/policy_record  scheduled_not_reached: scheduled 1 time, but its event never occurred (stale_policy)\n",
		"  boundary     proposal 0/3, authority 0/1, effect 2/3, state 2/2, proof 0/1, sandbox -,",
		"  domain × boundary       2/7   of 55  missing: identity × proposal,",
		"Unreachable keys (8790), grouped by reason:\n  identity/{effect,state,proof,sandbox,tool_call,worker,checkpoint_store,branch_join,memory}/*/*/* (1440 keys): no identity fault kind enters at any of the boundaries",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q", want)
		}
	}
	if n := strings.Count(text.String(), " keys): "); n != 28 {
		t.Errorf("text report lists %d unreachable groups, want 28", n)
	}
	for _, want := range []string{
		"### Coverage: 4 of 10 reachable keys visited (40.0%)\n",
		"| `tool/effect/after_commit/isolated/ledger_readback` | timeout_after_commit | ❌ violated | 1 | 0 | `effect_at_most_once` ×1, first false after seq 12 (tool.commit); `faultline replay timeout_after_commit-",
		"| `state/state/before_commit/isolated/state_version` | concurrent_version_change | ✅ held | 1 | 0 | - |",
		"- `context/proposal/before_validation/isolated/policy_record` (⚠️ scheduled, not reached): scheduled 1 time, but its event never occurred (stale_policy)\n",
		"<details><summary>Unreachable keys (8790), grouped by reason</summary>",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown report lacks %q", want)
		}
	}
	var back struct {
		Version int              `json:"version"`
		Summary coverage.Summary `json:"summary"`
		Keys    []struct {
			Key             string `json:"key"`
			Status          string `json:"status"`
			Counterexamples []struct {
				Invariant string `json:"invariant"`
				Schedule  struct {
					Replay   string          `json:"replay"`
					Schedule json.RawMessage `json:"schedule"`
				} `json:"schedule"`
			} `json:"counterexamples"`
		} `json:"keys"`
		Unreachable []struct {
			Pattern   string `json:"pattern"`
			Dimension string `json:"dimension"`
			Keys      int    `json:"keys"`
		} `json:"unreachable"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Version != 1 || back.Summary != r.Summary || len(back.Keys) != 10 || len(back.Unreachable) != 28 ||
		back.Unreachable[0].Dimension != "boundary" || back.Unreachable[0].Keys != 1440 {
		t.Fatalf("json report: %+v", back)
	}
	cx := back.Keys[4].Counterexamples[0]
	s, err := model.ParseSchedule(cx.Schedule.Schedule)
	if err != nil || s.Faults[0].Kind != "timeout_after_commit" || cx.Invariant != "effect_at_most_once" {
		t.Fatalf("json counterexample %+v: %v", cx, err)
	}
}

// TestHTMLStructure parses the HTML page and checks its elements without a
// browser: one document, three heatmaps with a cell per value pair, a row
// per key, the unvisited and unreachable lists, counterexamples beside
// their keys, and nothing fetched from elsewhere.
func TestHTMLStructure(t *testing.T) {
	r := partialReport(t)
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var (
		svgs     []*html.Node
		title    string
		scripts  int
		external []string
		byID     = map[string]*html.Node{}
		walk     func(n *html.Node)
	)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "svg":
				svgs = append(svgs, n)
			case "title":
				if n.Parent != nil && n.Parent.Data == "head" {
					title = text(n)
				}
			case "script", "link", "img", "iframe", "object":
				scripts++
			}
			for _, a := range n.Attr {
				if a.Key == "id" {
					byID[a.Val] = n
				}
				if (a.Key == "src" || a.Key == "href") && strings.Contains(a.Val, "://") {
					external = append(external, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if title != "faultline coverage: 4 of 10 reachable keys visited" {
		t.Fatalf("title %q", title)
	}
	if scripts != 0 || len(external) != 0 {
		t.Fatalf("%d scripts or embedded resources, external references %v", scripts, external)
	}
	if len(svgs) != 3 {
		t.Fatalf("%d svg heatmaps, want 3", len(svgs))
	}
	wantCells := []int{5 * 5, 11 * 8, 4 * 5}
	for i, s := range svgs {
		cells := find(s, func(n *html.Node) bool { return n.Data == "rect" && attr(n, "class") == "cell" })
		if len(cells) != wantCells[i] {
			t.Fatalf("heatmap %d: %d cells, want %d", i, len(cells), wantCells[i])
		}
	}
	// the tool × after_commit cell of domain × phase
	tool := find(svgs[0], func(n *html.Node) bool {
		return n.Data == "g" && strings.HasPrefix(text(n), "domain tool, phase after_commit:")
	})
	if len(tool) != 1 || !strings.HasSuffix(text(tool[0]), "2/2 ✗2") || attr(find(tool[0], func(n *html.Node) bool { return n.Data == "rect" })[0], "fill") != "#ffc9c9" {
		t.Fatalf("tool × after_commit cell: %d found, text %q", len(tool), text(tool[0]))
	}
	rows := find(byID["keys"], func(n *html.Node) bool { return n.Data == "tr" && n.Parent.Data == "tbody" })
	if len(rows) != 10 {
		t.Fatalf("%d key rows, want 10", len(rows))
	}
	// the counterexample sits in its key's row
	if row := text(rows[4]); !strings.HasPrefix(row, "tool/effect/after_commit/isolated/ledger_readback") ||
		!strings.Contains(row, "effect_at_most_once violated in 1 run(s)") || !strings.Contains(row, "faultline replay timeout_after_commit-") {
		t.Fatalf("row 5: %q", row)
	}
	if attr(rows[4], "class") != "status-violated" || attr(rows[6], "class") != "status-held" || attr(rows[3], "class") != "status-scheduled_not_reached" {
		t.Fatal("row classes")
	}
	if n := len(find(byID["unvisited"], func(n *html.Node) bool { return n.Data == "li" })); n != 6 {
		t.Fatalf("%d unvisited keys listed, want 6", n)
	}
	gaps := find(byID["unreachable"], func(n *html.Node) bool { return n.Data == "li" })
	if len(gaps) != 28 || !strings.Contains(text(gaps[0]), "(1440 keys): no identity fault kind enters at any of the boundaries") {
		t.Fatalf("%d unreachable groups; first %q", len(gaps), text(gaps[0]))
	}
	if n := len(find(byID["pairwise"], func(n *html.Node) bool { return n.Data == "tr" && n.Parent.Data == "tbody" })); n != 10 {
		t.Fatalf("%d pairwise rows, want 10", n)
	}
}

func find(n *html.Node, ok func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && ok(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	if n != nil {
		walk(n)
	}
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// text returns n's text content with whitespace runs collapsed.
func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}
