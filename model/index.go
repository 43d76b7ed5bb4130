package model

import "iter"

// chain indexes the records of an append-only slice by one string key:
// for each key the position of its last record, and for each record the
// position of the previous record with its key (-1 for none), so the
// records of a key are walked newest first without a scan. Up to
// smallIndex records it scans their keys instead of keeping the map (a
// run's few records cost less to scan than to hash); past that it builds
// the map once and keeps it. Its storage is reused between runs: reset
// clears it without releasing it.
type chain struct {
	last   map[string]int // when mapped
	keys   []string
	prev   []int
	mapped bool
}

func (c *chain) reset() {
	if c.mapped {
		clear(c.last)
		c.mapped = false
	}
	clear(c.keys) // let the strings go
	c.keys = c.keys[:0]
	c.prev = c.prev[:0]
}

// add indexes the next record, whose key is k.
func (c *chain) add(k string) {
	p := c.newest(k)
	switch {
	case c.mapped:
		c.last[k] = len(c.prev)
	case len(c.keys) == smallIndex:
		if c.last == nil {
			c.last = map[string]int{}
		}
		for i, kk := range c.keys {
			c.last[kk] = i
		}
		c.last[k] = len(c.prev)
		c.mapped = true
	}
	c.keys = append(c.keys, k)
	c.prev = append(c.prev, p)
}

// newest returns the position of the last record of k, or -1.
func (c *chain) newest(k string) int {
	if c.mapped {
		if i, ok := c.last[k]; ok {
			return i
		}
		return -1
	}
	for i := len(c.keys) - 1; i >= 0; i-- {
		if c.keys[i] == k {
			return i
		}
	}
	return -1
}

// runIndex indexes a run's ledger (by request key, logical action
// reference and subject) and evidence ledger (by trace), and both and the
// checkpoint store by task for a concurrent run. The ledgers only grow
// during a run; sync indexes what was appended since the last read. The
// store loses a checkpoint only to a rollback, which resets cpByTask.
type runIndex struct {
	byKey, byRef, bySubject       chain
	byTrace                       chain
	ledByTask, evByTask, cpByTask chain
}

func (x *runIndex) reset() {
	x.byKey.reset()
	x.byRef.reset()
	x.bySubject.reset()
	x.byTrace.reset()
	x.ledByTask.reset()
	x.evByTask.reset()
	x.cpByTask.reset()
}

// syncLedger indexes the ledger entries appended since the last call.
func (x *runIndex) syncLedger(l []LedgerEntry) {
	for i := len(x.byKey.prev); i < len(l); i++ {
		x.byKey.add(l[i].Key)
		x.byRef.add(l[i].ActionRef)
		x.bySubject.add(l[i].Subject)
	}
}

// syncEvidence indexes the evidence records appended since the last call.
func (x *runIndex) syncEvidence(ev []EvidenceRecord) {
	for i := len(x.byTrace.prev); i < len(ev); i++ {
		x.byTrace.add(ev[i].Trace)
	}
}

// taskLedger yields the positions, from from on, of the ledger entries of
// task (taskRecords).
func (r *run) taskLedger(task string, from int) iter.Seq[int] {
	return taskRecords(r.conc != nil, r.world.Ledger, func(e LedgerEntry) string { return e.Task }, &r.ix.ledByTask, task, from)
}

// taskEvidence is taskLedger for the evidence ledger.
func (r *run) taskEvidence(task string, from int) iter.Seq[int] {
	return taskRecords(r.conc != nil, r.world.Evidence, func(e EvidenceRecord) string { return e.Task }, &r.ix.evByTask, task, from)
}

// olderCheckpoint returns the position of task's newest checkpoint
// before position before (len(r.world.Checkpoints) for its newest), -1
// when there is none. A run of one task at a time scans back to the
// task's first (cpFromOf); a concurrent run, whose workers' checkpoints
// interleave, walks the task's chain, so a lookup costs the task's own
// checkpoints, not the run's.
func (r *run) olderCheckpoint(task string, before int) int {
	cps := r.world.Checkpoints
	if r.conc == nil {
		for i := before - 1; i >= r.cpFromOf(task); i-- {
			if cps[i].Task == task {
				return i
			}
		}
		return -1
	}
	c := &r.ix.cpByTask
	for i := len(c.prev); i < len(cps); i++ {
		c.add(cps[i].Task)
	}
	i := c.newest(task)
	for i >= before {
		i = c.prev[i]
	}
	return i
}

// taskRecords yields the positions, from from on, of the records of task.
// A run of one task at a time scans them (the task's records lie past
// from); a concurrent run, whose tasks' records interleave, walks the
// task's chain c, newest first. Every caller asks about the set, not the
// order.
func taskRecords[T any](concurrent bool, recs []T, taskOf func(T) string, c *chain, task string, from int) iter.Seq[int] {
	return func(yield func(int) bool) {
		if !concurrent {
			for i := from; i < len(recs); i++ {
				if taskOf(recs[i]) == task && !yield(i) {
					return
				}
			}
			return
		}
		for i := len(c.prev); i < len(recs); i++ {
			c.add(taskOf(recs[i]))
		}
		for i := c.newest(task); i >= from; i = c.prev[i] {
			if !yield(i) {
				return
			}
		}
	}
}
