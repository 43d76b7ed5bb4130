package model

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"

	"github.com/faultline/faultline/internal/interleaving"
)

// MaxWorkers is the most concurrent workers a schedule may ask for
// (Concurrency.Workers).
const MaxWorkers = 1000

// MaxInterleaving is the longest explicit interleaving a schedule may hold
// (Concurrency.Interleaving), in scheduling points.
const MaxInterleaving = 100000

// Concurrency runs a schedule's tasks as concurrent workers under the
// harness's deterministic scheduler: one coroutine a worker, one running at
// a time, and at every scheduling point (a run's start, a task's end, each
// crossing, a tool call's reply) the schedule's Interleaving, else the
// worker that ran last, else fixture order or Seed's draw picks who goes
// next. A run stays a pure function of the schedule and the config.
// Semantics: docs/vocabulary.md, "Concurrency". Production code cannot be
// scheduled.
type Concurrency struct {
	// Workers is how many tasks run at once, 1 to MaxWorkers.
	Workers int `json:"workers"`
	// Interleaving names the task that goes next at each scheduling
	// point, by 1-based fixture position; at most MaxInterleaving
	// entries, each 1 or more (a position past the fixture's tasks is an
	// error Run returns).
	Interleaving []int `json:"interleaving,omitempty"`
	// Seed, when set, seeds the pick past the interleaving (and where it
	// names a task that is not ready): a pseudo-random ready task at every
	// scheduling point, instead of the worker that ran last.
	Seed string `json:"seed,omitempty"`
}

// validate returns an error naming the first bad field of c; nil is
// valid.
func (c *Concurrency) validate() error {
	if c == nil {
		return nil
	}
	if c.Workers < 1 || c.Workers > MaxWorkers {
		return fmt.Errorf("config: concurrency.workers %d must be between 1 and %d", c.Workers, MaxWorkers)
	}
	if len(c.Interleaving) > MaxInterleaving {
		return fmt.Errorf("config: concurrency.interleaving holds %d entries, more than the limit of %d", len(c.Interleaving), MaxInterleaving)
	}
	for i, n := range c.Interleaving {
		if n < 1 {
			return fmt.Errorf("config: concurrency.interleaving[%d] is %d: name a task by its position in the fixture, 1 or more", i, n)
		}
	}
	return nil
}

// Equal reports whether c and o ask for the same scheduling (both nil, or
// equal fields).
func (c *Concurrency) Equal(o *Concurrency) bool {
	if c == nil || o == nil {
		return c == nil && o == nil
	}
	return c.Workers == o.Workers && c.Seed == o.Seed && slices.Equal(c.Interleaving, o.Interleaving)
}

// String is c as people read it: "concurrency: 2 workers, interleaving
// 1 1 2, seed s".
func (c *Concurrency) String() string {
	s := "concurrency: " + strconv.Itoa(c.Workers) + " workers"
	if len(c.Interleaving) > 0 {
		s += ", interleaving " + interleaving.Format(c.Interleaving)
	}
	if c.Seed != "" {
		s += ", seed " + c.Seed
	}
	return s
}

// slot is what the scheduler reads of one concurrent worker at every
// switch: 32 bytes, so that a cache line holds two slots' (with 1,000
// workers a worker's own line is cold when it resumes, a shared one less
// often). The rest of the worker, its task state included, is its
// workerState.
type slot struct {
	// next runs the worker's coroutine until its next scheduling point
	// or its end
	next  func() (struct{}, bool)
	yield func(struct{}) bool // the worker's way back to next's caller
	// at is, on clocks of their own (scheduler.timed), the logical time
	// the slot's next crossing ends at.
	at   Millis
	task int32 // fixture index of its current (or next) task
	done bool
}

// workerState is the rest of a slot's worker: its task state, which the
// run points at while the worker runs, the end of its coroutine and its
// ambient context.
type workerState struct {
	ts taskState
	// stop ends a waiting worker (see scheduler.abort)
	stop func()
	// ambient is the worker's ambient context (see run.ambientFor).
	ambient ambientCtx
}

// scheduler is the deterministic scheduler of a concurrent run. Each
// worker is a coroutine (iter.Pull) that the caller of Run resumes and
// that switches back at its scheduling points: a direct switch, without
// the runtime's run queue, and one coroutine runs at a time, so the run's
// state needs no lock.
type scheduler struct {
	r      *run
	cfg    *Concurrency
	slots  []slot
	states []workerState // by slot
	cur    int           // the slot running, -1 before the first pick
	next   int           // fixture index of the next task to start
	// want is the slot a worker picked at its last scheduling point
	want   int
	rand   rand.PCG
	points int
	// timed is set for a fleet fixture: each worker runs on a logical
	// clock of its own (taskState.wclock), and pick runs the one whose
	// next crossing ends first.
	timed bool
	// ended is set when the running worker switched back at
	// the end of a task: it cannot go on with that task, so the pick
	// there is no context switch
	ended bool
	// aborted is set, before the waiting workers are stopped, when a
	// worker erred, panicked or exited its goroutine
	aborted bool
	err     error
	factory Factory
	// ready indexes the slots not done in pick order (the run's, reused).
	ready *readyList
}

