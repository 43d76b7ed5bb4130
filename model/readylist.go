package model

// readyList is the scheduler's index over its ready slots in pick order:
// by the logical time their next crossing ends (on clocks of their own;
// 0 otherwise), then by task. It finds the i-th ready slot and counts the
// slots tied first in O(log n), so a pick costs no scan of the slots and
// draws the same task for the same seed as a sorted list of the ready
// slots would. It is a treap over slot indices (priorities a fixed hash
// of the index), its arrays kept by the run for the next run.
type readyList struct {
	root              int32 // -1 when empty
	left, right, size []int32
	prio              []uint32
	at                []Millis // each slot's key as inserted
	task              []int
	in                []bool
}

// reset empties q for slots 0 to n-1.
func (q *readyList) reset(n int) {
	q.root = -1
	if cap(q.left) < n {
		q.left, q.right, q.size = make([]int32, n), make([]int32, n), make([]int32, n)
		q.prio, q.at, q.task, q.in = make([]uint32, n), make([]Millis, n), make([]int, n), make([]bool, n)
	}
	q.left, q.right, q.size = q.left[:n], q.right[:n], q.size[:n]
	q.prio, q.at, q.task, q.in = q.prio[:n], q.at[:n], q.task[:n], q.in[:n]
	for k := range n {
		x := uint64(k)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
		x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
		x = (x ^ x>>27) * 0x94d049bb133111eb
		q.prio[k] = uint32(x ^ x>>31)
		q.in[k] = false
	}
}

// len is the number of ready slots.
func (q *readyList) len() int {
	if q.root < 0 {
		return 0
	}
	return int(q.size[q.root])
}

// set files slot k under (at, task), moving it if it is filed under
// another key.
func (q *readyList) set(k int, at Millis, task int) {
	if q.in[k] {
		if q.at[k] == at && q.task[k] == task {
			return
		}
		q.remove(k)
	}
	q.at[k], q.task[k], q.in[k] = at, task, true
	q.left[k], q.right[k], q.size[k] = -1, -1, 1
	l, r := q.split(q.root, at, task)
	q.root = q.merge(q.merge(l, int32(k)), r)
}

// remove takes slot k out of q (a no-op when it is not in).
func (q *readyList) remove(k int) {
	if q.in[k] {
		q.root = q.unlink(q.root, int32(k))
		q.in[k] = false
	}
}

// nth is the ready slot at 0-based position i in pick order.
func (q *readyList) nth(i int) int {
	t := q.root
	for {
		l := q.left[t]
		ls := 0
		if l >= 0 {
			ls = int(q.size[l])
		}
		switch {
		case i < ls:
			t = l
		case i == ls:
			return int(t)
		default:
			i -= ls + 1
			t = q.right[t]
		}
	}
}

// atMost counts the ready slots whose key's time is at most at.
func (q *readyList) atMost(at Millis) int {
	n := 0
	for t := q.root; t >= 0; {
		if q.at[t] <= at {
			n++
			if l := q.left[t]; l >= 0 {
				n += int(q.size[l])
			}
			t = q.right[t]
		} else {
			t = q.left[t]
		}
	}
	return n
}

// before reports whether node t's key is before (at, task).
func (q *readyList) before(t int32, at Millis, task int) bool {
	return q.at[t] < at || q.at[t] == at && q.task[t] < task
}

// fix recomputes node t's subtree size.
func (q *readyList) fix(t int32) {
	n := int32(1)
	if l := q.left[t]; l >= 0 {
		n += q.size[l]
	}
	if r := q.right[t]; r >= 0 {
		n += q.size[r]
	}
	q.size[t] = n
}

// split parts the subtree t into the nodes before (at, task) and the rest.
func (q *readyList) split(t int32, at Millis, task int) (int32, int32) {
	if t < 0 {
		return -1, -1
	}
	if q.before(t, at, task) {
		l, r := q.split(q.right[t], at, task)
		q.right[t] = l
		q.fix(t)
		return t, r
	}
	l, r := q.split(q.left[t], at, task)
	q.left[t] = r
	q.fix(t)
	return l, t
}

// merge joins subtrees a and b, every key of a before every key of b.
func (q *readyList) merge(a, b int32) int32 {
	switch {
	case a < 0:
		return b
	case b < 0:
		return a
	case q.prio[a] > q.prio[b]:
		q.right[a] = q.merge(q.right[a], b)
		q.fix(a)
		return a
	}
	q.left[b] = q.merge(a, q.left[b])
	q.fix(b)
	return b
}

// unlink removes node k from the subtree t, which holds it.
func (q *readyList) unlink(t, k int32) int32 {
	if t == k {
		return q.merge(q.left[k], q.right[k])
	}
	if q.before(k, q.at[t], q.task[t]) {
		q.left[t] = q.unlink(q.left[t], k)
	} else {
		q.right[t] = q.unlink(q.right[t], k)
	}
	q.size[t]--
	return t
}
