package model

import (
	"errors"
	"math"
	"slices"
	"strconv"
)

// invRetryPaced is the pacing invariant: a task's retry waits at least the
// back-off the provider asked for (ToolResult.RetryAfter), counted in
// logical milliseconds on its worker's clock from the reply that asked,
// across worker restarts. Every run that checks another invariant checks
// it, but for the paper's set (compat). Semantics: docs/retry-storms.md,
// "Pacing".
const invRetryPaced = "retry_paced"

// pacing is a task's back-off owed: the provider asked, at at, for a wait
// of wait before the task's next attempt. It lives in the harness, not in
// a worker, so a restart does not forget it; a crash before any checkpoint
// was written after the reply, or a load serving a checkpoint written
// before it, forgives it (the new worker could not have learned it).
type pacing struct {
	at, wait Millis
	// cps is the number of checkpoints the store held at the reply: a
	// load that serves one of them serves a record older than the reply.
	cps  int
	owed bool
}

// asked records the provider's answer to a send: a reply delivered at the
// clock now that asks for a wait owes it before the task's next attempt.
func (r *run) asked(res ToolResult) {
	r.pace = pacing{}
	if res.Class == classDoNotRetry {
		// an answer that says not to retry owes a wait without end
		r.pace = pacing{at: r.world.Clock, wait: forever, cps: len(r.world.Checkpoints), owed: true}
	} else if res.RetryAfter > 0 {
		r.pace = pacing{at: r.world.Clock, wait: res.RetryAfter, cps: len(r.world.Checkpoints), owed: true}
	}
}

// paced checks a send at logical time at against the task's back-off
// owed, and records the run's first early retry.
func (r *run) paced(at Millis) {
	p := r.pace
	r.pace = pacing{}
	if p.owed && r.live.observed != nil && r.h.opts.Clock == nil {
		// production code run without its Clock waits on a clock the run
		// does not read: there are no times to compare, and a check that
		// compared none would pass having tested nothing
		if slices.ContainsFunc(r.users, func(u UserInvariant) bool { return u.Name == invRetryPaced }) {
			r.misuse(errUnpaced)
		}
		return
	}
	if !p.owed || at >= p.at+p.wait || r.early != "" {
		return
	}
	r.early = "attempt " + strconv.Itoa(r.attempts) + " of task " + r.task.ID + " sent at " + ms(at) + ", " + ms(p.at+p.wait-at) +
		" early: the provider's retry-after of " + ms(p.wait) + " at " + ms(p.at) + " owed a wait until " + ms(p.at+p.wait)
	if p.wait == forever {
		r.early = "attempt " + strconv.Itoa(r.attempts) + " of task " + r.task.ID + " sent at " + ms(at) +
			": the provider answered at " + ms(p.at) + " that the request must not be retried"
	}
	if r.restarts > 0 {
		r.early += ", after " + strconv.Itoa(r.restarts) + " restart(s)"
	}
}

// forgive drops the back-off owed when the worker crashes before any
// checkpoint recorded the reply that asked for it.
func (r *run) forgive() {
	if r.lastSendUnrecorded {
		r.pace = pacing{}
	}
}

// errUnpaced is a retry after an answer that asked for a wait, by
// production code run without its Clock.
var errUnpaced = errors.New("retry_paced: production code (a System that implements model.Observed) retried after the provider asked it to wait, and without Definition.Clock (Options.Clock) its waits are not on the run's clock, so the wait cannot be judged; set Clock to properties.BubbleClock")

// forever is the back-off owed after an answer that says not to retry.
const forever Millis = math.MaxInt64 / 2

func ms(v Millis) string { return strconv.FormatInt(int64(v), 10) + " ms" }

// retryPaced is the pacing invariant invRetryPaced.
func retryPaced() UserInvariant {
	return UserInvariant{Name: invRetryPaced, Owner: "workflow runtime", Oracle: oracleBudgetCounter,
		Doc: "a retry waits at least the back-off the provider asked for, across restarts",
		Check: func(v View) string {
			return v.r.early
		}}
}
