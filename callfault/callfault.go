// Package callfault puts the tool faults of faultline's catalogue on any
// client call of the shape func(context.Context, Req) (Resp, error), for a
// client no adapter exists for: [Wrap] returns a function of the same
// shape that reports each call as a tool.commit crossing of the harness
// (model.Calls.Commit), where the schedule's faults act on it with the
// model's own semantics, and renders the kinds that fired as this client's
// answers: errors and replies the [Spec] describes.
//
// Entry points:
//
//   - [Wrap] wraps a call; [Spec] names the tool, extracts the key and the
//     action from a request, maps a reply (or an error) to the model's
//     result, and renders each fault for this client (defaults: the error
//     types of this package);
//   - [Kinds] lists the kinds a wrapped call renders, [Spec.Kinds] those a
//     given spec renders (partial_success_response, output_drift,
//     break_trace_lineage and false_success need a renderer of their own);
//   - [TimeoutError], [RejectedError], [RateLimitError], [TransportError]
//     and [ErrMalformed] are the default renderings; [OutcomeOf] classifies them into the
//     three outcomes.
//
// The provider's own store is the oracle: the System that runs the code
// under test implements model.Observed over it.
package callfault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/faultline/faultline/model"
)

// TimeoutError is the default rendering of a lost or withheld reply
// (timeout_before_send, budget_exhaustion, tool_timeout,
// timeout_after_commit): errors.Is(err, os.ErrDeadlineExceeded) holds and
// Timeout is true, as for a real deadline. Sent says whether the request
// reached the provider (for the test's diagnosis, not the client's).
type TimeoutError struct {
	Tool string
	Kind string
	Sent bool
}

// Error names the tool and the kind.
func (e *TimeoutError) Error() string {
	return "callfault: " + e.Tool + ": timeout awaiting the reply (" + e.Kind + ")"
}

// Timeout is true: the outcome is unknown to the client.
func (e *TimeoutError) Timeout() bool { return true }

// Is matches os.ErrDeadlineExceeded.
func (e *TimeoutError) Is(target error) bool { return target == os.ErrDeadlineExceeded }

// RejectedError is the default rendering of a refusal before any effect
// (sandbox_denial, reject_before_commit; outside the catalogue
// do_not_retry, provider_outage and credential_expired): Class is the
// model's ("sandbox_denial", model.ClassRejected, "do_not_retry",
// "unavailable", "unauthorized"), which says whether a retry may succeed.
type RejectedError struct {
	Tool   string
	Kind   string
	Class  string
	Reason string
}

// Error names the tool, the kind and the reason.
func (e *RejectedError) Error() string {
	return "callfault: " + e.Tool + ": rejected (" + e.Kind + "): " + e.Reason
}

// TransportError is the default rendering of server_error (Kind
// "server_error": the server answered a fault of its own) and
// network_error (the connection was refused, or reset when Sent): the
// outcome is unknown, and Sent (the provider processed the request) is
// for the test's diagnosis, not the client's.
type TransportError struct {
	Tool string
	Kind string
	Sent bool
}

// Error names the tool and what failed.
func (e *TransportError) Error() string {
	what := "server error"
	switch {
	case e.Kind == "network_error" && e.Sent:
		what = "connection reset by peer"
	case e.Kind == "network_error":
		what = "connection refused"
	}
	return "callfault: " + e.Tool + ": " + what + " (" + e.Kind + ")"
}

// RateLimitError is the default rendering of rate_limit: the client should
// wait RetryAfter (on its own clock; nothing here sleeps) and retry.
type RateLimitError struct {
	Tool       string
	RetryAfter time.Duration
}

// Error names the tool and the wait.
func (e *RateLimitError) Error() string {
	return fmt.Sprintf("callfault: %s: rate limited, retry after %v", e.Tool, e.RetryAfter)
}

// ErrMalformed is the default rendering of malformed_response: the reply
// the provider gave after committing does not decode.
var ErrMalformed = errors.New("callfault: the reply does not decode")

