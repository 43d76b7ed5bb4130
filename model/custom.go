package model

import (
	"fmt"
	"slices"
	"strings"
)

// UserInvariant is a named invariant over a read-only [View] of the World
// and the timeline: a user's own (Check set) or a built-in one of
// [Invariants]. The harness checks it after every crossing and reports it
// in [Result.Invariants] like the built-in ones; once false it stays false.
// Check returns "" when it holds, else a short reason; it reads only its
// View, keeps nothing past the call and is deterministic (the checklist:
// docs/vocabulary.md, "UserInvariant").
type UserInvariant struct {
	// Name is the invariant's name in reports; it must be non-empty,
	// unique in the run and differ from every built-in name.
	Name string `json:"name"`
	// Owner is the team answerable for it ("inventory").
	Owner string `json:"owner"`
	// Oracle is the independent source that adjudicates it, one of
	// AllOracles (usually "ledger_readback": the provider's ledger, which
	// the system under test cannot write); "" names none.
	Oracle OracleName `json:"oracle"`
	// Doc says what it asserts, in one line.
	Doc string `json:"doc"`
	// Check is the predicate (see the checklist above); nil for the
	// built-in Invariants, which the oracle checks itself.
	Check func(v View) string `json:"-"`
}

// View is a read-only view of a run at one boundary crossing, handed to
// [UserInvariant.Check]. Every slice it returns is a fresh copy, so a check
// cannot change the run. A View is valid only during the call it is handed
// to.
type View struct{ r *run }

// Seq is the timeline sequence number (1-based) of the crossing just
// recorded.
func (v View) Seq() int { return len(v.r.evs) }

// Event is the event of the crossing just recorded.
func (v View) Event() EventName { return v.r.evs[len(v.r.evs)-1] }

// Events returns the event names recorded so far, in order (index i is
// seq i+1). The full timeline events are in [Result.Timeline] after the
// run; during it, on the [Harness.Terms] path, only the names exist.
func (v View) Events() []EventName { return append([]EventName(nil), v.r.evs...) }

// Provider returns the run's provider history so far (see ProviderOp): it
// is recorded on every run with user invariants.
func (v View) Provider() []ProviderOp {
	out := make([]ProviderOp, len(v.r.prov))
	for i, p := range v.r.prov {
		p.Entries = append([]LedgerEntry(nil), p.Entries...)
		out[i] = p
	}
	return out
}

// Clock is the World's logical clock, in milliseconds.
func (v View) Clock() Millis { return v.r.world.Clock }

// Task is the task being run.
func (v View) Task() Task { return *v.r.task }

// Claim returns the current task's claim and true once the system made it
// (at the claim event), or false before.
func (v View) Claim() (Claim, bool) { return v.r.claim, v.r.claimed }

// Attempts is the number of tool-call attempts (tool.commit crossings) of
// the current task so far, counted across worker restarts.
func (v View) Attempts() int { return v.r.attempts }

// Restarts is the number of worker restarts of the current task so far.
func (v View) Restarts() int { return v.r.restarts }

// Ledger returns the provider's ledger: every effect committed so far, in
// commit order. LedgerEntry.Task is set by the harness (the task whose run
// made the call), not by the system.
func (v View) Ledger() []LedgerEntry { return append([]LedgerEntry(nil), v.r.world.Ledger...) }

// Evidence returns the evidence ledger's records so far.
func (v View) Evidence() []EvidenceRecord {
	return append([]EvidenceRecord(nil), v.r.world.Evidence...)
}

// Subject returns the World's current record of subject id (its status,
// version and amount, as disturbances may have changed them).
func (v View) Subject(id string) (Subject, bool) {
	o, ok := v.r.world.Subject(id)
	if !ok {
		return Subject{}, false
	}
	return o.clone(), true
}

// Capability returns the World's current record of capability id
// (revocation included).
func (v View) Capability(id string) (Capability, bool) {
	c, ok := v.r.world.Capability(id)
	if !ok {
		return Capability{}, false
	}
	return *c, true
}

// Checkpoints returns the checkpoints the store holds now, oldest first.
func (v View) Checkpoints() []Checkpoint {
	out := make([]Checkpoint, len(v.r.world.Checkpoints))
	for i, c := range v.r.world.Checkpoints {
		out[i] = copyCheckpoint(c)
	}
	return out
}

// userFinding is the oracle's finding for one user invariant.
type userFinding struct {
	violated bool
	firstSeq int
	event    EventName
	fault    string
	detail   string
}

// scope is the set of invariants a harness checks, resolved from Options.
type scope struct {
	// off marks built-in invariants out of scope.
	off [numInvariants]bool
	// narrowed is true when Options.Builtin selected the built-ins: the
	// outcome terms then come from the invariants in scope (see Terms).
	narrowed bool
	user     []UserInvariant
	// compat: the paper's invariant set (Options.Compat), without the
	// recorded_agrees_with_ledger every other run checks
	compat bool
}

