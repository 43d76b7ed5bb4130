// Package httpfault injects the tool faults of faultline's catalogue into a
// real HTTP tool client: [Transport] is an http.RoundTripper that wraps a
// real transport and disturbs the requests a client sends to a real tool
// server, at the phase each fault kind names, driven by the same schedule
// format as the model (a *model.Schedule whose faults sit at event
// tool.commit; ordinal n is the n-th commit request through the
// transport).
//
// It works in two modes. Joined to the harness ([Join]), it is an adapter
// on model.Calls: a [Classifier] ([Rules] by method and path, [JSONRPC]
// for MCP over streamable HTTP) says which requests are commits, reads or
// neither; each commit crosses tool.commit with the model's own fault
// semantics over the real request, the fired kinds are rendered as HTTP,
// the provider's own store (the System's model.Observed readback) is the
// oracle, and the timeline, invariants, verdicts, shrinking and coverage
// are the harness's. [InProcess] serves requests through a handler with
// no socket, for runs inside a testing/synctest bubble, where the bubble's
// clock is the run's and a rate limit's Retry-After is waited at no
// wall-clock cost. Standalone ([New]), it is a transport with a schedule
// of its own, described below.
//
// Entry points of the joined mode: [Join] with [JoinOptions]
// ([HeaderKey], [DefaultResult]), [Joined.RoundTrip], [JoinKinds],
// [InProcess].
//
// Entry points of the standalone mode:
//
//   - [New] builds a Transport from a base transport, a schedule and
//     [Options] (allowlist, stop conditions, what a commit request is, the
//     response's receipt and amount fields);
//   - [Transport.RoundTrip] sends, disturbs or refuses one request;
//     [Transport.Flush] delivers requests a tool_timeout still holds;
//   - [Transport.Faults] reports each scheduled fault (reached, fired) as
//     the model's FaultReport with its coverage [Key];
//     [Transport.Covered] lists the keys of the faults that fired;
//     [Transport.Exchanges] logs every request and what happened to it;
//   - [Kinds] lists the kinds it injects: every tool-domain kind of the
//     catalogue.
//
// What each kind does in the standalone mode (its spec, from model.Spec, gives its phase and
// coverage key; the tool server's own ledger, read by the test, decides
// the outcome):
//
//   - sandbox_denial (before validation): the request is not sent; the
//     client gets an error wrapping [ErrSandboxDenied];
//   - timeout_before_send (before commit): the request is not sent; the
//     client gets a [TimeoutError];
//   - reject_before_commit (before commit): the request is not sent; the
//     client gets a 422 answer, as from a provider that rejected it before
//     any durable write (a transport cannot make a real server reject, and
//     forwarding would let it commit);
//   - rate_limit (before commit): the request is not sent; the client gets
//     a 429 answer with "Retry-After: 1" (one second);
//   - tool_timeout (before commit): the request is held and the client gets
//     a [TimeoutError]; the held request reaches the server late, just
//     before the next commit request is forwarded (or at Flush);
//   - budget_exhaustion (persistent): from its ordinal on, every commit
//     request times out before it is sent;
//   - timeout_after_commit (after commit): the request is forwarded, the
//     server answers, the answer is discarded and the client gets a
//     [TimeoutError];
//   - partial_success_response (after commit): the receipt field is
//     removed from a 2xx JSON answer;
//   - malformed_response (after commit): a 2xx answer with a receipt is cut
//     to half its length;
//   - output_drift (after commit): in a 2xx answer with a receipt, the
//     receipt field is renamed (receipt_id becomes receiptId) and a numeric
//     amount becomes a string.
//
// A disturbance whose condition is absent (a non-2xx answer, a body
// without the receipt field) leaves the exchange alone: the fault is
// reached but does not fire, as in the model.
//
// Safety: the transport refuses, before anything is sent, any request
// whose scheme is not http or https ([ErrScheme]) or whose host is outside
// its allowlist ([ErrRefused]; [DefaultAllow]: 127.0.0.0/8, ::1 and
// localhost; names are compared, never resolved). [New] refuses a base
// transport that would send through a proxy: a base *http.Transport with
// a Proxy, and any *http.Transport with a Proxy that New reaches inside
// the base by following its pointers, interfaces, struct fields (exported
// or not), arrays, slices and map values, at most 16 levels deep. A
// transport hidden where reflection cannot see (inside a closure, such as
// a RoundTripper built from a func) is the caller's to vouch for. The
// transport stops (every later request fails with [ErrStopped]) after
// Options.MaxRequests requests, before a commit would be forwarded past
// Options.MaxEffects, and once Options.Clock reaches Options.Expiry.
//
// Concurrency: ordinals, limits, fault reports and the exchange log are
// kept under one lock, so commit ordinals follow arrival order. The lock
// is not held while the base transport sends a request or while the
// transport reads an answer's body, so concurrent clients proceed in
// parallel, and [Transport.Exchanges], [Transport.Faults],
// [Transport.Covered] and [Transport.Stopped] may be called at any time,
// from the tool server's handler during a request included. With several
// clients at once, a held request is delivered before the commit request
// that found it held, not necessarily before a commit that was already on
// its way.
//
// In either mode, [OutcomeOf] classifies what the client saw (a response
// and an error) into the three outcomes of a consequential call.
package httpfault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/faultline/faultline/model"
)

