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

// AmbientOf returns the ambient identity ctx carries, and false when it
// carries none (a context the harness did not make).
func AmbientOf(ctx context.Context) (Ambient, bool) {
	a, ok := ctx.Value(ambientKey{}).(Ambient)
	return a, ok
}

// WithAmbient returns ctx carrying a as its ambient identity, for tests
// and adapters that call a system outside the harness.
func WithAmbient(ctx context.Context, a Ambient) context.Context {
	return context.WithValue(ctx, ambientKey{}, a)
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
// armed at this start captures amb for its worker; a later task that the
// same worker starts (not a restart: a crashed worker's process and its
// capture are gone) gets the captured identity. It returns the id of the
// last fault that fired.
func (r *run) workerStart(ord int, amb *Ambient) string {
	slot := -1
	if r.conc != nil {
		slot = r.conc.cur
	}
	ev := eventIndex(EvWorkerStart)
	fid := ""
	for j := range r.faults {
		f := &r.faults[j]
		h, ok := f.kind.impl.(workerHook)
		if !ok || f.event != ev {
			continue
		}
		if f.scope == nil && !f.reached && ord == f.entry.Ordinal {
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
		if h.onWorkerStart(r, f.scope, amb) {
			fid = r.fire(f)
		}
	}
	return fid
}
