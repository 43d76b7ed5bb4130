// Package spans is an example system of another domain than the
// reference one: a notification agent that sends one paid SMS campaign a
// task, retrying once a send whose outcome is unknown, and proves each
// send with the provider's receipt recorded under its trace. Like code
// instrumented with OpenTelemetry, it takes its trace from the worker's
// running span (model.AmbientOf) rather than from the task, which is how
// a retry layer that leaves its own span running (span_carry_over) breaks
// the lineage of every later task the worker runs.
//
// Entry points: [Sender] (the system, with its defence
// [Sender.PerTaskTrace]), [Fixture] (two tenants' campaigns) and
// [Definition].
package spans

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/faultline/faultline/model"
)

// Tool is the name of the campaign-sending tool.
const Tool = "sms.send_campaign"

// attemptTime is the logical time, in ms, a send needs before the task's
// deadline: the sender makes no send with less left.
const attemptTime model.Millis = 100

// Sender sends the task's campaign. By default its trace is the worker's
// running span (model.AmbientOf), under a principal it checks against the
// task's; it holds a send whose receipt names another trace than its own,
// or whose receipt it could not record.
type Sender struct {
	// PerTaskTrace derives each task's trace from the task, never from
	// the worker's running span.
	PerTaskTrace bool
}

// Run implements model.System.
func (s Sender) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	trace := t.Trace
	if amb, ok := model.AmbientOf(ctx); ok && !s.PerTaskTrace {
		if amb.Actor != t.Actor || amb.Tenant != t.Tenant {
			// the principal is checked against the task; the span is not
			env.Signals.Warn("principal_mismatch", amb.Actor+" of "+amb.Tenant+" runs a task of "+t.Actor+" of "+t.Tenant)
			return model.Claim{Verdict: model.ClaimHold, Reason: "the worker's principal is not the task's"}, nil
		}
		trace = amb.Trace
	}
	a := model.Action{Actor: t.Actor, Subject: t.Subject, Tenant: t.Tenant, Purpose: t.Purpose, Amount: t.Amount,
		IdempotencyKey: t.Subject + ":send", TraceID: trace}
	g, err := env.Authority.Approve(ctx, t, a)
	if errors.Is(err, model.ErrNotFound) {
		return model.Claim{Verdict: model.ClaimDeny, Reason: "no send grant"}, nil
	} else if err != nil {
		return model.Claim{}, err
	}
	a.CapabilityID, a.CapabilityExpiry = g.ID, g.Expiry
	c, err := env.Context.ReadSubject(ctx, t.Subject)
	if err != nil {
		return model.Claim{}, err
	}
	a.ExpectedVersion = c.Version
	if _, err := env.Evidence.Append(ctx, model.EvidenceRecord{Kind: "decision", Trace: trace, Detail: g.ID}); err != nil {
		return model.Claim{}, err
	}
	for attempt := 1; attempt <= 2; attempt++ {
		if t.Started+t.Deadline-env.Now() < attemptTime {
			return model.Claim{Verdict: model.ClaimHold, Reason: "no time left for a send before the deadline"}, nil
		}
		res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: Tool, RequestKey: a.IdempotencyKey, Action: a,
			Guard: model.GuardCapability | model.GuardBinding | model.GuardState})
		if err != nil {
			return model.Claim{}, err
		}
		switch res.Outcome {
		case model.OutcomeUnknown:
			continue // retried once under the same key: the provider replays a send it made
		case model.OutcomeCommitted:
			return s.prove(ctx, env, trace, a.IdempotencyKey, res.Receipt)
		default:
			return model.Claim{Verdict: model.ClaimDeny, Reason: "send refused: " + res.Reason}, nil
		}
	}
	return model.Claim{Verdict: model.ClaimHold, Reason: "send outcome unknown after a retry"}, nil
}

// prove records the receipt r of the send under key as the task's
// evidence, and releases only a send it could prove under its own trace.
func (s Sender) prove(ctx context.Context, env model.Env, trace, key string, r *model.Receipt) (model.Claim, error) {
	if r == nil || r.ID == "" || r.Key != key {
		return model.Claim{Verdict: model.ClaimHold, Reason: "send not confirmed: no valid receipt"}, nil
	}
	if r.Trace != trace {
		env.Signals.Warn("trace_mismatch", fmt.Sprintf("receipt %s under trace %s, the task's is %s", r.ID, r.Trace, trace))
		return model.Claim{Verdict: model.ClaimHold, Reason: "send not joined to its decision"}, nil
	}
	ack, err := env.Evidence.Append(ctx, model.EvidenceRecord{Kind: "receipt", Trace: trace, EffectKey: r.Key, EffectTrace: r.Trace, ReceiptID: r.ID})
	if err != nil {
		return model.Claim{}, err
	}
	if ack.Outcome != model.OutcomeCommitted {
		return model.Claim{Verdict: model.ClaimHold, Reason: "receipt not recorded"}, nil
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "campaign sent", Receipt: r.ID}, nil
}

// Fixture is two tenants' campaigns, each sent by its own operator under
// its own grant.
func Fixture() model.Fixture {
	return model.Fixture{Name: "spans",
		Subjects: []model.Subject{
			{ID: "C-31", Tenant: "bakery", Status: "scheduled", Version: 1, Amount: 1200},
			{ID: "C-58", Tenant: "garage", Status: "scheduled", Version: 4, Amount: 900},
		},
		Capabilities: []model.Capability{
			{ID: "GR-31", Actor: "ops-bk", Subject: "C-31", Tenant: "bakery", Purpose: "send_campaign", Amount: 1200, Expiry: 600000},
			{ID: "GR-58", Actor: "ops-gr", Subject: "C-58", Tenant: "garage", Purpose: "send_campaign", Amount: 900, Expiry: 600000},
		},
		Tasks: []model.Task{
			{ID: "send-C-31", Actor: "ops-bk", Subject: "C-31", Tenant: "bakery", Purpose: "send_campaign", Amount: 1200, Capability: "GR-31"},
			{ID: "send-C-58", Actor: "ops-gr", Subject: "C-58", Tenant: "garage", Purpose: "send_campaign", Amount: 900, Capability: "GR-58"},
		},
	}
}

// Definition describes the sender for the harness and the explorers; its
// config's system part is {} for the sender that takes its trace from the
// worker's running span, {"per_task_trace": true} for the defended one.
// Its invariants are the built-in ones.
func Definition() *model.Definition {
	return &model.Definition{Name: "spans", Fixtures: []model.Fixture{Fixture()},
		Configure: func(system json.RawMessage) (model.Factory, error) {
			var s struct {
				PerTaskTrace bool `json:"per_task_trace"`
			}
			if len(system) > 0 {
				dec := json.NewDecoder(bytes.NewReader(system))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&s); err != nil {
					return nil, fmt.Errorf("spans: config: %w", err)
				}
			}
			return func() model.System { return Sender{PerTaskTrace: s.PerTaskTrace} }, nil
		}}
}
