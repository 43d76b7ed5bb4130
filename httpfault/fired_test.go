package httpfault_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
)

// answering is a provider that gives every commit the same answer and
// keeps a row for each 2xx, with the trace it was sent.
type answering struct {
	status int
	body   string
	rows   []model.LedgerEntry
	trace  string // the last request's
}

func (a *answering) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.trace = r.Header.Get("Traceparent")
	if a.status < 300 {
		a.rows = append(a.rows, model.LedgerEntry{Tool: "x", Key: r.Header.Get("Idempotency-Key"), Trace: r.Header.Get("Traceparent"), ReceiptID: fmt.Sprint(len(a.rows) + 1)})
	}
	w.WriteHeader(a.status)
	io.WriteString(w, a.body)
}

// oneCall sends one commit and writes down what the client received.
type oneCall struct {
	p    *answering
	opts httpfault.JoinOptions
	got  *string
}

func (s oneCall) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	opts := s.opts
	opts.Classify, _ = httpfault.Rules(httpfault.Rule{Method: "POST", Path: "/x", Class: httpfault.Commit, Tool: "x"})
	tr, err := httpfault.Join(env.Calls, httpfault.InProcess(s.p), opts)
	if err != nil {
		return model.Claim{}, err
	}
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://127.0.0.1/x", strings.NewReader(`{}`))
	req.Header.Set("Idempotency-Key", "k")
	req.Header.Set("Traceparent", "tr-1")
	resp, err := (&http.Client{Transport: tr}).Do(req)
	var te *httpfault.TimeoutError
	switch {
	case errors.As(err, &te):
		*s.got = fmt.Sprintf("timeout %s sent %v", te.Kind, te.Sent)
	case errors.Is(err, httpfault.ErrSandboxDenied):
		*s.got = "sandbox denied"
	case err != nil:
		*s.got = "error " + err.Error()
	default:
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		*s.got = fmt.Sprintf("%d %s", resp.StatusCode, b)
	}
	return model.Claim{Verdict: model.ClaimHold}, nil
}

func (s oneCall) ProviderLedger(context.Context) ([]model.LedgerEntry, error) { return s.p.rows, nil }

// TestJoinFiredExactly: for every kind the transport renders (the
// catalogue's and the provider's refusals outside it), the fault
// is recorded fired exactly when the client received the disturbed
// answer: over a 2xx with a receipt every kind fires and the client gets
// its rendering; over a 2xx without a receipt and over a 500 the kinds
// that act on a committed answer stay unfired and the client gets the
// provider's own answer (a lost reply of a 500 is not a lost commit).
func TestJoinFiredExactly(t *testing.T) {
	const ok, bare, fail = `{"receipt_id":"r1","amount":5}`, `{"amount":5}`, `{"error":"boom"}`
	const dnr = `400 {"error":"rejected permanently: do not retry"}`
	const outage = `503 {"error":{"type":"service_unavailable","message":"the service is unavailable"}}`
	const expired = `401 {"error":{"type":"authentication_error","message":"the access token has expired"}}`
	for _, tc := range []struct {
		kind               string
		receipt, noReceipt string // what the client gets over a 2xx with and without a receipt
		failed             string // over a 500
	}{
		{"sandbox_denial", "sandbox denied", "sandbox denied", "sandbox denied"},
		{"timeout_before_send", "timeout timeout_before_send sent false", "timeout timeout_before_send sent false", "timeout timeout_before_send sent false"},
		{"budget_exhaustion", "timeout budget_exhaustion sent false", "timeout budget_exhaustion sent false", "timeout budget_exhaustion sent false"},
		{"tool_timeout", "timeout tool_timeout sent false", "timeout tool_timeout sent false", "timeout tool_timeout sent false"},
		{"reject_before_commit", `422 {"error":"rejected before commit"}`, `422 {"error":"rejected before commit"}`, `422 {"error":"rejected before commit"}`},
		{"rate_limit", `429 {"error":"rate limited"}`, `429 {"error":"rate limited"}`, `429 {"error":"rate limited"}`},
		// outside the catalogue: the provider's refusals (a lasting one's
		// later answers: TestJoinLastingFiredExactly)
		{"do_not_retry", dnr, dnr, dnr},
		{"provider_outage", outage, outage, outage},
		{"credential_expired", expired, expired, expired},
		{"timeout_after_commit", "timeout timeout_after_commit sent true", "timeout timeout_after_commit sent true", "500 " + fail},
		{"partial_success_response", `200 {"amount":5}`, "200 " + bare, "500 " + fail},
		{"malformed_response", `200 {"receipt_id":"`, "200 " + bare, "500 " + fail},
		{"output_drift", `200 {"amount":"5","receiptId":"r1"}`, "200 " + bare, "500 " + fail},
		{"break_trace_lineage", "200 " + ok + " trace orphan-req-1", "200 " + bare + " trace orphan-req-1", "500 " + fail + " trace orphan-req-1"},
	} {
		for _, p := range []struct {
			status int
			body   string
			want   string
		}{{200, ok, tc.receipt}, {200, bare, tc.noReceipt}, {500, fail, tc.failed}} {
			prov := &answering{status: p.status, body: p.body}
			var got string
			res, err := model.NewHarness(payFixture, model.Options{Builtin: []string{}}).Run(func() model.System { return oneCall{p: prov, got: &got} },
				&model.Schedule{Version: model.ScheduleVersion, Seed: "f", Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: tc.kind}}})
			if err != nil {
				t.Fatalf("%s over %d %s: %v", tc.kind, p.status, p.body, err)
			}
			if tc.kind == "break_trace_lineage" { // a disturbed request: the provider got another trace
				got += " trace " + prov.trace
			}
			disturbed := got != fmt.Sprintf("%d %s", p.status, p.body)
			if got != p.want || (res.Faults[0].Fired == 1) != disturbed || !res.Faults[0].Reached {
				t.Errorf("%s over %d %s: client got %q (want %q), fault %+v", tc.kind, p.status, p.body, got, p.want, res.Faults[0])
			}
		}
	}
}

