package model

import (
	"fmt"
	"testing"
)

// TestChainPastSmallIndex: a chain answers as a map-only index does for
// every record, below smallIndex records (where it scans) and past it
// (where it builds its map), and again after a reset.
func TestChainPastSmallIndex(t *testing.T) {
	var c chain
	for round := range 2 {
		c.reset()
		last := map[string]int{}
		var prev []int
		for i := range 3*smallIndex + 1 {
			k := fmt.Sprintf("k%d", i%5+round)
			if i%7 == 0 {
				k = fmt.Sprintf("new%d", i)
			}
			p, ok := last[k]
			if !ok {
				p = -1
			}
			c.add(k)
			last[k] = i
			prev = append(prev, p)
			if c.prev[i] != p {
				t.Fatalf("round %d, record %d (%s): previous %d, want %d", round, i, k, c.prev[i], p)
			}
			for kk, want := range last {
				if got := c.newest(kk); got != want {
					t.Fatalf("round %d after %d records: newest(%s) = %d, want %d", round, i+1, kk, got, want)
				}
			}
			if got := c.newest("absent"); got != -1 {
				t.Fatalf("newest of an absent key = %d, want -1", got)
			}
		}
		if c.mapped != true || len(c.prev) != len(prev) {
			t.Fatalf("round %d: mapped %v with %d records, want the map past %d", round, c.mapped, len(c.prev), smallIndex)
		}
	}
}

// TestActionIndexPastSmallIndex: the oracle's index of logical actions
// keeps and updates every action, below smallIndex actions and past it.
func TestActionIndexPastSmallIndex(t *testing.T) {
	var x actionIndex
	want := map[actionKey]actionSeen{}
	for i := range 4 * smallIndex {
		k := actionKey{"t", fmt.Sprintf("s%d", i%(2*smallIndex+3)), "refund"}
		a, seen := x.get(k)
		if wa, ws := want[k]; seen != ws || a != wa {
			t.Fatalf("step %d: get(%v) = %v, %v, want %v, %v", i, k, a, seen, wa, ws)
		}
		n := actionSeen{lastTask: fmt.Sprintf("task%d", i), mixed: seen}
		x.put(k, n)
		want[k] = n
	}
	for k, w := range want {
		if a, ok := x.get(k); !ok || a != w {
			t.Errorf("get(%v) = %v, %v, want %v", k, a, ok, w)
		}
	}
	if len(x.small) != smallIndex || len(x.big) != len(want)-smallIndex {
		t.Errorf("%d actions scanned and %d mapped, want %d and %d", len(x.small), len(x.big), smallIndex, len(want)-smallIndex)
	}
	x.reset()
	if _, ok := x.get(actionKey{"t", "s0", "refund"}); ok || len(x.small) != 0 || len(x.big) != 0 {
		t.Errorf("after reset: %d scanned, %d mapped, want none", len(x.small), len(x.big))
	}
}

// TestWorldLookupsPastSmallIndex: a World reset from a fixture of more
// than smallIndex subjects, capabilities and tasks (indexed) and from one
// of fewer (scanned) finds the first record of each id, and keeps each
// task's head.
func TestWorldLookupsPastSmallIndex(t *testing.T) {
	for _, n := range []int{smallIndex - 3, smallIndex + 5} {
		f := &Fixture{}
		for i := range n {
			// ids repeat every n-2 records: the first record wins
			id := fmt.Sprintf("x%d", i%(n-2))
			f.Subjects = append(f.Subjects, Subject{ID: id, Amount: int64(i)})
			f.Capabilities = append(f.Capabilities, Capability{ID: id, Amount: int64(i)})
			f.Tasks = append(f.Tasks, Task{ID: fmt.Sprintf("t%d", i)})
		}
		var w world
		for round := range 2 {
			w.reset(f)
			if indexed := len(w.ix.subjects) > 0; indexed != (n > smallIndex) || w.ix.headsOn != (n > smallIndex) {
				t.Fatalf("%d records: indexed %v, heads indexed %v", n, indexed, w.ix.headsOn)
			}
			for i := range n - 2 {
				id := fmt.Sprintf("x%d", i)
				if s, ok := w.Subject(id); !ok || s.Amount != int64(i) {
					t.Errorf("%d records: Subject(%s) = %v, %v, want the first, amount %d", n, id, s, ok, i)
				}
				if c, ok := w.Capability(id); !ok || c.Amount != int64(i) {
					t.Errorf("%d records: Capability(%s) = %v, %v, want the first, amount %d", n, id, c, ok, i)
				}
			}
			if _, ok := w.Subject("absent"); ok {
				t.Errorf("%d records: an absent subject found", n)
			}
			for i, task := range f.Tasks {
				if h := w.Head(task.ID); h != 0 {
					t.Fatalf("%d records, round %d: head of %s before any write is %d", n, round, task.ID, h)
				}
				w.setHead(task.ID, i+1)
				w.setHead(task.ID, i+2)
			}
			for i, task := range f.Tasks {
				if h := w.Head(task.ID); h != i+2 {
					t.Errorf("%d records: head of %s = %d, want %d", n, task.ID, h, i+2)
				}
			}
			if len(w.heads) != n {
				t.Errorf("%d records: %d heads, want %d", n, len(w.heads), n)
			}
		}
	}
}

