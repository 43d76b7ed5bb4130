package coverage_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
)

// gateText is g's text finding.
func gateText(t *testing.T, g *coverage.GateResult) string {
	t.Helper()
	var b bytes.Buffer
	if err := g.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRatioGateListsTheUnvisitedKeys: the ticket agent visits 2 of the
// 23 keys it can reach; a ratio gate of 1 fails and names each of the 21
// unvisited keys with its status and why (before, it gave the ratio
// alone and no key).
func TestRatioGateListsTheUnvisitedKeys(t *testing.T) {
	d := ticketCampaign(t, &model.Definition{Name: "tickets"}).Data()
	g, err := coverage.Gate(coverage.Default(), d, coverage.GateOptions{MinRatio: 1, HasMinRatio: true})
	if err != nil {
		t.Fatal(err)
	}
	if g.Passed() || len(g.Unvisited) != 21 || len(g.Missing) != 0 {
		t.Fatalf("passed %t, %d unvisited, %d missing", g.Passed(), len(g.Unvisited), len(g.Missing))
	}
	if m := g.Unvisited[0]; m != (coverage.Missing{Requirement: "min_ratio", Key: "identity/proposal/before_validation/isolated/capability_record",
		Reason: "never_tried: no recorded run scheduled subject_swap or tenant_swap or purpose_swap"}) {
		t.Fatalf("first %+v", m)
	}
	text := gateText(t, g)
	for _, want := range []string{
		"  ratio 0.0870 (2 of 23 keys the systems can reach visited; 40 reachable by the catalogue, the rest left out with why in the report), minimum 1.0000: NOT MET\n  unvisited keys of the universe: 21\n",
		"  unvisited tool/tool_call/before_commit/isolated/budget_counter: never_tried: no recorded run scheduled rate_limit\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("gate text lacks %q:\n%s", want, text)
		}
	}
	// a ratio that is met lists nothing
	if g, _ := coverage.Gate(coverage.Default(), d, coverage.GateOptions{MinRatio: 0.08, HasMinRatio: true}); !g.Passed() || g.Unvisited != nil {
		t.Fatalf("met: %+v", g)
	}
}

// TestGateCountsViolations: the ticket agent's timeout after the post
// broke answered_once in one run. The gate measures visits, so it passes,
// and says so with the count; NoViolations fails it.
func TestGateCountsViolations(t *testing.T) {
	d := ticketCampaign(t, &model.Definition{Name: "tickets"}).Data()
	g, err := coverage.Gate(coverage.Default(), d, coverage.GateOptions{MinRatio: 0.08, HasMinRatio: true})
	if err != nil {
		t.Fatal(err)
	}
	const line = "  invariants: 1 violation of an invariant recorded under 1 key (a run counts once per invariant it broke; the counterexamples are in the report)"
	if !g.Passed() || g.Violations != 1 || g.ViolatedKeys != 1 ||
		!strings.Contains(gateText(t, g), line+"; the gate measures visits, not verdicts (--no-violations fails it on any)\n") {
		t.Fatalf("default: passed %t, %d violations\n%s", g.Passed(), g.Violations, gateText(t, g))
	}
	g, _ = coverage.Gate(coverage.Default(), d, coverage.GateOptions{MinRatio: 0.08, HasMinRatio: true, NoViolations: true})
	if text := gateText(t, g); g.Passed() || !strings.HasPrefix(text, "coverage gate: FAILED\n") || !strings.Contains(text, line+", --no-violations: NOT MET\n") {
		t.Fatalf("no violations: passed %t\n%s", g.Passed(), text)
	}
}

