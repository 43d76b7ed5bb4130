// Package mcpfault puts faultline's typed tool faults on the MCP tool
// calls of production code, through the official Go SDK
// (github.com/modelcontextprotocol/go-sdk/mcp). It is an adapter on
// model.Calls: the core decides, the adapter renders. [New] returns a
// client sending middleware over the run's Env.Calls; installed with
// (*mcp.Client).AddSendingMiddleware, it acts on tools/call only:
//
//   - a commit tool's call crosses tool.commit through Calls.Commit (the
//     MCP tool name is the model.ToolCall's Tool); the schedule's faults
//     act with the model's semantics over the real call, and the
//     middleware renders what fired in MCP terms;
//   - a tool named in Options.Readback crosses ledger.readback;
//   - every other call and method passes through and is no crossing.
//
// Entry points:
//
//   - [New], [Options], [Middleware.Middleware], [Middleware.Err];
//   - [Middleware.IsCommit]: a tool is a commit unless its annotations say
//     readOnlyHint (Options.Commit overrides);
//   - [Ref] and the _meta keys [MetaKey], [MetaActionRef], [MetaTrace]:
//     a commit's idempotency key (a call without one is tested, not
//     refused; [KeyFromArguments] derives one), action and trace;
//     [MetaRetryAfter]: a rate limit's wait;
//   - [Kinds]: the kinds rendered; [TimeoutError]: a withheld reply;
//     [OutcomeOf]: what a caller saw, in the three outcomes.
//
// What each kind is over MCP, how annotations are learned and the tests:
// docs/adapters-mcp.md.
package mcpfault

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/faultline/faultline/model"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP methods the middleware looks at.
const (
	methodCallTool  = "tools/call"
	methodListTools = "tools/list"
)

// Meta keys of the default Ref and of break_trace_lineage.
const (
	// MetaKey is the _meta field the default Ref reads the request's
	// idempotency key from (a string; a call without one is sent without
	// a key, and tested as any other).
	MetaKey = "idempotencyKey"
	// MetaActionRef is the _meta field of the logical action reference (a
	// string; the key when absent).
	MetaActionRef = "actionRef"
	// MetaTrace is the _meta field of the trace id: the default Ref reads
	// it, and break_trace_lineage rewrites it in the request it sends.
	MetaTrace = "traceId"
	// MetaRetryAfter is the _meta field of a rate_limit result: the
	// retry-after in milliseconds (a number).
	MetaRetryAfter = "retryAfterMs"
)

// Kinds returns the fault kinds the middleware renders at a commit tool's
// tools/call (what Definition.Enacts lists), in a fixed order: a withheld or lost reply as a
// *TimeoutError, a refusal as an IsError result (a rate limit's with
// MetaRetryAfter), the answer faults on the real result,
// break_trace_lineage on the request's MetaTrace, false_success as a
// result without IsError carrying {"ok": false, "error": ...}. Outside the
// catalogue: server_error as a JSON-RPC internal error, network_error as
// mcp.ErrConnectionClosed, do_not_retry, provider_outage and
// credential_expired as refusals (docs/adapters-mcp.md). Another kind at
// tool.commit acts as in the model, rendered by its result's outcome.
func Kinds() []string {
	return []string{"timeout_before_send", "reject_before_commit", "timeout_after_commit", "tool_timeout",
		"partial_success_response", "malformed_response", "output_drift", "rate_limit", "break_trace_lineage",
		"false_success", "server_error", "network_error", "do_not_retry", "provider_outage", "credential_expired"}
}

// Ref is what a commit call claims to be: the provider's idempotency key
// for the request, the logical action it belongs to and its trace id.
type Ref struct {
	Key       string
	ActionRef string
	Trace     string
}

// Options configures the middleware. The zero value is valid.
type Options struct {
	// Commit overrides the annotations per tool name: true makes a tool a
	// commit, false passes it through.
	Commit map[string]bool
	// Readback names tools whose calls read the provider's ledger: each
	// call crosses ledger.readback. A tool that is also a commit (by its
	// annotations or Commit) crosses tool.commit.
	Readback []string
	// Ref extracts a commit call's Ref; an error refuses the call. An
	// empty Key is a call sent without an idempotency key: the provider
	// cannot deduplicate it; the timeline says so. Nil reads the _meta
	// fields MetaKey, MetaActionRef and MetaTrace.
	Ref func(p *mcp.CallToolParams) (Ref, error)
	// Receipt extracts the provider's receipt id from a result, "" when it
	// carries none. Nil reads the field ReceiptField.
	Receipt func(res *mcp.CallToolResult) string
	// ReceiptField is the result field that holds the receipt (default
	// "receipt"): the default Receipt reads it, and
	// partial_success_response and output_drift remove or rename it.
	ReceiptField string
}