// Spec describes one client call to Wrap. Tool is required; the rest
// have defaults.
type Spec[Req, Resp any] struct {
	// Tool names the call's tool (model.ToolCall.Tool; a fault's "tool"
	// selects it).
	Tool string
	// Key extracts the request's idempotency key. An error ends the run
	// (Calls.Fail) and fails the call. An empty key (or a nil Key) is a
	// call sent without one: it is tested as any other (the provider
	// cannot deduplicate it; the timeline says so).
	Key func(Req) (string, error)
	// Action extracts the action the request claims to be (its
	// IdempotencyKey is the action reference); default: IdempotencyKey =
	// key.
	Action func(req Req, key string) model.Action
	// Receipt extracts the receipt id from a reply ("" for none); the
	// answer faults (partial_success_response, malformed_response,
	// output_drift) act only on a reply with a receipt, as in the model.
	// Default: no receipts.
	Receipt func(Resp) string
	// Result maps the provider's answer to the model's result. Default:
	// an error is an unknown outcome (model.ClassTimeout), a reply is
	// committed with the Receipt of Receipt.
	Result func(key string, resp Resp, err error) model.ToolResult
	// Lost renders a lost or withheld reply; default *TimeoutError.
	Lost func(kind string, sent bool) error
	// Rejected renders a refusal before any effect (res.Class tells a
	// permanent one, an outage's and an expired credential's apart);
	// default *RejectedError.
	Rejected func(kind string, res model.ToolResult) error
	// Failed renders server_error and network_error (sent: after the
	// provider processed the request); default *TransportError.
	Failed func(kind string, sent bool) error
	// RateLimited renders rate_limit; default *RateLimitError.
	RateLimited func(retryAfter time.Duration) error
	// Malformed renders malformed_response from the real reply; default:
	// the zero reply and ErrMalformed.
	Malformed func(Resp) (Resp, error)
	// StripReceipt renders partial_success_response: the reply without
	// its receipt. Without it the kind does not act on the call: it stays
	// unfired, and the run is inconclusive (model.Calls.CommitOnly).
	StripReceipt func(Resp) Resp
	// Drift renders output_drift: the reply as a drifted schema decodes
	// (its receipt and amount fields empty). Without it, as StripReceipt.
	Drift func(Resp) Resp
	// SetTrace renders break_trace_lineage: the request carrying trace.
	// Without it, as StripReceipt.
	SetTrace func(req Req, trace string) Req
	// ErrorReply renders false_success: a reply without an error that
	// carries the provider's error (reason) in its body, nothing
	// committed. Without it, as StripReceipt.
	ErrorReply func(reason string) Resp
}

// Kinds returns the kinds a wrapped call can render (what
// Definition.Enacts lists): every catalogue kind at tool.commit, in
// catalogue order, then those outside the catalogue, server_error and
// network_error (Spec.Failed) and do_not_retry, provider_outage and
// credential_expired (Spec.Rejected).
func Kinds() []string {
	var out []string
	for _, s := range model.Catalogue() {
		if s.Event == model.EvToolCommit {
			out = append(out, s.Kind)
		}
	}
	return append(out, outsideCatalogue...)
}

// Kinds returns the kinds this spec renders: Kinds() less
// partial_success_response without StripReceipt, output_drift without
// Drift, break_trace_lineage without SetTrace and false_success without
// ErrorReply.
func (s Spec[Req, Resp]) Kinds() []string {
	return slices.DeleteFunc(Kinds(), func(k string) bool {
		return k == "partial_success_response" && s.StripReceipt == nil || k == "output_drift" && s.Drift == nil ||
			k == "break_trace_lineage" && s.SetTrace == nil || k == "false_success" && s.ErrorReply == nil
	})
}

