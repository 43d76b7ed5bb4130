package doors_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/internal/archiver"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// enacting is the archiver as a path that enacts two tool kinds only, as
// a production system whose one adapter renders them would declare.
func enacting() *model.Definition {
	d := archiver.Definition()
	d.Enacts = []string{"timeout_after_commit", "tool_timeout", "tool_timeout"} // twice: two adapters' Kinds()
	return d
}

// refusedKind is the words of the one rule (internal/catalog) every door
// refuses a kind outside Enacts with.
const refusedKind = `"lagging_readback" is a kind the path of archiver cannot enact, so it could never fire: it enacts timeout_after_commit, tool_timeout, worker_crash, worker_restart`

// TestDoorsEnactAlike: Definition.Enacts narrows every door alike to its
// kinds and the two the harness enacts (worker_restart, worker_crash):
// the walk's scope, the fuzz decoder's sites, the audit's single faults
// (3 of the 35 catalogue kinds, each fired) and the fault matrix (the
// walk: 111 schedules, 201 of their 209 faults fired); the
// walk still finds the planted bug; and a kind outside Enacts named by
// WithKinds or --kinds is refused with the same words (exit 2). With
// Enacts nil the audit runs all 35 (the counterfactual).
func TestDoorsEnactAlike(t *testing.T) {
	def := enacting()
	enacted := []string{"timeout_after_commit", "tool_timeout", "worker_restart", "worker_crash"}
	rep, err := properties.Explore(def, properties.WithSeed(1), properties.WithChecks(1))
	if err != nil {
		t.Fatal(err)
	}
	w := rep.Walk
	if w == nil || !slices.Equal(w.Scope.Kinds, enacted) || w.Schedules != 111 || w.Faults != 209 || w.Reached != 209 || w.Fired != 201 {
		t.Fatalf("walk %+v", w)
	}
	// (with Enacts nil: 2,437 schedules, 4,813 faults, 3,280 fired)
	bug, err := properties.Explore(def, properties.WithConfig(model.Config{System: json.RawMessage(`{"bug":"fresh_keys"}`)}), properties.WithSeed(1), properties.WithChecks(1))
	if err != nil || !bug.Found || bug.Walk == nil || bug.Counterexample.Schedule.Faults[0].Kind != "timeout_after_commit" {
		t.Fatalf("the planted bug: %v %+v", err, bug)
	}
	d, err := fuzz.NewDecoder(def)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range d.Sites() {
		if !slices.Contains(enacted, s.Kind) {
			t.Errorf("fuzz site %s outside Enacts", s)
		}
	}
	m, err := coverage.FaultMatrix(def, "", model.Config{}, nil)
	if err != nil || len(m.Rows) == 0 {
		t.Fatalf("matrix %v %+v", err, m)
	}
	for _, r := range m.Rows {
		if !slices.Contains(enacted, r.Kind) {
			t.Errorf("matrix row %s outside Enacts", r.Kind)
		}
	}
	if _, err := properties.Explore(def, properties.WithKinds("tool_timeout", "lagging_readback")); err == nil || !strings.Contains(err.Error(), refusedKind) || !strings.Contains(err.Error(), "exit 2") {
		t.Errorf("properties.WithKinds: %v", err)
	}
	if _, err := fuzz.NewDecoder(def, fuzz.WithKinds("lagging_readback")); err == nil || !strings.Contains(err.Error(), refusedKind) || !strings.Contains(err.Error(), "exit 2") {
		t.Errorf("fuzz.WithKinds: %v", err)
	}
	var o, e bytes.Buffer
	if code := cli.Main([]string{"explore", "--kinds", "lagging_readback"}, &o, &e, def); code != 2 || !strings.Contains(e.String(), "--kinds: "+refusedKind) {
		t.Errorf("explore --kinds: exit %d, %q", code, e.String())
	}
	for _, c := range []struct {
		def   *model.Definition
		kinds string
		runs  int
	}{{def, "3 enacted fault kinds", 3}, {archiver.Definition(), "35 fault kinds", 35}} {
		o.Reset()
		e.Reset()
		if code := cli.Main([]string{"audit"}, &o, &e, c.def); code != 0 || !strings.Contains(o.String(), " audit: archiver, 1 configuration, "+c.kinds+",") {
			t.Errorf("audit: exit %d %q %q", code, o.String(), e.String())
		}
		o.Reset()
		var j struct {
			Version        int
			Configurations []struct{ Runs, Reached, Fired int }
		}
		if code := cli.Main([]string{"audit", "--format", "json"}, &o, &e, c.def); code != 0 || json.Unmarshal(o.Bytes(), &j) != nil ||
			j.Version != 2 || len(j.Configurations) != 1 || j.Configurations[0].Runs != c.runs {
			t.Errorf("audit json: exit %d %s", code, o.String())
		} else if cj := j.Configurations[0]; c.runs == 3 && (cj.Reached != 3 || cj.Fired != 3) {
			t.Errorf("audit json under Enacts: %+v", cj)
		}
	}
}