// Middleware is a client sending middleware carrying one run's tool calls
// as crossings. It is valid during the System.Run whose Calls it holds;
// its methods are safe for concurrent use, but crossings are made one at a
// time, in the order the client sends them.
type Middleware struct {
	calls model.Calls
	opts  Options
	field string

	mu       sync.Mutex
	tools    map[string]*mcp.ToolAnnotations // listed tools; nil annotations: none given
	listed   bool
	requests map[reqKey][]*mcp.ClientRequest[*mcp.CallToolParams] // oldest first
	err      error
}

// reqKey finds the real request of a model.ToolCall the run sends (a held
// one is sent during a later commit); calls without a key share one, and
// are sent in the order they were made.
type reqKey struct{ tool, key, ref string }

// New returns a Middleware over calls. It returns an error for nil calls.
func New(calls model.Calls, opts Options) (*Middleware, error) {
	if calls == nil {
		return nil, errors.New("mcpfault: New: nil model.Calls (pass the Env.Calls of the current run)")
	}
	m := &Middleware{calls: calls, opts: opts, field: opts.ReceiptField,
		tools: map[string]*mcp.ToolAnnotations{}, requests: map[reqKey][]*mcp.ClientRequest[*mcp.CallToolParams]{}}
	if m.field == "" {
		m.field = "receipt"
	}
	return m, nil
}

// Err returns the first error a crossing returned (a refused call, a
// stopped worker: model.ErrWorkerCrashed), or nil. A System that its agent
// code might swallow errors in returns it from Run.
func (m *Middleware) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

func (m *Middleware) fail(err error) error {
	m.mu.Lock()
	if m.err == nil {
		m.err = err
	}
	m.mu.Unlock()
	return err
}

// Middleware returns the mcp.Middleware to install with
// (*mcp.Client).AddSendingMiddleware.
func (m *Middleware) Middleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if err := m.calls.Err(); err != nil {
				return nil, err // a crashed worker's request is never sent
			}
			switch method {
			case methodListTools:
				res, err := next(ctx, method, req)
				if l, ok := res.(*mcp.ListToolsResult); ok && err == nil {
					m.learn(l)
				}
				return res, err
			case methodCallTool:
				p, ok := req.GetParams().(*mcp.CallToolParams)
				s, sok := req.GetSession().(*mcp.ClientSession)
				if !ok || p == nil || !sok {
					return next(ctx, method, req)
				}
				return m.callTool(ctx, next, &mcp.ClientRequest[*mcp.CallToolParams]{Session: s, Params: p})
			}
			return next(ctx, method, req)
		}
	}
}

// learn records the annotations of listed tools.
func (m *Middleware) learn(l *mcp.ListToolsResult) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range l.Tools {
		if t != nil {
			m.tools[t.Name] = t.Annotations
		}
	}
}