// executeConcurrent runs the fixture's tasks as concurrent workers under
// c (see Concurrency).
func (r *run) executeConcurrent(factory Factory, c *Concurrency) error {
	h := r.h
	n := len(h.fixture.Tasks)
	for i, p := range c.Interleaving {
		if p > n {
			return fmt.Errorf("schedule: config: concurrency.interleaving[%d] names task %d, the fixture %q has %d", i, p, h.fixture.Name, n)
		}
	}
	if n == 0 {
		return nil
	}
	sc := &scheduler{r: r, cfg: c, cur: -1, factory: factory,
		timed: h.fixture.Fleet != nil}
	if c.Seed != "" {
		hs := wordHash(0x3c6ef372fe94f82b)
		hs.str(c.Seed)
		hi := hs.mix()
		hs.num(0x1f83d9abfb41bd6b)
		sc.rand.Seed(uint64(hi), uint64(hs.mix()))
	}
	w := min(c.Workers, n)
	// the first slot keeps the run's buffers: its worker starts on a
	// clock of its own at 0 as the others do (the run's state is the last
	// run's); the others keep theirs from the run's last concurrent run
	// (the slots are the run's, reused)
	r.slots, r.states = grown(r.slots, w), grown(r.states, w)
	r.states[0].ts = r.own
	sc.slots, sc.states = r.slots, r.states
	for k := range sc.slots {
		s, st := &sc.slots[k], &sc.states[k]
		b := &st.ts
		*s = slot{task: int32(k), at: costRead}
		*st = workerState{ts: taskState{taskBuf: b.taskBuf[:0], memory: b.memory[:0], granted: b.granted[:0],
			branches: b.branches[:0], inflight: b.inflight[:0], pendingWorld: b.pendingWorld[:0]}}
		s.next, st.stop = iter.Pull(sc.worker(k))
	}
	sc.next = w
	sc.ready = &r.ready
	sc.ready.reset(n, w)
	for k := range sc.slots {
		sc.refile(k)
	}
	r.own = taskState{}
	r.conc = sc
	defer func() { r.conc = nil }()
	if err := sc.drive(); err != nil {
		return err
	}
	r.own = sc.states[0].ts
	r.taskState = &r.own
	r.sortTasks()
	return nil
}

// drive runs the workers from the first pick until none is ready: it
// resumes the picked worker, which runs to its next scheduling point
// (where it picked who goes next) or to its end (then drive picks). When
// a worker errs, panics or exits its goroutine, the waiting workers are
// stopped first, then the error is returned, the panic re-raised or the
// exit goes on.
func (sc *scheduler) drive() error {
	over := false
	defer func() {
		if !over { // a worker's panic or goroutine exit, re-raised by next
			sc.abort()
		}
	}()
	for j := sc.pick(); j >= 0; { // a first task is ready
		sc.switchTo(j)
		s := &sc.slots[j]
		sc.want = -1
		s.next()
		if sc.err != nil {
			break
		}
		if s.done {
			sc.refile(j)
			j = sc.pick()
		} else {
			j = sc.want
		}
	}
	over = true
	if sc.err != nil {
		sc.abort()
	}
	return sc.err
}

// worker is slot k's coroutine: it runs its tasks one after another,
// switching back to drive at every scheduling point (see yieldAt) and at
// its end.
func (sc *scheduler) worker(k int) iter.Seq[struct{}] {
	return func(yield func(struct{}) bool) {
		s := &sc.slots[k]
		s.yield = yield
		r := sc.r
		growStack(sc.r == nil) // never nil: no frame written
		for {
			if err := r.runTask(int(s.task), sc.factory); err != nil {
				sc.err = err
				break
			}
			if r.stopped != nil || sc.next >= len(r.h.fixture.Tasks) {
				break
			}
			s.task = int32(sc.next)
			sc.next++
			sc.ended = true
			r.yieldAt(costRead) // the next task's worker.start
		}
		s.done = true
	}
}

// abort stops the waiting workers, one at a time: each one's goroutine
// exits, its deferred calls run, before the next is stopped and before
// the run is over. A worker stopped in yieldAt exits its goroutine, which
// iter.Pull's stop re-raises in its caller, so each stop runs on a
// goroutine of its own.
func (sc *scheduler) abort() {
	sc.aborted = true
	done := make(chan struct{})
	for k := range sc.slots {
		if sc.slots[k].done {
			continue
		}
		go func() {
			defer func() {
				recover() // a panic of a deferred call of the stopped worker's
				done <- struct{}{}
			}()
			sc.states[k].stop()
		}()
		<-done
	}
}

