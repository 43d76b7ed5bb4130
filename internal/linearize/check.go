package linearize

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/anishathalye/porcupine"
)

// Verdict is a check's three-valued answer. The zero Verdict is none of
// them, so an unset Result is never a pass.
type Verdict uint8

// Verdicts.
const (
	// Ok: every partition is linearizable.
	Ok Verdict = iota + 1
	// Illegal: some partition has no serial order that explains its
	// replies and readbacks: a counterexample.
	Illegal
	// Unknown: the time budget ran out before every partition was
	// decided and none was found illegal. Inconclusive, never a pass.
	Unknown
)

// String returns "ok", "illegal" or "unknown", or "verdict(N)".
func (v Verdict) String() string {
	switch v {
	case Ok:
		return "ok"
	case Illegal:
		return "illegal"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("verdict(%d)", uint8(v))
}

// verdictOf maps porcupine's result onto a Verdict. Anything but Ok and
// Illegal (porcupine's Unknown, or a value a later porcupine might add) is
// Unknown: inconclusive, never a pass.
func verdictOf(r porcupine.CheckResult) Verdict {
	switch r {
	case porcupine.Ok:
		return Ok
	case porcupine.Illegal:
		return Illegal
	}
	return Unknown
}

// Result is the outcome of [Check].
type Result struct {
	Verdict Verdict
	// Action is, for Illegal, the action ref whose partition failed (the
	// first in sorted order); empty otherwise.
	Action string
	// Actions is the number of partitions (distinct action refs) in the
	// history.
	Actions int
	// Undecided lists, in sorted order, the action refs whose check ran
	// out of time or was never started because the budget was spent.
	Undecided []string

	info    porcupine.LinearizationInfo // of the failing partition
	visible bool                        // info is set
}

// String summarises the result on one line, e.g. "illegal: action a1 has
// no linearization (of 2 actions)".
func (r Result) String() string {
	switch r.Verdict {
	case Illegal:
		return fmt.Sprintf("illegal: action %s has no linearization (of %s)", r.Action, actions(r.Actions))
	case Unknown:
		return fmt.Sprintf("unknown: %d of %s undecided when the time budget ran out", len(r.Undecided), actions(r.Actions))
	case Ok:
		return fmt.Sprintf("ok: %s, each linearizable", actions(r.Actions))
	}
	return r.Verdict.String()
}

func actions(n int) string {
	if n == 1 {
		return "1 action"
	}
	return fmt.Sprintf("%d actions", n)
}

// WriteHTML writes porcupine's visualization of the failing partition to
// w: a self-contained HTML page with one row per worker, each operation a
// bar from call to response, and the longest partial linearizations the
// checker found with the model's state after each step. Its bytes may
// differ between runs (porcupine gathers partial orders through a map).
// It returns an error for a Result that is not Illegal, or w's error.
func (r Result) WriteHTML(w io.Writer) error {
	if r.Verdict != Illegal || !r.visible {
		return fmt.Errorf("linearize: no counterexample to visualize (verdict %s)", r.Verdict)
	}
	if err := porcupine.Visualize(Model(), r.info, w); err != nil {
		return fmt.Errorf("linearize: writing the visualization of action %s: %w", r.Action, err)
	}
	return nil
}

// Operations returns the history in porcupine's form for [Model]: one
// operation per Op, in order, with readback entries sorted and an
// unknown-outcome commit's return placed after every other event. It
// returns an error naming the first malformed operation, or a request key
// committed under two action refs.
func (h History) Operations() ([]porcupine.Operation, error) {
	if err := h.validate(); err != nil {
		return nil, err
	}
	last := 0
	for _, o := range h {
		last = max(last, o.Call, o.Return)
	}
	ops := make([]porcupine.Operation, len(h))
	for i, o := range h {
		ret := o.Return
		if ret == NoReturn {
			ret = last + 1
		}
		ops[i] = porcupine.Operation{
			ClientId: o.Worker,
			Input:    inputOf(o),
			Call:     int64(o.Call),
			Output:   outputOf(o),
			Return:   int64(ret),
		}
	}
	return ops, nil
}

// Check decides whether h is linearizable against the ledger [Model],
// partition by partition in sorted order of action refs, stopping at the
// first illegal one. timeout is the budget for the whole check, measured
// on the wall clock by porcupine; 0 means no limit, and then the result
// depends on h alone. A partition still running when the budget runs out
// is undecided: the verdict is then Unknown unless another partition was
// found Illegal. An empty history is Ok with Actions 0. The error is for
// a malformed history or a negative timeout only.
func Check(h History, timeout time.Duration) (Result, error) {
	if timeout < 0 {
		return Result{}, errors.New("linearize: negative timeout")
	}
	ops, err := h.Operations()
	if err != nil {
		return Result{}, err
	}
	parts := partition(ops)
	res := Result{Verdict: Ok, Actions: len(parts)}
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	m := Model()
	for _, part := range parts {
		action := mustInput(part[0].Input).action
		budget := time.Duration(0)
		if timeout > 0 {
			budget = time.Until(deadline)
			if budget <= 0 { // porcupine reads 0 as no limit
				res.Undecided = append(res.Undecided, action)
				continue
			}
		}
		verdict, info := porcupine.CheckOperationsVerbose(m, part, budget)
		switch verdictOf(verdict) {
		case Illegal:
			res.Verdict, res.Action, res.info, res.visible = Illegal, action, info, true
			return res, nil
		case Unknown:
			res.Undecided = append(res.Undecided, action)
		}
	}
	if len(res.Undecided) > 0 {
		res.Verdict = Unknown
	}
	return res, nil
}