// IsCommit reports whether a call of tool crosses tool.commit: by
// Options.Commit, else by the annotations the middleware has seen listed
// (not read-only), else by the specification's defaults (a commit).
func (m *Middleware) IsCommit(tool string) bool {
	if c, ok := m.opts.Commit[tool]; ok {
		return c
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	a := m.tools[tool]
	return a == nil || !a.ReadOnlyHint
}

// known reports whether the decision for tool needs no listing.
func (m *Middleware) known(tool string) bool {
	if _, ok := m.opts.Commit[tool]; ok {
		return true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.tools[tool]
	return ok || m.listed
}

// list lists the server's tools once, through next, following cursors.
func (m *Middleware) list(ctx context.Context, next mcp.MethodHandler, s *mcp.ClientSession) error {
	m.mu.Lock()
	m.listed = true
	m.mu.Unlock()
	cursor := ""
	for range 1000 {
		res, err := next(ctx, methodListTools, &mcp.ClientRequest[*mcp.ListToolsParams]{Session: s, Params: &mcp.ListToolsParams{Cursor: cursor}})
		if err != nil {
			return fmt.Errorf("mcpfault: listing the server's tools to read their annotations: %w", err)
		}
		l, ok := res.(*mcp.ListToolsResult)
		if !ok {
			return fmt.Errorf("mcpfault: listing the server's tools: result of type %T", res)
		}
		m.learn(l)
		if l.NextCursor == "" {
			return nil
		}
		cursor = l.NextCursor
	}
	return errors.New("mcpfault: listing the server's tools: more than 1000 pages")
}

func (m *Middleware) callTool(ctx context.Context, next mcp.MethodHandler, req *mcp.ClientRequest[*mcp.CallToolParams]) (mcp.Result, error) {
	tool := req.Params.Name
	if !m.known(tool) {
		if err := m.list(ctx, next, req.Session); err != nil {
			m.calls.Fail(err)
			return nil, m.fail(err)
		}
	}
	if slices.Contains(m.opts.Readback, tool) && !m.IsCommit(tool) {
		return m.readback(ctx, next, req)
	}
	if !m.IsCommit(tool) {
		return next(ctx, methodCallTool, req)
	}
	ref, err := m.ref(req.Params)
	if err != nil {
		err = fmt.Errorf("mcpfault: tool %q: %w", tool, err)
		m.calls.Fail(err)
		return nil, m.fail(err)
	}
	call := model.ToolCall{Tool: tool, RequestKey: ref.Key, Action: model.Action{IdempotencyKey: ref.ActionRef, TraceID: ref.Trace}}
	rk := reqKey{tool, ref.Key, ref.ActionRef}
	m.mu.Lock()
	m.requests[rk] = append(m.requests[rk], req)
	m.mu.Unlock()

	var raw mcp.Result
	var rawErr error
	send := func(ctx context.Context, c model.ToolCall) model.ToolResult {
		var r *mcp.ClientRequest[*mcp.CallToolParams]
		m.mu.Lock()
		if q := m.requests[reqKey{c.Tool, c.RequestKey, c.Action.IdempotencyKey}]; len(q) > 0 {
			r = q[0]
			m.requests[reqKey{c.Tool, c.RequestKey, c.Action.IdempotencyKey}] = q[1:]
		}
		m.mu.Unlock()
		if r == nil { // cannot happen: every call is recorded before Commit, and held until sent
			return model.ToolResult{Outcome: model.OutcomeUnknown, Class: model.ClassTimeout, Reason: "mcpfault: no request for " + c.RequestKey}
		}
		if c.Action.TraceID != traceOf(r.Params) {
			p := *r.Params
			p.Meta = cloneMeta(p.Meta)
			p.Meta[MetaTrace] = c.Action.TraceID
			r = &mcp.ClientRequest[*mcp.CallToolParams]{Session: r.Session, Params: &p}
		}
		raw, rawErr = next(ctx, methodCallTool, r)
		return m.toolResult(c, raw, rawErr)
	}
	c, err := m.calls.Commit(ctx, call, send)
	if !slices.Contains(c.Fired, "tool_timeout") {
		// not held: a request a fault withheld is never sent later
		m.mu.Lock()
		m.requests[rk] = slices.DeleteFunc(m.requests[rk], func(r *mcp.ClientRequest[*mcp.CallToolParams]) bool { return r == req })
		m.mu.Unlock()
	}
	if err != nil {
		return nil, m.fail(err)
	}
	if len(c.Fired) == 0 && c.Sent {
		return raw, rawErr
	}
	return m.render(tool, c, raw)
}

// readback crosses ledger.readback for a read tool's call.
func (m *Middleware) readback(ctx context.Context, next mcp.MethodHandler, req *mcp.ClientRequest[*mcp.CallToolParams]) (mcp.Result, error) {
	s, err := m.calls.Enter(ctx, model.EvLedgerReadback)
	if err != nil {
		return nil, m.fail(err)
	}
	res, err := next(ctx, methodCallTool, req)
	outcome := "ok"
	if r, ok := res.(*mcp.CallToolResult); err != nil || ok && r.IsError {
		outcome = "error"
	}
	if derr := s.Done(outcome, req.Params.Name); derr != nil {
		return nil, m.fail(derr)
	}
	return res, err
}

// ref extracts a commit call's Ref.
func (m *Middleware) ref(p *mcp.CallToolParams) (Ref, error) {
	if m.opts.Ref != nil {
		r, err := m.opts.Ref(p)
		if err != nil {
			return Ref{}, err
		}
		if r.ActionRef == "" {
			r.ActionRef = r.Key
		}
		return r, nil
	}
	key, err := metaString(p.Meta, MetaKey)
	if err != nil {
		return Ref{}, err
	}
	ref, err := metaString(p.Meta, MetaActionRef)
	if err != nil {
		return Ref{}, err
	}
	if ref == "" {
		ref = key
	}
	trace, err := metaString(p.Meta, MetaTrace)
	if err != nil {
		return Ref{}, err
	}
	return Ref{Key: key, ActionRef: ref, Trace: trace}, nil
}

func metaString(meta mcp.Meta, k string) (string, error) {
	v, ok := meta[k]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("_meta %q is a %T, not a string", k, v)
	}
	return s, nil
}

func traceOf(p *mcp.CallToolParams) string {
	s, _ := p.Meta[MetaTrace].(string)
	return s
}

func cloneMeta(m mcp.Meta) mcp.Meta {
	out := make(mcp.Meta, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// toolResult maps the real answer to the model's: a transport error is an
// unknown outcome, an IsError result a rejection, any other a commit with
// the receipt the extractor finds (none: Receipt nil), of class
// model.ClassErrorInBody when its content carries an error (errorInBody).
func (m *Middleware) toolResult(c model.ToolCall, res mcp.Result, err error) model.ToolResult {
	r, ok := res.(*mcp.CallToolResult)
	switch {
	case err != nil:
		return model.ToolResult{Outcome: model.OutcomeUnknown, Class: model.ClassTimeout, Reason: err.Error()}
	case !ok || r == nil:
		return model.ToolResult{Outcome: model.OutcomeUnknown, Class: model.ClassInvalidOutput, Invalid: fmt.Sprintf("result of type %T", res)}
	case r.IsError:
		return model.ToolResult{Outcome: model.OutcomeRejected, Class: model.ClassRejected, Reason: textOf(r)}
	}
	out := model.ToolResult{Outcome: model.OutcomeCommitted}
	if errorInBody(r) {
		out.Class, out.Reason = model.ClassErrorInBody, textOf(r)
	}
	if id := m.receipt(r); id != "" {
		out.Receipt = &model.Receipt{ID: id, Key: c.RequestKey, Trace: c.Action.TraceID}
	}
	return out
}

// receipt extracts the receipt id of a result.
func (m *Middleware) receipt(r *mcp.CallToolResult) string {
	if m.opts.Receipt != nil {
		return m.opts.Receipt(r)
	}
	if obj, ok := r.StructuredContent.(map[string]any); ok {
		if s, ok := obj[m.field].(string); ok {
			return s
		}
	}
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			var obj map[string]any
			if json.Unmarshal([]byte(t.Text), &obj) == nil {
				if s, ok := obj[m.field].(string); ok {
					return s
				}
			}
			break
		}
	}
	return ""
}

// errorInBody reports whether a result without IsError carries an error:
// its structured content, or its first text content decoded as a JSON
// object, has a non-null "error" or an "ok" of false.
func errorInBody(r *mcp.CallToolResult) bool {
	obj, ok := r.StructuredContent.(map[string]any)
	if !ok {
		if t := textOf(r); t != "" && json.Unmarshal([]byte(t), &obj) != nil {
			return false
		}
	}
	ok, isBool := obj["ok"].(bool)
	return obj["error"] != nil || isBool && !ok
}

func textOf(r *mcp.CallToolResult) string {
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return ""
}

// TimeoutError is the transport timeout a caller sees for a call whose
// reply a fault withheld (timeout_before_send, timeout_after_commit,
// tool_timeout). It matches context.DeadlineExceeded with errors.Is.
type TimeoutError struct {
	Tool   string
	Reason string
}

// Error names the tool and the reason.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("calling %q: %s: %v", e.Tool, e.Reason, context.DeadlineExceeded)
}

