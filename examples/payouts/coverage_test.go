package payouts_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/examples/payouts"
	"github.com/faultline/faultline/properties"
)

// TestCoverageGateOnOneTask: the payout agent's fixture has one task, so
// no worker runs a second one and the default search never draws the
// worker-scoped ambient_identity_leak its path enacts: coverage leaves
// that key out of the ratio as not drawn, naming the kind and why, and
// the gate at ratio 1 passes once the walk visited every key it draws.
func TestCoverageGateOnOneTask(t *testing.T) {
	def := payouts.Definition()
	def.Enacts = []string{"rate_limit", "ambient_identity_leak"}
	tr, err := coverage.NewTracker(nil, def)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := properties.Explore(def, properties.WithoutWorldEvents(),
		properties.WithCoverage(tr)); err != nil {
		t.Fatal(err)
	}
	// the written file keeps what the runs drew: read back, it reports
	// the same
	var f bytes.Buffer
	if err := tr.Data().Write(&f); err != nil {
		t.Fatal(err)
	}
	d, err := coverage.Read(&f)
	if err != nil {
		t.Fatal(err)
	}
	r := coverage.NewReport(coverage.Default(), d, coverage.ReportOptions{})
	// 7 runs (the default search stops at its first counterexample); of
	// the 40 reachable keys 27 hold no kind the path enacts, 10 are never
	// crossed, 1 is not drawn, and the 2 left are visited
	if s := r.Summary; s.Runs != 7 || s.Visited != 2 || s.Applicable != 2 || s.Ratio != 1 || s.NotEnacted != 27 || s.NeverCrossed != 10 ||
		s.NotDrawn != 1 || s.NeverTried != 0 {
		t.Errorf("summary %+v", s)
	}
	if len(r.NotDrawn) != 1 || r.NotDrawn[0].Key != "identity/worker/before_validation/persistent/capability_record" ||
		r.NotDrawn[0].Reason != "the default search draws ambient_identity_leak on no recorded workload of payouts: ambient_identity_leak, worker-scoped: no worker runs a second task (drawn only under a concurrent config with fewer workers than the fixture has tasks)" {
		t.Errorf("not drawn %+v", r.NotDrawn)
	}
	g, err := coverage.Gate(coverage.Default(), d, coverage.GateOptions{MinRatio: 1, HasMinRatio: true})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := g.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !g.Passed() || !strings.HasPrefix(b.String(), "coverage gate: passed\n  ratio 1.0000 (2 of 2 keys the systems can reach visited; ") {
		t.Errorf("gate:\n%s", b.String())
	}
}
