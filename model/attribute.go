package model

import "slices"

// attribute runs res's workload fault-free on a fresh system from factory
// and takes back from the faults every violation that run already shows
// (same invariant, event, task and detail): it becomes the workload's
// (FaultID ""). A violation a fault moved stays the fault's. res must come
// from h.Run; factory must not have served another run. Afterwards
// LastOutcome describes the fault-free run.
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
