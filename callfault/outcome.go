package callfault

import (
	"errors"

	"github.com/faultline/faultline/model"
)

// OutcomeOf classifies the error a wrapped call returned, as the default
// renderings make it, into the three outcomes of a consequential call:
//
//   - committed: a nil error (the reply decoded; partial_success_response
//     and output_drift render a reply, so they are committed, as in the
//     model: whether its receipt is there is the caller's next question);
//   - rejected: a *RejectedError (sandbox_denial, reject_before_commit) or
//     a *RateLimitError (rate_limit: nothing was done; retry after the
//     wait), found with errors.As;
//   - unknown: any other error: a *TimeoutError (timeout_before_send,
//     budget_exhaustion, tool_timeout, timeout_after_commit), ErrMalformed
//     (malformed_response), and every error of the client itself, which
//     does not say the call did not happen.
//
// A Spec that renders faults with errors of its own (Lost, Rejected,
// RateLimited, Malformed) needs a classifier of its own for them. Unknown
// never means "did not happen": resolve it by reading the provider's
// ledger back, or hold.
func OutcomeOf(err error) model.Outcome {
	if err == nil {
		return model.OutcomeCommitted
	}
	var rej *RejectedError
	var rl *RateLimitError
	if errors.As(err, &rej) || errors.As(err, &rl) {
		return model.OutcomeRejected
	}
	return model.OutcomeUnknown
}