// Errors a Transport returns (wrapped, with details).
var (
	// ErrRefused: the request's host is not in the allowlist; nothing was
	// sent.
	ErrRefused = errors.New("httpfault: host not in the allowlist")
	// ErrScheme: the request's scheme is not http or https; nothing was
	// sent.
	ErrScheme = errors.New("httpfault: scheme not http or https")
	// ErrStopped: a stop condition ended the transport; nothing was sent.
	ErrStopped = errors.New("httpfault: transport stopped")
	// ErrSandboxDenied: a sandbox_denial fault refused the tool start;
	// nothing was sent.
	ErrSandboxDenied = errors.New("httpfault: sandbox denied the tool start")
)

// TimeoutError is the error a client sees for a timeout fault. It is a
// net.Error whose Timeout is true, and errors.Is(err,
// os.ErrDeadlineExceeded) holds, as for a real I/O timeout. Sent is for
// the test's diagnosis, not the client's.
type TimeoutError struct {
	FaultID string // the scheduled fault's id
	Kind    string // its kind
	Sent    bool   // whether the request had reached the server when the client was answered
}

// Error names the fault and its kind.
func (e *TimeoutError) Error() string {
	return "httpfault: timeout awaiting response (fault " + e.FaultID + ", " + e.Kind + ")"
}

// Timeout is true: the client must treat the outcome as unknown.
func (e *TimeoutError) Timeout() bool { return true }

// Temporary is true.
func (e *TimeoutError) Temporary() bool { return true }

// Is matches os.ErrDeadlineExceeded.
func (e *TimeoutError) Is(target error) bool { return target == os.ErrDeadlineExceeded }

// Options configure a Transport. The zero value takes the defaults
// documented on each field; a negative number is an error.
type Options struct {
	// Allow lists where requests may go: IP addresses, CIDR prefixes and
	// host names (exact, case-insensitive, never resolved). Empty means
	// DefaultAllow (loopback only). A request to any other host fails
	// with ErrRefused before anything is sent.
	Allow []string
	// MaxRequests stops the transport after this many requests (of any
	// method; default 1000): the expiry measured in requests.
	MaxRequests int
	// MaxEffects stops the transport before it would forward more than
	// this many commit requests (held requests delivered late included;
	// default 100).
	MaxEffects int
	// Clock is a logical clock the caller controls, in milliseconds; with
	// Expiry positive, the transport stops once Clock() >= Expiry. Expiry
	// without Clock is an error.
	Clock  func() model.Millis
	Expiry model.Millis
	// Commit reports whether a request is a commit request (event
	// tool.commit, counted for ordinals and effects). Default: every
	// method but GET, HEAD, OPTIONS and TRACE, so readbacks pass through
	// uncounted. Commit and Clock are called under the transport's lock:
	// they must not call the Transport.
	Commit func(*http.Request) bool
	// Receipt is the top-level JSON field of a committed answer that
	// carries the receipt (default "receipt_id"); Amount the field of its
	// amount (default "amount").
	Receipt string
	Amount  string
}

