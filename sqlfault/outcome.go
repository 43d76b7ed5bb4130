package sqlfault

import (
	"database/sql/driver"
	"errors"

	"github.com/faultline/faultline/model"
)

// OutcomeOf classifies the error an effect statement (ExecContext outside
// a transaction) or a transaction's Commit returned through the adapter
// into the three outcomes of a consequential call:
//
//   - committed: a nil error (tool_timeout outside a transaction is
//     committed too: database/sql re-sent the statement and the code sees
//     no error, though the held statement may have written as well);
//   - rejected: an error wrapping ErrRejected (reject_before_commit: the
//     transaction was rolled back), or driver.ErrBadConn, which by the
//     driver contract promises the database did not perform the
//     operation (timeout_before_send mid-transaction: the connection
//     dropped before COMMIT was sent and the database rolled back);
//   - unknown: an error wrapping ErrOutcomeUnknown (timeout_after_commit:
//     the commit reached the database and the connection was lost), and
//     every other error, a deadline or a driver's own error included: the
//     classifier cannot tell a refusal (a constraint violation) from a
//     lost answer without the driver's types; classify those first.
//
// The model's timeline records timeout_before_send as unknown (the
// catalogue's client cannot know); over database/sql the driver's
// ErrBadConn is the stronger answer. Unknown never means "did not
// happen": resolve it by reading the row back, or hold.
func OutcomeOf(err error) model.Outcome {
	switch {
	case err == nil:
		return model.OutcomeCommitted
	case errors.Is(err, ErrOutcomeUnknown):
		return model.OutcomeUnknown
	case errors.Is(err, ErrRejected), errors.Is(err, driver.ErrBadConn):
		return model.OutcomeRejected
	}
	return model.OutcomeUnknown
}
