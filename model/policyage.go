package model

import (
	"fmt"
	"strconv"
)

// invPolicyFresh is the policy-age invariant: no effect is committed while
// the policy replica of its tenant is older than the fixture's
// MaxPolicyAge (logical ms). The replica's age is the time since its last
// successful fetch; any copy a system holds is at least that old, so the
// check is a lower bound on the age of the policy a decision rests on. It
// is in scope of every run of a fixture that states MaxPolicyAge, but for
// the paper's set (compat). Semantics: docs/catalogue.md, "A policy
// replica that cannot update".
const invPolicyFresh = "policy_fresh"

// maxPolicyAgeLimit bounds Fixture.MaxPolicyAge: one hour of logical ms.
const maxPolicyAgeLimit Millis = 3_600_000

// policyOutage is how long, in logical ms, a policy_fetch_failed fault
// keeps the replica's fetches failing: the first fetch at or after the
// fault's time plus policyOutage succeeds.
const policyOutage Millis = 200

// replica is a tenant's policy replica, which fetches the policy on each
// read: copy is what it last fetched, at since (0: the fixture's copy,
// fetched at the run's start); its fetches fail until the clock reaches
// until (0 while they succeed). While they fail it serves copy, and its
// age is the clock minus since: the policy-age signal.
type replica struct {
	tenant       string
	copy         Policy
	since, until Millis
}

// checkMaxPolicyAge returns an error naming a fixture's MaxPolicyAge out
// of bounds (0 to maxPolicyAgeLimit); nil is valid.
func checkMaxPolicyAge(f *Fixture) error {
	if f.MaxPolicyAge < 0 || f.MaxPolicyAge > maxPolicyAgeLimit {
		return fmt.Errorf("max_policy_age %d ms must be 0 (no bound) to %d ms (one hour)", f.MaxPolicyAge, maxPolicyAgeLimit)
	}
	return nil
}

// replica returns the policy replica of tenant, nil before its first
// fetch.
func (w *world) replica(tenant string) *replica {
	for i := range w.replicas {
		if w.replicas[i].tenant == tenant {
			return &w.replicas[i]
		}
	}
	return nil
}

// failing returns the replica of tenant when its fetches fail at logical
// time at, or nil.
func (w *world) failing(tenant string, at Millis) *replica {
	if p := w.replica(tenant); p != nil && p.since <= at && at < p.until {
		return p
	}
	return nil
}

// served returns the policy the replica of tenant serves at the World's
// clock: its kept copy while its fetches fail, else the current policy
// fetched now (AsOf the clock).
func (w *world) served(tenant string) (Policy, bool) {
	if p := w.failing(tenant, w.Clock); p != nil {
		return p.copy, true
	}
	cur, ok := w.Policy(tenant)
	cur.AsOf = w.Clock
	return cur, ok
}

// fetched records p, served to a read of tenant's policy, as the
// replica's copy when the read fetched it (p.AsOf is the clock and the
// replica's fetches do not fail).
func (w *world) fetched(tenant string, p Policy) {
	if p.AsOf != w.Clock || w.failing(tenant, w.Clock) != nil {
		return
	}
	if r := w.replica(tenant); r != nil {
		*r = replica{tenant: tenant, copy: p, since: p.AsOf}
		return
	}
	w.replicas = append(w.replicas, replica{tenant: tenant, copy: p, since: p.AsOf})
}

type policyFetchFailed struct{}

// onPolicy makes the replica's fetch fail until policyOutage from now: it
// serves the copy it fetched last (the fixture's, as of 0 ms, before any
// fetch), whose age grows until a later fetch succeeds. A replica whose
// fetches already fail is left as it is.
func (policyFetchFailed) onPolicy(r *run, p *Policy) bool {
	w := &r.world
	if w.failing(p.Tenant, w.Clock) != nil {
		return false
	}
	rep := w.replica(p.Tenant)
	if rep == nil {
		kept := *p
		kept.AsOf = 0
		w.replicas = append(w.replicas, replica{tenant: p.Tenant, copy: kept})
		rep = &w.replicas[len(w.replicas)-1]
	}
	rep.until = w.Clock + policyOutage
	*p = rep.copy
	return true
}

// policyKinds are the failures of a policy replica's fetch. Like
// fleetKinds they are kept out of Catalogue() and CacheAndWorkerKinds();
// the default search draws them on fixtures that state MaxPolicyAge.
var policyKinds = []faultKind{
	{FaultSpec{Kind: "policy_fetch_failed", Domain: domainContext, Target: "policy replica", Event: EvContextPolicy,
		Boundary: boundaryProposal, Phase: phaseBeforeValidation, Signal: signalStateUpdate, Manner: mannerLate,
		Oracle: oraclePolicyRecord, Threatens: []string{invPolicyFresh}, Needs: needMaxPolicyAge,
		Doc: "the policy replica's fetch fails for 200 ms: it keeps deciding on its last copy (Policy.AsOf), which ages until a later fetch succeeds"}, policyFetchFailed{}},
}

// policyOld returns, for the effects committed since the last call, the
// first committed while the policy replica of its tenant was older than
// the fixture's MaxPolicyAge, or "".
func (r *run) policyOld() string {
	max, from := r.h.fixture.MaxPolicyAge, r.policyChecked
	r.policyChecked = len(r.world.Ledger)
	for _, e := range r.world.Ledger[min(from, len(r.world.Ledger)):] {
		if p := r.world.failing(e.Tenant, e.At); p != nil && e.At-p.since > max {
			return "effect " + e.Key + " of task " + e.Task + " committed at " + ms(e.At) + " on tenant " + strconv.Quote(e.Tenant) +
				"'s policy fetched at " + ms(p.since) + ": " + ms(e.At-p.since) + " old, more than the fixture's max_policy_age of " + ms(max)
		}
	}
	return ""
}

// policyFresh is the policy-age invariant invPolicyFresh.
func policyFresh() UserInvariant {
	return UserInvariant{Name: invPolicyFresh, Owner: "policy replica", Oracle: oraclePolicyRecord,
		Doc: "no effect is committed while its tenant's policy replica is older than the fixture's max_policy_age",
		Check: func(v View) string {
			return v.r.policyOld()
		}}
}
