package coverage_test

import (
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/model"
)

// TestRecordKindsOutsideTheCatalogue: a run that schedules a kind outside
// model.Catalogue() (server_error, corrupted_readback) records under its
// spec's key, on a system other than the reference one (billing): a key
// the catalogue reaches counts the visit, any other is reported outside
// the catalogue; the universe's figures are the catalogue's either way.
func TestRecordKindsOutsideTheCatalogue(t *testing.T) {
	def := billing.Definition()
	tr, err := coverage.NewTracker(nil, def)
	if err != nil {
		t.Fatal(err)
	}
	run := func(kind string, bugs billing.Bugs, target string) *model.Result {
		t.Helper()
		s, err := model.SingleFault(kind, billing.Config(bugs))
		if err != nil {
			t.Fatal(err)
		}
		s.Faults[0].Target = target
		res, err := def.Replay(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Record(res); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		return res
	}
	run("server_error", billing.FreshKeyPerRetry, "after_commit")
	run("corrupted_readback", 0, "")
	d := tr.Data()
	se := coverage.Key{Domain: "tool", Boundary: "effect", Phase: "before_commit", Correlation: "isolated", Oracle: "ledger_readback"}
	cr := coverage.Key{Domain: "evidence", Boundary: "proof", Phase: "after_commit", Correlation: "isolated", Oracle: "ledger_readback"}
	e, o := d.Keys[se], d.Keys[cr]
	// server_error after the commit, retried under a fresh key: charged
	// twice; billing's readback has nothing for corrupted_readback to
	// corrupt (reached, not fired)
	if d.Runs != 2 || len(d.Keys) != 2 || e == nil || e.Visits != 1 || len(e.Counterexamples) != 2 ||
		e.Counterexamples[0].Violation.Invariant != "charged_once" || e.Counterexamples[1].Violation.Invariant != "recorded_agrees_with_ledger" ||
		o == nil || o.Visits != 0 || o.NotFired != 1 || o.NotReached != 0 {
		t.Fatalf("recorded %d runs, keys %+v %+v", d.Runs, e, o)
	}
	u := coverage.Default()
	if len(u.Reachable()) != 40 || !u.IsReachable(se) || u.IsReachable(cr) || u.Size() != 12375 {
		t.Fatalf("universe: %d reachable of %d", len(u.Reachable()), u.Size())
	}
	r := coverage.NewReport(u, d, coverage.ReportOptions{})
	var row coverage.KeyRow
	for _, kr := range r.Keys {
		if kr.Key == cr.String() {
			row = kr
		}
	}
	if r.Summary.Reachable != 40 || r.Summary.Outside != 1 || r.Summary.Violated != 1 || row.Status != coverage.StatusOutside ||
		row.Reason != "recorded from a kind outside the catalogue, or under another catalogue: no evidence fault kind at boundary proof enters in phase after_commit; evidence kinds at boundary proof enter in after_receipt (drop_effect_receipt)" {
		t.Fatalf("summary %+v, row %+v", r.Summary, row)
	}
	// a kind the model does not know is still refused
	bad := *run("server_error", 0, "")
	bad.Faults = []model.FaultReport{{ID: "f1", Kind: "gremlin", Oracle: "ledger_readback"}}
	if err := tr.Record(&bad); err == nil || err.Error() != `coverage: record: fault f1: kind "gremlin" is not in the coverage universe, nor a kind of the model` {
		t.Fatalf("Record of an unknown kind: %v", err)
	}
}
