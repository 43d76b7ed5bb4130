package model

import "strconv"

// withdrawal is an evidence item whose source withdrew the grant to use
// it (deauthorised_evidence): the eligibility assertion of subject by
// source, from logical time at on.
type withdrawal struct {
	subject, source string
	at              Millis
}

// reliance is the evidence item a task's decision relies on, by source
// precedence: its newest read of the authoritative source
// (Fixture.Authoritative), or else its newest eligibility read.
type reliance struct {
	subject, source string
	read            bool
}

// rely records a read of the item of subject by source.
func (r *run) rely(subject, source string) {
	auth := r.world.rules.authoritative
	if r.relied.read && r.relied.subject == subject && r.relied.source == auth && source != auth {
		return // the authoritative item takes precedence
	}
	r.relied = reliance{subject, source, true}
}

type deauthorisedEvidence struct{}

// onEligibility lets the read return the item as it is, valid, and has
// its source withdraw the grant to use it right after: a later read of
// the same source for the subject answers not eligible, and an effect
// whose decision still relies on the item is not entitled
// (current_entitlement). An item that asserts no eligibility has nothing
// to withdraw (the kind does not fire).
func (deauthorisedEvidence) onEligibility(r *run, e *Eligibility) bool {
	if !e.Eligible || r.withdrawnAt(e.Subject, e.Source) >= 0 {
		return false
	}
	r.withdrawn = append(r.withdrawn, withdrawal{e.Subject, e.Source, r.world.Clock})
	r.rely(e.Subject, e.Source)
	return true
}

// withdrawnAt is the time the item of subject by source was withdrawn,
// or -1.
func (r *run) withdrawnAt(subject, source string) Millis {
	for _, w := range r.withdrawn {
		if w.subject == subject && w.source == source {
			return w.at
		}
	}
	return -1
}

// readEligibility answers a read of a withdrawn item not eligible and
// records the read as the item the task's decision now relies on.
func (r *run) readEligibility(el *Eligibility) {
	if len(r.withdrawn) > 0 && r.withdrawnAt(el.Subject, el.Source) >= 0 {
		el.Eligible = false
	}
	r.rely(el.Subject, el.Source)
}

// reliedGap is current_entitlement's finding on effect e when the
// decision behind it relies on a withdrawn evidence item: "" when none.
func (r *run) reliedGap(e LedgerEntry) string {
	if len(r.withdrawn) == 0 || !r.relied.read || r.relied.subject != e.Subject {
		return ""
	}
	at := r.withdrawnAt(r.relied.subject, r.relied.source)
	if at < 0 {
		return ""
	}
	return "effect on " + e.Subject + " relies on the eligibility item of source " + r.relied.source +
		", whose grant was withdrawn at " + strconv.FormatInt(int64(at), 10) + " ms"
}
