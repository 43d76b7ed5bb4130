package sqlfault_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/sqlfault"
)

// TestOutcomeOf: OutcomeOf of the error the agent's charge saw for each
// kind the adapter renders at tool.commit, in a transaction and in
// autocommit, and the charges the database holds after it: none for a
// rejection, one for a commit or an unknown outcome.
func TestOutcomeOf(t *testing.T) {
	for _, tc := range []struct {
		kind    string
		tx      bool
		want    model.Outcome
		charges int
	}{
		{"", true, model.OutcomeCommitted, 1},
		{"", false, model.OutcomeCommitted, 1},
		{"timeout_after_commit", true, model.OutcomeUnknown, 1},
		{"timeout_after_commit", false, model.OutcomeUnknown, 1},
		{"reject_before_commit", true, model.OutcomeRejected, 0},
		{"reject_before_commit", false, model.OutcomeRejected, 0},
		{"timeout_before_send", true, model.OutcomeRejected, 0},
		{"timeout_before_send", false, model.OutcomeCommitted, 1}, // database/sql re-sent it
		{"tool_timeout", false, model.OutcomeCommitted, 2},        // re-sent, and the held statement wrote too
	} {
		name := fmt.Sprintf("%s tx=%v", tc.kind, tc.tx)
		s := newSystem(t, agentOpts{Tx: tc.tx})
		var faults []model.FaultEntry
		if tc.kind != "" {
			faults = append(faults, at(model.EvToolCommit, 1, tc.kind))
		}
		run(t, s, faults...)
		require.Len(t, s.errs, 1, name)
		assert.Equal(t, tc.want, sqlfault.OutcomeOf(s.errs[0]), "%s: %v", name, s.errs[0])
		assert.Equal(t, tc.charges, s.charges(t), name)
	}
}

// TestOutcomeOfErrors: the rules on errors no fault renders.
func TestOutcomeOfErrors(t *testing.T) {
	for i, tc := range []struct {
		err  error
		want model.Outcome
	}{
		{nil, model.OutcomeCommitted},
		{fmt.Errorf("charge: %w", sqlfault.ErrRejected), model.OutcomeRejected},
		{fmt.Errorf("charge: %w", sqlfault.ErrOutcomeUnknown), model.OutcomeUnknown},
		{fmt.Errorf("commit: %w", driver.ErrBadConn), model.OutcomeRejected},
		{context.DeadlineExceeded, model.OutcomeUnknown},
		{errors.New("UNIQUE constraint failed: charges.action"), model.OutcomeUnknown},
	} {
		assert.Equal(t, tc.want, sqlfault.OutcomeOf(tc.err), "case %d", i)
	}
}
