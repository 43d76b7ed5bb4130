package model

import (
	"fmt"
	"strconv"
	"strings"
)

// World events are changes of the world that a fault schedule interleaves
// with the run, at any crossing: the clock advances, a capability is
// revoked, a newer policy is published, a concurrent writer advances a
// record's state version, or the worker crashes. The paper lists them as the
// conditions a configured system meets between approval and execution
// ("when a token expires between approval and execution, when retrieved
// context becomes stale ... when a checkpoint is restored after the world
// has moved"); the harness practice adds the worker restart at any point.
//
// A world event is written in a schedule like a fault (an entry with event,
// ordinal, kind and optional target) and may name any event of AllEvents:
// it takes effect right after the ordinal-th occurrence of that event is
// recorded, and is recorded itself as a "world" event in the timeline,
// carrying its fault id. World events are not part of Catalogue (the fault
// catalogue the assay draws from); WorldEvents lists them.

// evWorld is the timeline event of a world event. A schedule cannot name it.
const evWorld EventName = "world"

// worldHook is the hook of a world event: it changes the World (or crashes
// the worker) right after the crossing it is attached to. It returns a
// redacted detail for the timeline and whether it fired; crash is true
// when the worker must crash after the world event is recorded.
type worldHook interface {
	onWorld(r *run, target string) (detail string, fired, crash bool)
}

// targetChecker is implemented by every kind that takes a target
// (FaultEntry.Target): checkTarget refuses one it cannot read, and
// targetDoc names what the target is. Validate refuses a target on any
// other kind, which would ignore it.
type targetChecker interface {
	checkTarget(target string) error
	targetDoc() string
}

// anyTarget is a kind whose target is a free name the run may or may not
// cross (a memory key, a branch, a capability, a tenant, a subject).
type anyTarget string

func (anyTarget) checkTarget(string) error { return nil }
func (t anyTarget) targetDoc() string      { return string(t) }

// targetKinds lists every kind that takes a target with what its target
// is, for the error that refuses a target elsewhere: "memory_loss (a
// memory key), ...".
func targetKinds() string {
	var out []string
	for _, table := range kindTables {
		for _, k := range table {
			if tc, ok := k.impl.(targetChecker); ok {
				out = append(out, k.spec.Kind+" ("+tc.targetDoc()+")")
			}
		}
	}
	return strings.Join(out, ", ")
}

// MaxClockAdvance is the largest clock_advance target Validate accepts, in
// logical milliseconds (one day). A generator of world events draws its
// advances within it; a longer pause is several advances.
const MaxClockAdvance Millis = 86_400_000

type clockAdvance struct{}

// onWorld advances the logical clock by target milliseconds (1000 when
// empty): a pause of the worker, a slow host or a long queue.
func (clockAdvance) onWorld(r *run, target string) (string, bool, bool) {
	d := Millis(1000)
	if target != "" {
		n, _ := strconv.ParseInt(target, 10, 64) // checked by Validate
		d = Millis(n)
	}
	r.world.Clock += d
	r.wclock += d
	return fmt.Sprintf("clock advanced %d ms", d), true, false
}

func (clockAdvance) targetDoc() string { return "logical milliseconds" }

func (clockAdvance) checkTarget(target string) error {
	if target == "" {
		return nil
	}
	n, err := strconv.ParseInt(target, 10, 64)
	if err != nil || n < 1 || n > int64(MaxClockAdvance) {
		return fmt.Errorf("clock_advance target %q must be whole logical milliseconds between 1 and %d", target, MaxClockAdvance)
	}
	return nil
}

type capabilityRevocation struct{ anyTarget }

// onWorld revokes the capability named by target (the current task's when
// empty) in the World.
func (capabilityRevocation) onWorld(r *run, target string) (string, bool, bool) {
	id := target
	if id == "" {
		id = r.task.Capability
	}
	c, ok := r.world.Capability(id)
	if !ok || c.Revoked {
		return "", false, false
	}
	c.Revoked = true
	return "capability " + id + " revoked", true, false
}

type policyChange struct{ anyTarget }

// onWorld publishes a newer policy version of the tenant named by target
// (the current task's when empty) that no longer allows the action.
func (policyChange) onWorld(r *run, target string) (string, bool, bool) {
	tenant := target
	if tenant == "" {
		tenant = r.task.Tenant
	}
	p, ok := r.world.Policy(tenant)
	if !ok {
		return "", false, false
	}
	p.Version++
	p.Allows = false
	r.world.Policies = append(r.world.Policies, p)
	return fmt.Sprintf("policy version %d of %s no longer allows the action", p.Version, tenant), true, false
}

type stateVersionChange struct{ anyTarget }