// Unwrap returns context.DeadlineExceeded.
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// render turns the answer a fault shaped into what the caller sees.
func (m *Middleware) render(tool string, c model.Committed, raw mcp.Result) (mcp.Result, error) {
	res := c.Result
	if r, ok := raw.(*mcp.CallToolResult); ok && r != nil {
		cp := *r
		raw = &cp
	} else {
		raw = nil
	}
	switch {
	case res.Outcome == model.OutcomeUnknown && res.Class == model.ClassInvalidOutput:
		return m.malformed(raw, res), nil
	case res.Class == "server_error":
		// the server failed the call: a JSON-RPC internal error
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: res.Reason}
	case res.Class == "network_error":
		return nil, fmt.Errorf("calling %q: %s: %w", tool, res.Reason, mcp.ErrConnectionClosed)
	case res.Outcome == model.OutcomeUnknown:
		return nil, &TimeoutError{Tool: tool, Reason: res.Reason}
	case res.Outcome == model.OutcomeCommitted && res.Class == model.ClassErrorInBody:
		// a success envelope carrying the provider's error: no IsError
		body := map[string]any{"ok": false, "error": res.Reason}
		text, _ := json.Marshal(body)
		return &mcp.CallToolResult{StructuredContent: body, Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil
	case res.Outcome == model.OutcomeRejected:
		r := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: res.Reason}}}
		if res.Class == model.ClassRateLimited {
			r.Meta = mcp.Meta{MetaRetryAfter: int64(res.RetryAfter)}
			r.Content = []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("rate limited: retry after %d ms", res.RetryAfter)}}
		}
		return r, nil
	}
	r, _ := raw.(*mcp.CallToolResult)
	if r == nil {
		return nil, &TimeoutError{Tool: tool, Reason: "no result"}
	}
	orig := m.receipt(r)
	kind := ""
	if slices.Contains(c.Fired, "partial_success_response") {
		m.rewrite(r, func(obj map[string]any) { delete(obj, m.field) })
		kind = "partial_success_response"
	}
	if slices.Contains(c.Fired, "output_drift") {
		m.rewrite(r, m.drift)
		kind = "output_drift"
	}
	if kind != "" && orig != "" && m.receipt(r) == orig {
		// the fault is recorded fired: the caller must not get the result it disturbs untouched
		err := fmt.Errorf("mcpfault: tool %q: %s fired and the result still carries its receipt %q as Options.Receipt reads it (the middleware rewrites the field %q: set Options.ReceiptField)", tool, kind, orig, m.field)
		m.calls.Fail(err)
		return nil, m.fail(err)
	}
	return r, nil
}