// TestGateRefusesContradictedDeclarations: a blanket key pattern and a
// list of boundaries the ticket agent crosses are refuted by its own
// runs; the gate, met on the ratio, fails and names each contradiction,
// and its text counts the keys declared not applicable (before, it
// passed with ratio 1 over 2 keys and said nothing of the 38 others).
func TestGateRefusesContradictedDeclarations(t *testing.T) {
	blanket := ticketCampaign(t, &model.Definition{Name: "tickets", NotApplicableKeys: map[string]string{"*/*/*/*/*": "nothing applies"}}).Data()
	g, err := coverage.Gate(coverage.Default(), blanket, coverage.GateOptions{MinRatio: 1, HasMinRatio: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []coverage.Contradiction{
		{System: "tickets", Declaration: "*/*/*/*/*: nothing applies", Key: "context/proposal/before_validation/isolated/policy_record",
			Evidence: "a fault of context/proposal/before_validation/isolated/policy_record reached its event and fired (1 time)"},
		{System: "tickets", Declaration: "*/*/*/*/*: nothing applies", Key: "tool/effect/after_commit/isolated/ledger_readback",
			Evidence: "a fault of tool/effect/after_commit/isolated/ledger_readback reached its event and fired (1 time)"},
	}
	if diff := cmp.Diff(want, g.Contradicted); diff != "" || !g.RatioMet() || g.Passed() || g.NotApplicable != 38 || g.Applicable != 2 {
		t.Fatalf("passed %t, ratio met %t, %d not applicable, contradicted (-want +got):\n%s", g.Passed(), g.RatioMet(), g.NotApplicable, diff)
	}
	text := gateText(t, g)
	for _, s := range []string{
		"coverage gate: FAILED\n  ratio 1.0000 (2 of 2 keys the systems can reach visited; 40 reachable by the catalogue, the rest left out with why in the report), minimum 1.0000: met\n",
		"  not applicable: 38 of the 40 reachable keys, left out of the ratio because the systems declare them (model.Definition.NotApplicable, NotApplicableKeys)\n",
		"  not-applicable declarations the recorded runs contradict: 2 (the ratio's universe rests on them: fix the declaration, delete the file and record again)\n",
		"  tickets declares */*/*/*/*: nothing applies, yet a fault of tool/effect/after_commit/isolated/ledger_readback reached its event and fired (1 time)\n",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("gate text lacks %q:\n%s", s, text)
		}
	}
	// the report notes the visits too, and lists the contradictions
	r := coverage.NewReport(coverage.Default(), blanket, coverage.ReportOptions{})
	var rb bytes.Buffer
	if err := r.WriteText(&rb); err != nil {
		t.Fatal(err)
	}
	if want := "\nNot-applicable declarations the recorded runs contradict (2; coverage gate fails on them):\n  tickets declares */*/*/*/*: nothing applies, yet a fault of context/proposal/before_validation/isolated/policy_record reached its event and fired (1 time)\n"; !strings.Contains(rb.String(), want) {
		t.Errorf("report lacks %q", want)
	}
	for _, k := range r.Keys {
		if k.Key == "tool/effect/after_commit/isolated/ledger_readback" && k.Reason != "visited, although tickets declares */*/*/*/* not applicable: nothing applies" {
			t.Errorf("row %+v", k)
		}
	}

	// boundaries the agent crosses: worker.start is the worker's own event,
	// authority.grant and authority.check the authority's
	bounds := ticketCampaign(t, &model.Definition{Name: "tickets", NotApplicable: []model.Boundary{"authority", "branch_join", "worker"}}).Data()
	g, _ = coverage.Gate(coverage.Default(), bounds, coverage.GateOptions{MinRatio: 0, HasMinRatio: true})
	want = []coverage.Contradiction{
		{System: "tickets", Declaration: "no authority boundary", Evidence: "its runs crossed authority.check, authority.grant, where only authority kinds enter"},
		{System: "tickets", Declaration: "no worker boundary", Evidence: "its runs crossed worker.start, where only worker kinds enter"},
	}
	if diff := cmp.Diff(want, g.Contradicted); diff != "" || g.Passed() {
		t.Fatalf("boundaries: passed %t (-want +got):\n%s", g.Passed(), diff)
	}
	// a declaration the runs do not refute (no branch_join) passes
	ok := ticketCampaign(t, &model.Definition{Name: "tickets", NotApplicable: []model.Boundary{"branch_join", "memory"}}).Data()
	if g, _ := coverage.Gate(coverage.Default(), ok, coverage.GateOptions{MinRatio: 0, HasMinRatio: true}); !g.Passed() || len(g.Contradicted) != 0 {
		t.Fatalf("a sound declaration: %+v", g.Contradicted)
	}
}

// TestReasonChangeIsNamed: recording after only a pattern's reason
// changed is refused as bad input (exit 2), naming the pattern and both
// reasons and what to do (before: "not-applicable key patterns differ",
// called an I/O or internal error, exit 4).
func TestReasonChangeIsNamed(t *testing.T) {
	const pat = "identity/worker/*/*/*"
	p := filepath.Join(t.TempDir(), "cov.json")
	if err := ticketCampaign(t, &model.Definition{Name: "tickets", NotApplicableKeys: map[string]string{pat: "one task a run"}}).FlushTo(p); err != nil {
		t.Fatal(err)
	}
	tr := ticketCampaign(t, &model.Definition{Name: "tickets", NotApplicableKeys: map[string]string{pat: "one task per run", "state/worker/*/*/*": "no restart"}})
	errb := captureStderr(t)
	if code := coverage.Main(fakeM{0}, p, tr); code != 1 {
		t.Fatalf("code %d", code)
	}
	want := "FAIL: coverage: 3 runs not recorded (the tests' own result is above; exit 2, bad input): merging into " + p +
		`: systems["tickets"]: not-applicable key patterns differ: identity/worker/*/*/*: only the reason changed, "one task a run" in the record merged into and "one task per run" in the one merged in; ` +
		`state/worker/*/*/* only in the one merged in ("no restart"); the two were recorded under different declarations of the system (model.Definition.NotApplicableKeys), which one file cannot hold (bad input, exit 2): ` +
		"delete the file, or record into a new one, to start afresh under the new declaration\n"
	if errb.String() != want {
		t.Fatalf("stderr\n%q\nwant\n%q", errb.String(), want)
	}
	if d, err := coverage.ReadFile(p); err != nil || d.Runs != 3 {
		t.Fatalf("the file changed: %v", err)
	}
}

// TestTextReportSaysWhereScheduleFilesComeFrom: without WriteSchedules the
// files the replay commands name do not exist, and the text report says
// how to get them; after WriteSchedules it names them plainly.
func TestTextReportSaysWhereScheduleFilesComeFrom(t *testing.T) {
	d := ticketCampaign(t, &model.Definition{Name: "tickets", ReplayCommand: "FAULTLINE_REPLAY=%s go test -run '^TestTickets$' ./tickets"}).Data()
	dir := t.TempDir()
	r := coverage.NewReport(coverage.Default(), d, coverage.ReportOptions{Dir: dir})
	var before, after bytes.Buffer
	if err := r.WriteText(&before); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(before.String(), "\nCounterexamples, beside their keys (no schedule file written: save each schedule under the file name its replay command gives, or write them all with coverage report --schedules DIR):\n") {
		t.Fatalf("before:\n%s", before.String())
	}
	if err := r.WriteSchedules(dir); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteText(&after); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(after.String(), "\nCounterexamples, beside their keys:\n  tool/effect/after_commit/isolated/ledger_readback\n") {
		t.Fatalf("after:\n%s", after.String())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 || !strings.Contains(after.String(), "replay: FAULTLINE_REPLAY="+filepath.Join(dir, ents[0].Name())) && !strings.Contains(after.String(), "replay: FAULTLINE_REPLAY="+filepath.Join(dir, ents[1].Name())) {
		t.Fatalf("%d files", len(ents))
	}
}
