package llmagent_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/faultline/faultline/properties"
)

// swapped is the end of each kind's right_subject reason: the scripted
// model's fixture has one task, so the swapped value is "injected-" and
// the task's.
var swapped = map[string]string{"tenant_swap": "tenant injected-acme (the task's is acme)", "purpose_swap": "purpose injected-refund (the task's is refund)"}

// TestArgumentSwaps: the glue's scripted model puts the task's tenant and
// purpose in the refund call, and the agent refunds under the arguments
// the model gave. Over each SDK, the default check (seed 1, 20 checks)
// over tenant_swap, then purpose_swap, finds the agent without a binding
// check (unbound_subject) refunding under the swapped value: right_subject
// after seq 4, shrunk to the one swap at proposal#1. The correct agent,
// which refuses a call whose tenant or purpose is not its task's, holds
// over the same 20 checks, the swap fired in each.
func TestArgumentSwaps(t *testing.T) {
	for _, provider := range providers {
		for _, kind := range []string{"tenant_swap", "purpose_swap"} {
			for _, bug := range []string{"unbound_subject", ""} {
				name := fmt.Sprintf("%s/%s/%q", provider, kind, bug)
				var rep *properties.Report
				var err error
				synctest.Test(t, func(*testing.T) {
					rep, err = properties.Explore(definition(), properties.WithKinds(kind), properties.WithConfig(configOf(provider, bug)),
						properties.WithSeed(1), properties.WithChecks(20))
				})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if bug == "" {
					if rep.Found || rep.Checks != 20 || rep.Fired != 20 || rep.Reached != rep.Faults {
						t.Errorf("%s: found %v, checks %d, faults %d, reached %d, fired %d (want none found in 20 checks, 20 fired)",
							name, rep.Found, rep.Checks, rep.Faults, rep.Reached, rep.Fired)
					}
					continue
				}
				if !rep.Found {
					t.Fatalf("%s: nothing found", name)
				}
				c := rep.Counterexample
				f := c.Schedule.Faults
				if c.FaultKind != kind || len(f) != 1 || f[0].Event != "proposal" || f[0].Ordinal != 1 || c.Invariant != "right_subject" ||
					c.FirstSeq != 4 || !strings.HasSuffix(c.Detail, swapped[kind]) {
					t.Errorf("%s: %v", name, c)
				}
			}
		}
	}
}