// TestArenaPartsAreNeverHandedOutTwice: parts taken from an arena across
// resets (runs) keep what their takers wrote, whatever the later runs
// take, within one storage block and past it.
func TestArenaPartsAreNeverHandedOutTwice(t *testing.T) {
	var a arena[int]
	var parts [][]int
	for run := range 3 * arenaBlock {
		a.reset()
		for j := range run%3 + 1 {
			p := a.take(j + 1)
			if len(p) != j+1 || cap(p) != j+1 {
				t.Fatalf("run %d: a part of len %d, cap %d, want %d", run, len(p), cap(p), j+1)
			}
			for i := range p {
				if p[i] != 0 {
					t.Fatalf("run %d: a new part holds %d", run, p[i])
				}
				p[i] = run*10 + j
			}
			parts = append(parts, p)
		}
	}
	n := 0
	for run := range 3 * arenaBlock {
		for j := range run%3 + 1 {
			for _, v := range parts[n] {
				if v != run*10+j {
					t.Fatalf("run %d, part %d: holds %d, want %d", run, j, v, run*10+j)
				}
			}
			n++
		}
	}
}

// TestOlderCheckpointByChain: in a concurrent run the checkpoint lookups
// walk a chain by task; they answer as a scan of the whole store does, for
// every task and every checkpoint of it, past smallIndex tasks and after a
// rollback removed a checkpoint from the middle of the store.
func TestOlderCheckpointByChain(t *testing.T) {
	var conc, scan run
	conc.taskState, scan.taskState = &conc.own, &scan.own
	conc.conc = &scheduler{}
	scan.task = &Task{ID: "none"} // cpFromOf is 0: the scan reads the whole store
	tasks := 3 * smallIndex
	check := func(step string) {
		t.Helper()
		cps := conc.world.Checkpoints
		scan.world.Checkpoints = cps
		for k := range tasks + 1 {
			id := fmt.Sprintf("T%d", k)
			for before := len(cps); ; {
				got, want := conc.olderCheckpoint(id, before), scan.olderCheckpoint(id, before)
				if got != want {
					t.Fatalf("%s: olderCheckpoint(%s, %d) = %d, a scan gives %d", step, id, before, got, want)
				}
				if got < 0 {
					break
				}
				before = got
			}
		}
	}
	for i := range 5 * tasks {
		id := fmt.Sprintf("T%d", (i*7)%tasks)
		conc.world.Checkpoints = append(conc.world.Checkpoints, Checkpoint{Task: id, Seq: i})
		check(fmt.Sprintf("after %d writes", i+1))
		if i%11 == 10 { // a rollback of the newest checkpoint of an older task
			id := conc.world.Checkpoints[i/3].Task
			j := conc.olderCheckpoint(id, len(conc.world.Checkpoints))
			conc.world.Checkpoints = append(conc.world.Checkpoints[:j], conc.world.Checkpoints[j+1:]...)
			conc.ix.cpByTask.reset()
			check(fmt.Sprintf("after %d writes and a rollback", i+1))
		}
	}
	if !conc.ix.cpByTask.mapped {
		t.Fatalf("the chain never passed %d tasks", smallIndex)
	}
}