// onWorld has a concurrent writer advance the state version of the record
// named by target (the current task's subject when empty); its eligibility
// is unchanged.
func (stateVersionChange) onWorld(r *run, target string) (string, bool, bool) {
	subject := target
	if subject == "" {
		subject = r.task.Subject
	}
	o, ok := r.world.Subject(subject)
	if !ok {
		return "", false, false
	}
	o.Version++
	return fmt.Sprintf("%s advanced to version %d", subject, o.Version), true, false
}

type workerCrash struct{}

// onWorld crashes the worker right after the crossing: the reply of the
// call never reaches it, and a fresh instance must resume from the store.
func (workerCrash) onWorld(r *run, target string) (string, bool, bool) {
	if r.crashed {
		return "", false, false
	}
	return "worker crashed", true, true
}

// worldKinds are the world events, in a fixed order. Their Event and
// Ordinal are the default placement SingleFault uses; any event fits.
var worldKinds = []faultKind{
	{FaultSpec{Kind: "clock_advance", Domain: domainContext, Target: "logical clock", Event: EvToolCommit,
		Boundary: boundaryWorker, Phase: phaseBeforeCommit, Signal: signalStateUpdate, Manner: mannerLate,
		Oracle: oracleBudgetCounter, Threatens: []string{InvBudget, InvCurrentEntitlement},
		Doc: "the logical clock advances by the target's milliseconds (1000 when empty): deadlines and capability expiries come closer"}, clockAdvance{}},
	{FaultSpec{Kind: "capability_revocation", Domain: domainIdentity, Target: "capability record", Event: EvAuthorityGrant,
		Boundary: boundaryAuthority, Phase: phaseBeforeCommit, Signal: signalStateUpdate, Manner: mannerLate,
		Oracle: oracleCapabilityRecord, Threatens: []string{InvCurrentEntitlement},
		Doc: "the capability named by the target (the task's when empty) is revoked"}, capabilityRevocation{"a capability id"}},
	{FaultSpec{Kind: "policy_change", Domain: domainContext, Target: "policy record", Event: EvAuthorityGrant,
		Boundary: boundaryAuthority, Phase: phaseBeforeCommit, Signal: signalStateUpdate, Manner: mannerLate,
		Oracle: oraclePolicyRecord, Threatens: []string{InvCurrentEntitlement},
		Doc: "a newer policy version of the target tenant (the task's when empty) no longer allows the action"}, policyChange{"a tenant"}},
	{FaultSpec{Kind: "state_version_change", Domain: domainState, Target: "subject state", Event: EvAuthorityGrant,
		Boundary: boundaryState, Phase: phaseBeforeCommit, Signal: signalStateUpdate, Manner: mannerLate,
		Oracle: oracleStateVersion, Threatens: []string{InvCurrentEntitlement},
		Doc: "a concurrent writer advances the state version of the target record (the task's subject when empty)"}, stateVersionChange{"a subject"}},
	{FaultSpec{Kind: "worker_crash", Domain: domainState, Target: "worker", Event: EvToolCommit,
		Boundary: boundaryWorker, Phase: phaseAfterCommit, Signal: signalAcknowledgement, Manner: mannerAbsent,
		Oracle: oracleLedgerReadback, Threatens: []string{InvEffectAtMostOnce},
		Doc: "the worker crashes right after the crossing; the reply never reaches it and a fresh worker resumes from the store"}, workerCrash{}},
}

func init() {
	for i := range worldKinds {
		s := &worldKinds[i].spec
		s.Mode = s.Kind
		s.Ordinal = 1
		s.Correlation = correlationIsolated
		s.Intensity = 1
		s.Scope = "one synthetic subject"
		s.Recoverable = true
		s.World = true
		if _, ok := worldKinds[i].impl.(worldHook); !ok {
			panic("model: world event " + s.Kind + " has no world hook")
		}
	}
}

// WorldEvents returns the specs of the world events, in a fixed order
// (clock_advance, capability_revocation, policy_change,
// state_version_change, worker_crash). Each may be attached to any event
// of AllEvents.
func WorldEvents() []FaultSpec {
	out := make([]FaultSpec, len(worldKinds))
	for i, k := range worldKinds {
		out[i] = k.spec
	}
	return out
}

// applyWorld applies the world events armed at the crossing just recorded,
// each recorded as an evWorld event with its fault id, and crashes the
// worker after a worker_crash.
func (r *run) applyWorld() {
	for len(r.pendingWorld) > 0 {
		f := r.pendingWorld[0]
		r.pendingWorld = r.pendingWorld[1:]
		detail, fired, crash := f.kind.impl.(worldHook).onWorld(r, f.entry.Target)
		if !fired {
			continue
		}
		id := r.fire(f)
		if !r.detailed {
			detail = ""
		}
		r.record(evWorld, 0, id, f.entry.Kind, detail, r.state)
		if crash {
			r.crash("worker crashed after " + f.entry.Placement())
		}
	}
}
