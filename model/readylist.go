package model

// readyList is the scheduler's index over its ready slots in pick order.
// The candidates of a pick (the front) are the ready slots whose next
// crossing ends first (on clocks of their own; every ready slot
// otherwise): a Fenwick tree over their tasks finds the i-th of them in
// task order in O(log n), so a pick scans no slots and draws the same
// task for the same seed as a sorted list of the candidates would. The
// other ready slots wait in a heap by time. Only a slot that was a
// candidate runs, so only front slots move. Its arrays are the run's,
// reused by the next concurrent run.
type readyList struct {
	first Millis  // the front's time
	front int     // how many slots are in the front
	tree  []int32 // Fenwick tree over task indexes: 1 for a front task
	owner []int32 // by task index, the slot filed under it (-1: none yet)
	heap  []int32 // slots waiting, a min-heap by at
	// by slot: its time and task when filed, and whether it is in the
	// front; a pick reads these, not the slots
	at   []Millis
	task []int
	in   []bool
}

// reset empties q for tasks 0 to tasks-1 and slots 0 to slots-1.
func (q *readyList) reset(tasks, slots int) {
	q.front, q.first = 0, 0
	q.tree = grown(q.tree, tasks+1)
	clear(q.tree)
	q.owner = grown(q.owner, tasks)
	for i := range q.owner {
		q.owner[i] = -1
	}
	q.heap = q.heap[:0]
	q.at = grown(q.at, slots)
	q.task = grown(q.task, slots)
	q.in = grown(q.in, slots)
	clear(q.in)
}

// grown is s resliced to n elements, reallocated when too short.
func grown[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// empty reports whether no slot is ready.
func (q *readyList) empty() bool { return q.front == 0 && len(q.heap) == 0 }

// add files slot k under (at, task).
func (q *readyList) add(k int, at Millis, task int) {
	q.at[k], q.task[k] = at, task
	switch {
	case q.front == 0 && len(q.heap) == 0:
		q.first = at
		q.mark(k)
	case at == q.first:
		q.mark(k)
	case at > q.first:
		q.push(int32(k))
	default:
		// earlier than the front (a clock moved back): the front waits
		for q.front > 0 {
			j := q.nth(0)
			q.unmark(j)
			q.push(int32(j))
		}
		q.first = at
		q.mark(k)
	}
}

// take removes slot k, a front slot, and refills an emptied front from
// the heap with the slots whose time is earliest.
func (q *readyList) take(k int) {
	q.unmark(k)
	if q.front > 0 || len(q.heap) == 0 {
		return
	}
	q.first = q.at[q.heap[0]]
	for len(q.heap) > 0 && q.at[q.heap[0]] == q.first {
		q.mark(int(q.pop()))
	}
}

// ofTask is the front slot filed under task, -1 when none is.
func (q *readyList) ofTask(task int) int {
	if k := q.owner[task]; k >= 0 && q.in[k] && q.task[k] == task {
		return int(k)
	}
	return -1
}

// mark and unmark put slot k into and out of the front.
func (q *readyList) mark(k int) {
	q.owner[q.task[k]] = int32(k)
	q.in[k] = true
	q.front++
	for i := q.task[k] + 1; i < len(q.tree); i += i & -i {
		q.tree[i]++
	}
}

func (q *readyList) unmark(k int) {
	q.in[k] = false
	q.front--
	for i := q.task[k] + 1; i < len(q.tree); i += i & -i {
		q.tree[i]--
	}
}

// nth is the front slot at 0-based position i in task order.
func (q *readyList) nth(i int) int {
	pos := 0 // tree index whose prefix holds fewer than i+1 front tasks
	rem := int32(i + 1)
	step := 1
	for step*2 < len(q.tree) {
		step *= 2
	}
	for ; step > 0; step /= 2 {
		if next := pos + step; next < len(q.tree) && q.tree[next] < rem {
			pos = next
			rem -= q.tree[next]
		}
	}
	return int(q.owner[pos]) // task pos (tree index pos+1)
}

func (q *readyList) push(k int32) {
	h := append(q.heap, k)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if q.at[h[p]] <= q.at[h[i]] {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	q.heap = h
}

func (q *readyList) pop() int32 {
	h := q.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && q.at[h[c+1]] < q.at[h[c]] {
			c++
		}
		if q.at[h[i]] <= q.at[h[c]] {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	q.heap = h
	return top
}
