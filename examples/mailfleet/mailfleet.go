// Package mailfleet is an example of the fleet machinery on a system of
// another domain: a fleet of senders, each delivering one newsletter
// through a mail provider that answers a burst with a rate limit. A sender
// waits the provider's retry-after and tries again, optionally with a
// random jitter drawn from the Env's seeded source. The fleet fixture
// declares the provider's capacity; the harness measures its load and
// checks no_retry_storm.
package mailfleet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/faultline/faultline/model"
)

// Sender delivers one newsletter; Jitter spreads its retries. A server
// error or a failed connection leaves the send unknown: it retries it
// under the same key after 100 ms. RetryAny is the unprotected sender
// that retries every refusal (a rejected outcome) as it would a rate
// limit (after the retry-after, else 100 ms), a permanent one included;
// ErrorAsSent the one that takes a server error or a failed connection
// for a newsletter sent.
type Sender struct{ Jitter, RetryAny, ErrorAsSent bool }

// Run sends the task's newsletter, retrying a rate limit within the
// task's retry budget.
func (s Sender) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	a := model.Action{Actor: t.Actor, Subject: t.Subject, Tenant: t.Tenant, Purpose: t.Purpose, IdempotencyKey: t.ID, TraceID: t.Trace}
	reason := "rate limited"
	for attempt := 0; attempt <= t.RetryBudget; attempt++ {
		res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: "mail.send", RequestKey: t.ID, Action: a})
		if err != nil {
			return model.Claim{}, err
		}
		switch {
		case res.Class == model.ClassErrorInBody:
			// a success envelope carrying the provider's error: not sent
			return model.Claim{Verdict: model.ClaimHold, Reason: "not sent: " + res.Class}, nil
		case res.Outcome == model.OutcomeCommitted:
			return model.Claim{Verdict: model.ClaimRelease, Reason: "sent"}, nil
		case res.Class == "server_error" || res.Class == "network_error":
			if s.ErrorAsSent {
				return model.Claim{Verdict: model.ClaimRelease, Reason: "sent (" + res.Class + ")"}, nil
			}
			reason = "outcome unknown: " + res.Class
		case res.Class != model.ClassRateLimited && !(s.RetryAny && res.Outcome == model.OutcomeRejected):
			return model.Claim{Verdict: model.ClaimHold, Reason: "not sent: " + res.Class}, nil
		}
		wait := res.RetryAfter
		if wait == 0 {
			wait = 100
		}
		if s.Jitter && res.RetryAfter > 0 {
			x, err := env.Rand()
			if err != nil {
				return model.Claim{}, err
			}
			wait += model.Millis(x % uint64(10*res.RetryAfter))
		}
		if err := env.Sleep(ctx, wait); err != nil {
			return model.Claim{}, err
		}
	}
	return model.Claim{Verdict: model.ClaimHold, Reason: reason}, nil
}

// Fleet returns a fleet of n senders (one list each) against a provider
// of capacity attempts per 100 ms.
func Fleet(n, capacity int) model.Fixture {
	f := model.Fixture{Name: "mail-fleet", Fleet: &model.Fleet{Capacity: capacity}}
	for i := range n {
		list := "list-" + strconv.Itoa(i+1)
		f.Subjects = append(f.Subjects, model.Subject{ID: list, Tenant: "acme", Status: "ready", Version: 1})
		f.Tasks = append(f.Tasks, model.Task{ID: "send-" + list, Actor: "mailer", Subject: list, Tenant: "acme", Purpose: "newsletter"})
	}
	return f
}

// Burst returns the schedule of the provider's burst: a rate limit on
// each of the first n sends, every sender's first.
func Burst(n int) *model.Schedule {
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "mail-burst", Config: model.Config{Fixture: "mail-fleet"}}
	for i := range n {
		s.Faults = append(s.Faults, model.FaultEntry{Event: model.EvToolCommit, Ordinal: i + 1, Kind: "rate_limit"})
	}
	return s
}

// Definition describes the fleet of ten senders against a provider of
// capacity twelve attempts per 100 ms, checking no_invented_progress (and, as every run,
// retry_paced and no_retry_storm). Its system config is
// {"jitter": bool, "retry_any": bool, "error_as_sent": bool}; an unknown
// field is an error.
func Definition() *model.Definition {
	return &model.Definition{Name: "mailfleet", Fixtures: []model.Fixture{Fleet(10, fleetCapacity)}, Builtin: []string{model.InvNoInventedProgress},
		Configure: func(system json.RawMessage) (model.Factory, error) {
			var s struct {
				Jitter      bool `json:"jitter"`
				RetryAny    bool `json:"retry_any"`
				ErrorAsSent bool `json:"error_as_sent"`
			}
			if len(system) > 0 {
				dec := json.NewDecoder(bytes.NewReader(system))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&s); err != nil {
					return nil, fmt.Errorf("mailfleet: config: %w", err)
				}
			}
			return func() model.System { return Sender{Jitter: s.Jitter, RetryAny: s.RetryAny, ErrorAsSent: s.ErrorAsSent} }, nil
		}}
}

const fleetCapacity = 12
