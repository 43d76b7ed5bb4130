package httpfault

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"

	"github.com/faultline/faultline/model"
)

// Answer is an answer the joined transport gives in the provider's place
// for a fault that fired before the provider saw the request: its status,
// headers and body (JoinOptions.Render).
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// defaultAnswer is faultline's own rendering: a 422 for
// reject_before_commit, a 429 with Retry-After (seconds, rounded up) and
// Retry-After-Ms for rate_limit, a 400 with X-Should-Retry: false for
// do_not_retry, each with an {"error": ...} body.
func defaultAnswer(kind string, retryAfter model.Millis) Answer {
	switch kind {
	case "rate_limit":
		return Answer{Status: http.StatusTooManyRequests, Header: retryHeaders(retryAfter), Body: []byte(`{"error":"rate limited"}`)}
	case "do_not_retry":
		return Answer{Status: http.StatusBadRequest, Header: http.Header{"X-Should-Retry": {"false"}}, Body: []byte(`{"error":"rejected permanently: do not retry"}`)}
	}
	return Answer{Status: http.StatusUnprocessableEntity, Body: []byte(`{"error":"rejected before commit"}`)}
}

// falseSuccessBody is false_success's answer, given with a 200 in every
// format: the envelope of APIs that report a failure inside a success
// ({"ok": false, "error": ...}, as Slack's Web API does).
const falseSuccessBody = `{"ok":false,"error":"the provider failed the request; nothing was committed"}`

// serverErrorBody is server_error's answer, given with a 500: the error
// object of the APIs that name a server fault (type api_error).
const serverErrorBody = `{"error":{"type":"api_error","message":"internal server error"}}`

// outageBody is provider_outage's answer, given with a 503 and no
// Retry-After: the provider is down and says nothing of when it is back.
const outageBody = `{"error":{"type":"service_unavailable","message":"the service is unavailable"}}`

// expiredBody and expiredChallenge are credential_expired's answer, given
// with a 401: an authentication error and the WWW-Authenticate challenge
// of an expired bearer token (RFC 6750).
const (
	expiredBody      = `{"error":{"type":"authentication_error","message":"the access token has expired"}}`
	expiredChallenge = `Bearer error="invalid_token", error_description="the access token expired"`
)

// networkError is network_error's rendering, the error a dialer or a
// connection returns: connection refused before the request left (sent
// false), connection reset by peer after the provider processed it.
func networkError(sent bool) error {
	if sent {
		return &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	}
	return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
}

// retryHeaders are Retry-After (whole seconds, rounded up) and
// Retry-After-Ms for a wait of ms.
func retryHeaders(ms model.Millis) http.Header {
	return http.Header{"Retry-After": {strconv.FormatInt(int64((ms+999)/1000), 10)}, "Retry-After-Ms": {strconv.FormatInt(int64(ms), 10)}}
}

// jsonBody encodes v (plain data: it cannot fail).
func jsonBody(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// StripeError renders as Stripe does (a JoinOptions.Render): an error
// object {"error": {"type", "code", "message"}} with a Request-Id header;
// reject_before_commit and do_not_retry are a 400 invalid_request_error
// with Stripe-Should-Retry: false, rate_limit a 429 of code rate_limit,
// which stripe-go decodes as a *stripe.Error and does not retry.
func StripeError(kind string, _ model.Millis) Answer {
	type object struct {
		Type    string `json:"type"`
		Code    string `json:"code,omitempty"`
		Message string `json:"message"`
	}
	h := http.Header{"Request-Id": {"req_faultline"}}
	if kind == "rate_limit" {
		return Answer{Status: http.StatusTooManyRequests, Header: h, Body: jsonBody(map[string]object{"error": {Type: "invalid_request_error", Code: "rate_limit",
			Message: "Too many requests hit the API too quickly."}})}
	}
	h.Set("Stripe-Should-Retry", "false")
	return Answer{Status: http.StatusBadRequest, Header: h, Body: jsonBody(map[string]object{"error": {Type: "invalid_request_error",
		Message: "The request was rejected before it was committed."}})}
}

// OpenAIError renders as OpenAI's API does (a JoinOptions.Render): the
// envelope {"error": {"message", "type", "param", "code"}} with an
// x-request-id header; reject_before_commit and do_not_retry are a 400
// invalid_request_error with x-should-retry: false, rate_limit a 429
// rate_limit_exceeded with Retry-After, Retry-After-Ms (the model's wait)
// and x-should-retry: true, which openai-go obeys.
func OpenAIError(kind string, retryAfter model.Millis) Answer {
	type envelope struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
	if kind == "rate_limit" {
		h, code := retryHeaders(retryAfter), "rate_limit_exceeded"
		h.Set("X-Request-Id", "req_faultline")
		h.Set("X-Should-Retry", "true")
		return Answer{Status: http.StatusTooManyRequests, Header: h, Body: jsonBody(map[string]envelope{"error": {
			Message: "Rate limit reached for requests.", Type: "requests", Code: &code}})}
	}
	h := http.Header{"X-Request-Id": {"req_faultline"}, "X-Should-Retry": {"false"}}
	return Answer{Status: http.StatusBadRequest, Header: h, Body: jsonBody(map[string]envelope{"error": {
		Message: "The request was rejected before it was committed.", Type: "invalid_request_error"}})}
}

// AnthropicError renders as Anthropic's API does (a JoinOptions.Render):
// the envelope {"type": "error", "error": {"type", "message"},
// "request_id"} with a request-id header; reject_before_commit and
// do_not_retry are a 400 invalid_request_error with x-should-retry:
// false, rate_limit a 429 rate_limit_error with Retry-After,
// Retry-After-Ms (the model's wait) and x-should-retry: true, which
// anthropic-sdk-go obeys.
func AnthropicError(kind string, retryAfter model.Millis) Answer {
	if kind == "rate_limit" {
		return anthropic(http.StatusTooManyRequests, "rate_limit_error", "Number of requests has exceeded your rate limit.", retryAfter)
	}
	return anthropic(http.StatusBadRequest, "invalid_request_error", "The request was rejected before it was committed.", -1)
}

// AnthropicOverloaded is AnthropicError with rate_limit rendered as
// Anthropic's 529 overloaded_error (Retry-After, Retry-After-Ms and
// x-should-retry: true): the answer of an API under load, which
// anthropic-sdk-go retries as a server error.
func AnthropicOverloaded(kind string, retryAfter model.Millis) Answer {
	if kind == "rate_limit" {
		return anthropic(529, "overloaded_error", "Overloaded", retryAfter)
	}
	return AnthropicError(kind, retryAfter)
}

// anthropic is Anthropic's error envelope; wait < 0: no retry (x-should-retry:
// false and no Retry-After).
func anthropic(status int, typ, msg string, wait model.Millis) Answer {
	type inner struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	h := http.Header{"X-Should-Retry": {"false"}}
	if wait >= 0 {
		h = retryHeaders(wait)
		h.Set("X-Should-Retry", "true")
	}
	h.Set("Request-Id", "req_faultline")
	return Answer{Status: status, Header: h, Body: jsonBody(struct {
		Type      string `json:"type"`
		Error     inner  `json:"error"`
		RequestID string `json:"request_id"`
	}{"error", inner{typ, msg}, "req_faultline"})}
}
