package callfault_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/callfault"
	"github.com/faultline/faultline/model"
)

// TestOutcomeOf: OutcomeOf of the error each kind renders through Wrap
// (the default renderings) is the outcome the model gave the crossing
// (the timeline's tool.commit outcome).
func TestOutcomeOf(t *testing.T) {
	full := callfault.Spec[chargeReq, chargeResp]{Tool: "charge", Key: spec.Key, Receipt: spec.Receipt,
		StripReceipt: spec.StripReceipt, Drift: spec.Drift, SetTrace: spec.SetTrace, ErrorReply: spec.ErrorReply}
	require.NotNil(t, full.StripReceipt)
	require.NotNil(t, full.Drift)
	require.NotNil(t, full.SetTrace)
	require.Equal(t, callfault.Kinds(), full.Kinds())
	want := map[string]model.Outcome{
		"":                         model.OutcomeCommitted,
		"sandbox_denial":           model.OutcomeRejected,
		"timeout_before_send":      model.OutcomeUnknown,
		"reject_before_commit":     model.OutcomeRejected,
		"timeout_after_commit":     model.OutcomeUnknown,
		"tool_timeout":             model.OutcomeUnknown,
		"budget_exhaustion":        model.OutcomeUnknown,
		"partial_success_response": model.OutcomeCommitted,
		"malformed_response":       model.OutcomeUnknown,
		"output_drift":             model.OutcomeCommitted,
		"rate_limit":               model.OutcomeRejected,
		"break_trace_lineage":      model.OutcomeCommitted,
		// a reply without an error: OutcomeOf sees no error and says
		// committed, the model's crossing says rejected (the reply's
		// body carries the provider's error)
		"false_success": model.OutcomeCommitted,
		"server_error":  model.OutcomeUnknown,
		"network_error": model.OutcomeUnknown,
		// the provider's refusals outside the catalogue
		"do_not_retry":       model.OutcomeRejected,
		"provider_outage":    model.OutcomeRejected,
		"credential_expired": model.OutcomeRejected,
	}
	require.Len(t, want, len(callfault.Kinds())+1)
	for _, kind := range append([]string{""}, callfault.Kinds()...) {
		l := &ledgerSvc{}
		var got []model.Outcome
		sys := sysFunc{l: l, run: func(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
			charge, err := callfault.Wrap(env.Calls, full, l.charge)
			if err != nil {
				return model.Claim{}, err
			}
			_, err = charge(ctx, chargeReq{Key: task.ID + ":charge", Subject: task.Subject, Amount: task.Amount, Trace: task.Trace})
			got = append(got, callfault.OutcomeOf(err))
			return model.Claim{Verdict: model.ClaimHold}, nil
		}}
		var faults []model.FaultEntry
		if kind != "" {
			faults = []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: kind}}
		}
		res, err := model.NewHarness(billFixture, model.Options{Builtin: []string{}}).Run(func() model.System { return sys },
			&model.Schedule{Version: model.ScheduleVersion, Seed: "o", Faults: faults})
		require.NoError(t, err, kind)
		require.Len(t, got, 1, kind)
		assert.Equal(t, want[kind], got[0], "kind %q", kind)
		var commits []string
		for _, e := range res.Timeline.Events() {
			if e.Event == model.EvToolCommit {
				commits = append(commits, e.Outcome)
			}
		}
		crossing := want[kind].String()
		if kind == "false_success" {
			crossing = "rejected"
		}
		assert.Equal(t, []string{crossing}, commits, "kind %q: the model's outcome", kind)
	}
}

// TestOutcomeOfErrors: wrapped renderings keep their class; an error the
// client makes itself is unknown.
func TestOutcomeOfErrors(t *testing.T) {
	for i, tc := range []struct {
		err  error
		want model.Outcome
	}{
		{nil, model.OutcomeCommitted},
		{fmt.Errorf("charging: %w", &callfault.RejectedError{Tool: "t", Kind: "reject_before_commit"}), model.OutcomeRejected},
		{fmt.Errorf("charging: %w", &callfault.RateLimitError{Tool: "t"}), model.OutcomeRejected},
		{fmt.Errorf("charging: %w", &callfault.TimeoutError{Tool: "t", Kind: "tool_timeout"}), model.OutcomeUnknown},
		{fmt.Errorf("%w (tool t, malformed_response)", callfault.ErrMalformed), model.OutcomeUnknown},
		{os.ErrDeadlineExceeded, model.OutcomeUnknown},
		{context.Canceled, model.OutcomeUnknown},
		{errors.New("connection reset by peer"), model.OutcomeUnknown},
	} {
		assert.Equal(t, tc.want, callfault.OutcomeOf(tc.err), "case %d", i)
	}
}
