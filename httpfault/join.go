package httpfault

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/faultline/faultline/model"
)

// Class is what a request is to the harness: a commit, a read, or
// neither.
type Class uint8

// Classes of requests.
const (
	// Neither: the request passes through without a crossing (an MCP
	// initialize, a tools/list, a health check).
	Neither Class = iota
	// Commit: a consequential request; it crosses tool.commit through
	// Calls.Commit, where the schedule's tool faults act on it.
	Commit
	// Read: a readback; it crosses Classified.Event (default
	// ledger.readback) through Calls.Enter. No fault kind is enacted at a
	// read: one armed there stays unfired and the run is inconclusive.
	Read
)

// String is "neither", "commit" or "read".
func (c Class) String() string {
	switch c {
	case Neither:
		return "neither"
	case Commit:
		return "commit"
	case Read:
		return "read"
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// Classified is a classifier's answer for one request: its class, the
// tool a commit calls (model.ToolCall.Tool; a fault's "tool" selects it)
// and the event a read crosses (empty: ledger.readback).
type Classified struct {
	Class Class
	Tool  string
	Event model.EventName
}

// Classifier decides what a request is. body is the request's body,
// already read (the request's own Body must not be read). An error ends
// the run (Calls.Fail) and fails the round trip.
type Classifier func(req *http.Request, body []byte) (Classified, error)

// Rule classifies the requests whose method is Method (empty: any) and
// whose URL path matches Path, a path.Match pattern ("/charges",
// "/charges/*"; empty: any path).
type Rule struct {
	Method string
	Path   string
	Class  Class
	// Tool names a commit's tool; empty: "METHOD path".
	Tool string
	// Event is the event a read crosses; empty: ledger.readback.
	Event model.EventName
}

// Rules returns a classifier over rules: the first rule that matches
// decides; a request no rule matches is Neither. It returns an error for a
// bad path pattern, an unknown class, or an Event on a rule that is not a
// read.
func Rules(rules ...Rule) (Classifier, error) {
	rs := slices.Clone(rules)
	for i, r := range rs {
		if _, err := path.Match(r.Path, "/"); err != nil {
			return nil, fmt.Errorf("httpfault: rule %d: path pattern %q: %w", i+1, r.Path, err)
		}
		if r.Class > Read {
			return nil, fmt.Errorf("httpfault: rule %d: unknown class %d", i+1, r.Class)
		}
		if r.Event != "" && r.Class != Read {
			return nil, fmt.Errorf("httpfault: rule %d: event %q on a %s rule (only a read crosses an event of its own)", i+1, r.Event, r.Class)
		}
		if r.Class == Commit && r.Tool == "" {
			rs[i].Tool = strings.TrimSpace(r.Method + " " + r.Path)
		}
	}
	return func(req *http.Request, _ []byte) (Classified, error) {
		for _, r := range rs {
			if r.Method != "" && !strings.EqualFold(r.Method, req.Method) {
				continue
			}
			if r.Path != "" {
				if ok, _ := path.Match(r.Path, req.URL.Path); !ok {
					continue
				}
			}
			return Classified{Class: r.Class, Tool: r.Tool, Event: r.Event}, nil
		}
		return Classified{}, nil
	}, nil
}

// rpcMessage is the part of a JSON-RPC message a classifier reads.
type rpcMessage struct {
	Method string `json:"method"`
	Params struct {
		Name string `json:"name"`
	} `json:"params"`
}

// JSONRPC returns a classifier for MCP over streamable HTTP: a POST whose
// body is the JSON-RPC request "tools/call" of one of commitTools is a
// commit of that tool (Tool = the tool's name); every other message
// (initialize, tools/list, notifications, a tools/call of another tool, a
// GET opening the event stream, a DELETE ending the session) is Neither.
// A batch (a JSON array) holding a commit is an error: its calls cannot
// be given faults one by one.
func JSONRPC(commitTools ...string) Classifier {
	tools := slices.Clone(commitTools)
	commitOf := func(m rpcMessage) bool { return m.Method == "tools/call" && slices.Contains(tools, m.Params.Name) }
	return func(req *http.Request, body []byte) (Classified, error) {
		if req.Method != http.MethodPost {
			return Classified{}, nil
		}
		b := bytes.TrimSpace(body)
		if len(b) > 0 && b[0] == '[' {
			var batch []rpcMessage
			if json.Unmarshal(b, &batch) == nil {
				for _, m := range batch {
					if commitOf(m) {
						return Classified{}, fmt.Errorf("httpfault: a JSON-RPC batch carries tools/call %q, a commit: send it alone", m.Params.Name)
					}
				}
			}
			return Classified{}, nil
		}
		var m rpcMessage
		if json.Unmarshal(b, &m) != nil || !commitOf(m) {
			return Classified{}, nil
		}
		return Classified{Class: Commit, Tool: m.Params.Name}, nil
	}
}

// HeaderKey returns a key extractor reading the request header name
// (Idempotency-Key is the default of JoinOptions.Key); a request without
// it has no key ("").
func HeaderKey(name string) func(req *http.Request, body []byte) (string, error) {
	return func(req *http.Request, _ []byte) (string, error) {
		return req.Header.Get(name), nil
	}
}

// JSONRPCKey returns a key extractor for a JSON-RPC tools/call (MCP over
// streamable HTTP): the string params._meta[field], else the string
// params.arguments[field]; "" when neither holds the field, an error when
// it is there and not a string or the body is not JSON-RPC.
func JSONRPCKey(field string) func(req *http.Request, body []byte) (string, error) {
	return func(_ *http.Request, body []byte) (string, error) {
		var m struct {
			Params struct {
				Meta      map[string]json.RawMessage `json:"_meta"`
				Arguments map[string]json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			return "", fmt.Errorf("the body is not a JSON-RPC request: %w", err)
		}
		present := false
		for _, src := range []map[string]json.RawMessage{m.Params.Meta, m.Params.Arguments} {
			var k string
			if json.Unmarshal(src[field], &k) == nil && k != "" {
				return k, nil
			}
			present = present || src[field] != nil
		}
		if !present {
			return "", nil
		}
		return "", fmt.Errorf("no string %q in params._meta or params.arguments", field)
	}
}

// traceHeader is the header the default JoinOptions.Action reads the
// trace from and the default JoinOptions.Trace writes a broken lineage
// to.
const traceHeader = "Traceparent"

// JoinOptions configure a joined transport ([Join]).
type JoinOptions struct {
	// Allow lists where requests may go: IP addresses, CIDR prefixes and
	// host names (exact, case-insensitive, never resolved). Empty means
	// loopback only (127.0.0.0/8, ::1, localhost). A request elsewhere
	// fails with ErrRefused and ends the run (Calls.Fail).
	Allow []string
	// Classify decides which requests are commits, reads or neither
	// (required: see Rules and JSONRPC).
	Classify Classifier
	// Key extracts a commit's idempotency key (model.ToolCall.RequestKey);
	// default HeaderKey("Idempotency-Key"). An error ends the run
	// (Calls.Fail) and fails the round trip. An empty key is a commit sent
	// without one: it is tested as any other (the provider cannot
	// deduplicate it; the timeline says so). KeyFromBody adds one.
	Key func(req *http.Request, body []byte) (string, error)
	// Action extracts the action a commit claims to be (its
	// IdempotencyKey is the action reference; Subject, Amount, TraceID...
	// feed the invariants). Default: IdempotencyKey = key, TraceID = the
	// Traceparent header. An error ends the run.
	Action func(req *http.Request, body []byte, key string) (model.Action, error)
	// Trace renders break_trace_lineage: it sets trace on the request
	// sent (a clone; default: the Traceparent header).
	Trace func(req *http.Request, trace string)
	// Result maps the provider's answer to a commit to the model's
	// result; default DefaultResult with the Receipt and Amount fields.
	Result func(key string, resp *http.Response, body []byte) model.ToolResult
	// Receipt and Amount are the top-level JSON fields of a committed
	// answer that carry the receipt id (default "receipt_id") and the
	// amount (default "amount"): DefaultResult reads them and the answer
	// faults (partial_success_response, malformed_response, output_drift)
	// rewrite them.
	Receipt string
	Amount  string
	// Render renders, in the provider's format, the answer the transport
	// gives in its place when reject_before_commit, rate_limit or
	// do_not_retry fires (retryAfter: the rate limit's wait, ms), so the
	// client takes the path production takes: StripeError, OpenAIError,
	// AnthropicError, AnthropicOverloaded, or one's own. Default (and for
	// a zero Status): a 422, a 429 with Retry-After and Retry-After-Ms, a
	// 400 with X-Should-Retry: false, each with an {"error": ...} body.
	Render func(kind string, retryAfter model.Millis) Answer
}

// DefaultResult maps an HTTP answer to a commit: a 2xx answer is
// committed (Replayed when the Idempotent-Replayed header is "true"),
// with a Receipt when its body is a JSON object whose receiptField is a
// non-empty string (Amount from amountField when it is a number), and
// class model.ClassErrorInBody when that object carries a non-null
// "error" or an "ok" of false (a success envelope carrying an error); a
// 429 is rejected as rate limited (RetryAfter from its Retry-After-Ms,
// which the OpenAI and Anthropic SDKs obey first, else its Retry-After
// seconds); another 4xx is rejected; anything else is an unknown outcome.
func DefaultResult(receiptField, amountField string) func(key string, resp *http.Response, body []byte) model.ToolResult {
	return func(key string, resp *http.Response, body []byte) model.ToolResult {
		switch s := resp.StatusCode; {
		case s >= 200 && s <= 299:
			res := model.ToolResult{Outcome: model.OutcomeCommitted, Replayed: resp.Header.Get("Idempotent-Replayed") == "true"}
			var obj map[string]json.RawMessage
			if json.Unmarshal(body, &obj) == nil {
				var id string
				if json.Unmarshal(obj[receiptField], &id) == nil && id != "" {
					var amount int64
					json.Unmarshal(obj[amountField], &amount)
					res.Receipt = &model.Receipt{ID: id, Key: key, Amount: amount}
				}
				if e := obj["error"]; len(e) > 0 && string(e) != "null" || string(obj["ok"]) == "false" {
					res.Class, res.Reason = model.ClassErrorInBody, "success envelope carrying an error"
				}
			}
			return res
		case s == http.StatusTooManyRequests:
			return model.ToolResult{Outcome: model.OutcomeRejected, Class: model.ClassRateLimited, RetryAfter: retryAfter(resp.Header), Reason: resp.Status}
		case s >= 400 && s <= 499:
			return model.ToolResult{Outcome: model.OutcomeRejected, Class: model.ClassRejected, Reason: resp.Status}
		}
		return model.ToolResult{Outcome: model.OutcomeUnknown, Reason: resp.Status}
	}
}

// retryAfter is the wait a 429's headers ask for, in logical ms:
// Retry-After-Ms (milliseconds, possibly fractional: rounded up) when it
// parses, else Retry-After in whole seconds, else 0 (an HTTP date is not
// read).
func retryAfter(h http.Header) model.Millis {
	if v, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && v >= 0 && v < 1e12 {
		return model.Millis(math.Ceil(v))
	}
	secs, _ := strconv.Atoi(h.Get("Retry-After"))
	if secs < 0 || secs > 1e9 {
		return 0
	}
	return model.Millis(secs) * 1000
}

// rendered are the kinds the joined transport renders at tool.commit.
var rendered = map[string]bool{
	"sandbox_denial": true, "timeout_before_send": true, "budget_exhaustion": true, "tool_timeout": true,
	"timeout_after_commit": true, "reject_before_commit": true, "rate_limit": true,
	"partial_success_response": true, "malformed_response": true, "output_drift": true, "break_trace_lineage": true,
	"false_success": true,
	// outside the catalogue: the provider's server error and the
	// connection's failure, before commit or after it; its permanent
	// refusal, its outage and its refusal of an expired credential
	"server_error": true, "network_error": true,
	"do_not_retry": true, "provider_outage": true, "credential_expired": true,
}

// Kinds returns the fault kinds the joined transport renders at
// tool.commit: the catalogue's (the tool domain and break_trace_lineage),
// in catalogue order, then those outside it (server_error, network_error,
// do_not_retry, provider_outage, credential_expired). It is what
// Definition.Enacts lists for a system whose commits go through it.
// Another kind armed at a commit, or any kind armed at a read, does not
// act: it stays unfired and the run is inconclusive.
func Kinds() []string {
	var out []string
	for _, s := range model.Catalogue() {
		if rendered[s.Kind] {
			out = append(out, s.Kind)
		}
	}
	return append(out, outsideCatalogue...)
}

// outsideCatalogue are the kinds outside the catalogue the transport
// renders, in Kinds' order.
var outsideCatalogue = []string{"server_error", "network_error", "do_not_retry", "provider_outage", "credential_expired"}

// Joined is an http.RoundTripper joined to a run of the harness: each
// request its classifier calls a commit crosses tool.commit through
// Calls.CommitOnly, each read crosses its read event, and the rest pass
// through. Build it with Join, one per System.Run (a Calls is valid only
// during that call). Commits and reads are serialized; a request that is
// neither is not held up by them.
type Joined struct {
	calls model.Calls
	base  http.RoundTripper
	allow *allowlist
	opts  JoinOptions
	mu    sync.Mutex
	held  []held
}

// Join returns a transport that carries requests through its own clone
// of base (nil: of http.DefaultTransport), Proxy cleared and dialers
// checked against the allowlist at connect time, or through
// InProcess(handler) inside a synctest bubble; it reports them to calls,
// which decides the faults, and renders each fired kind as HTTP (see
// docs/adapters-http.md). It returns an error for a nil calls, a nil
// Classify, a bad allowlist entry, a base with a Proxy, or a base that is
// neither an *http.Transport nor InProcess (it cannot be checked).
func Join(calls model.Calls, base http.RoundTripper, opts JoinOptions) (*Joined, error) {
	if calls == nil {
		return nil, errors.New("httpfault: Join: nil Calls (use the Env.Calls the harness hands to System.Run)")
	}
	if opts.Classify == nil {
		return nil, errors.New("httpfault: Join: JoinOptions.Classify is nil: say which requests are commits (Rules, JSONRPC)")
	}
	a, err := parseAllow(opts.Allow)
	if err != nil {
		return nil, err
	}
	if base, err = sealBase(base, a, calls.Fail); err != nil {
		return nil, err
	}
	if opts.Key == nil {
		opts.Key = HeaderKey("Idempotency-Key")
	}
	if opts.Action == nil {
		opts.Action = func(req *http.Request, _ []byte, key string) (model.Action, error) {
			return model.Action{IdempotencyKey: key, TraceID: req.Header.Get(traceHeader)}, nil
		}
	}
	if opts.Trace == nil {
		opts.Trace = func(req *http.Request, trace string) { req.Header.Set(traceHeader, trace) }
	}
	if opts.Receipt == "" {
		opts.Receipt = "receipt_id"
	}
	if opts.Amount == "" {
		opts.Amount = "amount"
	}
	if opts.Result == nil {
		opts.Result = DefaultResult(opts.Receipt, opts.Amount)
	}
	if opts.Render == nil {
		opts.Render = defaultAnswer
	}
	return &Joined{calls: calls, base: base, allow: a, opts: opts}, nil
}

// fail ends the run with err and returns it.
func (j *Joined) fail(err error) (*http.Response, error) {
	j.calls.Fail(err)
	return nil, err
}

// RoundTrip implements http.RoundTripper. A refused host or scheme, a
// classifier or key extractor error ends the run (Calls.Fail);
// an error of the harness (ErrWorkerCrashed when it stopped the worker)
// is returned as it is.
func (j *Joined) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := j.calls.Err(); err != nil {
		return nil, err // a crashed worker's request, whatever its class, is never sent
	}
	body, err := readBody(req)
	if err != nil {
		return nil, fmt.Errorf("httpfault: reading the request body: %w", err)
	}
	if sc := req.URL.Scheme; !strings.EqualFold(sc, "http") && !strings.EqualFold(sc, "https") {
		return j.fail(fmt.Errorf("%w: refusing %s %s: scheme %q (the transport sends only http and https)", ErrScheme, req.Method, redactURL(req), sc))
	}
	if host := req.URL.Hostname(); !j.allow.allows(host) {
		return j.fail(fmt.Errorf("%w: refusing %s %s: host %q (allowed: %s)", ErrRefused, req.Method, redactURL(req), host, j.allow.text))
	}
	cl, err := j.opts.Classify(req, body)
	if err != nil {
		return j.fail(fmt.Errorf("httpfault: classifying %s %s: %w", req.Method, redactURL(req), err))
	}
	if cl.Class == Neither {
		return j.base.RoundTrip(clone(req, body))
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	switch cl.Class {
	case Read:
		return j.read(req, body, cl)
	case Commit:
		return j.commit(req, body, cl)
	}
	return j.fail(fmt.Errorf("httpfault: classifying %s %s: unknown class %d", req.Method, redactURL(req), cl.Class))
}

// clone is req carrying body (already read), for the base transport.
func clone(req *http.Request, body []byte) *http.Request {
	r := req.Clone(req.Context())
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	if body == nil {
		r.Body = http.NoBody
	}
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return r
}

func (j *Joined) read(req *http.Request, body []byte, cl Classified) (*http.Response, error) {
	ev := cl.Event
	if ev == "" {
		ev = model.EvLedgerReadback
	}
	step, err := j.calls.Enter(req.Context(), ev)
	if err != nil {
		return nil, err
	}
	resp, err := j.base.RoundTrip(clone(req, body))
	outcome := "ok"
	if err != nil || resp.StatusCode > 299 {
		outcome = "error"
	}
	if derr := step.Done(outcome, req.Method+" "+req.URL.Path); derr != nil && err == nil {
		if resp != nil {
			resp.Body.Close()
		}
		return nil, derr
	}
	return resp, err
}

// held is a request a tool_timeout holds for its late delivery.
type held struct {
	req  *http.Request
	body []byte
}

// exchanged is the provider's answer to the current commit request.
type exchanged struct {
	resp *http.Response
	body []byte
	err  error
}

func (j *Joined) commit(req *http.Request, body []byte, cl Classified) (*http.Response, error) {
	what := req.Method + " " + redactURL(req)
	key, err := j.opts.Key(req, body)
	if err != nil {
		return j.fail(fmt.Errorf("httpfault: commit %s (tool %s): idempotency key: %w", what, cl.Tool, err))
	}
	act, err := j.opts.Action(req, body, key)
	if err != nil {
		return j.fail(fmt.Errorf("httpfault: commit %s (tool %s): action: %w", what, cl.Tool, err))
	}
	call := model.ToolCall{Tool: cl.Tool, RequestKey: key, Action: act}
	var cur *exchanged
	send := func(ctx context.Context, c model.ToolCall) model.ToolResult {
		if len(j.held) > 0 {
			h := j.held[0]
			j.held = j.held[1:]
			return j.deliver(h.req.WithContext(context.WithoutCancel(h.req.Context())), h.body, c.RequestKey, nil)
		}
		if cur != nil || c.RequestKey != call.RequestKey || c.Tool != call.Tool {
			err := fmt.Errorf("httpfault: commit %s: the harness delivers a request (tool %s, key %q) this transport never held; build one Joined per System.Run and keep it for the task's run", what, c.Tool, c.RequestKey)
			j.calls.Fail(err)
			return model.ToolResult{Outcome: model.OutcomeUnknown, Class: model.ClassTimeout, Reason: err.Error()}
		}
		r := req.WithContext(ctx)
		if c.Action.TraceID != call.Action.TraceID {
			r = r.Clone(ctx)
			j.opts.Trace(r, c.Action.TraceID)
		}
		cur = &exchanged{}
		return j.deliver(r, body, key, cur)
	}
	c, err := j.calls.CommitOnly(req.Context(), call, func(kind string) bool { return j.renders(kind, cur) }, send)
	if err != nil {
		return nil, err
	}
	var resp *http.Response
	var provided []byte // the provider's body, before an answer fault rewrote it
	answerKind := ""    // the last answer fault that fired
	if cur != nil {
		resp = cur.resp
	}
	for _, kind := range c.Fired {
		switch kind {
		case "sandbox_denial":
			return nil, fmt.Errorf("%w (%s)", ErrSandboxDenied, kind)
		case "timeout_before_send", "budget_exhaustion":
			return nil, &TimeoutError{Kind: kind}
		case "tool_timeout":
			j.held = append(j.held, held{req: req, body: body})
			return nil, &TimeoutError{Kind: kind}
		case "timeout_after_commit":
			return nil, &TimeoutError{Kind: kind, Sent: true}
		case "server_error":
			// a 500 in place of whatever the provider answered, if it
			// was asked at all (the model says whether it committed)
			return answer(req, http.StatusInternalServerError, nil, serverErrorBody), nil
		case "network_error":
			return nil, networkError(cur != nil)
		case "false_success":
			// a success envelope carrying the provider's error: a 200
			// whatever the provider's format (Render renders refusals)
			return answer(req, http.StatusOK, nil, falseSuccessBody), nil
		case "provider_outage":
			// the provider is down: a 503 without Retry-After, to every
			// commit of the outage's logical ms (the model says which)
			return answer(req, http.StatusServiceUnavailable, nil, outageBody), nil
		case "credential_expired":
			return answer(req, http.StatusUnauthorized, http.Header{"Www-Authenticate": {expiredChallenge}}, expiredBody), nil
		case "reject_before_commit", "rate_limit", "do_not_retry":
			a := j.opts.Render(kind, c.Result.RetryAfter)
			if a.Status == 0 {
				a = defaultAnswer(kind, c.Result.RetryAfter)
			}
			return answer(req, a.Status, a.Header.Clone(), string(a.Body)), nil
		case "partial_success_response", "malformed_response", "output_drift":
			if resp == nil {
				return j.fail(fmt.Errorf("httpfault: commit %s: %s fired on an answer the provider never gave", what, kind))
			}
			if answerKind == "" {
				provided = cur.body
			}
			cur.body, answerKind = j.rewrite(kind, cur.body), kind
			resp = withBody(resp, cur.body)
		case "break_trace_lineage":
			// rendered on the request by send
		default:
			return j.fail(fmt.Errorf("httpfault: commit %s: %s fired and the HTTP transport cannot render it (it renders %s)", what, kind, strings.Join(Kinds(), ", ")))
		}
	}
	if resp == nil {
		if cur != nil && cur.err != nil {
			return nil, cur.err
		}
		return j.fail(fmt.Errorf("httpfault: commit %s: the harness neither sent the request nor answered it", what))
	}
	if answerKind != "" {
		// the fault is recorded fired: the client must not get the answer
		// it disturbs untouched (Result reads copies of the answer)
		before := j.opts.Result(key, withBody(resp, provided), provided).Receipt
		after := j.opts.Result(key, withBody(resp, cur.body), cur.body)
		if before != nil && after.Outcome == model.OutcomeCommitted && after.Receipt != nil && after.Receipt.ID == before.ID {
			return j.fail(fmt.Errorf("httpfault: commit %s: %s fired and the answer still carries its receipt %q as JoinOptions.Result reads it (the transport rewrites the top-level field %q: set JoinOptions.Receipt)", what, answerKind, before.ID, j.opts.Receipt))
		}
	}
	return resp, nil
}

// renders reports whether the transport renders kind on the commit whose
// answer is cur (nil before the request is sent): an answer fault needs
// the provider's answer, and partial_success_response and output_drift
// an answer that is a JSON object, the body rewrite reads (not a
// server-sent-event stream, say); on another the kind stays unfired.
func (j *Joined) renders(kind string, cur *exchanged) bool {
	switch kind {
	case "partial_success_response", "output_drift":
		var obj map[string]json.RawMessage
		return cur != nil && cur.resp != nil && json.Unmarshal(cur.body, &obj) == nil
	case "malformed_response":
		return cur != nil && cur.resp != nil
	}
	return rendered[kind]
}

// deliver sends r through the base transport and maps the answer; the
// answer is kept in into (nil: discarded, for a late delivery).
func (j *Joined) deliver(r *http.Request, body []byte, key string, into *exchanged) model.ToolResult {
	resp, err := j.base.RoundTrip(clone(r, body))
	var b []byte
	if err == nil {
		b, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err != nil {
		if into != nil {
			into.err = err
		}
		return model.ToolResult{Outcome: model.OutcomeUnknown, Class: model.ClassTimeout, Reason: err.Error()}
	}
	if into != nil {
		into.resp, into.body = withBody(resp, b), b
	}
	return j.opts.Result(key, resp, b)
}

// rewrite renders an answer fault on a committed body: the receipt field
// removed (partial_success_response), the body cut to half its length
// (malformed_response), or the receipt field renamed and a numeric amount
// retyped to a string (output_drift). A body that is not a JSON object
// is cut for malformed_response; the others never fire on it (renders).
func (j *Joined) rewrite(kind string, body []byte) []byte {
	if kind == "malformed_response" {
		return body[:len(body)/2]
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return body
	}
	rf, af := j.opts.Receipt, j.opts.Amount
	if kind == "output_drift" {
		if v, ok := obj[rf]; ok {
			obj[drifted(rf)] = v
		}
		if a := obj[af]; len(a) > 0 && (a[0] == '-' || a[0] >= '0' && a[0] <= '9') {
			obj[af], _ = json.Marshal(string(a))
		}
	}
	delete(obj, rf)
	b, _ := json.Marshal(obj)
	return b
}

// answer is a response the transport gives in the server's place.
func answer(req *http.Request, status int, header http.Header, body string) *http.Response {
	if header == nil {
		header = http.Header{}
	}
	header.Set("Content-Type", "application/json")
	header.Set("Content-Length", strconv.Itoa(len(body)))
	line := strings.TrimSpace(strconv.Itoa(status) + " " + http.StatusText(status))
	return &http.Response{Status: line, StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: header,
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: req}
}

// withBody returns resp carrying body instead of its own.
func withBody(resp *http.Response, body []byte) *http.Response {
	r := *resp
	r.Header = resp.Header.Clone()
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	return &r
}

// drifted is a field's name after a schema drift: camelCase for a
// snake_case name (receipt_id becomes receiptId), else the name with a
// "_v2" suffix.
func drifted(name string) string {
	parts := strings.Split(name, "_")
	if len(parts) == 1 {
		return name + "_v2"
	}
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// KeyFromBody returns next (nil: http.DefaultTransport) behind a
// transport that gives a request with a body and no Idempotency-Key header
// one derived from its method, path and body ("body-" and 32 hex digits
// of their SHA-256), for a client that sends none: a retry of the same
// request then carries the same key, so the provider can deduplicate it.
// Two requests meant as two actions must then differ in their bodies.
func KeyFromBody(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return keyFromBody{next}
}

type keyFromBody struct{ next http.RoundTripper }

func (k keyFromBody) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody || req.Header.Get("Idempotency-Key") != "" {
		return k.next.RoundTrip(req)
	}
	body, err := readBody(req)
	if err != nil {
		return nil, fmt.Errorf("httpfault: KeyFromBody: reading the request body: %w", err)
	}
	sum := sha256.Sum256([]byte(req.Method + " " + req.URL.Path + "\n" + string(body)))
	r := clone(req, body)
	r.Header.Set("Idempotency-Key", "body-"+hex.EncodeToString(sum[:16]))
	return k.next.RoundTrip(r)
}
