package callfault

import (
	"errors"

	"github.com/faultline/faultline/model"
)

// OutcomeOf classifies the error a wrapped call returned, as the default
// renderings make it, into the three outcomes of a consequential call: nil
// is committed (partial_success_response and output_drift render a
// reply); a *RejectedError or a *RateLimitError (errors.As) is rejected;
// any other error (a *TimeoutError, a *TransportError, ErrMalformed, the
// client's own) is unknown. A Spec that renders faults with errors of its own needs a
// classifier of its own, and a reply that carries an error
// (false_success, Spec.ErrorReply) comes with a nil error: read the reply. Unknown never means "did not happen": read the
// provider's ledger back, or hold.
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