// Key is a coverage key of the paper: K = (domain, boundary, phase,
// correlation, oracle), taken from a fault kind's spec.
type Key struct {
	Domain      model.Domain      `json:"domain"`
	Boundary    model.Boundary    `json:"boundary"`
	Phase       model.Phase       `json:"phase"`
	Correlation model.Correlation `json:"correlation"`
	Oracle      model.OracleName  `json:"oracle"`
}

// KeyOf returns the coverage key of a fault spec.
func KeyOf(s model.FaultSpec) Key {
	return Key{Domain: s.Domain, Boundary: s.Boundary, Phase: s.Phase, Correlation: s.Correlation, Oracle: s.Oracle}
}

// String is "domain/boundary/phase/correlation/oracle".
func (k Key) String() string {
	return string(k.Domain) + "/" + string(k.Boundary) + "/" + string(k.Phase) + "/" + string(k.Correlation) + "/" + string(k.Oracle)
}

// Fault is what the transport proves about one scheduled fault: the
// model's FaultReport (Reached when its commit ordinal occurred, Fired the
// times its disturbance acted, FiredAt the Exchange seq of the first
// firing; Observed and Detected are left empty: the transport has no
// oracle) and its coverage key.
type Fault struct {
	model.FaultReport
	Key Key `json:"key"`
}

// Exchange records one request through the transport, or the late
// delivery of a held one.
type Exchange struct {
	// Seq numbers exchanges from 1 in order.
	Seq    int    `json:"seq"`
	Method string `json:"method"`
	URL    string `json:"url"`
	// Commit is the request's tool.commit ordinal (0 for a request that
	// is not a commit).
	Commit int `json:"commit"`
	// FaultID names the fault that fired on it ("" for none).
	FaultID string `json:"fault_id,omitempty"`
	// Sent is true when the request reached the base transport.
	Sent bool `json:"sent"`
	// Late is true for the delivery of a request a tool_timeout held.
	Late bool `json:"late,omitempty"`
	// Status is the status the client saw (for a late delivery, the
	// server's); 0 when it saw an error.
	Status int `json:"status"`
	// Err is the error the client saw.
	Err string `json:"error,omitempty"`
}

// armed is one scheduled fault and what the transport saw of it.
type armed struct {
	id    string
	entry model.FaultEntry
	spec  model.FaultSpec
	d     disturbance
	rep   model.FaultReport
}

// held is a request a tool_timeout holds for late delivery.
type held struct {
	req  *http.Request
	body []byte
	x    int // the exchange index of the original request
}

// Transport injects scheduled tool faults into HTTP requests. Build it
// with New; it is safe for concurrent use (see the package comment:
// ordinals are assigned in arrival order, round trips run in parallel).
type Transport struct {
	base   http.RoundTripper
	allow  *allowlist
	opts   Options
	faults []*armed
	// mu guards the fields below and every armed fault's rep. It is
	// released during the base round trip and while an answer's body is
	// read (see send and unlocked).
	mu      sync.Mutex
	n       int // requests received
	commits int // commit requests received
	effects int // commit requests forwarded
	stopped string
	held    []held
	log     []Exchange
}

