package model

import (
	"fmt"
	"strings"
)

// RunError is what [Result.Err] returns for a run that did not pass: Code
// is the exit code "faultline replay" gives it, exit 1 when an invariant
// was violated (the Violation of the first to become false) or exit 3
// when the run was inconclusive (Unreached lists the placements of the
// scheduled faults that were never reached or never fired, or Reason says
// why the run ended without a verdict).
type RunError struct {
	Code int
	Violation
	Unreached []string
	Reason    string
}

// Error describes the failure in one line.
func (e *RunError) Error() string {
	if e.Code == 1 {
		return fmt.Sprintf("%s violated: first false after seq %d (%s)%s: %s", e.Invariant, e.FirstSeq, e.Event, faultSuffix(e.FaultID), e.Detail)
	}
	if len(e.Unreached) > 0 {
		return "inconclusive: scheduled faults not reached or not fired, so the run tested nothing at them: " + joinSome(e.Unreached, 10)
	}
	return "inconclusive: " + e.Reason
}

// joinSome joins the first max items of l with ", " and, when l holds
// more, says how many more: a message naming the faults of a schedule of
// thousands stays one short line.
func joinSome(l []string, max int) string {
	if len(l) <= max {
		return strings.Join(l, ", ")
	}
	return strings.Join(l[:max], ", ") + fmt.Sprintf(" and %d more", len(l)-max)
}

func faultSuffix(id string) string {
	if id == "" {
		return ", reached by no fault (the workload)"
	}
	return ", reached by " + id
}

// unreached returns the scheduled faults that were never reached or that
// were reached but never fired, in schedule order.
func (res *Result) unreached() []FaultReport {
	var out []FaultReport
	for _, f := range res.Faults {
		if !f.Reached || f.Fired == 0 {
			out = append(out, f)
		}
	}
	return out
}

// Err returns nil when the run passed: every invariant in scope held and
// every scheduled fault was reached and fired (a schedule with no faults
// is a clean run). Otherwise it returns a *RunError: code 1 for the first
// violated invariant (ahead of anything else), code 3 for a fault that was
// not reached or not fired, a run with no invariant in scope, or a run
// that ended inconclusive. A test of a
// single run calls it so that a run that tested nothing is never green:
//
//	if err := res.Err(); err != nil { t.Fatal(err) }
func (res *Result) Err() error {
	var first *InvariantResult
	for i := range res.Invariants {
		inv := &res.Invariants[i]
		if !inv.Held && (first == nil || inv.FirstSeq < first.FirstSeq) {
			first = inv
		}
	}
	if first != nil {
		return &RunError{Code: 1, Violation: first.Violation}
	}
	if un := res.unreached(); len(un) > 0 {
		e := &RunError{Code: 3}
		for _, f := range un {
			what := "not reached"
			if f.Reached {
				what = "reached, not fired"
			}
			e.Unreached = append(e.Unreached, fmt.Sprintf("%s %s@%s (%s)", f.ID, f.Kind, f.Placement(), what))
		}
		return e
	}
	if len(res.Invariants) == 0 {
		return &RunError{Code: 3, Reason: noInvariant}
	}
	if res.RunVerdict == Inconclusive {
		reason := "the run ended without the system's own verdict"
		if len(res.Unexpected) > 0 {
			reason = strings.Join(res.Unexpected, "; ")
		}
		if res.Stopped != nil {
			reason = "a stop condition ended the run before it could be judged"
		}
		return &RunError{Code: 3, Reason: reason}
	}
	return nil
}
