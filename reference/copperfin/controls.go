package copperfin

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/model"
)

// Control is one configurable defence of the reference system. The seven
// controls are the paper's ("Runnable Python artefact"); the eighth,
// DenyOnWarning, is the fail-closed policy of worked example 5; the ninth,
// NoticeReconcile, defends the consumption of the provider's notices and
// is in no profile; the last two, BoundedGrantAge and PerTaskIdentity, are
// no profile's either (the defences against a sliding capability cache and
// a worker-scoped identity).
type Control string

// Controls.
const (
	BindIdentity       Control = "bind_identity"
	PreEffectAuthority Control = "pre_effect_authority"
	RefreshContext     Control = "refresh_context"
	StatePrecondition  Control = "state_precondition"
	Idempotency        Control = "idempotency"
	EffectReadback     Control = "effect_readback"
	EvidenceGate       Control = "evidence_gate"
	DenyOnWarning      Control = "deny_on_warning"
	// NoticeReconcile: in a run whose provider sends notices, a notice is
	// applied once (by its id) and only where the provider's ledger agrees
	// (a failed notice for an action the ledger holds committed is stale),
	// and a settlement no notice reported is read back from the ledger.
	NoticeReconcile Control = "notice_reconcile"
	// BoundedGrantAge: an authority check's answer older than MaxGrantAge
	// (a cache's, Capability.AsOf) is not acted on: the grant is
	// re-validated at the issuer (a fresh approval) before the effect.
	BoundedGrantAge Control = "bounded_grant_age"
	// PerTaskIdentity: the acting actor, tenant and trace are re-derived
	// from each task, never taken from the worker's ambient context
	// (model.AmbientOf).
	PerTaskIdentity Control = "per_task_identity"
	// JitteredBackoff and SharedRetryBudget are the fleet's controls (the
	// paper, thought experiment 4: "Add random jitter and a shared retry
	// budget"): a rate-limited agent waits the retry-after plus a random
	// jitter of up to ten times it, and an agent whose outcome is unknown
	// a jitter of up to 1,000 ms, both drawn from Env.Rand; an agent asks the
	// fleet's shared retry budget (Env.RetryToken) before it decides to
	// retry, and holds when the budget is spent.
	JitteredBackoff   Control = "jittered_backoff"
	SharedRetryBudget Control = "shared_retry_budget"
)

// MaxPolicyAge is the oldest policy copy, in logical milliseconds since
// its replica's last fetch (model.Policy.AsOf), refresh_context acts on:
// an older one is re-read every policyRefetchWait until a fetch succeeds
// or the deadline is near, then denied. It is a tenth of the
// max_policy_age the copperfin-policy-replica fixture states
// (policyReplicaMaxAge), so a refund checked fresh commits inside that
// bound even on a resumed worker's longest path from the check to the
// commit (80 ms: two reads, a readback, a checkpoint, the commit).
const MaxPolicyAge model.Millis = 10

// policyRefetchWait is the wait, in logical milliseconds, between two
// fetches of a policy found too old.
const policyRefetchWait model.Millis = 100

// MaxGrantAge is the oldest authority answer, in logical milliseconds,
// the bounded_grant_age control acts on.
const MaxGrantAge model.Millis = 50

// PaperControls are the seven controls of the paper's artefact, in its order.
var PaperControls = []Control{BindIdentity, PreEffectAuthority, RefreshContext, StatePrecondition, Idempotency, EffectReadback, EvidenceGate}

// AllControls are the controls of the audit's and the lab's profiles:
// the paper's seven, deny_on_warning and notice_reconcile.
var AllControls = append(append([]Control(nil), PaperControls...), DenyOnWarning, NoticeReconcile)

// FleetControls are the two controls of a fleet (typed_fleet): the
// reference system accepts them beside AllControls.
var FleetControls = []Control{JitteredBackoff, SharedRetryBudget}

// CacheWorkerControls are the defences against a sliding capability
// cache and a worker-scoped identity (model.CacheAndWorkerKinds): in no
// profile, accepted beside AllControls and FleetControls.
var CacheWorkerControls = []Control{BoundedGrantAge, PerTaskIdentity}

// accepted are every control name the reference system accepts, in bit
// order.
var accepted = append(append(append([]Control(nil), AllControls...), FleetControls...), CacheWorkerControls...)

// Controls is a set of enabled controls as a bit set; the zero value is the
// baseline (no control).
type Controls uint16

// The bit of each control, in accepted order (init checks them against
// controlBit), so that the system's checks of its controls are bit tests.
const (
	bitBindIdentity Controls = 1 << iota
	bitPreEffectAuthority
	bitRefreshContext
	bitStatePrecondition
	bitIdempotency
	bitEffectReadback
	bitEvidenceGate
	bitDenyOnWarning
	bitNoticeReconcile
	bitJitteredBackoff
	bitSharedRetryBudget
	bitBoundedGrantAge
	bitPerTaskIdentity
)

// bits are the control bits in accepted order.
var bits = [...]Controls{bitBindIdentity, bitPreEffectAuthority, bitRefreshContext, bitStatePrecondition, bitIdempotency, bitEffectReadback, bitEvidenceGate, bitDenyOnWarning, bitNoticeReconcile, bitJitteredBackoff, bitSharedRetryBudget, bitBoundedGrantAge, bitPerTaskIdentity}