// New returns a Transport sending through base (nil: a clone of
// http.DefaultTransport without its proxy) that injects the faults of s.
// It returns an error naming the problem for an invalid schedule, a fault
// not at tool.commit or of a kind the transport does not inject, a fault
// with a target, a bad allowlist entry, a negative limit, an Expiry
// without a Clock, or a base that is, or wraps, an *http.Transport with a
// Proxy (the allowlist cannot vouch for where a proxy sends; see the
// package comment for how far New looks inside a wrapper).
func New(base http.RoundTripper, s *model.Schedule, opts Options) (*Transport, error) {
	if s == nil {
		return nil, errors.New("httpfault: no schedule")
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("httpfault: %w", err)
	}
	if opts.MaxRequests < 0 || opts.MaxEffects < 0 || opts.Expiry < 0 {
		return nil, fmt.Errorf("httpfault: negative limit (max requests %d, max effects %d, expiry %d)", opts.MaxRequests, opts.MaxEffects, opts.Expiry)
	}
	if opts.Expiry > 0 && opts.Clock == nil {
		return nil, errors.New("httpfault: Expiry needs a Clock")
	}
	if opts.MaxRequests == 0 {
		opts.MaxRequests = 1000
	}
	if opts.MaxEffects == 0 {
		opts.MaxEffects = 100
	}
	if opts.Commit == nil {
		opts.Commit = defaultCommit
	}
	if opts.Receipt == "" {
		opts.Receipt = "receipt_id"
	}
	if opts.Amount == "" {
		opts.Amount = "amount"
	}
	a, err := parseAllow(opts.Allow)
	if err != nil {
		return nil, err
	}
	base, err = checkBase(base)
	if err != nil {
		return nil, err
	}
	t := &Transport{base: base, allow: a, opts: opts}
	for i, f := range s.Faults {
		id := f.ID
		if id == "" {
			id = "f" + strconv.Itoa(i+1)
		}
		spec, err := model.Spec(f.Kind)
		if err != nil {
			return nil, fmt.Errorf("httpfault: fault %s: %w", id, err)
		}
		d, ok := disturbances[f.Kind]
		if !ok || f.Event != model.EvToolCommit {
			return nil, fmt.Errorf("httpfault: fault %s: %s at %s is not a tool fault the HTTP transport injects (it injects at %s: %s)",
				id, f.Kind, f.Event, model.EvToolCommit, strings.Join(Kinds(), ", "))
		}
		if f.Target != "" {
			return nil, fmt.Errorf("httpfault: fault %s: target %q: the HTTP transport takes no target", id, f.Target)
		}
		if f.Tool != "" {
			return nil, fmt.Errorf("httpfault: fault %s: tool %q: the HTTP transport cannot tell tools apart (its ordinal counts every commit request); leave \"tool\" out", id, f.Tool)
		}
		t.faults = append(t.faults, &armed{id: id, entry: f, spec: spec, d: d,
			rep: model.FaultReport{ID: id, Kind: f.Kind, Event: f.Event, Ordinal: f.Ordinal, Oracle: spec.Oracle, Observed: []string{}}})
	}
	return t, nil
}

// checkBase returns base (nil: a clone of http.DefaultTransport without
// its proxy), or an error when it is, or wraps, an *http.Transport with a
// Proxy.
func checkBase(base http.RoundTripper) (http.RoundTripper, error) {
	switch b := base.(type) {
	case nil:
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.Proxy = nil
		base = t
	case *http.Transport:
		if b.Proxy != nil {
			return nil, errors.New("httpfault: the base transport has a Proxy; set it to nil (the allowlist cannot vouch for where a proxy sends)")
		}
	default:
		if path, found := findProxy(reflect.ValueOf(base)); found {
			return nil, fmt.Errorf("httpfault: the base transport (%T) wraps an *http.Transport with a Proxy at %s; set it to nil (the allowlist cannot vouch for where a proxy sends)", base, path)
		}
	}
	return base, nil
}

func defaultCommit(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return false
	}
	return true
}

// Kinds returns the fault kinds the transport injects, in catalogue order:
// every tool-domain kind.
func Kinds() []string {
	var out []string
	for _, s := range model.Catalogue() {
		if _, ok := disturbances[s.Kind]; ok {
			out = append(out, s.Kind)
		}
	}
	return out
}