// addedInvariants are the invariants the harness adds to a run of its own
// rather than by name in Options.Builtin, each with where it comes from.
var addedInvariants = map[string]string{
	invRetryPaced:               "every run that checks another invariant checks it, but for the paper's set (Options.Compat)",
	InvNoRetryStorm:             "every run of a fleet fixture (Fixture.Fleet) checks it, and no other run can",
	invPolicyFresh:              "every run of a fixture that states a policy-age bound (Fixture.MaxPolicyAge) checks it, but for the paper's set (Options.Compat)",
	InvRecordedAgreesWithLedger: "every run that checks another invariant checks it, beside those Builtin names, but a run of the paper's set (Options.Compat) without notices; add NoticeAgreement() to Options.Invariants to check it alone",
}

// resolveScope validates the invariant options.
func resolveScope(o Options) (scope, error) {
	s := scope{compat: o.Compat}
	if o.Builtin != nil {
		s.narrowed = true
		for i := range s.off {
			s.off[i] = true
		}
		for _, name := range o.Builtin {
			i := invIndex(name)
			if why, ok := addedInvariants[name]; ok {
				return s, fmt.Errorf("model: options: invariant %q is not named in Builtin: %s", name, why)
			}
			if i < 0 {
				return s, fmt.Errorf("model: options: unknown built-in invariant %q (valid: %s)", name, builtinNames())
			}
			if !s.off[i] {
				return s, fmt.Errorf("model: options: built-in invariant %q listed twice", name)
			}
			s.off[i] = false
		}
	}
	seen := map[string]bool{}
	for i, u := range o.Invariants {
		switch {
		case u.Name == "":
			return s, fmt.Errorf("model: options: invariant %d has no name", i)
		case invIndex(u.Name) >= 0 || u.Name == invRetryPaced || u.Name == invPolicyFresh:
			return s, fmt.Errorf("model: options: invariant %q has the name of a built-in invariant", u.Name)
		case seen[u.Name]:
			return s, fmt.Errorf("model: options: invariant %q listed twice", u.Name)
		case u.Check == nil:
			return s, fmt.Errorf("model: options: invariant %q has no Check", u.Name)
		case u.Oracle != "" && !slices.Contains(AllOracles, u.Oracle):
			return s, fmt.Errorf("model: options: invariant %q: unknown oracle %q (valid: %s)", u.Name, u.Oracle, joinNames(AllOracles))
		}
		seen[u.Name] = true
	}
	s.user = append([]UserInvariant(nil), o.Invariants...)
	return s, nil
}

// joinNames joins names with commas, for the valid values in an error.
func joinNames[T ~string](names []T) string {
	l := make([]string, len(names))
	for i, n := range names {
		l[i] = string(n)
	}
	return strings.Join(l, ", ")
}

func builtinNames() string {
	names := make([]string, len(Invariants))
	for i, inv := range Invariants {
		names[i] = inv.Name
	}
	return strings.Join(names, ", ")
}

// checkUser evaluates the user invariants still holding after the crossing
// at seq.
func (o *oracleState) checkUser(r *run, seq int) {
	for i := range r.users {
		f := &o.user[i]
		if f.violated {
			continue
		}
		if why := r.users[i].Check(View{r}); why != "" {
			*f = userFinding{violated: true, firstSeq: seq, event: r.evs[seq-1], fault: faultAt(r, seq), detail: why}
		}
	}
}

// violatedIn reports whether an invariant in scope first became false at
// a crossing of the current task (from its first crossing on in a
// sequential run; at a crossing the task made in a concurrent one): a
// violation an earlier task caused is that task's, not this one's.
func (o *oracleState) violatedIn(r *run) bool {
	mine := func(seq int) bool {
		if len(r.seqTask) > 0 {
			return r.taskOf(seq) == r.index
		}
		return seq >= r.taskFirst
	}
	for i, v := range o.violated {
		if v && mine(o.firstSeq[i]) {
			return true
		}
	}
	for _, f := range o.user {
		if f.violated && mine(f.firstSeq) {
			return true
		}
	}
	return false
}

// narrowTerms derives one task's terms under a narrowed scope sc (see
// Terms): duplicate_effect is said when effect_at_most_once is in scope
// and the task repeated a logical action, so the terms agree with it.
func narrowTerms(f taskFacts, sc *scope) Terms {
	rel := f.claim == ClaimRelease
	verdict := f.claim
	if !f.held {
		verdict = ClaimUnsafe
	}
	return Terms{
		Detected:        f.detected,
		Contained:       f.held,
		Recovered:       f.held && rel,
		UsefulService:   f.held && rel && f.deadlineHeld,
		UnsafeEscape:    !f.held,
		DuplicateEffect: !sc.off[invIndex(InvEffectAtMostOnce)] && f.dup,
		Effects:         f.effects,
		Verdict:         verdict,
	}
}
