package callfault_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/faultline/faultline/callfault"
	"github.com/faultline/faultline/model"
)

// TestWrapFiredExactly: for every kind at tool.commit (and the provider's
// refusals outside the catalogue), the fault is
// recorded fired exactly when the caller received the disturbed answer:
// over a reply with a receipt every kind fires and the caller gets the
// spec's rendering; over a reply without a receipt and over the client's
// own error the kinds that act on a committed answer stay unfired and
// the caller gets the provider's own answer.
func TestWrapFiredExactly(t *testing.T) {
	errDown := errors.New("ledger: 503")
	withReceipt, noReceipt := chargeResp{Receipt: "ch_1", Amount: 5}, chargeResp{Amount: 5}
	show := func(r chargeResp, err error) string { return fmt.Sprintf("%+v %v", r, err) }
	lost, refused := show(chargeResp{}, errTimeout), show(chargeResp{}, errRefused)
	for _, tc := range []struct {
		kind                           string
		receipt, noReceipt, clientsErr string
	}{
		{"sandbox_denial", refused, refused, refused},
		{"timeout_before_send", lost, lost, lost},
		{"budget_exhaustion", lost, lost, lost},
		{"tool_timeout", lost, lost, lost},
		{"reject_before_commit", refused, refused, refused},
		// outside the catalogue: the provider's refusals, each by its class
		{"do_not_retry", refused, refused, refused},
		{"provider_outage", show(chargeResp{}, errUnavailable), show(chargeResp{}, errUnavailable), show(chargeResp{}, errUnavailable)},
		{"credential_expired", show(chargeResp{}, errUnauthorized), show(chargeResp{}, errUnauthorized), show(chargeResp{}, errUnauthorized)},
		{"rate_limit", show(chargeResp{}, busyError{100_000_000}), show(chargeResp{}, busyError{100_000_000}), show(chargeResp{}, busyError{100_000_000})},
		{"timeout_after_commit", lost, lost, show(chargeResp{}, errDown)},
		{"partial_success_response", show(noReceipt, nil), show(noReceipt, nil), show(chargeResp{}, errDown)},
		{"malformed_response", show(chargeResp{}, fmt.Errorf("%w (tool charge, malformed_response)", callfault.ErrMalformed)), show(noReceipt, nil), show(chargeResp{}, errDown)},
		{"output_drift", show(chargeResp{}, nil), show(noReceipt, nil), show(chargeResp{}, errDown)},
		{"break_trace_lineage", show(withReceipt, nil) + " trace orphan-req-1", show(noReceipt, nil) + " trace orphan-req-1", show(chargeResp{}, errDown) + " trace orphan-req-1"},
	} {
		for _, p := range []struct {
			resp chargeResp
			err  error
			want string
		}{{withReceipt, nil, tc.receipt}, {noReceipt, nil, tc.noReceipt}, {chargeResp{}, errDown, tc.clientsErr}} {
			var got, trace string
			var rows []model.LedgerEntry
			provider := func(_ context.Context, r chargeReq) (chargeResp, error) {
				trace = r.Trace
				if p.err == nil {
					rows = append(rows, model.LedgerEntry{Tool: "charge", Key: r.Key, ReceiptID: fmt.Sprint(len(rows) + 1)})
				}
				return p.resp, p.err
			}
			sys := sysFunc{l: &ledgerSvc{}, run: func(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
				charge, err := callfault.Wrap(env.Calls, spec, provider)
				if err != nil {
					return model.Claim{}, err
				}
				got = show(charge(ctx, chargeReq{Key: "k", Trace: "tr-1"}))
				return model.Claim{Verdict: model.ClaimHold}, nil
			}}
			res, err := model.NewHarness(billFixture, model.Options{Builtin: []string{}}).Run(func() model.System { return ledgerOf{sys, &rows} },
				&model.Schedule{Version: model.ScheduleVersion, Seed: "f", Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: tc.kind}}})
			if err != nil {
				t.Fatalf("%s over %s: %v", tc.kind, show(p.resp, p.err), err)
			}
			if tc.kind == "break_trace_lineage" { // a disturbed request: the provider got another trace
				got += " trace " + trace
			}
			disturbed := got != show(p.resp, p.err)
			if got != p.want || (res.Faults[0].Fired == 1) != disturbed || !res.Faults[0].Reached {
				t.Errorf("%s over %s: caller got %q (want %q), fault %+v", tc.kind, show(p.resp, p.err), got, p.want, res.Faults[0])
			}
		}
	}
}

// TestWrapAnswerFaultNeverPassesSilently: a StripReceipt that leaves the
// receipt in the reply ends the run with an error naming the cause.
func TestWrapAnswerFaultNeverPassesSilently(t *testing.T) {
	s := spec
	s.StripReceipt = func(r chargeResp) chargeResp { return r }
	l := &ledgerSvc{}
	sys := sysFunc{l: l, run: func(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
		charge, err := callfault.Wrap(env.Calls, s, l.charge)
		if err != nil {
			return model.Claim{}, err
		}
		charge(ctx, chargeReq{Key: "k"})
		return model.Claim{Verdict: model.ClaimHold}, nil
	}}
	_, err := model.NewHarness(billFixture, model.Options{Builtin: []string{}}).Run(func() model.System { return sys },
		&model.Schedule{Version: model.ScheduleVersion, Seed: "f", Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "partial_success_response"}}})
	if want := `callfault: tool charge: partial_success_response fired and the reply the spec rendered still carries its receipt "ch_1" as Spec.Result reads it`; err == nil || err.Error() != want {
		t.Errorf("run error %v\nwant %s", err, want)
	}
}

// ledgerOf is a System whose provider ledger is rows.
type ledgerOf struct {
	sysFunc
	rows *[]model.LedgerEntry
}

func (s ledgerOf) ProviderLedger(context.Context) ([]model.LedgerEntry, error) { return *s.rows, nil }
