package model

// LastOutcome returns the judged outcome of the harness's last run, made by
// Run or by Terms: its schedule, control set, fault reports (reached, fired,
// oracle), invariant results, claims, terms and claim and run verdicts. It
// leaves RunID and Timeline empty, so it costs little after Terms: it is how
// an observer (a coverage tracker) sees the assay's hot-path runs. The
// result is the caller's, safe to keep (an exploration hands it back
// through internal/spare when it is done); its Schedule is the one the
// run was given. It returns nil before the first run, and the same outcome
// as Run for the same schedule (a test checks it).
func (h *Harness) LastOutcome() *Result {
	if h.r.sched == nil {
		return nil
	}
	return h.r.outcome()
}