func controlBit(c Control) (Controls, bool) {
	switch c { // in accepted order; init checks it
	case BindIdentity:
		return 1 << 0, true
	case PreEffectAuthority:
		return 1 << 1, true
	case RefreshContext:
		return 1 << 2, true
	case StatePrecondition:
		return 1 << 3, true
	case Idempotency:
		return 1 << 4, true
	case EffectReadback:
		return 1 << 5, true
	case EvidenceGate:
		return 1 << 6, true
	case DenyOnWarning:
		return 1 << 7, true
	case NoticeReconcile:
		return 1 << 8, true
	case JitteredBackoff:
		return 1 << 9, true
	case SharedRetryBudget:
		return 1 << 10, true
	case BoundedGrantAge:
		return 1 << 11, true
	case PerTaskIdentity:
		return 1 << 12, true
	}
	return 0, false
}

func init() {
	for i, c := range accepted {
		if b, ok := controlBit(c); !ok || b != 1<<uint(i) || i >= len(bits) || bits[i] != b {
			panic("copperfin: controlBit out of step with the accepted controls at " + string(c))
		}
	}
	if len(bits) != len(accepted) {
		panic("copperfin: the control bits are out of step with the accepted controls")
	}
}

// Has reports whether c is enabled.
func (cs Controls) Has(c Control) bool {
	b, ok := controlBit(c)
	return ok && cs&b != 0
}

// With returns cs with c enabled. It panics on an unknown control, which is
// programmer misuse; user input goes through ParseControls.
func (cs Controls) With(c Control) Controls {
	b, ok := controlBit(c)
	if !ok {
		panic(fmt.Sprintf("copperfin: unknown control %q", c))
	}
	return cs | b
}

// Without returns cs with c disabled (it panics on an unknown control).
func (cs Controls) Without(c Control) Controls {
	b, ok := controlBit(c)
	if !ok {
		panic(fmt.Sprintf("copperfin: unknown control %q", c))
	}
	return cs &^ b
}

// List returns the enabled controls in AllControls order, then
// FleetControls', then CacheWorkerControls'.
func (cs Controls) List() []Control {
	out := []Control{}
	for _, c := range accepted {
		if cs.Has(c) {
			out = append(out, c)
		}
	}
	return out
}

// String returns the enabled controls joined by commas, or "none".
func (cs Controls) String() string {
	l := cs.List()
	if len(l) == 0 {
		return "none"
	}
	s := make([]string, len(l))
	for i, c := range l {
		s[i] = string(c)
	}
	return strings.Join(s, ",")
}

// ParseControls parses control names (a list; empty means no control). It
// returns an error naming the first unknown or repeated control.
func ParseControls(names []string) (Controls, error) {
	var cs Controls
	for _, n := range names {
		n = strings.TrimSpace(n)
		b, ok := controlBit(Control(n))
		if !ok {
			return 0, fmt.Errorf("unknown control %q (valid: %s)", n, joinControls(accepted))
		}
		if cs&b != 0 {
			return 0, fmt.Errorf("control %q listed twice", n)
		}
		cs |= b
	}
	return cs, nil
}

func joinControls(cs []Control) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

// Profile names a set of controls.
type Profile string

// The reference system's profiles. Baseline has no control, typed has the
// paper's seven, fail_closed has the seven plus DenyOnWarning (the paper,
// worked example 5: "deny every action after any warning"), typed_fleet
// the seven plus FleetControls (the paper, thought experiment 4).
const (
	ProfileBaseline   Profile = "baseline"
	ProfileTyped      Profile = "typed"
	ProfileFailClosed Profile = "fail_closed"
	ProfileTypedFleet Profile = "typed_fleet"
)

// Profiles lists the named profiles of the audit, the lab and the
// reference system's named configurations; ProfileTypedFleet, for
// fleets, is accepted beside them.
var Profiles = []Profile{ProfileBaseline, ProfileTyped, ProfileFailClosed}

// ProfileControls returns the control set of a named profile, or an error
// naming p and the valid profiles.
func ProfileControls(p Profile) (Controls, error) {
	switch p {
	case ProfileBaseline:
		return 0, nil
	case ProfileTyped:
		var cs Controls
		for _, c := range PaperControls {
			cs = cs.With(c)
		}
		return cs, nil
	case ProfileFailClosed:
		cs, _ := ProfileControls(ProfileTyped)
		return cs.With(DenyOnWarning), nil
	case ProfileTypedFleet:
		cs, _ := ProfileControls(ProfileTyped)
		return cs.With(JitteredBackoff).With(SharedRetryBudget), nil
	}
	return 0, fmt.Errorf("unknown profile %q (valid: baseline, typed, fail_closed, typed_fleet)", p)
}

// ParseControlList parses a comma-separated control list, as flags and
// environment variables give it. Blank items are skipped, so "" is the
// empty set (no control). It returns an error naming an unknown or
// repeated control.
func ParseControlList(csv string) (Controls, error) {
	var names []string
	for _, n := range strings.Split(csv, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return ParseControls(names)
}