// Wrap returns f reported to calls: each call crosses tool.commit, the
// faults the schedule arms there act on it (a withholding kind never
// calls f; timeout_after_commit calls it and loses the reply; tool_timeout
// holds the request and calls f with it, under a context without
// cancellation, just before the next call through this wrapper), and the
// kinds that fired are rendered by spec. Calls through the wrapper are
// serialized. Build it in System.Run (calls is valid only during that
// call), one per task run. Wrap returns an error for a nil calls or f or
// an empty Tool.
func Wrap[Req, Resp any](calls model.Calls, spec Spec[Req, Resp], f func(context.Context, Req) (Resp, error)) (func(context.Context, Req) (Resp, error), error) {
	switch {
	case calls == nil:
		return nil, errors.New("callfault: Wrap: nil Calls (use the Env.Calls the harness hands to System.Run)")
	case f == nil:
		return nil, errors.New("callfault: Wrap: nil call")
	case spec.Tool == "":
		return nil, errors.New("callfault: Wrap: Spec.Tool is empty")
	}
	if spec.Key == nil {
		spec.Key = func(Req) (string, error) { return "", nil }
	}
	kinds := append(spec.Kinds(), outsideCatalogue...)
	w := &wrapped[Req, Resp]{calls: calls, s: spec, f: f, renders: func(k string) bool { return slices.Contains(kinds, k) }}
	if w.s.Action == nil {
		w.s.Action = func(_ Req, key string) model.Action { return model.Action{IdempotencyKey: key} }
	}
	if w.s.Result == nil {
		receipt := w.s.Receipt
		w.s.Result = func(key string, resp Resp, err error) model.ToolResult {
			if err != nil {
				return model.ToolResult{Outcome: model.OutcomeUnknown, Class: model.ClassTimeout, Reason: err.Error()}
			}
			res := model.ToolResult{Outcome: model.OutcomeCommitted}
			if receipt != nil {
				if id := receipt(resp); id != "" {
					res.Receipt = &model.Receipt{ID: id, Key: key}
				}
			}
			return res
		}
	}
	tool := spec.Tool
	if w.s.Lost == nil {
		w.s.Lost = func(kind string, sent bool) error { return &TimeoutError{Tool: tool, Kind: kind, Sent: sent} }
	}
	if w.s.Failed == nil {
		w.s.Failed = func(kind string, sent bool) error { return &TransportError{Tool: tool, Kind: kind, Sent: sent} }
	}
	if w.s.Rejected == nil {
		w.s.Rejected = func(kind string, res model.ToolResult) error {
			return &RejectedError{Tool: tool, Kind: kind, Class: res.Class, Reason: res.Reason}
		}
	}
	if w.s.RateLimited == nil {
		w.s.RateLimited = func(d time.Duration) error { return &RateLimitError{Tool: tool, RetryAfter: d} }
	}
	if w.s.Malformed == nil {
		w.s.Malformed = func(Resp) (Resp, error) {
			var zero Resp
			return zero, fmt.Errorf("%w (tool %s, malformed_response)", ErrMalformed, tool)
		}
	}
	return w.call, nil
}

// outsideCatalogue are the kinds outside the catalogue a wrapped call
// renders when a schedule names them.
var outsideCatalogue = []string{"server_error", "network_error", "do_not_retry", "provider_outage", "credential_expired"}

type wrapped[Req, Resp any] struct {
	calls model.Calls
	s     Spec[Req, Resp]
	f     func(context.Context, Req) (Resp, error)
	mu    sync.Mutex
	held  []Req
	// renders reports the kinds the spec renders: the others stay
	// unfired (model.Calls.CommitOnly)
	renders func(string) bool
}

// answer is the provider's answer to the current call.
type answer[Resp any] struct {
	resp Resp
	err  error
}

func (w *wrapped[Req, Resp]) fail(err error) (Resp, error) {
	w.calls.Fail(err)
	var zero Resp
	return zero, err
}