// drift renames the receipt field and retypes number fields as strings.
func (m *Middleware) drift(obj map[string]any) {
	if v, ok := obj[m.field]; ok {
		delete(obj, m.field)
		obj[m.field+"_ref"] = v
	}
	for k, v := range obj {
		if f, ok := v.(float64); ok {
			obj[k] = fmt.Sprint(f)
		}
	}
}

// rewrite applies f to the result's structured content and to each text
// content that decodes as a JSON object.
func (m *Middleware) rewrite(r *mcp.CallToolResult, f func(map[string]any)) {
	if obj, ok := r.StructuredContent.(map[string]any); ok {
		cp := make(map[string]any, len(obj))
		for k, v := range obj {
			cp[k] = v
		}
		f(cp)
		r.StructuredContent = cp
	}
	content := make([]mcp.Content, len(r.Content))
	for i, c := range r.Content {
		content[i] = c
		t, ok := c.(*mcp.TextContent)
		if !ok {
			continue
		}
		var obj map[string]any
		if json.Unmarshal([]byte(t.Text), &obj) != nil {
			continue
		}
		f(obj)
		b, err := json.Marshal(obj)
		if err != nil {
			continue
		}
		content[i] = &mcp.TextContent{Text: string(b), Meta: t.Meta, Annotations: t.Annotations}
	}
	r.Content = content
}

// malformed is the real result with its text truncated to half and no
// structured content: content that does not decode.
func (m *Middleware) malformed(raw mcp.Result, res model.ToolResult) *mcp.CallToolResult {
	text := ""
	if r, ok := raw.(*mcp.CallToolResult); ok && r != nil {
		text = textOf(r)
	}
	if text == "" {
		id := ""
		if res.Receipt != nil {
			id = res.Receipt.ID
		}
		text = fmt.Sprintf("{%q:%q", m.field, id)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text[:len(text)/2]}}}
}

// KeyFromArguments returns a client sending middleware that gives a
// tools/call with no MetaKey in its _meta one derived from the tool's name
// and arguments ("args-" and 32 hex digits of their SHA-256), for a client
// that sends none: a retry of the same call then carries the same key.
// Install it before the adapter's, in the test and in production:
// AddSendingMiddleware(KeyFromArguments(), mw.Middleware()).
func KeyFromArguments() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			p, ok := req.GetParams().(*mcp.CallToolParams)
			s, sok := req.GetSession().(*mcp.ClientSession)
			if method != methodCallTool || !ok || p == nil || !sok {
				return next(ctx, method, req)
			}
			if k, _ := p.Meta[MetaKey].(string); k != "" {
				return next(ctx, method, req)
			}
			args, err := json.Marshal(p.Arguments)
			if err != nil {
				return nil, fmt.Errorf("mcpfault: KeyFromArguments: tool %q: %w", p.Name, err)
			}
			sum := sha256.Sum256(append([]byte(p.Name+"\n"), args...))
			cp := *p
			cp.Meta = cloneMeta(p.Meta)
			cp.Meta[MetaKey] = "args-" + hex.EncodeToString(sum[:16])
			return next(ctx, method, &mcp.ClientRequest[*mcp.CallToolParams]{Session: s, Params: &cp})
		}
	}
}
