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
	"io"
	"net/http"
	"os"
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
