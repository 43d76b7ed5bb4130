package model

import "math/rand/v2"

// The Env's random source (Env.Rand). Each worker of each task draws from
// its own stream: a PCG (math/rand/v2) seeded from a hash of the
// schedule's seed string, the task's position in the fixture and its id,
// and the worker's number (1 for a task's first worker, 2 for the worker
// that starts after its first restart, and so on). The rule:
//
//   - the same schedule gives the same stream, run after run, in this
//     process or another;
//   - a different seed string gives another stream;
//   - a worker restart gives the fresh worker a fresh stream, still a pure
//     function of the schedule, the task and the worker's number: nothing
//     of the crashed worker's draws carries over;
//   - the faults and the config do not enter the hash: adding a fault to a
//     schedule leaves its draws as they were (what the system does with
//     them may differ).
//
// A draw is not a boundary crossing: it advances no clock, records no
// event and no fault acts on it.

// rng is the current worker's random stream, seeded at its first draw.
type rng struct {
	pcg    rand.PCG
	seeded bool
}

// draw implements Env.Rand for the current worker.
func (e *taskEnv) draw() (uint64, error) {
	r := e.r
	if r.crashed {
		return 0, ErrWorkerCrashed
	}
	if !r.rng.seeded {
		r.rng.pcg.Seed(streamSeed(r.sched.Seed, r.index, r.task.ID, r.worker))
		r.rng.seeded = true
	}
	return r.rng.pcg.Uint64(), nil
}

// streamSeed derives the two PCG seed words of a worker's stream from the
// schedule's seed string, the task's index in the fixture and id, and the
// worker's number.
func streamSeed(seed string, task int, id string, worker int) (uint64, uint64) {
	h := wordHash(0x6a09e667f3bcc909)
	h.str(seed).num(int64(task)).str(id).num(int64(worker))
	hi := h.mix()
	h.num(0x5851f42d4c957f2d)
	return uint64(hi), uint64(h.mix())
}
