package httpfault

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/faultline/faultline/model"
)

// OutcomeOf classifies what an HTTP client saw for a consequential
// request ((*http.Client).Do's response and error, or a RoundTrip's) into
// the three outcomes of a consequential call, by the rules DefaultResult
// maps an answer with:
//
//   - rejected: an error saying nothing was sent (ErrSandboxDenied for
//     sandbox_denial, ErrRefused, ErrScheme, ErrStopped), or a 4xx answer
//     (422 for reject_before_commit, 429 for rate_limit: the provider
//     refused before any effect);
//   - committed: a 2xx answer whose body reads to the end and, when it
//     opens a JSON object or array ('{' or '['; an empty body is fine),
//     is valid JSON (partial_success_response and output_drift decode, so
//     they are committed, as in the model);
//   - unknown: any other error (a *TimeoutError for timeout_before_send,
//     budget_exhaustion, tool_timeout and timeout_after_commit, a net
//     error, a deadline), no response, a 2xx whose body fails to read or
//     does not decode (malformed_response: the body cut to half), and
//     every 1xx, 3xx and 5xx answer.
//
// For a 2xx answer OutcomeOf reads resp.Body, closes it and puts back a
// reader over the same bytes, so the caller decodes the body as before.
// Unknown never means "did not happen": resolve it by reading the
// provider's ledger back, or hold.
func OutcomeOf(resp *http.Response, err error) model.Outcome {
	if err != nil {
		for _, e := range []error{ErrSandboxDenied, ErrRefused, ErrScheme, ErrStopped} {
			if errors.Is(err, e) {
				return model.OutcomeRejected
			}
		}
		return model.OutcomeUnknown
	}
	if resp == nil {
		return model.OutcomeUnknown
	}
	switch s := resp.StatusCode; {
	case s >= 400 && s <= 499:
		return model.OutcomeRejected
	case s < 200 || s > 299:
		return model.OutcomeUnknown
	}
	if resp.Body == nil || resp.Body == http.NoBody {
		return model.OutcomeCommitted
	}
	body, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return model.OutcomeUnknown
	}
	if t := strings.TrimSpace(string(body)); (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && !json.Valid(body) {
		return model.OutcomeUnknown
	}
	return model.OutcomeCommitted
}