// TestJoinAnswerFaultNeverPassesSilently: an answer fault recorded fired
// whose rewrite leaves the receipt the Result reads (the receipt is not
// the top-level field JoinOptions.Receipt names) ends the run with an
// error naming the cause, instead of handing the client the untouched
// answer.
func TestJoinAnswerFaultNeverPassesSilently(t *testing.T) {
	nested := func(key string, resp *http.Response, body []byte) model.ToolResult {
		if resp.StatusCode != 200 {
			return model.ToolResult{Outcome: model.OutcomeRejected}
		}
		i := strings.Index(string(body), `"id":"`)
		if i < 0 {
			return model.ToolResult{Outcome: model.OutcomeCommitted}
		}
		id, _, _ := strings.Cut(string(body)[i+6:], `"`)
		return model.ToolResult{Outcome: model.OutcomeCommitted, Receipt: &model.Receipt{ID: id, Key: key}}
	}
	for _, kind := range []string{"partial_success_response", "output_drift"} {
		var got string
		prov := &answering{status: 200, body: `{"charge":{"id":"ch_1"}}`}
		_, err := model.NewHarness(payFixture, model.Options{Builtin: []string{}}).Run(func() model.System {
			return oneCall{p: prov, got: &got, opts: httpfault.JoinOptions{Result: nested}}
		}, &model.Schedule{Version: model.ScheduleVersion, Seed: "f", Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: kind}}})
		want := "httpfault: commit POST http://127.0.0.1/x: " + kind + ` fired and the answer still carries its receipt "ch_1" as JoinOptions.Result reads it (the transport rewrites the top-level field "receipt_id": set JoinOptions.Receipt)`
		if err == nil || err.Error() != want || got != "error Post \"http://127.0.0.1/x\": "+want {
			t.Errorf("%s: run error %v, client got %q", kind, err, got)
		}
	}
}

// TestJoinAnswerFaultOnAStream: the answer faults are decided on the
// answer the provider gave. Over a server-sent-event stream whose
// receipt the Result reads (not a JSON object, which the body rewrite
// reads) partial_success_response and output_drift are reached and stay
// unfired, and the client gets the stream untouched; malformed_response
// cuts it to half and fires. Over a JSON answer each fires (its counterpart
// in TestJoinFiredExactly).
func TestJoinAnswerFaultOnAStream(t *testing.T) {
	const stream = "data: {\"receipt_id\":\"r1\"}\n\ndata: [DONE]\n\n"
	streamed := func(key string, resp *http.Response, body []byte) model.ToolResult {
		_, rest, ok := strings.Cut(string(body), `data: {"receipt_id":"`)
		id, _, whole := strings.Cut(rest, `"`)
		if !ok || !whole || !strings.Contains(rest, "data: [DONE]") {
			return model.ToolResult{Outcome: model.OutcomeCommitted}
		}
		return model.ToolResult{Outcome: model.OutcomeCommitted, Receipt: &model.Receipt{ID: id, Key: key}}
	}
	for _, tc := range []struct {
		kind, got string
		fired     int
	}{
		{"partial_success_response", "200 " + stream, 0},
		{"output_drift", "200 " + stream, 0},
		{"malformed_response", "200 " + stream[:len(stream)/2], 1},
	} {
		var got string
		prov := &answering{status: 200, body: stream}
		res, err := model.NewHarness(payFixture, model.Options{Builtin: []string{}}).Run(func() model.System {
			return oneCall{p: prov, got: &got, opts: httpfault.JoinOptions{Result: streamed}}
		}, &model.Schedule{Version: model.ScheduleVersion, Seed: "f", Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: tc.kind}}})
		if err != nil || got != tc.got || !res.Faults[0].Reached || res.Faults[0].Fired != tc.fired {
			t.Errorf("%s: run error %v, client got %q (want %q), fault %+v", tc.kind, err, got, tc.got, res.Faults[0])
		}
	}
}
