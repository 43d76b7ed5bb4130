package properties_test

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestDefaultWalkCutByItsBudget: the default exploration of the paper
// fixture under the typed profile walks 1,000 schedules of the 32,152 of
// at most two faults (31,872 before do_not_retry was drawn at every
// tool.commit) (the budget cuts it in the largest size, so the
// total is known; modifiers on the last fault placed, which its line
// says), says so, and goes on to its random checks; the cut
// walk proves nothing, and the campaign's verdict is the random checks'.
// WithMaxSchedules(0) leaves the walk out, and is refused under
// WithExhaustive.
func TestDefaultWalkCutByItsBudget(t *testing.T) {
	def := copperfin.Definition()
	cfg := properties.WithConfig(copperfin.ConfigOfProfile(copperfin.ProfileTyped))
	rep, err := properties.Explore(def, cfg, properties.WithMaxSchedules(1000), properties.WithSeed(1), properties.WithChecks(5))
	if err != nil {
		t.Fatal(err)
	}
	w := rep.Walk
	if w == nil || w.Complete || w.Found || rep.Found || rep.Checks != 5 || rep.Inconclusive() {
		t.Fatalf("report %+v, walk %+v", rep, w)
	}
	if got := w.WalkLine(); got != "walk: 1,000 of 32,152 schedules of <= 2 faults; cut by the budget; of their 1,755 faults 1,721 reached, 1,664 fired (1 of 0 faults, 243 of 1, 756 of 2; "+
		"modifiers on the last fault repeated (2 crossings), persistent (to the run's end); not enumerated: synchronized (one worker), shared (one tenant), faults placed after a modified one, other repeat counts, until events and windows)" {
		t.Errorf("walk line %q", got)
	}
	rep, err = properties.Explore(def, cfg, properties.WithMaxSchedules(0), properties.WithSeed(1), properties.WithChecks(5))
	if err != nil || rep.Walk != nil || rep.Checks != 5 {
		t.Fatalf("no walk: %v %+v", err, rep)
	}
	if _, err := properties.Explore(def, cfg, properties.WithExhaustive(), properties.WithMaxSchedules(0)); err == nil || !strings.Contains(err.Error(), "WithMaxSchedules(0) leaves an exhaustive walk nothing to run") {
		t.Errorf("exhaustive, 0 schedules: %v", err)
	}
	if _, err := properties.Explore(def, cfg, properties.WithMaxSchedules(-1)); err == nil {
		t.Error("WithMaxSchedules(-1) accepted")
	}
}