// yieldAt is a scheduling point of the running worker: it picks who goes
// next and, when that is another worker, switches back to drive, which
// runs that one, and waits until drive resumes it; cost is the logical cost of the
// worker's next crossing, by which the scheduler orders workers on clocks
// of their own.
func (r *run) yieldAt(cost Millis) {
	sc := r.conc
	if sc.aborted { // a deferred call of a worker being stopped
		runtime.Goexit()
	}
	k := sc.cur
	s := &sc.slots[k]
	s.at = r.wclock + cost
	sc.refile(k)
	j := sc.pick() // k itself is ready
	if j == k {
		return
	}
	sc.want = j
	if !s.yield(struct{}{}) { // being stopped
		runtime.Goexit()
	}
}

// switchTo points the run at slot k's per-task state.
func (sc *scheduler) switchTo(k int) {
	if k == sc.cur {
		return
	}
	r := sc.r
	r.taskState = &sc.states[k].ts
	sc.cur = k
	if sc.timed {
		r.world.Clock = r.wclock
	}
}

// refile files slot k, which is new or has just run, in the ready list
// under its next crossing and task, or takes it out when done.
func (sc *scheduler) refile(k int) {
	s := &sc.slots[k]
	if k == sc.cur {
		sc.ready.take(k)
	}
	if s.done {
		return
	}
	at := Millis(0)
	if sc.timed {
		at = s.at
	}
	sc.ready.add(k, at, int(s.task))
}

// pick chooses the slot that goes next at a scheduling point (see
// Concurrency), records the pick and counts a context switch; -1 when no
// worker is ready. The candidates are the ready slots, on clocks of their
// own those whose next crossing ends first: a prefix of the ready list,
// in task order. Among them the interleaving's task at this point goes,
// else a seeded draw, else the worker that ran last, else the first.
func (sc *scheduler) pick() int {
	r := sc.r
	q := sc.ready
	// the worker that ran last can go on with its task
	goOn := sc.cur >= 0 && !sc.slots[sc.cur].done && !sc.ended
	sc.ended = false
	if q.empty() {
		return -1
	}
	chosen := -1
	if i := sc.points; i < len(sc.cfg.Interleaving) {
		chosen = q.ofTask(sc.cfg.Interleaving[i] - 1)
	}
	if chosen < 0 {
		switch {
		case sc.cfg.Seed != "":
			chosen = q.nth(int(sc.rand.Uint64() % uint64(q.front)))
		case goOn && q.in[sc.cur]:
			chosen = sc.cur
		default:
			chosen = q.nth(0)
		}
	}
	sc.points++
	if goOn && chosen != sc.cur {
		r.switches++
	}
	r.picks = append(r.picks, q.task[chosen]+1)
	return chosen
}

// sortTasks puts the task records and the oracle's facts, kept in the
// order the tasks claimed, into fixture order (stable by fixture index),
// in place and in O(n).
func (r *run) sortTasks() {
	n := len(r.tasks)
	if n != len(r.oracle.facts) {
		return
	}
	// a counting sort of the records' positions by fixture index: pos[j]
	// is the record that goes to position j
	m := len(r.h.fixture.Tasks)
	r.sortBuf = grown(r.sortBuf, n+m+1)
	pos, start := r.sortBuf[:n], r.sortBuf[n:]
	clear(start)
	for i := range r.tasks {
		start[r.tasks[i].index+1]++
	}
	for x := 1; x <= m; x++ {
		start[x] += start[x-1]
	}
	for i := range r.tasks {
		x := r.tasks[i].index
		pos[start[x]] = i
		start[x]++
	}
	// follow each cycle of the permutation, marking done positions -1
	for j := range pos {
		if pos[j] < 0 || pos[j] == j {
			continue
		}
		t, f := r.tasks[j], r.oracle.facts[j]
		k := j
		for pos[k] != j {
			i := pos[k]
			r.tasks[k], r.oracle.facts[k] = r.tasks[i], r.oracle.facts[i]
			pos[k] = -1
			k = i
		}
		r.tasks[k], r.oracle.facts[k] = t, f
		pos[k] = -1
	}
}

// growStack grows a new worker's stack while it is shallow, to 16 KiB
// from the runtime's starting size, which a task's deepest crossings
// need: grown there, the runtime copies a few frames, not every frame of
// the task at its first deep crossing. Its frame of 8 KiB is never
// written (deep is false), so the new stack's memory is not touched.
//
//go:noinline
func growStack(deep bool) byte {
	if deep {
		var b [8 << 10]byte
		return lastByte(b[:])
	}
	return 0
}

// lastByte is b's last byte (growStack's use of its frame).
//
//go:noinline
func lastByte(b []byte) byte { return b[len(b)-1] }
