package measure_test

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/internal/checkrun"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// example is one example system as its exploration sees it: its
// definition, the harness options its tests run it with, and the kinds in
// scope (catalogue kinds and world events whose event it crosses).
type example struct {
	name    string
	def     *model.Definition
	harness model.Options
	kinds   []string
	// summary is the campaign's summary at rapid's seed 1, 300 checks
	// (billing: 720 reached, one fewer since a sequential draw's last
	// fault may carry repeated or persistent, which changes its run).
	summary string
}

// examples are the example systems with their bugs off. The billing agent
// is held to every built-in invariant besides its own (its tests keep four
// built-ins, and its own three name what breaks in its terms); the
// inventory agent's scope is its own, over the catalogue's kinds it
// crosses, without world events, as its own exploration has it.
var examples = []example{
	{"billing", billing.Definition(), model.Options{Builtin: allBuiltin(), Invariants: billing.Invariants()}, billing.Kinds,
		"campaign billing: seed 1, 300 checks: no counterexample; 25 of 25 kinds in scope reached (549 of 592 faults reached)"},
	{"inventory", inventory.Definition(), inventory.HarnessOptions(), []string{
		"subject_swap", "revoked_capability", "concurrent_version_change",
		"timeout_after_commit", "partial_success_response", "break_trace_lineage", "sandbox_denial", "timeout_before_send",
		"reject_before_commit", "malformed_response", "output_drift", "rate_limit", "tool_timeout", "budget_exhaustion",
		"checkpoint_rollback", "worker_restart", "missing_checkpoint", "stale_checkpoint", "future_version_checkpoint", "corrupt_checkpoint",
	}, "campaign inventory: seed 1, 300 checks: no counterexample; 20 of 20 kinds in scope reached (527 of 592 faults reached)"},
}

// allBuiltin names every built-in invariant.
func allBuiltin() []string {
	var names []string
	for _, inv := range model.Invariants {
		names = append(names, inv.Name)
	}
	return names
}

func (e example) options() []properties.Option {
	return []properties.Option{properties.WithHarnessOptions(e.harness), properties.WithKinds(e.kinds...)}
}

// TestCampaignCheck runs Check on each example with its bugs off; it
// runs only as TestCampaign's subprocess (checkrun.Run).
func TestCampaignCheck(t *testing.T) {
	if checkrun.Tag() == "" {
		t.Skip("runs as TestCampaign's subprocess")
	}
	for _, e := range examples {
		t.Run(e.name, func(t *testing.T) { properties.Check(t, e.def, e.options()...) })
	}
}

// setFlag sets a rapid flag for one test and restores it afterwards.
func setFlag(t *testing.T, name, value string) {
	t.Helper()
	old := flag.Lookup(name).Value.String()
	if err := flag.Set(name, value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set(name, old) })
}

// TestCampaign runs, for each example with its bugs off, one run of each
// kind in scope at its designed place (each must hold with every fault
// reached), properties.Check and then the same draws of the exploration's generator, each run through
// the example's definition: Check finds no counterexample and the draws
// reach every kind in scope at least once, and only kinds in scope. The
// seed and checks are rapid's seed 1 and 300 checks, unless RAPID_SEED and
// RAPID_CHECKS set them (scripts/examples-campaign.sh); the last line it
// logs per example is the campaign's summary.
func TestCampaign(t *testing.T) {
	if raceDetector || testing.Short() {
		t.Skip("single-goroutine campaigns at rapid's full check count: go test ./... runs them without the race detector")
	}
	if os.Getenv("RAPID_SEED") == "" {
		setFlag(t, "rapid.seed", "1")
	}
	if os.Getenv("RAPID_CHECKS") == "" {
		setFlag(t, "rapid.checks", "300")
	}
	setFlag(t, "rapid.nofailfile", "true")
	seed, checks := flag.Lookup("rapid.seed").Value.String(), flag.Lookup("rapid.checks").Value.String()
	for _, e := range examples {
		t.Run(e.name, func(t *testing.T) {
			for _, kind := range e.kinds {
				s, err := model.SingleFault(kind, model.Config{})
				if err != nil {
					t.Fatal(err)
				}
				res, err := e.def.Run(s, e.harness)
				if err != nil {
					t.Fatal(err)
				}
				if err := res.Err(); err != nil {
					t.Errorf("single run of %s: %v", kind, err)
				}
			}
			r := checkrun.Run(t, "^TestCampaignCheck$/^"+e.name+"$", "campaign", nil, "-rapid.seed="+seed, "-rapid.checks="+checks, "-rapid.nofailfile")
			if r.Failed || len(r.Messages) == 0 || !strings.HasPrefix(r.Messages[len(r.Messages)-1], "properties: no counterexample in "+checks+" checks;") {
				t.Fatalf("Check with the bugs off: %q\n%s", r.Messages, r.Output)
			}
			gen, err := properties.Generator(e.def, e.options()...)
			if err != nil {
				t.Fatal(err)
			}
			reached := map[string]int{}
			var faults, hits int
			rapid.Check(t, func(rt *rapid.T) {
				s := gen.Draw(rt, "schedule")
				res, err := e.def.Run(s, e.harness)
				if err != nil {
					rt.Fatal(err)
				}
				for _, inv := range res.Invariants {
					if !inv.Held {
						rt.Fatalf("%s violated: %s\n%s", inv.Invariant, inv.Detail, model.Format(s))
					}
				}
				for _, f := range res.Faults {
					faults++
					if f.Reached {
						hits++
						reached[f.Kind]++
					}
				}
			})
			var missing, outside []string
			for _, k := range e.kinds {
				if reached[k] == 0 {
					missing = append(missing, k)
				}
			}
			for k := range reached {
				if !slices.Contains(e.kinds, k) {
					outside = append(outside, k)
				}
			}
			if len(missing) > 0 || len(outside) > 0 {
				t.Errorf("kinds in scope never reached %q; reached outside the scope %q", missing, outside)
			}
			line := fmt.Sprintf("campaign %s: seed %s, %s checks: no counterexample; %d of %d kinds in scope reached (%d of %d faults reached)",
				e.name, seed, checks, len(e.kinds)-len(missing), len(e.kinds), hits, faults)
			if want, exact := e.summary, seed == "1" && checks == "300"; exact && line != want {
				t.Errorf("summary %q, want %q", line, want)
			}
			t.Log(line)
		})
	}
}