// RoundTrip implements http.RoundTripper: it refuses a disallowed host or
// a stopped transport, passes a request that is not a commit through, and
// applies the faults scheduled at a commit request's ordinal, in schedule
// order (the first wraps the rest).
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readBody(req)
	t.mu.Lock()
	defer t.mu.Unlock()
	x := t.exchange(req)
	if err != nil {
		return t.fail(x, fmt.Errorf("httpfault: reading the request body: %w", err))
	}
	if sc := req.URL.Scheme; !strings.EqualFold(sc, "http") && !strings.EqualFold(sc, "https") {
		return t.fail(x, fmt.Errorf("%w: refusing %s %s: scheme %q (the transport sends only http and https)", ErrScheme, req.Method, redactURL(req), sc))
	}
	if host := req.URL.Hostname(); !t.allow.allows(host) {
		return t.fail(x, fmt.Errorf("%w: refusing %s %s: host %q (allowed: %s)", ErrRefused, req.Method, redactURL(req), host, t.allow.text))
	}
	t.n++
	if t.stopped == "" && t.n > t.opts.MaxRequests {
		t.stopped = fmt.Sprintf("more than %d requests", t.opts.MaxRequests)
	}
	if t.stopped == "" && t.opts.Expiry > 0 && t.opts.Clock() >= t.opts.Expiry {
		t.stopped = fmt.Sprintf("expired at %d ms of the logical clock", t.opts.Expiry)
	}
	if t.stopped != "" {
		return t.fail(x, fmt.Errorf("%w: %s", ErrStopped, t.stopped))
	}
	if !t.opts.Commit(req) {
		resp, err := t.send(x, req, body)
		return t.finish(x, resp, err)
	}
	t.commits++
	t.log[x].Commit = t.commits
	c := &call{t: t, x: x, req: req, body: body}
	next := func() (*http.Response, error) { return t.forward(x, req, body) }
	for i := len(t.faults) - 1; i >= 0; i-- {
		f := t.faults[i]
		if !f.hits(t.commits) {
			continue
		}
		f.rep.Reached = true
		inner := next
		next = func() (*http.Response, error) {
			resp, fired, err := f.d(c, f, inner)
			if fired {
				f.rep.Fired++
				if f.rep.FiredAt == 0 {
					f.rep.FiredAt = t.log[x].Seq
				}
				t.log[x].FaultID = f.id
			}
			return resp, err
		}
	}
	resp, err := next()
	return t.finish(x, resp, err)
}

// hits reports whether f is scheduled at commit ordinal n: its own
// ordinal, or any later one for a persistent kind that has fired.
func (f *armed) hits(n int) bool {
	return n == f.entry.Ordinal || n > f.entry.Ordinal && f.spec.Correlation == model.CorrelationPersistent && f.rep.Fired > 0
}

// exchange starts the log entry of req and returns its index.
func (t *Transport) exchange(req *http.Request) int {
	t.log = append(t.log, Exchange{Seq: len(t.log) + 1, Method: req.Method, URL: redactURL(req)})
	return len(t.log) - 1
}

func redactURL(req *http.Request) string {
	u := *req.URL
	u.User = nil
	return u.String()
}

func readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	return io.ReadAll(req.Body)
}

func (t *Transport) fail(x int, err error) (*http.Response, error) {
	t.log[x].Err = err.Error()
	return nil, err
}

func (t *Transport) finish(x int, resp *http.Response, err error) (*http.Response, error) {
	if err != nil {
		return t.fail(x, err)
	}
	t.log[x].Status = resp.StatusCode
	return resp, nil
}

// send forwards req (its body already read) through the base transport.
// It is called with t.mu held and releases it during the base round trip.
func (t *Transport) send(x int, req *http.Request, body []byte) (resp *http.Response, err error) {
	r := req.Clone(req.Context())
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	if body == nil {
		r.Body = http.NoBody
	}
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	t.log[x].Sent = true
	t.unlocked(func() { resp, err = t.base.RoundTrip(r) })
	return resp, err
}

// unlocked runs f, which must not touch the fields t.mu guards, with t.mu
// released; the caller holds t.mu, and holds it again when unlocked
// returns (or panics).
func (t *Transport) unlocked(f func()) {
	t.mu.Unlock()
	defer t.mu.Lock()
	f()
}

// forward sends a commit request: held requests go first (a provider
// that held a timed-out request commits it before the next one), and the
// effect limit is checked before each.
func (t *Transport) forward(x int, req *http.Request, body []byte) (*http.Response, error) {
	if err := t.deliverHeld(); err != nil {
		return nil, err
	}
	if err := t.spendEffect(); err != nil {
		return nil, err
	}
	return t.send(x, req, body)
}

func (t *Transport) spendEffect() error {
	if t.effects >= t.opts.MaxEffects {
		t.stopped = fmt.Sprintf("more than %d effects", t.opts.MaxEffects)
		return fmt.Errorf("%w: %s", ErrStopped, t.stopped)
	}
	t.effects++
	return nil
}

