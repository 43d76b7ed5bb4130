package llmagent_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/faultline/faultline/properties"
)

// argKinds are the kinds that rewrite the refund call's arguments, each
// with the bug that lets the rewritten call through, the invariant it
// breaks and the end of its reason: the scripted model's fixture has one
// task, so a swapped value is "injected-" and the task's; the order's
// record is at version 2, so a refund at the version before (1), or at
// none (0), is not at the record's.
var argKinds = []struct{ kind, bug, invariant, detail string }{
	{"tenant_swap", "unbound_subject", "right_subject", "tenant injected-acme (the task's is acme)"},
	{"purpose_swap", "unbound_subject", "right_subject", "purpose injected-refund (the task's is refund)"},
	{"stale_context", "ignore_context_version", "current_entitlement", "state version changed before effect"},
	{"omitted_context", "ignore_context_version", "current_entitlement", "state version changed before effect"},
}

// TestArgumentSwaps: the glue's scripted model puts the task's tenant,
// purpose and context version (2) in the refund call, and the agent
// refunds under the arguments the model gave. Over each SDK, the default
// check (seed 1, 20 checks) over each kind of argKinds finds the agent
// without the check that kind defeats (unbound_subject: the tenant and
// purpose; ignore_context_version: the version) refunding under the
// rewritten value: its invariant after seq 4, shrunk to the one fault at
// proposal#1. The correct agent, which refuses a call whose tenant,
// purpose or version is not its task's, holds over the same 20 checks,
// the fault fired in each.
func TestArgumentSwaps(t *testing.T) {
	for _, provider := range providers {
		for _, k := range argKinds {
			for _, bug := range []string{k.bug, ""} {
				kind := k.kind
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
				if c.FaultKind != kind || len(f) != 1 || f[0].Event != "proposal" || f[0].Ordinal != 1 || c.Invariant != k.invariant ||
					c.FirstSeq != 4 || !strings.HasSuffix(c.Detail, k.detail) {
					t.Errorf("%s: %v", name, c)
				}
			}
		}
	}
}
