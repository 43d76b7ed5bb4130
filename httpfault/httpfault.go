// Package httpfault puts faultline's tool faults into a real HTTP client.
// It is an adapter on model.Calls: the core decides, the adapter renders.
// [Join] returns an http.RoundTripper for one run; each request its
// [Classifier] calls a commit crosses tool.commit through the run's
// Env.Calls, where the schedule's faults act with the model's semantics
// over the real request, and the adapter renders the kinds that fired as
// HTTP (an error, a status, a rewritten body). Reads cross a read event;
// the rest pass through. The provider's own store (the System's
// model.Observed readback) is the oracle; the timeline, invariants,
// verdicts, shrinking and coverage are the harness's.
//
// Entry points:
//
//   - [Join], [JoinOptions], [Joined.RoundTrip]: the joined transport;
//   - [Rules], [Rule], [JSONRPC], [Classifier], [Classified], [Class]:
//     which requests are commits, reads or neither;
//   - [HeaderKey], [JSONRPCKey]: where a commit's idempotency key is (a
//     commit without one is tested, not refused); [KeyFromBody] derives
//     one; [DefaultResult]: how an answer maps to the model's result;
//   - [Kinds]: the kinds the transport renders;
//   - [InProcess]: a handler served with no socket, for synctest bubbles;
//   - [OutcomeOf]: what the client saw, in the three outcomes;
//   - [ErrSandboxDenied], [TimeoutError]: renderings; [Answer],
//     [StripeError], [OpenAIError], [AnthropicError],
//     [AnthropicOverloaded]: the provider's own answers (JoinOptions.Render);
//     [ErrRefused], [ErrScheme]: the allowlist (loopback by default).
//
// What each kind looks like to the client, the classifiers, the safety
// rules and the tests: docs/adapters-http.md.
package httpfault

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strconv"
)

// Errors the joined transport returns (wrapped, with details).
var (
	// ErrRefused: the request's host is not in the allowlist; nothing was
	// sent.
	ErrRefused = errors.New("httpfault: host not in the allowlist")
	// ErrScheme: the request's scheme is not http or https; nothing was
	// sent.
	ErrScheme = errors.New("httpfault: scheme not http or https")
	// ErrSandboxDenied: a sandbox_denial fault refused the tool start;
	// nothing was sent.
	ErrSandboxDenied = errors.New("httpfault: sandbox denied the tool start")
)

// TimeoutError is the error a client sees for a timeout fault. It is a
// net.Error whose Timeout is true, and errors.Is(err,
// os.ErrDeadlineExceeded) holds, as for a real I/O timeout. Sent is for
// the test's diagnosis, not the client's.
type TimeoutError struct {
	Kind string // the kind that fired
	Sent bool   // whether the request had reached the server when the client was answered
}

// Error names the kind.
func (e *TimeoutError) Error() string {
	return "httpfault: timeout awaiting response (" + e.Kind + ")"
}

// Timeout is true: the client must treat the outcome as unknown.
func (e *TimeoutError) Timeout() bool { return true }

// Temporary is true (net.Error).
func (e *TimeoutError) Temporary() bool { return true }

// Is matches os.ErrDeadlineExceeded.
func (e *TimeoutError) Is(target error) bool { return target == os.ErrDeadlineExceeded }

// checkBase returns base (nil: a clone of http.DefaultTransport without
// its proxy), or an error when it is, or wraps, an *http.Transport with a
// Proxy.
func checkBase(base http.RoundTripper) (http.RoundTripper, error) {
	switch b := base.(type) {
	case nil:
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.Proxy = nil
		base = t
	case inProcess:
		// calls its handler: no transport, no proxy (and no walk of the
		// handler's state, which can be large)
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