// deliverHeld sends every held request, in order, each with a context
// detached from its timed-out caller, and discards the answers. It is
// called with t.mu held and releases it while each request is sent.
func (t *Transport) deliverHeld() error {
	for len(t.held) > 0 {
		h := t.held[0]
		t.held = t.held[1:]
		if err := t.spendEffect(); err != nil {
			return err
		}
		orig := t.log[h.x]
		x := len(t.log)
		t.log = append(t.log, Exchange{Seq: x + 1, Method: orig.Method, URL: orig.URL, Commit: orig.Commit, FaultID: orig.FaultID, Late: true})
		r := h.req.WithContext(context.WithoutCancel(h.req.Context()))
		resp, err := t.send(x, r, h.body)
		if err != nil {
			t.log[x].Err = err.Error()
			continue
		}
		t.unlocked(func() {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
		t.log[x].Status = resp.StatusCode
	}
	return nil
}

// Flush delivers every request a tool_timeout still holds (the provider
// commits them late) and returns the first error; it is how a test ends a
// run whose last commit was held.
func (t *Transport) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped != "" && len(t.held) > 0 {
		return fmt.Errorf("%w: %s", ErrStopped, t.stopped)
	}
	return t.deliverHeld()
}

// Faults returns the report of every scheduled fault, in schedule order.
func (t *Transport) Faults() []Fault {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Fault, len(t.faults))
	for i, f := range t.faults {
		r := f.rep
		r.Observed = []string{}
		out[i] = Fault{FaultReport: r, Key: KeyOf(f.spec)}
	}
	return out
}

// Covered returns the coverage keys of the faults that fired, sorted by
// their String form, each once.
func (t *Transport) Covered() []Key {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Key
	for _, f := range t.faults {
		if k := KeyOf(f.spec); f.rep.Fired > 0 && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b Key) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// Exchanges returns the log of every request, in order.
func (t *Transport) Exchanges() []Exchange {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.log)
}

// Stopped returns why the transport stopped, or "" while it runs.
func (t *Transport) Stopped() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stopped
}

// CloseIdleConnections closes the base transport's idle connections, if
// it keeps any (http.Client.CloseIdleConnections calls it).
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// maxProxyDepth bounds how deep findProxy looks inside a base transport.
const maxProxyDepth = 16

// findProxy looks inside v for an *http.Transport with a Proxy, following
// pointers, interfaces, struct fields (exported or not), arrays, slices and
// map values at most maxProxyDepth levels deep, each pointer once. It does
// not look inside an *http.Transport it finds, nor inside funcs, channels
// or unsafe pointers. It returns the path of the first one found, in Go
// selector syntax from the base (".base.inner", "[0]").
func findProxy(v reflect.Value) (string, bool) {
	transport := reflect.TypeFor[http.Transport]()
	seen := map[uintptr]bool{}
	var walk func(v reflect.Value, path string, depth int) (string, bool)
	walk = func(v reflect.Value, path string, depth int) (string, bool) {
		if depth > maxProxyDepth || !v.IsValid() {
			return "", false
		}
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return "", false
			}
			seen[v.Pointer()] = true
			if v.Type().Elem() == transport {
				if !v.Elem().FieldByName("Proxy").IsNil() {
					return path, true
				}
				return "", false
			}
			return walk(v.Elem(), path, depth+1)
		case reflect.Interface:
			return walk(v.Elem(), path, depth+1)
		case reflect.Struct:
			if v.Type() == transport {
				if !v.FieldByName("Proxy").IsNil() {
					return path, true
				}
				return "", false
			}
			for i := range v.NumField() {
				if p, ok := walk(v.Field(i), path+"."+v.Type().Field(i).Name, depth+1); ok {
					return p, true
				}
			}
		case reflect.Array, reflect.Slice:
			for i := range v.Len() {
				if p, ok := walk(v.Index(i), path+"["+strconv.Itoa(i)+"]", depth+1); ok {
					return p, true
				}
			}
		case reflect.Map:
			it := v.MapRange()
			for it.Next() {
				if p, ok := walk(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key()), depth+1); ok {
					return p, true
				}
			}
		}
		return "", false
	}
	return walk(v, "", 0)
}
