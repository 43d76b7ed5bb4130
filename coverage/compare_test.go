package coverage_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/reference/copperfin"
)

// profileColumns records every kind once under each profile, one column a
// profile, as the audit does.
func profileColumns(t *testing.T) []coverage.Column {
	t.Helper()
	var cols []coverage.Column
	for _, p := range copperfin.Profiles {
		cols = append(cols, coverage.Column{Label: string(p), Data: record(t, profileSchedules(t, p)...).Data()})
	}
	return cols
}

// TestCompareProfiles: merged, the audit's runs make 31 of the 40 keys
// violated; side by side, typed holds under every key, and fail_closed
// violates 18 (recorded_agrees_with_ledger: it denies refunds the provider
// made), each one the baseline violates too. server_error's and
// network_error's runs after the commit (2 more a profile, 63) make the
// baseline violate 31 keys (tool/effect/before_commit/isolated/ledger_readback
// too) with 52 counterexamples, fail_closed 18 with 18 (was 30, 50, 16, 16). With 35 kinds (was 30) and
// span_carry_over's correlated run each profile runs 61 (was 55); the
// baseline violates 30 keys (was 29: malformed_tool_call breaks
// right_subject at context/proposal/before_validation/isolated/ledger_readback)
// with 50 counterexamples (was 48: 34 before recorded_agrees_with_ledger,
// which adds 14, and the new kinds 2).
func TestCompareProfiles(t *testing.T) {
	oneGoroutine(t)
	cols := profileColumns(t)
	c, err := coverage.Compare(nil, cols, coverage.ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	merged := coverage.NewReport(coverage.Default(), record(t, auditSchedules(t)...).Data(), coverage.ReportOptions{})
	if diff := cmp.Diff(merged, c.Total); diff != "" {
		t.Fatalf("total differs from the report of all runs (-all +total):\n%s", diff)
	}
	if len(c.Rows) != 40 || strings.Join(c.Labels, ",") != "baseline,typed,fail_closed" {
		t.Fatalf("%d rows, labels %v", len(c.Rows), c.Labels)
	}
	var got []string
	for i, r := range c.Columns {
		s := r.Summary
		got = append(got, c.Labels[i]+" "+itoa(s.Visited)+" "+itoa(s.Violated)+" "+itoa(s.Held)+" "+itoa(s.Runs))
	}
	if strings.Join(got, "; ") != "baseline 38 31 7 63; typed 40 0 40 63; fail_closed 40 18 22 63" {
		t.Fatalf("columns: %s", strings.Join(got, "; "))
	}
	if s := c.Total.Summary; s.Violated != 31 || s.Held != 9 {
		t.Fatalf("merged: %d violated, %d held", s.Violated, s.Held)
	}
	row := c.Rows[12]
	if row.Key != "tool/effect/after_commit/isolated/receipt" || row.Cells[0].Status != coverage.StatusViolated ||
		len(row.Cells[0].Counterexamples) != 3 || row.Cells[1].Status != coverage.StatusHeld || row.Cells[2].Status != coverage.StatusViolated {
		t.Fatalf("row %+v", row)
	}

	var b bytes.Buffer
	if err := c.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Coverage: 40 of 40 reachable keys visited (100.0%)\n",
		"\nBy baseline, typed, fail_closed:\n" +
			"  baseline     38 of 40 reachable keys visited: 31 violated, 7 held (63 runs)\n" +
			"  typed        40 of 40 reachable keys visited: 0 violated, 40 held (63 runs)\n" +
			"  fail_closed  40 of 40 reachable keys visited: 18 violated, 22 held (63 runs)\n",
		"  key                                                                baseline                                                                       typed  fail_closed                             kinds\n",
		"  tool/effect/after_commit/isolated/receipt                          violated (effect_at_most_once, provable_outcome, recorded_agrees_with_ledger)  held   violated (recorded_agrees_with_ledger)  partial_success_response,malformed_response,output_drift\n",
		"  state/branch_join/before_commit/isolated/join_record               held                                                                           held   held                                    branch_failure\n",
		"  tool/effect/after_commit/isolated/ledger_readback under baseline\n    effect_at_most_once violated in 1 run: first false after seq 19 (tool.commit): second ledger effect for task refund-O-731\n",
		"Unvisited reachable keys:\n  none\n",
		"Unreachable keys (12335), grouped by reason:\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("comparison lacks %q", want)
		}
	}
	if n, f := strings.Count(out, " under baseline\n"), strings.Count(out, " under fail_closed\n"); n != 52 || f != 18 || strings.Contains(out, " under typed\n") {
		t.Errorf("%d counterexamples under baseline, %d under fail_closed, want 52 and 18 and none under typed", n, f)
	}
}

// TestCompareColumnsApart: a key one column never tried shows as such in
// that column while the other holds it; an empty comparison, a missing
// label or data, and a repeated label are errors.
func TestCompareColumnsApart(t *testing.T) {
	a := record(t, single(t, "timeout_after_commit", copperfin.ProfileBaseline)).Data()
	b := record(t, at(t, "timeout_after_commit", 5, copperfin.ProfileTyped), single(t, "branch_failure", copperfin.ProfileTyped)).Data()
	c, err := coverage.Compare(nil, []coverage.Column{{Label: "a", Data: a}, {Label: "b", Data: b}}, coverage.ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cells := func(i int) string {
		var s []string
		for _, k := range c.Rows[i].Cells {
			s = append(s, k.Status)
		}
		return c.Rows[i].Key + " " + strings.Join(s, ",")
	}
	for i, want := range map[int]string{
		11: "tool/effect/after_commit/isolated/ledger_readback violated,scheduled_not_reached",
		35: "state/branch_join/before_commit/isolated/join_record never_tried,held",
		0:  "identity/proposal/before_validation/isolated/capability_record never_tried,never_tried",
	} {
		if got := cells(i); got != want {
			t.Errorf("row %d: %s, want %s", i, got, want)
		}
	}
	if s := c.Total.Summary; s.Visited != 2 || s.Violated != 1 || s.Runs != 3 {
		t.Fatalf("total %+v", s)
	}
	for _, bad := range []struct {
		cols []coverage.Column
		want string
	}{
		{nil, "no column"},
		{[]coverage.Column{{Data: a}}, "column 1 has no label"},
		{[]coverage.Column{{Label: "a", Data: a}, {Label: "a", Data: b}}, `label "a" given twice`},
		{[]coverage.Column{{Label: "a"}}, `column "a" has no data`},
	} {
		if _, err := coverage.Compare(nil, bad.cols, coverage.ReportOptions{}); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Compare: error %v, want %q", err, bad.want)
		}
	}
}