func (w *wrapped[Req, Resp]) call(ctx context.Context, req Req) (Resp, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	tool := w.s.Tool
	key, err := w.s.Key(req)
	if err != nil {
		return w.fail(fmt.Errorf("callfault: tool %s: idempotency key: %w", tool, err))
	}
	act := w.s.Action(req, key)
	call := model.ToolCall{Tool: tool, RequestKey: key, Action: act}
	var cur *answer[Resp]
	unknown := func(err error) model.ToolResult {
		w.calls.Fail(err)
		return model.ToolResult{Outcome: model.OutcomeUnknown, Class: model.ClassTimeout, Reason: err.Error()}
	}
	send := func(ctx context.Context, c model.ToolCall) model.ToolResult {
		if len(w.held) > 0 {
			h := w.held[0]
			w.held = w.held[1:]
			resp, err := w.f(context.WithoutCancel(ctx), h)
			return w.s.Result(c.RequestKey, resp, err)
		}
		if cur != nil || c.RequestKey != key || c.Tool != tool {
			return unknown(fmt.Errorf("callfault: tool %s: the harness delivers a request (tool %s, key %q) this wrapper never held; build one wrapper per System.Run and keep it for the task's run", tool, c.Tool, c.RequestKey))
		}
		r := req
		if c.Action.TraceID != act.TraceID {
			if w.s.SetTrace == nil {
				return unknown(fmt.Errorf("callfault: tool %s: break_trace_lineage fired and Spec.SetTrace is nil (this spec renders %s)", tool, strings.Join(w.s.Kinds(), ", ")))
			}
			r = w.s.SetTrace(r, c.Action.TraceID)
		}
		resp, err := w.f(ctx, r)
		cur = &answer[Resp]{resp, err}
		return w.s.Result(key, resp, err)
	}
	c, err := w.calls.CommitOnly(ctx, call, w.renders, send)
	var zero Resp
	if err != nil {
		return zero, err
	}
	var provided answer[Resp] // the provider's answer, before an answer fault's rendering
	if cur != nil {
		provided = *cur
	}
	for _, kind := range c.Fired {
		switch kind {
		case "sandbox_denial", "reject_before_commit", "do_not_retry", "provider_outage", "credential_expired":
			return zero, w.s.Rejected(kind, c.Result)
		case "timeout_before_send", "budget_exhaustion":
			return zero, w.s.Lost(kind, false)
		case "tool_timeout":
			w.held = append(w.held, req)
			return zero, w.s.Lost(kind, false)
		case "timeout_after_commit":
			return zero, w.s.Lost(kind, true)
		case "server_error", "network_error":
			return zero, w.s.Failed(kind, cur != nil)
		case "rate_limit":
			return zero, w.s.RateLimited(time.Duration(c.Result.RetryAfter) * time.Millisecond)
		case "break_trace_lineage":
			// rendered on the request by send
		case "false_success":
			return w.s.ErrorReply(c.Result.Reason), nil // renders holds it only with ErrorReply
		case "partial_success_response", "malformed_response", "output_drift":
			if cur == nil || cur.err != nil {
				return w.fail(fmt.Errorf("callfault: tool %s: %s fired on a reply the provider never gave", tool, kind))
			}
			switch {
			case kind == "malformed_response":
				cur.resp, cur.err = w.s.Malformed(cur.resp)
			case kind == "partial_success_response" && w.s.StripReceipt != nil:
				cur.resp = w.s.StripReceipt(cur.resp)
			case kind == "output_drift" && w.s.Drift != nil:
				cur.resp = w.s.Drift(cur.resp)
			default:
				return w.fail(fmt.Errorf("callfault: tool %s: %s fired and the spec cannot render it (it renders %s)", tool, kind, strings.Join(w.s.Kinds(), ", ")))
			}
		default:
			return w.fail(fmt.Errorf("callfault: tool %s: %s fired and callfault cannot render it", tool, kind))
		}
	}
	if cur == nil {
		return w.fail(fmt.Errorf("callfault: tool %s: the harness neither sent the call nor answered it", tool))
	}
	if kind := answerKind(c.Fired); kind != "" {
		// the fault is recorded fired: the caller must not get the reply it disturbs untouched
		before := w.s.Result(key, provided.resp, provided.err).Receipt
		if r := w.s.Result(key, cur.resp, cur.err); before != nil && r.Outcome == model.OutcomeCommitted && r.Receipt != nil && r.Receipt.ID != "" && r.Receipt.ID == before.ID {
			return w.fail(fmt.Errorf("callfault: tool %s: %s fired and the reply the spec rendered still carries its receipt %q as Spec.Result reads it", tool, kind, before.ID))
		}
	}
	return cur.resp, cur.err
}

// answerKind is the last answer fault among fired ("" for none).
func answerKind(fired []string) string {
	for _, k := range slices.Backward(fired) {
		if k == "partial_success_response" || k == "malformed_response" || k == "output_drift" {
			return k
		}
	}
	return ""
}
