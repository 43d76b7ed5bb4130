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

// Sender delivers one newsletter; Jitter spreads its retries. RetryAny is
// the unprotected sender: it retries every refusal (a rejected outcome)
// as it would a rate limit (after the retry-after, else 100 ms), a
// permanent one included. Outage is how it retries a provider that is
// down (a 503, class "unavailable"): "" holds; OutageFixed, OutageCapped
// and OutageBackoff retry within the task's budget (see wait).
//
// A server error or a failed connection leaves the send unknown: it
// retries it under the same key after 100 ms; ErrorAsSent is the
// unprotected sender that takes either for a newsletter sent.
//
// Credential is how it answers a 401 (class "unauthorized"): ""
// holds; CredentialLockstep and CredentialJitter re-authenticate once (a
// send to the provider's auth.token tool) and retry (see refresh).
type Sender struct {
	Jitter, RetryAny, ErrorAsSent bool
	Outage, Credential            string
}

// The senders' answers to an expired credential (Sender.Credential).
const (
	// CredentialLockstep refreshes the credential as soon as the 401
	// arrives, then retries: a fleet that shares the credential refreshes
	// and retries together.
	CredentialLockstep = "lockstep"
	// CredentialJitter waits 100 ms plus up to 900 ms drawn from the Env
	// before its one refresh, so the fleet's refreshes and retries spread.
	CredentialJitter = "jitter"
)

// unauthorized is the class of a provider's 401 (model's
// credential_expired).
const unauthorized = "unauthorized"

// refresh re-authenticates the task's sender after a 401: the wait its
// Credential owes, then one send to the provider's auth.token tool, which
// the provider serves as any send (load, and an entry of its ledger).
func (s Sender) refresh(ctx context.Context, env model.Env, t model.Task, a model.Action) error {
	if s.Credential == CredentialJitter {
		x, err := env.Rand()
		if err == nil {
			err = env.Sleep(ctx, 100+model.Millis(x%900))
		}
		if err != nil {
			return err
		}
	}
	_, err := env.Tool.Commit(ctx, model.ToolCall{Tool: "auth.token", RequestKey: "token-" + t.ID, Action: a})
	return err
}

// The senders' answers to an outage (Sender.Outage).
const (
	// OutageFixed waits 100 ms before every retry, no jitter: a fleet
	// that failed together retries together.
	OutageFixed = "fixed"
	// OutageCapped backs off 100 ms doubled per failure, capped at 400
	// ms, with a jitter of up to an eighth of the wait below the cap; the
	// capped wait drops its jitter, so the fleet's retries, barely spread
	// by then, stay within 37 ms of each other for the rest of the outage.
	OutageCapped = "capped"
	// OutageBackoff is OutageCapped with the jitter kept at the cap: a
	// capped wait is 400 ms plus up to 1,200 ms drawn from the Env.
	OutageBackoff = "backoff"
)

// unavailable is the class of a provider's 503 (model's provider_outage).
const unavailable = "unavailable"

// backoffCap is the longest wait of OutageCapped and OutageBackoff.
const backoffCap model.Millis = 400

// wait is the sender's wait before its retry after failed outage attempts
// (1 or more), in logical ms; an error is the Env's.
func (s Sender) wait(env model.Env, failed int) (model.Millis, error) {
	if s.Outage == OutageFixed {
		return 100, nil
	}
	d := model.Millis(100) << min(failed-1, 3)
	jitter := d / 8
	if d >= backoffCap {
		d, jitter = backoffCap, 0
		if s.Outage == OutageBackoff {
			jitter = 3 * backoffCap
		}
	}
	if jitter == 0 {
		return d, nil
	}
	x, err := env.Rand()
	return d + model.Millis(x%uint64(jitter)), err
}

// Run sends the task's newsletter, retrying a rate limit within the
// task's retry budget.
func (s Sender) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	a := model.Action{Actor: t.Actor, Subject: t.Subject, Tenant: t.Tenant, Purpose: t.Purpose, IdempotencyKey: t.ID, TraceID: t.Trace}
	reason := "retries spent"
	refreshed := false
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
		case res.Class == unauthorized && s.Credential != "" && !refreshed:
			refreshed = true
			if err := s.refresh(ctx, env, t, a); err != nil {
				return model.Claim{}, err
			}
			attempt-- // the retry with a fresh credential is not a failed attempt
			continue
		case res.Class == unavailable && s.Outage != "":
			wait, err := s.wait(env, attempt+1)
			if err == nil {
				err = env.Sleep(ctx, wait)
			}
			if err != nil {
				return model.Claim{}, err
			}
			continue
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
// retry_paced and no_retry_storm). Its system config is {"jitter": bool,
// "retry_any": bool, "error_as_sent": bool, "outage":
// "fixed"|"capped"|"backoff", "credential": "lockstep"|"jitter"}; an
// unknown field or value is an error.
func Definition() *model.Definition {
	return definition("mailfleet", Fleet(10, fleetCapacity))
}

// CredentialDefinition is Definition on the fleet of ten senders sharing
// one credential (fixture "mail-fleet-credential", Fleet.SharedCredential)
// against a provider of capacity twelve attempts per 100 ms: a fleet that
// re-authenticates in lockstep overloads it (docs/retry-storms.md,
// "Expired credentials").
func CredentialDefinition() *model.Definition {
	f := Fleet(10, fleetCapacity)
	f.Name, f.Fleet.SharedCredential = "mail-fleet-credential", true
	return definition("mailfleet_credential", f)
}

// OutageDefinition is Definition on the fleet of ten senders against a
// provider of capacity five attempts per 50 ms (fixture
// "mail-fleet-outage"): a fleet that retries an outage in lockstep
// overloads it when it comes back (docs/retry-storms.md, "Outages").
func OutageDefinition() *model.Definition {
	f := Fleet(10, outageCapacity)
	f.Name, f.Fleet.WindowMs = "mail-fleet-outage", outageWindow
	return definition("mailfleet_outage", f)
}

func definition(name string, f model.Fixture) *model.Definition {
	return &model.Definition{Name: name, Fixtures: []model.Fixture{f}, Builtin: []string{model.InvNoInventedProgress},
		Configure: func(system json.RawMessage) (model.Factory, error) {
			var s struct {
				Jitter      bool   `json:"jitter"`
				RetryAny    bool   `json:"retry_any"`
				ErrorAsSent bool   `json:"error_as_sent"`
				Outage      string `json:"outage"`
				Credential  string `json:"credential"`
			}
			if len(system) > 0 {
				dec := json.NewDecoder(bytes.NewReader(system))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&s); err != nil {
					return nil, fmt.Errorf("mailfleet: config: %w", err)
				}
			}
			if s.Outage != "" && s.Outage != OutageFixed && s.Outage != OutageCapped && s.Outage != OutageBackoff {
				return nil, fmt.Errorf("mailfleet: config: outage %q (valid: %q, %q, %q, or none)", s.Outage, OutageFixed, OutageCapped, OutageBackoff)
			}
			if s.Credential != "" && s.Credential != CredentialLockstep && s.Credential != CredentialJitter {
				return nil, fmt.Errorf("mailfleet: config: credential %q (valid: %q, %q, or none)", s.Credential, CredentialLockstep, CredentialJitter)
			}
			return func() model.System {
				return Sender{Jitter: s.Jitter, RetryAny: s.RetryAny, ErrorAsSent: s.ErrorAsSent, Outage: s.Outage, Credential: s.Credential}
			}, nil
		}}
}

const (
	fleetCapacity  = 12
	outageCapacity = 5
	outageWindow   = 50
)
