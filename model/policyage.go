package model

import (
	"fmt"
	"strconv"
)

// invPolicyFresh is the policy-age invariant: no effect is committed on a
// decision whose policy copy was older than the fixture's MaxPolicyAge
// (logical ms) when it was made. The decision's copy is its task's newest
// read of the tenant's policy before its first tool call after that read
// (the decision's send, whose retries carry the same decision); its age
// is the send's time minus the copy's fetch (Policy.AsOf), whether the
// replica kept an old copy (policy_fetch_failed) or the system kept one
// while the replica stayed fresh. It is in scope of every run of a fixture
// that states MaxPolicyAge, but for the paper's set (compat). Semantics:
// docs/catalogue.md, "A policy replica that cannot update".
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

// policyRead is a task's reads of a tenant's policy: the newest copy it
// read (fetched at asOf; pending until the task's next tool call), and the
// copy of its last decision, fetched at decidedAsOf and sent at sentAt
// (decided once a tool call followed a read).
type policyRead struct {
	task, tenant        string
	asOf                Millis
	pending, decided    bool
	decidedAsOf, sentAt Millis
}

// readPolicy records the copy p of tenant that the current task read.
func (r *run) readPolicy(tenant string, p Policy) {
	for i := range r.policyReads {
		if q := &r.policyReads[i]; q.task == r.task.ID && q.tenant == tenant {
			q.asOf, q.pending = p.AsOf, true
			return
		}
	}
	r.policyReads = append(r.policyReads, policyRead{task: r.task.ID, tenant: tenant, asOf: p.AsOf, pending: true})
}

// sendPolicy makes the copies the current task read since its last tool
// call the copies of the decision its tool call at logical time at sends.
func (r *run) sendPolicy(at Millis) {
	for i := range r.policyReads {
		if q := &r.policyReads[i]; q.task == r.task.ID && q.pending {
			q.pending, q.decided, q.decidedAsOf, q.sentAt = false, true, q.asOf, at
		}
	}
}

// policyOld returns, for the effects committed since the last call, the
// first whose decision's copy of its tenant's policy was older than the
// fixture's MaxPolicyAge when sent, or "". An effect whose task read no
// policy before a tool call rests on no copy.
func (r *run) policyOld() string {
	max, from := r.h.fixture.MaxPolicyAge, r.policyChecked
	r.policyChecked = len(r.world.Ledger)
	for _, e := range r.world.Ledger[min(from, len(r.world.Ledger)):] {
		for _, q := range r.policyReads {
			if q.task == e.Task && q.tenant == e.Tenant && q.decided && q.sentAt-q.decidedAsOf > max {
				return "effect " + e.Key + " of task " + e.Task + " committed at " + ms(e.At) + " on tenant " + strconv.Quote(e.Tenant) +
					"'s policy fetched at " + ms(q.decidedAsOf) + " and decided on at " + ms(q.sentAt) + ": " + ms(q.sentAt-q.decidedAsOf) +
					" old, more than the fixture's max_policy_age of " + ms(max)
			}
		}
	}
	return ""
}

// policyFresh is the policy-age invariant invPolicyFresh.
func policyFresh() UserInvariant {
	return UserInvariant{Name: invPolicyFresh, Owner: "policy replica", Oracle: oraclePolicyRecord,
		Doc: "no effect is committed on a decision whose policy copy was older than the fixture's max_policy_age",
		Check: func(v View) string {
			return v.r.policyOld()
		}}
}
