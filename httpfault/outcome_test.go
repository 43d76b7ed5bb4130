package httpfault_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
)

// outcomeSystem posts one charge through the joined transport and records
// OutcomeOf of what its client saw, and the body it could still read.
type outcomeSystem struct {
	p   *jpayments
	got *[]string
	// render is JoinOptions.Render (nil: the default); header names the
	// answer headers got records
	render func(string, model.Millis) httpfault.Answer
	header []string
}

func (s outcomeSystem) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	tr, err := httpfault.Join(env.Calls, httpfault.InProcess(s.p), httpfault.JoinOptions{Classify: chargeRules, Render: s.render})
	if err != nil {
		return model.Claim{}, err
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:8080/charges", strings.NewReader(`{"subject":"acct-9","amount":300}`))
	req.Header.Set("Idempotency-Key", task.ID+":charge")
	resp, err := (&http.Client{Transport: tr}).Do(req)
	oc := httpfault.OutcomeOf(resp, err)
	body := ""
	if resp != nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body = string(b)
		if len(s.header) > 0 {
			body = resp.Status + " " + body
		}
		for _, h := range s.header {
			if v := resp.Header.Get(h); v != "" {
				body += " " + h + "=" + v
			}
		}
	}
	*s.got = append(*s.got, oc.String()+" "+body)
	return model.Claim{Verdict: model.ClaimHold}, nil
}

func (s outcomeSystem) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return s.p.ledger(), nil
}

// TestOutcomeOf: OutcomeOf of what the client saw for each kind Join
// renders is the outcome the model gave the crossing (the timeline's
// tool.commit outcome), and the body stays readable after it.
func TestOutcomeOf(t *testing.T) {
	want := map[string]string{
		"":                         `committed {"receipt_id":"ch_1","amount":300}`,
		"sandbox_denial":           `rejected `,
		"timeout_before_send":      `unknown `,
		"reject_before_commit":     `rejected {"error":"rejected before commit"}`,
		"timeout_after_commit":     `unknown `,
		"partial_success_response": `committed {"amount":300}`,
		"malformed_response":       `unknown {"receipt_id":"ch`,
		"output_drift":             `committed {"amount":"300","receiptId":"ch_1"}`,
		"rate_limit":               `rejected {"error":"rate limited"}`,
		"tool_timeout":             `unknown `,
		"budget_exhaustion":        `unknown `,
		"break_trace_lineage":      `committed {"receipt_id":"ch_1","amount":300}`,
		"false_success":            `rejected {"ok":false,"error":"the provider failed the request; nothing was committed"}`,
		"server_error":             `unknown {"error":{"type":"api_error","message":"internal server error"}}`,
		"network_error":            `unknown `,
		"do_not_retry":             `rejected {"error":"rejected permanently: do not retry"}`,
		// a 503 is unknown to OutcomeOf, as any 5xx (a gateway's may
		// come after the request was served); the model's outage refused it
		"provider_outage":    `unknown {"error":{"type":"service_unavailable","message":"the service is unavailable"}}`,
		"credential_expired": `rejected {"error":{"type":"authentication_error","message":"the access token has expired"}}`,
	}
	require.Len(t, want, len(httpfault.Kinds())+1)
	for _, kind := range append([]string{""}, httpfault.Kinds()...) {
		var got []string
		var faults []model.FaultEntry
		if kind != "" {
			faults = []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: kind}}
		}
		res, err := model.NewHarness(payFixture, model.Options{Builtin: []string{}}).Run(
			func() model.System { return outcomeSystem{p: &jpayments{}, got: &got} },
			&model.Schedule{Version: model.ScheduleVersion, Seed: "o", Faults: faults})
		require.NoError(t, err, kind)
		assert.Equal(t, []string{want[kind]}, got, "kind %q", kind)
		var commits []string
		for _, e := range res.Timeline.Events() {
			if e.Event == model.EvToolCommit {
				commits = append(commits, e.Outcome)
			}
		}
		crossing := strings.Fields(want[kind])[0]
		if kind == "provider_outage" {
			crossing = "rejected"
		}
		assert.Equal(t, []string{crossing}, commits, "kind %q: the model's outcome", kind)
	}
}

type failingBody struct{ io.Reader }

func (failingBody) Close() error { return nil }

// TestOutcomeOfAnswers: the rules on answers no fault shapes.
func TestOutcomeOfAnswers(t *testing.T) {
	answer := func(status int, body string) *http.Response {
		return &http.Response{StatusCode: status, Body: io.NopCloser(strings.NewReader(body))}
	}
	cut := &http.Response{StatusCode: 200, Body: failingBody{io.MultiReader(strings.NewReader(`{"receipt_id":`), iotestErr{})}}
	for i, tc := range []struct {
		resp *http.Response
		err  error
		want model.Outcome
	}{
		{answer(200, `{"receipt_id":"ch_1"}`), nil, model.OutcomeCommitted},
		{answer(201, `[1,2]`), nil, model.OutcomeCommitted},
		{answer(204, ``), nil, model.OutcomeCommitted},
		{answer(200, `{"ok":false,"error":"invalid_auth"}`), nil, model.OutcomeRejected},
		{answer(200, `{"data":null,"error":{"message":"denied"}}`), nil, model.OutcomeRejected},
		{answer(200, `{"receipt_id":"ch_1","error":null}`), nil, model.OutcomeCommitted},
		{&http.Response{StatusCode: 200, Body: http.NoBody}, nil, model.OutcomeCommitted},
		{&http.Response{StatusCode: 200}, nil, model.OutcomeCommitted},
		{answer(200, `charged`), nil, model.OutcomeCommitted},
		{answer(200, `{"receipt_id":"ch`), nil, model.OutcomeUnknown},
		{cut, nil, model.OutcomeUnknown},
		{answer(302, ``), nil, model.OutcomeUnknown},
		{answer(400, `{}`), nil, model.OutcomeRejected},
		{answer(409, `{}`), nil, model.OutcomeRejected},
		{answer(422, `{}`), nil, model.OutcomeRejected},
		{answer(429, `{}`), nil, model.OutcomeRejected},
		{answer(500, `{}`), nil, model.OutcomeUnknown},
		{answer(503, ``), nil, model.OutcomeUnknown},
		{nil, nil, model.OutcomeUnknown},
		{nil, fmt.Errorf("post: %w", httpfault.ErrSandboxDenied), model.OutcomeRejected},
		{nil, fmt.Errorf("post: %w", httpfault.ErrRefused), model.OutcomeRejected},
		{nil, fmt.Errorf("post: %w", httpfault.ErrScheme), model.OutcomeRejected},
		{nil, &httpfault.TimeoutError{Kind: "timeout_after_commit", Sent: true}, model.OutcomeUnknown},
		{nil, context.DeadlineExceeded, model.OutcomeUnknown},
		{nil, errors.New("connection reset by peer"), model.OutcomeUnknown},
	} {
		assert.Equal(t, tc.want, httpfault.OutcomeOf(tc.resp, tc.err), "case %d", i)
	}
	r := answer(200, `{"receipt_id":"ch_1"}`)
	require.Equal(t, model.OutcomeCommitted, httpfault.OutcomeOf(r, nil))
	b, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	assert.Equal(t, `{"receipt_id":"ch_1"}`, string(b))
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }
