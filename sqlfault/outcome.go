package sqlfault

import (
	"database/sql/driver"
	"errors"

	"github.com/faultline/faultline/model"
)

// OutcomeOf classifies the error an effect statement (outside a
// transaction) or a transaction's Commit returned through the adapter into
// the three outcomes of a consequential call: nil is committed (a
// tool_timeout in autocommit too: database/sql re-sent the statement);
// ErrRejected and driver.ErrBadConn (the driver's promise that nothing was
// performed: timeout_before_send mid-transaction, which the model's
// timeline records as unknown) are rejected; ErrOutcomeUnknown and every
// other error are unknown (a driver's refusal cannot be told from a lost
// answer without its types). Unknown never means "did not happen": read
// the row back, or hold.
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
