package model

import "context"

// Ambient is the identity and trace context a worker carries in the
// context.Context the harness hands System.Run: the acting actor and
// tenant and the trace, as a request-scoped principal and a trace
// context are carried in production code. The harness derives it from the
// task when the worker starts it, so it equals the task's own identity
// unless a worker-scoped fault (ambient_identity_leak) keeps the one the
// worker captured for an earlier task. A system that takes its acting
// identity from the ambient context rather than from the task inherits
// such a leak; one that re-derives it from the task per task does not.
type Ambient struct {
	Actor  string
	Tenant string
	Trace  string
}

type ambientKey struct{}

// ambientCtx is a context carrying an ambient identity. The harness keeps
// one per worker and refills it at every worker start, so a run allocates
// none.
type ambientCtx struct {
	context.Context
	a Ambient
}

// Value returns a pointer to the ambient identity for its key, so that a
// lookup does not allocate.
func (c *ambientCtx) Value(key any) any {
	if _, ok := key.(ambientKey); ok {
		return &c.a
	}
	return c.Context.Value(key)
}

// AmbientOf returns the ambient identity ctx carries, and false when it
// carries none (a context the harness did not make).
func AmbientOf(ctx context.Context) (Ambient, bool) {
	if a, ok := ctx.Value(ambientKey{}).(*Ambient); ok && a != nil {
		return *a, true
	}
	return Ambient{}, false
}

// ambientFor returns the current worker's ambient context, refilled with
// parent and a: the slot's in a concurrent run, the run's otherwise, a
// new one for each instance of production code.
func (r *run) ambientFor(parent context.Context, a Ambient) context.Context {
	if r.live.observed != nil {
		// production code: a context of the instance's own, since the
		// goroutines its clients start (a driver's watch on Done) may
		// still read it when the next instance starts
		return &ambientCtx{Context: parent, a: a}
	}
	c := &r.seqAmbient
	if r.conc != nil {
		c = &r.conc.states[r.conc.cur].ambient
	}
	c.Context, c.a = parent, a
	return c
}

// ambientOfTask is the ambient identity a worker derives from task t.
func ambientOfTask(t Task) Ambient {
	return Ambient{Actor: t.Actor, Tenant: t.Tenant, Trace: t.Trace}
}

// workerScope is what a worker-scoped fault captured when its worker
// started: the worker's slot (-1 for a sequential run, where every task
// has a worker of its own) and the ambient identity it keeps.
type workerScope struct {
	slot    int
	ambient Ambient
}

// workerStart applies the worker-scoped faults at a worker.start crossing
// of ordinal ord (the harness's count of worker starts) to amb, the
// ambient identity the starting worker derived from its task: a fault
// armed at this start captures amb for its worker, as a commit
// disturbance that left a span running does (spanCarrier); a later task
// that the same worker starts (not a restart: a crashed worker's process
// and its capture are gone) gets what was captured. It returns the id of
// the last fault that fired.
func (r *run) workerStart(ord int, amb *Ambient) string {
	slot := r.slot()
	ev := eventIndex(EvWorkerStart)
	fid := ""
	for j := range r.faults {
		f := &r.faults[j]
		h, ok := f.kind.impl.(workerHook)
		c, carrier := f.kind.impl.(spanCarrier)
		if ok = ok && f.event == ev; !ok && !carrier {
			continue
		}
		if ok && f.scope == nil && !f.reached && ord == f.entry.Ordinal {
			f.reached = true
			f.scope = &workerScope{slot: slot, ambient: *amb}
			continue
		}
		if f.scope == nil || f.ended || slot < 0 || f.scope.slot != slot {
			continue
		}
		if r.worker > 1 {
			f.scope = nil // a restarted worker is a fresh process
			continue
		}
		x := *amb // only a fault's hook takes an address
		if ok && h.onWorkerStart(r, f.scope, &x) || carrier && c.carry(r, f.scope, &x) {
			*amb = x
			fid = r.fire(f)
		}
	}
	return fid
}

// slot is the current worker's slot in a concurrent run, -1 in a
// sequential one (where every task has a worker of its own).
func (r *run) slot() int {
	if r.conc != nil {
		return r.conc.cur
	}
	return -1
}
