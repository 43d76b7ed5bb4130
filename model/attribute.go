package model

import "slices"

// attribute runs res's workload fault-free, on a fresh system from
// factory, under res's config, and takes back from the faults every
// violation that fault-free run already shows: the same invariant first
// false at the same event of the same task with the same detail. Such a
// violation is the workload's (its FaultID becomes "") and leaves the
// faults' Observed lists, as exploration reduces it to a schedule with no
// fault. A violation a fault moved (earlier, elsewhere, with another
// detail) stays the fault's. res must come from h.Run; factory must not
// have served another run (a system may keep state across its factory's
// instances). Afterwards LastOutcome describes the fault-free run. It
// returns a harness error of the fault-free run.
func (h *Harness) attribute(res *Result, factory Factory) error {
	attributed := false
	for _, i := range res.Invariants {
		attributed = attributed || !i.Held && i.FaultID != ""
	}
	if !attributed || len(res.Schedule.Faults) == 0 {
		return nil
	}
	clean := *res.Schedule
	clean.Faults = []FaultEntry{}
	base, err := h.Run(factory, &clean)
	if err != nil {
		return err
	}
	for k := range res.Invariants {
		i := &res.Invariants[k]
		if i.Held || i.FaultID == "" {
			continue
		}
		b, ok := base.Invariant(i.Invariant)
		if !ok || b.Held || b.Event != i.Event || b.Detail != i.Detail || taskAt(base, b.FirstSeq) != taskAt(res, i.FirstSeq) {
			continue
		}
		for f := range res.Faults {
			fr := &res.Faults[f]
			if fr.ID == i.FaultID {
				fr.Observed = slices.DeleteFunc(fr.Observed, func(n string) bool { return n == i.Invariant })
			}
		}
		i.FaultID = ""
	}
	return nil
}

// taskAt returns the task of the timeline event at seq ("" when none).
func taskAt(res *Result, seq int) string {
	if seq < 1 || seq > res.Timeline.Len() {
		return ""
	}
	return res.Timeline.Task(seq - 1)
}
