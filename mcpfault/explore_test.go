package mcpfault_test

import (
	"encoding/json"
	"flag"
	"testing"

	"github.com/faultline/faultline/mcpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// definition is the agent as a production system: the provider (a real
// MCP server) is built inside each run, so each run starts from an empty
// table, and the schedule's config turns the agent's fresh-key retry on.
func definition() *model.Definition {
	return &model.Definition{
		Name:     "janitor",
		Fixtures: []model.Fixture{fixture},
		Configure: func(raw json.RawMessage) (model.Factory, error) {
			var c struct {
				Fresh bool `json:"fresh"`
			}
			if len(raw) > 0 {
				if err := json.Unmarshal(raw, &c); err != nil {
					return nil, err
				}
			}
			p := newProvider(true)
			sys := system{p: p, pol: policy{freshKey: c.Fresh, checkTrace: true}, opts: mcpfault.Options{Readback: []string{"get_deletion"}}}
			return func() model.System { return sys }, nil
		},
		Builtin:    options().Builtin,
		Invariants: options().Invariants,
		Clock:      properties.BubbleClock,
	}
}

// TestExplore: exploration over the adapter's kinds finds the fresh-key
// bug and shrinks it to one fault at the first commit; the stable-key
// agent holds under properties.Check, each run in a testing/synctest
// bubble (the SDK's in-memory transports and their goroutines opened and
// closed inside it).
func TestExplore(t *testing.T) {
	// no rapid fail file in the source tree: a stored one would make the
	// next run replay it first
	old := flag.Lookup("rapid.nofailfile").Value.String()
	if err := flag.Set("rapid.nofailfile", "true"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set("rapid.nofailfile", old) })
	def := definition()
	if raceDetector {
		// the exploration's runs start the same goroutines (the MCP client's
		// and server's) as the production check's below and
		// TestCounterfactualPairs's runs: the detector watches those, go
		// test ./... runs the exploration
		t.Log("the exploration is left to go test ./...; the detector watches the production check")
	} else {
		explore(t, def)
	}
	opts := []properties.Option{properties.WithKinds(mcpfault.Kinds()...)}
	if raceDetector {
		// the same goroutines (the MCP client's and server's) run in each
		// check; the detector watches the walk's clean run and 17 single
		// faults (of its 198 schedules) and 10 checks of seed 1, go test
		// ./... runs the whole walk and rapid's 100
		opts = append(opts, properties.WithSeed(1), properties.WithChecks(10), properties.WithMaxSchedules(18))
	}
	properties.Check(t, def, opts...)
}

// explore runs the exploration of TestExplore: it finds the fresh-key bug
// and shrinks it to one fault at the first commit.
func explore(t *testing.T, def *model.Definition) {
	t.Helper()
	rep, err := properties.Explore(def, properties.WithKinds(mcpfault.Kinds()...),
		properties.WithConfig(model.Config{System: json.RawMessage(`{"fresh":true}`)}))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Found {
		t.Fatalf("fresh key: no counterexample in %d checks", rep.Checks)
	}
	cx := rep.Counterexample
	if cx.Invariant != model.InvEffectAtMostOnce || len(cx.Schedule.Faults) != 1 || cx.Schedule.Faults[0].Event != model.EvToolCommit ||
		cx.Schedule.Faults[0].Ordinal != 1 || cx.Event != model.EvToolCommit {
		t.Fatalf("counterexample %+v", cx)
	}
}
