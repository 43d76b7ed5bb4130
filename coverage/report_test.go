package coverage_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// partialReport records three tool kinds under baseline (each violates an
// invariant; partial_success_response and output_drift share a key), three
// state kinds under typed (each holds; branch_failure at the branch join,
// adjudicated by the join record) and stale_policy scheduled at a policy
// read that never happens.
func partialReport(t *testing.T) *coverage.Report {
	t.Helper()
	tr := record(t,
		single(t, "timeout_after_commit", copperfin.ProfileBaseline),
		single(t, "partial_success_response", copperfin.ProfileBaseline),
		single(t, "output_drift", copperfin.ProfileBaseline),
		single(t, "checkpoint_rollback", copperfin.ProfileTyped),
		single(t, "concurrent_version_change", copperfin.ProfileTyped),
		single(t, "branch_failure", copperfin.ProfileTyped),
		at(t, "stale_policy", 4, copperfin.ProfileTyped),
	)
	return coverage.NewReport(coverage.Default(), tr.Data(), faultlineReplay)
}

func TestReportNumbers(t *testing.T) {
	r := partialReport(t)
	s := r.Summary
	// 5 of the 28 keys copperfin can reach visited (the shared receipt key
	// twice; the 10 keys under a modifier only a concurrent exploration
	// draws, and the keys of sliding_grant_cache and ambient_identity_leak,
	// which the default search does not draw on its sequential runs, are
	// left out of the 40 reachable ones); 5
	// counterexamples: effect_at_most_once and recorded_agrees_with_ledger
	// under each of the two after_commit keys, provable_outcome under the
	// receipt key. Pairs: 474 = 5·11 + 5·5 +
	// 5·5 + 5·9 + 11·5 + 11·5 + 11·9 + 5·5 + 5·9 + 5·9; 174 appear in a
	// reachable key, 37 in a visited one.
	want := coverage.Summary{Keys: 12375, Reachable: 40, Unreachable: 12335, Visited: 5, Ratio: 5.0 / 28, Applicable: 28, Traced: 7, Crossings: true, Violated: 2, Held: 3,
		NotReached: 1, NeverTried: 22, NotDrawn: 12, Runs: 7, Visits: 6, FaultsNotReached: 1, Counterexamples: 5,
		PairsPossible: 474, PairsReachable: 174, PairsCovered: 37, PairRatio: 37.0 / 174}
	if s != want {
		t.Fatalf("summary\n got %+v\nwant %+v", s, want)
	}
	var unvisited []string
	for _, k := range r.Unvisited {
		unvisited = append(unvisited, k.Key+" "+k.Status+": "+k.Reason)
	}
	wantU := []string{
		"identity/proposal/before_validation/isolated/capability_record never_tried: no recorded run scheduled subject_swap or tenant_swap or purpose_swap",
		"identity/authority/before_commit/isolated/capability_record never_tried: no recorded run scheduled revoked_capability",
		"context/proposal/before_validation/isolated/ledger_readback never_tried: no recorded run scheduled duplicate_tool_call or model_refusal or malformed_tool_call",
		"context/proposal/before_validation/isolated/state_version never_tried: no recorded run scheduled cross_source_conflict or stale_context or omitted_context",
		"context/proposal/before_validation/isolated/policy_record scheduled_not_reached: scheduled 1 time, but its event never occurred (stale_policy)",
		"context/memory/before_commit/isolated/checkpoint_store never_tried: no recorded run scheduled memory_loss",
		"tool/effect/before_commit/isolated/ledger_readback never_tried: no recorded run scheduled reject_before_commit or false_success or server_error",
		"tool/effect/after_commit/repeated/ledger_readback never_tried: no recorded run scheduled timeout_after_commit under the modifier repeated (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)",
		"tool/effect/after_commit/repeated/receipt never_tried: no recorded run scheduled malformed_response or output_drift under the modifier repeated (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)",
		"tool/effect/after_commit/persistent/ledger_readback never_tried: no recorded run scheduled timeout_after_commit under the modifier persistent (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)",
		"tool/effect/after_commit/persistent/receipt never_tried: no recorded run scheduled malformed_response or output_drift under the modifier persistent (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)",
		"tool/sandbox/before_validation/isolated/ledger_readback never_tried: no recorded run scheduled sandbox_denial",
		"tool/tool_call/before_commit/isolated/ledger_readback never_tried: no recorded run scheduled timeout_before_send or tool_timeout or network_error",
		"tool/tool_call/before_commit/isolated/budget_counter never_tried: no recorded run scheduled rate_limit",
		"tool/tool_call/before_commit/repeated/ledger_readback never_tried: no recorded run scheduled tool_timeout under the modifier repeated (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)",
		"tool/tool_call/before_commit/persistent/budget_counter never_tried: no recorded run scheduled budget_exhaustion",
		"state/state/after_commit/isolated/ledger_readback never_tried: no recorded run scheduled lagging_readback",
		"state/state/after_checkpoint/repeated/ledger_readback never_tried: no recorded run scheduled checkpoint_rollback under the modifier repeated (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)",
		"state/state/after_checkpoint/persistent/ledger_readback never_tried: no recorded run scheduled checkpoint_rollback under the modifier persistent (drawn on a schedule's last fault one check in four; coverage.FaultMatrix places it on each single fault)",
		"state/worker/after_checkpoint/isolated/checkpoint_store never_tried: no recorded run scheduled worker_restart",
		"state/checkpoint_store/after_checkpoint/isolated/checkpoint_store never_tried: no recorded run scheduled missing_checkpoint or stale_checkpoint or future_version_checkpoint or corrupt_checkpoint",
		"evidence/effect/before_commit/isolated/trace_lineage never_tried: no recorded run scheduled break_trace_lineage or span_carry_over",
		"evidence/proof/after_receipt/isolated/receipt never_tried: no recorded run scheduled drop_effect_receipt",
	}
	if strings.Join(unvisited, "\n") != strings.Join(wantU, "\n") {
		t.Fatalf("unvisited:\n%s", strings.Join(unvisited, "\n"))
	}
	// the keys under a modifier: a sequential exploration draws repeated
	// and persistent, so only synchronized and shared are left out
	var notDrawn []string
	for _, k := range r.NotDrawn {
		notDrawn = append(notDrawn, k.Key+" "+k.Status+": "+k.Reason)
	}
	wantD := []string{
		"identity/authority/before_commit/persistent/capability_record not_drawn: the default search draws sliding_grant_cache on no recorded workload of copperfin: sliding_grant_cache, drawn only when named (properties.WithKinds, --kinds)",
		"identity/worker/before_validation/persistent/capability_record not_drawn: the default search draws ambient_identity_leak on no recorded workload of copperfin: ambient_identity_leak, worker-scoped: no worker runs a second task (drawn only under a concurrent config with fewer workers than the fixture has tasks)",
		"context/proposal/before_validation/synchronized/policy_record not_drawn: exploration draws the correlation modifier synchronized only under a concurrent config (two or more workers), and no recorded run of copperfin had one",
		"context/proposal/before_validation/shared/policy_record not_drawn: exploration draws the correlation modifier shared only under a concurrent config (two or more workers), and no recorded run of copperfin had one",
		"tool/effect/after_commit/synchronized/ledger_readback not_drawn: exploration draws the correlation modifier synchronized only under a concurrent config (two or more workers), and no recorded run of copperfin had one",
		"tool/effect/after_commit/synchronized/receipt not_drawn: exploration draws the correlation modifier synchronized only under a concurrent config (two or more workers), and no recorded run of copperfin had one",
		"tool/effect/after_commit/shared/ledger_readback not_drawn: exploration draws the correlation modifier shared only under a concurrent config (two or more workers), and no recorded run of copperfin had one",
		"tool/effect/after_commit/shared/receipt not_drawn: exploration draws the correlation modifier shared only under a concurrent config (two or more workers), and no recorded run of copperfin had one",
		"tool/tool_call/before_commit/synchronized/ledger_readback not_drawn: exploration draws the correlation modifier synchronized only under a concurrent config (two or more workers), and no recorded run of copperfin had one",
		"tool/tool_call/before_commit/shared/ledger_readback not_drawn: exploration draws the correlation modifier shared only under a concurrent config (two or more workers), and no recorded run of copperfin had one",
		"evidence/proof/after_receipt/synchronized/receipt not_drawn: exploration draws the correlation modifier synchronized only under a concurrent config (two or more workers), and no recorded run of copperfin had one",
		"evidence/proof/after_receipt/shared/receipt not_drawn: exploration draws the correlation modifier shared only under a concurrent config (two or more workers), and no recorded run of copperfin had one",
	}
	if strings.Join(notDrawn, "\n") != strings.Join(wantD, "\n") {
		t.Fatalf("not drawn:\n%s", strings.Join(notDrawn, "\n"))
	}
	// marginals: the boundary dimension
	var b []string
	for _, v := range r.Marginals[1].Values {
		b = append(b, v.Value+" "+itoa(v.Visited)+"/"+itoa(v.Reachable))
	}
	if got := strings.Join(b, ", "); got != "proposal 0/6, authority 0/2, effect 2/12, state 2/5, proof 0/3, sandbox 0/1, tool_call 0/6, worker 0/2, checkpoint_store 0/1, branch_join 1/1, memory 0/1" {
		t.Fatalf("boundary marginal: %s", got)
	}
	// every correlation has reachable keys: the catalogue's modifiers
	if r.Marginals[3].Values[1] != (coverage.MarginalValue{Value: "repeated", Reachable: 4}) ||
		r.Marginals[3].Values[4] != (coverage.MarginalValue{Value: "shared", Reachable: 5}) {
		t.Fatalf("repeated: %+v, shared: %+v", r.Marginals[3].Values[1], r.Marginals[3].Values[4])
	}
	if r.Marginals[4].Values[8] != (coverage.MarginalValue{Value: "join_record", Reachable: 1, Visited: 1}) {
		t.Fatalf("join_record: %+v", r.Marginals[4].Values[8])
	}
	// pairwise domain × boundary: 14 reachable pairs; tool×effect, state×state and state×branch_join covered
	p := r.Pairwise[0]
	if p.Dimensions != [2]string{"domain", "boundary"} || p.Possible != 55 || p.Reachable != 14 || p.Covered != 3 ||
		strings.Join(p.Missing, ", ") != "identity × proposal, identity × authority, identity × worker, context × proposal, context × memory, tool × sandbox, "+
			"tool × tool_call, state × worker, state × checkpoint_store, evidence × effect, evidence × proof" {
		t.Fatalf("pairwise %+v", p)
	}
	// heatmap domain × phase: tool × after_commit has 10 keys, 2 visited and
	// violated (the four under synchronized or shared are outside the
	// system's universe: not drawn)
	h := r.Heatmaps[0]
	if h.Rows != "domain" || h.Cols != "phase" || len(h.Cells) != 5 || len(h.Cells[0]) != 5 {
		t.Fatalf("heatmap %s × %s %dx%d", h.Rows, h.Cols, len(h.Cells), len(h.Cells[0]))
	}
	if c := h.Cells[2][2]; c != (coverage.Cell{Reachable: 10, Visited: 2, Violated: 2, Outside: 4, Reason: "outside the systems' universe: 4 not drawn"}) {
		t.Fatalf("tool × after_commit %+v", c)
	}
	if c := h.Cells[0][2]; c.Reachable != 0 || c.Reason != "no fault kind in the catalogue has domain identity and phase after_commit" {
		t.Fatalf("identity × after_commit %+v", c)
	}
	if r.Heatmaps[1].Rows != "boundary" || r.Heatmaps[1].Cols != "oracle" || r.Heatmaps[2].Rows != "correlation" || r.Heatmaps[2].Cols != "domain" {
		t.Fatal("heatmap axes")
	}
	// boundary × oracle: 11 rows, 9 columns; branch_join × join_record holds its one key, visited and held
	if h := r.Heatmaps[1]; len(h.Cells) != 11 || len(h.Cells[9]) != 9 || h.Cells[9][8] != (coverage.Cell{Reachable: 1, Visited: 1}) {
		t.Fatalf("boundary × oracle %dx%d, branch_join × join_record %+v", len(h.Cells), len(h.Cells[0]), h.Cells[9][8])
	}
	// correlation × domain: tool has 6 isolated keys (2 visited, both
	// violated) and 3 persistent, none visited, all in the universe (a
	// sequential exploration draws persistent); 3 synchronized, all not
	// drawn
	if h := r.Heatmaps[2]; h.Cells[0][2] != (coverage.Cell{Reachable: 6, Visited: 2, Violated: 2}) ||
		h.Cells[2][2] != (coverage.Cell{Reachable: 3}) ||
		h.Cells[3][2] != (coverage.Cell{Reachable: 3, Outside: 3, Reason: "outside the systems' universe: 3 not drawn"}) {
		t.Fatalf("isolated × tool %+v, persistent × tool %+v", h.Cells[0][2], h.Cells[2][2])
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
		"Coverage: 5 of 28 keys the systems can reach visited (17.9%; 40 reachable by the catalogue, 12 left out, each with why)\n",
		"  left out of the systems' universe and of the ratio: 0 never crossed, 0 not applicable (declared), 0 not enacted by their path, 12 exploration does not draw (a modifier, or a kind on that workload)\n",
		"Keys exploration does not draw (a modifier, or a kind on that workload) (12):\n  identity/authority/before_commit/persistent/capability_record  not_drawn: the default search draws sliding_grant_cache on no recorded workload of copperfin",
		"  tool/effect/after_commit/isolated/ledger_readback                  timeout_after_commit                                                              violated               1       0            0          effect_at_most_once ×1, recorded_agrees_with_ledger ×1\n",
		"  tool/effect/after_commit/isolated/receipt                          partial_success_response,malformed_response,output_drift                          violated               2       0            0          effect_at_most_once ×1, provable_outcome ×1, recorded_agrees_with_ledger ×1\n",
		"    effect_at_most_once violated in 1 run: first false after seq 19 (tool.commit): second ledger effect for task refund-O-731\n    replay: faultline replay timeout_after_commit-",
		"  tool/effect/after_commit/isolated/receipt\n    effect_at_most_once violated in 1 run: first false after seq 19 (tool.commit): second ledger effect for task refund-O-731\n    replay: faultline replay output_drift-",
		"  tool/effect/after_commit/isolated/receipt\n    provable_outcome violated in 1 run: first false after seq 18 (claim): release without correlated proof\n    replay: faultline replay partial_success_response-",
		"  context/proposal/before_validation/isolated/policy_record  scheduled_not_reached: scheduled 1 time, but its event never occurred (stale_policy)\n",
		"  boundary     proposal 0/6, authority 0/2, effect 2/12, state 2/5, proof 0/3, sandbox 0/1, tool_call 0/6, worker 0/2, checkpoint_store 0/1, branch_join 1/1, memory 0/1\n",
		"  correlation  isolated 5/20, repeated 0/4, persistent 0/6, synchronized 0/5, shared 0/5\n",
		"  domain × boundary       3/14  of 55  missing: identity × proposal,",
		"Unreachable keys (12335), grouped by reason:\n  identity/{effect,state,proof,sandbox,tool_call,checkpoint_store,branch_join,memory}/*/*/* (1800 keys): no identity fault kind enters at any of the boundaries",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q", want)
		}
	}
	if n := strings.Count(text.String(), " keys): "); n != 66 {
		t.Errorf("text report lists %d unreachable groups, want 66", n)
	}
	for _, want := range []string{
		"### Coverage: 5 of 28 keys the systems can reach visited (17.9%; 40 reachable by the catalogue, 12 left out, each with why)\n",
		"- `tool/effect/after_commit/shared/receipt` (➖ not drawn): exploration draws the correlation modifier shared only under a concurrent config",
		"| `tool/effect/after_commit/isolated/ledger_readback` | timeout_after_commit | ❌ violated | 1 | 0 | `effect_at_most_once` ×1, first false after seq 19 (tool.commit); `faultline replay timeout_after_commit-",
		"| `tool/effect/after_commit/isolated/receipt` | partial_success_response, malformed_response, output_drift | ❌ violated | 2 | 0 | `effect_at_most_once` ×1, first false after seq 19 (tool.commit); `faultline replay output_drift-",
		"| `state/state/before_commit/isolated/state_version` | concurrent_version_change, stale_state_read | ✅ held | 1 | 0 | - |",
		"| `state/branch_join/before_commit/isolated/join_record` | branch_failure | ✅ held | 1 | 0 | - |",
		"- `context/proposal/before_validation/isolated/policy_record` (⚠️ scheduled, not reached): scheduled 1 time, but its event never occurred (stale_policy)\n",
		"<details><summary>Unreachable keys (12335), grouped by reason</summary>",
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
	if back.Version != coverage.Version || back.Summary != r.Summary || len(back.Keys) != 40 || len(back.Unreachable) != 66 ||
		back.Unreachable[0].Dimension != "boundary" || back.Unreachable[0].Keys != 1800 {
		t.Fatalf("json report: %+v", back)
	}
	cx := back.Keys[11].Counterexamples[0]
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
	if title != "faultline coverage: 5 of 28 keys the systems can reach visited (17.9%; 40 reachable by the catalogue, 12 left out, each with why)" {
		t.Fatalf("title %q", title)
	}
	if scripts != 0 || len(external) != 0 {
		t.Fatalf("%d scripts or embedded resources, external references %v", scripts, external)
	}
	if len(svgs) != 3 {
		t.Fatalf("%d svg heatmaps, want 3", len(svgs))
	}
	wantCells := []int{5 * 5, 11 * 9, 5 * 5}
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
	if len(tool) != 1 || !strings.HasSuffix(text(tool[0]), "2/6 ✗2") || attr(find(tool[0], func(n *html.Node) bool { return n.Data == "rect" })[0], "fill") != "#ffc9c9" {
		t.Fatalf("tool × after_commit cell: %d found, text %q", len(tool), text(tool[0]))
	}
	// a cell whose every key is left out of the system's universe is not a
	// gap: correlation synchronized × domain context (stale_policy's
	// modifier, not drawn) reads n/a, not 0/1
	sync := find(svgs[2], func(n *html.Node) bool {
		return n.Data == "g" && strings.HasPrefix(text(n), "correlation synchronized, domain context:")
	})
	if len(sync) != 1 || text(sync[0]) != "correlation synchronized, domain context: outside the systems' universe: 1 not drawnn/a" ||
		attr(find(sync[0], func(n *html.Node) bool { return n.Data == "rect" })[0], "fill") != "#f8f9fa" {
		t.Fatalf("synchronized × context cell: %d found", len(sync))
	}
	rows := find(byID["keys"], func(n *html.Node) bool { return n.Data == "tr" && n.Parent.Data == "tbody" })
	if len(rows) != 40 {
		t.Fatalf("%d key rows, want 40", len(rows))
	}
	// the counterexample sits in its key's row
	if row := text(rows[11]); !strings.HasPrefix(row, "tool/effect/after_commit/isolated/ledger_readback") ||
		!strings.Contains(row, "effect_at_most_once violated in 1 run(s)") || !strings.Contains(row, "faultline replay timeout_after_commit-") {
		t.Fatalf("row 8: %q", row)
	}
	// both counterexamples of the shared receipt key sit in its row
	if row := text(rows[12]); !strings.HasPrefix(row, "tool/effect/after_commit/isolated/receipt") ||
		!strings.Contains(row, "faultline replay output_drift-") || !strings.Contains(row, "faultline replay partial_success_response-") {
		t.Fatalf("row 9: %q", row)
	}
	if attr(rows[11], "class") != "status-violated" || attr(rows[28], "class") != "status-held" || attr(rows[35], "class") != "status-held" ||
		attr(rows[6], "class") != "status-scheduled_not_reached" || attr(rows[7], "class") != "status-not_drawn" || attr(rows[8], "class") != "status-not_drawn" || attr(rows[9], "class") != "status-never_tried" {
		t.Fatal("row classes")
	}
	// the 23 unvisited keys of the universe: 16 of the kinds' own specs
	// (sliding_grant_cache's and ambient_identity_leak's are not drawn),
	// 7 under repeated or persistent
	if n := len(find(byID["unvisited"], func(n *html.Node) bool { return n.Data == "li" })); n != 23 {
		t.Fatalf("%d unvisited keys listed, want 23", n)
	}
	gaps := find(byID["unreachable"], func(n *html.Node) bool { return n.Data == "li" })
	if len(gaps) != 66 || !strings.Contains(text(gaps[0]), "(1800 keys): no identity fault kind enters at any of the boundaries") {
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
