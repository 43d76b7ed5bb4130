package model

import (
	"errors"
	"fmt"
	"strconv"
)

// Stop declares the injector's stop conditions and blast radius before a
// run. The harness checks them after every crossing; a run that meets one
// records run.stop, fails every later Env call of the worker, starts no
// further task, holds the claim on the system's behalf, and Result.Stopped
// says which condition was met. The zero value declares nothing and costs
// nothing; each field's zero means no limit.
type Stop struct {
	// MaxEffects is the blast radius in provider-ledger effects: the run
	// stops once the ledger holds more than MaxEffects effects (the
	// crossing that made effect MaxEffects+1 is the last). 0: no limit.
	MaxEffects int `json:"max_effects,omitempty"`
	// MaxFaults bounds injected disturbances: the run stops once more
	// than MaxFaults scheduled faults have fired (counting every firing).
	// 0: no limit.
	MaxFaults int `json:"max_faults,omitempty"`
	// Abort names an abort metric (an Abort* constant); the run stops once
	// the metric exceeds AbortAbove. Empty: no abort metric.
	Abort AbortMetric `json:"abort,omitempty"`
	// AbortAbove is the abort threshold, a count (0: "above zero").
	AbortAbove int `json:"abort_above,omitempty"`
	// Expiry is the injector's expiry in logical milliseconds: the run
	// stops at the first crossing at or after Expiry. 0: no expiry.
	Expiry Millis `json:"expiry_ms,omitempty"`
}

// AbortMetric names a count the harness can abort on: duplicate_effects,
// unsafe_effects or violated_invariants.
type AbortMetric string

// Abort metrics, each a count over the run so far.
const (
	// abortDuplicateEffects counts provider-ledger effects beyond the
	// first of each logical action of a task (sameAction; the paper's
	// example: "duplicate effects above zero").
	abortDuplicateEffects AbortMetric = "duplicate_effects"
	// abortUnsafeEffects counts ledger effects that broke right_subject or
	// current_entitlement when they were made.
	abortUnsafeEffects AbortMetric = "unsafe_effects"
	// abortViolatedInvariants counts invariants found false so far.
	abortViolatedInvariants AbortMetric = "violated_invariants"
)

// abortMetrics lists the abort metrics.
var abortMetrics = []AbortMetric{abortDuplicateEffects, abortUnsafeEffects, abortViolatedInvariants}

// Stop condition names, as StopReport.Condition gives them.
const (
	stopMaxEffects = "max_effects"
	stopMaxFaults  = "max_faults"
	stopAbort      = "abort"
	stopExpiry     = "expiry"
)

// EvStop is the timeline event the harness records when a stop condition is
// met (actor harness). It is not a boundary a schedule can name.
const EvStop EventName = "run.stop"

// set reports whether any stop condition is declared.
func (s Stop) set() bool {
	return s.MaxEffects != 0 || s.MaxFaults != 0 || s.Abort != "" || s.Expiry != 0
}

// Validate returns an error naming the first bad field: a negative limit or
// an unknown abort metric.
func (s Stop) Validate() error {
	switch {
	case s.MaxEffects < 0:
		return fmt.Errorf("stop: max_effects %d must be 0 (no limit) or more", s.MaxEffects)
	case s.MaxFaults < 0:
		return fmt.Errorf("stop: max_faults %d must be 0 (no limit) or more", s.MaxFaults)
	case s.AbortAbove < 0:
		return fmt.Errorf("stop: abort_above %d must be 0 or more", s.AbortAbove)
	case s.Expiry < 0:
		return fmt.Errorf("stop: expiry_ms %d must be 0 (no expiry) or more", s.Expiry)
	case s.Abort == "" && s.AbortAbove != 0:
		return errors.New("stop: abort_above is set without an abort metric")
	}
	if s.Abort != "" {
		ok := false
		for _, m := range abortMetrics {
			ok = ok || m == s.Abort
		}
		if !ok {
			return fmt.Errorf("stop: unknown abort metric %q (valid: duplicate_effects, unsafe_effects, violated_invariants)", s.Abort)
		}
	}
	return nil
}

// StopReport says which stop condition ended a run: the condition (the
// JSON name of the Stop field met: max_effects, max_faults, abort or
// expiry), the declared limit, the value that met it, and the seq and
// logical time of the crossing after which it was met.
type StopReport struct {
	Condition string      `json:"condition"`
	Metric    AbortMetric `json:"metric,omitempty"`
	Limit     int64       `json:"limit"`
	Value     int64       `json:"value"`
	Seq       int         `json:"seq"`
	At        Millis      `json:"t_ms"`
	Detail    string      `json:"detail"`
}

// abortValue returns the current value of metric m.
func (r *run) abortValue(m AbortMetric) int64 {
	o := &r.oracle
	var n int64
	switch m {
	case abortDuplicateEffects:
		for i, e := range r.world.Ledger {
			for _, x := range r.world.Ledger[:i] {
				if x.Task == e.Task && sameAction(&x, &e) {
					n++
					break
				}
			}
		}
	case abortUnsafeEffects:
		for _, b := range o.badEntry {
			if b {
				n++
			}
		}
	case abortViolatedInvariants:
		for _, v := range o.violated {
			if v {
				n++
			}
		}
	}
	return n
}

// checkStop evaluates the declared stop conditions after the crossing at
// seq and stops the run when one is met.
func (r *run) checkStop(seq int) {
	s := &r.h.opts.Stop
	rep := StopReport{Seq: seq, At: r.world.Clock}
	fired := 0
	for _, f := range r.faults {
		fired += f.fired
	}
	switch {
	case s.MaxEffects > 0 && len(r.world.Ledger) > s.MaxEffects:
		rep.Condition, rep.Limit, rep.Value = stopMaxEffects, int64(s.MaxEffects), int64(len(r.world.Ledger))
		rep.Detail = fmt.Sprintf("%d ledger effects exceed max_effects %d", rep.Value, rep.Limit)
	case s.MaxFaults > 0 && fired > s.MaxFaults:
		rep.Condition, rep.Limit, rep.Value = stopMaxFaults, int64(s.MaxFaults), int64(fired)
		rep.Detail = fmt.Sprintf("%d fault firings exceed max_faults %d", rep.Value, rep.Limit)
	case s.Abort != "" && r.abortValue(s.Abort) > int64(s.AbortAbove):
		rep.Condition, rep.Metric, rep.Limit, rep.Value = stopAbort, s.Abort, int64(s.AbortAbove), r.abortValue(s.Abort)
		rep.Detail = fmt.Sprintf("abort metric %s = %d is above %d", s.Abort, rep.Value, rep.Limit)
	case s.Expiry > 0 && r.world.Clock >= s.Expiry:
		rep.Condition, rep.Limit, rep.Value = stopExpiry, int64(s.Expiry), int64(r.world.Clock)
		rep.Detail = "logical time " + strconv.FormatInt(int64(r.world.Clock), 10) + " ms reached the expiry at " + strconv.FormatInt(int64(s.Expiry), 10) + " ms"
	default:
		return
	}
	// a copy, so that rep stays on the stack of every crossing that
	// meets no condition
	stopped := rep
	r.stopped = &stopped
	r.pendingCrash = ""
	r.record(EvStop, 0, "", "stopped", rep.Condition+": "+rep.Detail, stateFailed)
	// The running worker's later Env calls fail, as for a crashed worker.
	r.crashed = true
}
