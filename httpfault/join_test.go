package httpfault_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// jpayments is a fake payment provider outside the model: an HTTP handler
// over its own table of charges, idempotent by the Idempotency-Key header
// (a charge without one is a new charge).
// POST /charges charges, GET /charges lists, POST /quote prices (no
// effect).
type jpayments struct {
	mu   sync.Mutex
	rows []model.LedgerEntry
}

func (p *jpayments) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/charges":
		var in struct {
			Subject string `json:"subject"`
			Amount  int64  `json:"amount"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, `{"error":"bad body"}`, http.StatusBadRequest)
			return
		}
		key := r.Header.Get("Idempotency-Key")
		for _, row := range p.rows {
			if key != "" && row.Key == key {
				w.Header().Set("Idempotent-Replayed", "true")
				fmt.Fprintf(w, `{"receipt_id":%q,"amount":%d}`, row.ReceiptID, row.Amount)
				return
			}
		}
		id := "ch_" + strconv.Itoa(len(p.rows)+1)
		p.rows = append(p.rows, model.LedgerEntry{Tool: "charge", Key: key, ActionRef: key, Subject: in.Subject,
			Amount: in.Amount, Trace: r.Header.Get("Traceparent"), ReceiptID: id})
		fmt.Fprintf(w, `{"receipt_id":%q,"amount":%d}`, id, in.Amount)
	case r.Method == http.MethodGet && r.URL.Path == "/charges":
		type row struct {
			Key   string `json:"key"`
			Trace string `json:"trace"`
		}
		var out []row
		for _, e := range p.rows {
			out = append(out, row{e.Key, e.Trace})
		}
		json.NewEncoder(w).Encode(out)
	case r.Method == http.MethodPost && r.URL.Path == "/quote":
		io.WriteString(w, `{"price":300}`)
	case r.Method == http.MethodPost && r.URL.Path == "/token":
		io.WriteString(w, `{"access_token":"tok-2"}`)
	default:
		http.NotFound(w, r)
	}
}

func (p *jpayments) ledger() []model.LedgerEntry {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]model.LedgerEntry(nil), p.rows...)
}

// jpayer is production code's shape: it imports no faultline package and
// takes its *http.Client from its constructor. Its options plant the bugs
// of the counterfactual pairs.
type jpayer struct {
	client  *http.Client
	base    string
	retries int
	// freshKey retries under a new idempotency key
	freshKey bool
	// trustAnswer takes any answer, and a final error, for done
	trustAnswer bool
	// verifyTrace reads the charges back and holds when its charge does
	// not carry its trace
	verifyTrace bool
	// noKey sends its charges without an idempotency key
	noKey bool
	// process, when set, is in every key: a key per process, which a
	// restarted worker does not reuse (a blind resume)
	process string
	// statusOnly takes a 200 for done without reading its body
	statusOnly bool
	// retry5xx retries a 5xx answer as it does a failed connection
	retry5xx bool
	// retry4xx retries a 4xx answer (a 429 aside) at once, one that said
	// not to retry included
	retry4xx bool
	// backoff, when set, is the first wait before a retry of a 503,
	// doubled after each
	backoff time.Duration
	// reauth answers a 401 by fetching a fresh token (POST /token, no
	// crossing) after 100 ms and retrying with it, once
	reauth bool
	// auth is the Authorization header the charges carry
	auth string
}

// pay charges subject once and reports whether it may release.
func (p jpayer) pay(ctx context.Context, id, subject string, amount int64, trace string) (string, bool, error) {
	key := id + ":charge"
	if p.process != "" {
		key += ":" + p.process
	}
	if p.noKey {
		key = ""
	}
	if _, err := p.post(ctx, "/quote", "", trace, `{}`); err != nil {
		return "", false, err
	}
	p.auth = "Bearer tok-1"
	wait := p.backoff
	for attempt := 0; attempt <= p.retries; attempt++ {
		if attempt > 0 && p.freshKey {
			key = id + ":charge-" + strconv.Itoa(attempt)
		}
		resp, err := p.post(ctx, "/charges", key, trace, fmt.Sprintf(`{"subject":%q,"amount":%d}`, subject, amount))
		if err != nil {
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var out struct {
			Receipt string `json:"receipt_id"`
			Amount  int64  `json:"amount"`
		}
		decoded := json.Unmarshal(body, &out) == nil
		if p.trustAnswer || p.statusOnly && resp.StatusCode == http.StatusOK {
			return out.Receipt, true, nil
		}
		switch {
		case resp.StatusCode == http.StatusServiceUnavailable && wait > 0:
			//faultline:ignore production code waits on the time package; the test runs it in a synctest bubble, whose clock is the run's
			time.Sleep(wait)
			wait *= 2
			continue
		case resp.StatusCode == http.StatusUnauthorized && p.reauth && p.auth == "Bearer tok-1":
			// a fresh token, fetched after a pause: a retry at the
			// instant of the 401 crosses with it and is refused again
			//faultline:ignore production code waits on the time package; the test runs it in a synctest bubble, whose clock is the run's
			time.Sleep(100 * time.Millisecond)
			tok, err := p.post(ctx, "/token", "", trace, `{"grant_type":"refresh_token"}`)
			if err != nil {
				return "", false, err
			}
			var fresh struct {
				Token string `json:"access_token"`
			}
			json.NewDecoder(tok.Body).Decode(&fresh)
			tok.Body.Close()
			p.auth = "Bearer " + fresh.Token
			continue
		case resp.StatusCode >= 500 && p.retry5xx:
			continue
		case resp.StatusCode >= 400 && resp.StatusCode != http.StatusTooManyRequests && p.retry4xx:
			continue
		case resp.StatusCode == http.StatusTooManyRequests:
			secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			//faultline:ignore production code waits on the time package; the test runs it in a synctest bubble, whose clock is the run's
			time.Sleep(time.Duration(secs) * time.Second)
			continue
		case resp.StatusCode != http.StatusOK:
			return "", false, nil
		}
		if !decoded || out.Receipt == "" {
			continue // no proof: try again
		}
		if p.verifyTrace {
			ok, err := p.traced(ctx, key, trace)
			return out.Receipt, ok, err
		}
		return out.Receipt, true, nil
	}
	return "", p.trustAnswer, nil
}

func (p jpayer) post(ctx context.Context, path, key, trace, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.base+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	req.Header.Set("Traceparent", trace)
	if p.auth != "" {
		req.Header.Set("Authorization", p.auth)
	}
	resp, err := p.client.Do(req)
	if err == nil && path == "/quote" {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return resp, err
}

// traced reads the charges back: true when the charge of key carries trace.
func (p jpayer) traced(ctx context.Context, key, trace string) (bool, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/charges", nil)
	resp, err := p.client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	var rows []struct{ Key, Trace string }
	if err := json.NewDecoder(resp.Body).Decode(&rows); err != nil {
		return false, err
	}
	for _, r := range rows {
		if r.Key == key {
			return r.Trace == trace, nil
		}
	}
	return false, nil
}

// chargeRules: POST /charges commits, GET /charges reads, POST /quote is
// neither.
var chargeRules, _ = httpfault.Rules(
	httpfault.Rule{Method: "POST", Path: "/charges", Class: httpfault.Commit, Tool: "charge"},
	httpfault.Rule{Method: "GET", Path: "/charges", Class: httpfault.Read},
)

// paySystem is the test's System: it wires the joined transport around an
// in-process client of the provider and runs the jpayer.
type paySystem struct {
	p    *jpayments
	cfg  jpayer
	base string
	opts httpfault.JoinOptions
	// keyFromBody puts httpfault.KeyFromBody between the client and the
	// joined transport
	keyFromBody bool
}

func (s paySystem) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	opts := s.opts
	if opts.Classify == nil {
		opts.Classify = chargeRules
	}
	tr, err := httpfault.Join(env.Calls, httpfault.InProcess(s.p), opts)
	if err != nil {
		return model.Claim{}, err
	}
	p := s.cfg
	p.client, p.base = &http.Client{Transport: tr}, s.base
	if s.keyFromBody {
		p.client.Transport = httpfault.KeyFromBody(tr)
	}
	if p.base == "" {
		p.base = "http://127.0.0.1:8080"
	}
	receipt, ok, err := p.pay(ctx, task.ID, task.Subject, task.Amount, task.Trace)
	if err != nil {
		return model.Claim{}, err
	}
	if ok {
		return model.Claim{Verdict: model.ClaimRelease, Receipt: receipt}, nil
	}
	return model.Claim{Verdict: model.ClaimHold, Reason: "not proven"}, nil
}

func (s paySystem) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return s.p.ledger(), nil
}

var payFixture = model.Fixture{Name: "pay", Tasks: []model.Task{{ID: "inv-1", Actor: "agent", Subject: "acct-9",
	Tenant: "t", Purpose: "invoice", Amount: 300, Trace: "tr-1", RetryBudget: 2}}}

// traceJoined is the user's own invariant: no release while an effect of
// the task carries a trace other than the task's.
var traceJoined = model.UserInvariant{Name: "trace_joined", Owner: "jpayments", Oracle: "ledger_readback",
	Doc: "no release while a charge of the task carries another trace",
	Check: func(v model.View) string {
		if c, ok := v.Claim(); !ok || c.Verdict != model.ClaimRelease {
			return ""
		}
		for _, e := range v.Ledger() {
			if e.Task == v.Task().ID && e.Trace != v.Task().Trace {
				return "charge " + e.ReceiptID + " carries trace " + e.Trace
			}
		}
		return ""
	}}

// runPay runs one schedule through the joined transport inside a synctest
// bubble, whose fake clock is the run's clock.
func runPay(t *testing.T, cfg jpayer, faults ...model.FaultEntry) (*model.Result, []model.LedgerEntry) {
	t.Helper()
	var res *model.Result
	var rows []model.LedgerEntry
	synctest.Test(t, func(t *testing.T) {
		h := model.NewHarness(payFixture, model.Options{
			Builtin:    []string{model.InvEffectAtMostOnce, model.InvNoInventedProgress, model.InvBudget},
			Invariants: []model.UserInvariant{traceJoined},
			Clock:      properties.BubbleClock,
		})
		p := &jpayments{}
		var err error
		res, err = h.Run(func() model.System { return paySystem{p: p, cfg: cfg} },
			&model.Schedule{Version: model.ScheduleVersion, Seed: "pay", Faults: faults})
		if err != nil {
			t.Fatal(err)
		}
		rows = p.ledger()
	})
	return res, rows
}

var defended = jpayer{retries: 2, verifyTrace: true, backoff: 600 * time.Millisecond, reauth: true}

// TestJoinCounterfactuals: for every kind the joined transport renders, a
// client with the planted bug breaks the named invariant, read from the
// provider's own rows, and the defended client holds.
func TestJoinCounterfactuals(t *testing.T) {
	trusting := jpayer{trustAnswer: true}
	fresh := jpayer{retries: 2, freshKey: true}
	var kinds []string
	for _, tc := range []struct {
		kind      string
		bad       jpayer
		inv       string
		event     model.EventName
		detail    string
		badRows   int
		goodRows  int
		goodClaim model.ClaimVerdict
	}{
		{"sandbox_denial", trusting, model.InvNoInventedProgress, model.EvClaim, "release although the ledger holds no effect of the task", 0, 1, model.ClaimRelease},
		{"timeout_before_send", trusting, model.InvNoInventedProgress, model.EvClaim, "release although the ledger holds no effect of the task", 0, 1, model.ClaimRelease},
		{"reject_before_commit", trusting, model.InvNoInventedProgress, model.EvClaim, "release although the ledger holds no effect of the task", 0, 0, model.ClaimHold},
		{"rate_limit", trusting, model.InvNoInventedProgress, model.EvClaim, "release although the ledger holds no effect of the task", 0, 1, model.ClaimRelease},
		{"tool_timeout", fresh, model.InvEffectAtMostOnce, model.EvToolCommit, "second ledger effect for task inv-1", 2, 1, model.ClaimRelease},
		{"budget_exhaustion", jpayer{retries: 5}, model.InvBudget, model.EvToolCommit, "attempt 4 exceeds one plus the retry budget of 2", 0, 0, model.ClaimHold},
		{"timeout_after_commit", fresh, model.InvEffectAtMostOnce, model.EvToolCommit, "second ledger effect for task inv-1", 2, 1, model.ClaimRelease},
		{"partial_success_response", fresh, model.InvEffectAtMostOnce, model.EvToolCommit, "second ledger effect for task inv-1", 2, 1, model.ClaimRelease},
		{"malformed_response", fresh, model.InvEffectAtMostOnce, model.EvToolCommit, "second ledger effect for task inv-1", 2, 1, model.ClaimRelease},
		{"output_drift", fresh, model.InvEffectAtMostOnce, model.EvToolCommit, "second ledger effect for task inv-1", 2, 1, model.ClaimRelease},
		{"false_success", jpayer{retries: 2, statusOnly: true}, model.InvNoInventedProgress, model.EvClaim, "release although the ledger holds no effect of the task", 0, 1, model.ClaimRelease},
		// before commit (after it: TestJoinTransportAfterCommit)
		{"server_error", trusting, model.InvNoInventedProgress, model.EvClaim, "release although the ledger holds no effect of the task", 0, 0, model.ClaimHold},
		{"network_error", trusting, model.InvNoInventedProgress, model.EvClaim, "release although the ledger holds no effect of the task", 0, 1, model.ClaimRelease},
		{"break_trace_lineage", jpayer{}, "trace_joined", model.EvClaim, "charge ch_1 carries trace orphan-req-1", 1, 1, model.ClaimHold},
	} {
		kinds = append(kinds, tc.kind)
		t.Run(tc.kind, func(t *testing.T) {
			f := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: tc.kind}
			res, rows := runPay(t, tc.bad, f)
			inv, _ := res.Invariant(tc.inv)
			first := 3 // worker.start, tool.commit, then the event that breaks it
			if tc.kind == "budget_exhaustion" {
				first = 5 // the fourth attempt
			}
			if inv.Held || inv.Event != tc.event || inv.FaultID != "f1" || inv.Detail != tc.detail || inv.FirstSeq != first {
				t.Fatalf("undefended: %s %+v, want broken at %s by f1 (%s)", tc.inv, inv, tc.event, tc.detail)
			}
			if len(rows) != tc.badRows || res.Faults[0].Fired != 1 && tc.kind != "budget_exhaustion" {
				t.Fatalf("undefended: %d rows (want %d), fault %+v", len(rows), tc.badRows, res.Faults[0])
			}
			res, rows = runPay(t, defended, f)
			if !res.Held() || len(rows) != tc.goodRows || res.Faults[0].Fired == 0 || res.Claims[0].Verdict != tc.goodClaim {
				t.Fatalf("defended: held %v, %d rows (want %d), fault %+v, claims %+v, invariants %+v", res.Held(), len(rows), tc.goodRows, res.Faults[0], res.Claims, res.Invariants)
			}
		})
	}
	slices.Sort(kinds)
	if want := slices.Sorted(slices.Values(slices.DeleteFunc(httpfault.Kinds(), func(k string) bool { return k == "do_not_retry" || k == "provider_outage" || k == "credential_expired" }))); !slices.Equal(want, kinds) { // the refusals: TestJoinProviderRefusals
		t.Fatalf("kinds with a pair %v, rendered %v", kinds, want)
	}
}

// TestJoinTransportAfterCommit: server_error and network_error after the
// provider committed (target after_commit; the model says it committed,
// the provider's rows agree). A client that retries the 500 or the reset
// connection under a fresh key charges twice (effect_at_most_once, read
// from the provider's two rows); the client that retries under the same
// key is replayed once and releases the first charge.
func TestJoinTransportAfterCommit(t *testing.T) {
	fresh := jpayer{retries: 2, freshKey: true, retry5xx: true}
	good := jpayer{retries: 2, verifyTrace: true, retry5xx: true}
	for _, kind := range []string{"server_error", "network_error"} {
		f := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: kind, Target: "after_commit"}
		res, rows := runPay(t, fresh, f)
		inv, _ := res.Invariant(model.InvEffectAtMostOnce)
		if inv.Held || inv.Event != model.EvToolCommit || inv.FaultID != "f1" || inv.Detail != "second ledger effect for task inv-1" || len(rows) != 2 {
			t.Fatalf("%s, fresh key: %+v, %d rows", kind, inv, len(rows))
		}
		res, rows = runPay(t, good, f)
		if !res.Held() || len(rows) != 1 || res.Faults[0].Fired != 1 || res.Claims[0].Verdict != model.ClaimRelease {
			t.Fatalf("%s, same key: held %v, %d rows, fault %+v, claims %+v, invariants %+v", kind, res.Held(), len(rows), res.Faults[0], res.Claims, res.Invariants)
		}
	}
}

// TestJoinKinds: the joined transport renders every kind the catalogue
// places at tool.commit (the tool domain and break_trace_lineage), and
// nothing else of the catalogue, then the five kinds outside it.
func TestJoinKinds(t *testing.T) {
	got := strings.Join(httpfault.Kinds(), " ")
	want := "timeout_after_commit partial_success_response break_trace_lineage sandbox_denial timeout_before_send reject_before_commit malformed_response output_drift rate_limit tool_timeout budget_exhaustion false_success"
	if got != want+" server_error network_error do_not_retry provider_outage credential_expired" {
		t.Fatalf("Kinds %s", got)
	}
	var atCommit []string
	for _, s := range model.Catalogue() {
		if s.Event == model.EvToolCommit {
			atCommit = append(atCommit, s.Kind)
		}
	}
	if strings.Join(atCommit, " ") != want {
		t.Fatalf("kinds at tool.commit %v", atCommit)
	}
}

// TestJoinRateLimitClock: a rate limit's wait is the client's, on the
// run's clock: inside the bubble the client sleeps the Retry-After second
// at no wall-clock cost, and the timeline records it.
func TestJoinRateLimitClock(t *testing.T) {
	res, rows := runPay(t, defended, model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "rate_limit"})
	var got []string
	for _, e := range res.Timeline.Events() {
		got = append(got, fmt.Sprintf("%s/%s@%d", e.Event, e.Outcome, e.At))
	}
	want := "worker.start/@0 tool.commit/rejected@0 tool.commit/committed@1000 ledger.readback/ok@1000 claim/release@1000"
	if strings.Join(got, " ") != want || len(rows) != 1 {
		t.Fatalf("timeline %s\nwant     %s\nrows %d", strings.Join(got, " "), want, len(rows))
	}
}

// TestJoinDeterministic: the same schedule twice gives the same timeline.
func TestJoinDeterministic(t *testing.T) {
	faults := []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "tool_timeout"}, {Event: model.EvToolCommit, Ordinal: 2, Kind: "output_drift"}}
	a, _ := runPay(t, defended, faults...)
	b, _ := runPay(t, defended, faults...)
	if !reflect.DeepEqual(a.Timeline.Events(), b.Timeline.Events()) || len(a.Timeline.Events()) != 6 {
		t.Fatalf("timelines differ or wrong length (%d):\n%+v\n%+v", len(a.Timeline.Events()), a.Timeline, b.Timeline)
	}
}

// TestJoinBadInput: a non-loopback host, a key extractor's error and a
// classifier error end the run with an error naming them, though the
// system swallows the transport's error; Join and Rules refuse bad options.
func TestJoinBadInput(t *testing.T) {
	h := model.NewHarness(payFixture, model.Options{Builtin: []string{}})
	noKey := func(*http.Request, []byte) (string, error) { return "", errors.New("the body names no invoice") }
	badClass := func(*http.Request, []byte) (httpfault.Classified, error) {
		return httpfault.Classified{}, errors.New("unreadable")
	}
	for name, tc := range map[string]struct {
		sys  paySystem
		want string
	}{
		"remote host": {paySystem{base: "http://example.com"}, `httpfault: host not in the allowlist: refusing POST http://example.com/quote: host "example.com" (allowed: 127.0.0.0/8, ::1, localhost)`},
		"no key":      {paySystem{opts: httpfault.JoinOptions{Key: noKey}}, "httpfault: commit POST http://127.0.0.1:8080/charges (tool charge): idempotency key: the body names no invoice"},
		"classifier":  {paySystem{opts: httpfault.JoinOptions{Classify: badClass}}, "httpfault: classifying POST http://127.0.0.1:8080/quote: unreadable"},
	} {
		tc.sys.p = &jpayments{}
		tc.sys.cfg = jpayer{trustAnswer: true} // swallows every error
		_, err := h.Run(func() model.System { return tc.sys }, &model.Schedule{Version: model.ScheduleVersion, Seed: "b"})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: run error %v\nwant %s", name, err, tc.want)
		}
	}
	if _, err := httpfault.Join(nil, nil, httpfault.JoinOptions{Classify: chargeRules}); err == nil || !strings.Contains(err.Error(), "nil Calls") {
		t.Errorf("nil Calls: %v", err)
	}
	var calls model.Calls = nopCalls{}
	if _, err := httpfault.Join(calls, nil, httpfault.JoinOptions{}); err == nil || !strings.Contains(err.Error(), "Classify is nil") {
		t.Errorf("nil Classify: %v", err)
	}
	if _, err := httpfault.Join(calls, nil, httpfault.JoinOptions{Classify: chargeRules, Allow: []string{"not a host!"}}); err == nil || !strings.Contains(err.Error(), `"not a host!"`) {
		t.Errorf("bad allow: %v", err)
	}
	if _, err := httpfault.Rules(httpfault.Rule{Path: "/a/["}); err == nil || !strings.Contains(err.Error(), `rule 1: path pattern "/a/["`) {
		t.Errorf("bad pattern: %v", err)
	}
	if _, err := httpfault.Rules(httpfault.Rule{Path: "/a", Class: httpfault.Commit, Event: model.EvStateRead}); err == nil || !strings.Contains(err.Error(), "only a read") {
		t.Errorf("event on a commit: %v", err)
	}
}

type nopCalls struct{}

func (nopCalls) Commit(context.Context, model.ToolCall, func(context.Context, model.ToolCall) model.ToolResult) (model.Committed, error) {
	return model.Committed{}, errors.New("nop")
}
func (nopCalls) Enter(context.Context, model.EventName) (*model.Step, error) {
	return nil, errors.New("nop")
}
func (nopCalls) Fail(error) {}
func (nopCalls) Err() error { return nil }
func (nopCalls) CommitOnly(context.Context, model.ToolCall, func(string) bool, func(context.Context, model.ToolCall) model.ToolResult) (model.Committed, error) {
	return model.Committed{}, errors.New("nop")
}

// TestJSONRPCClassifier: over MCP's streamable HTTP only a tools/call of a
// commit tool is a commit.
func TestJSONRPCClassifier(t *testing.T) {
	c := httpfault.JSONRPC("delete_snapshot")
	for _, tc := range []struct {
		method, body string
		want         httpfault.Classified
		err          string
	}{
		{"POST", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`, httpfault.Classified{}, ""},
		{"POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, httpfault.Classified{}, ""},
		{"POST", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, httpfault.Classified{}, ""},
		{"POST", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_snapshots"}}`, httpfault.Classified{}, ""},
		{"POST", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"delete_snapshot","arguments":{"id":"s1"}}}`, httpfault.Classified{Class: httpfault.Commit, Tool: "delete_snapshot"}, ""},
		{"GET", ``, httpfault.Classified{}, ""},
		{"DELETE", ``, httpfault.Classified{}, ""},
		{"POST", `not json`, httpfault.Classified{}, ""},
		{"POST", `[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`, httpfault.Classified{}, ""},
		{"POST", `[{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"delete_snapshot"}}]`, httpfault.Classified{}, `httpfault: a JSON-RPC batch carries tools/call "delete_snapshot", a commit: send it alone`},
	} {
		req, _ := http.NewRequest(tc.method, "http://127.0.0.1/mcp", strings.NewReader(tc.body))
		got, err := c(req, []byte(tc.body))
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err {
			t.Errorf("%s %s: %+v, %v", tc.method, tc.body, got, err)
		}
	}
}

// TestJSONRPCKey: the key of a tools/call from _meta, else the arguments.
func TestJSONRPCKey(t *testing.T) {
	k := httpfault.JSONRPCKey("key")
	for body, want := range map[string]string{
		`{"params":{"_meta":{"key":"m1"},"arguments":{"key":"a1"}}}`: "m1",
		`{"params":{"arguments":{"key":"a1"}}}`:                      "a1",
		`{"params":{"arguments":{"key":7}}}`:                         `error: no string "key" in params._meta or params.arguments`,
		`{"params":{"arguments":{"other":"a1"}}}`:                    "",
		`{`: "error: the body is not a JSON-RPC request: unexpected end of JSON input",
	} {
		got, err := k(nil, []byte(body))
		if err != nil {
			got = "error: " + err.Error()
		}
		if got != want {
			t.Errorf("%s: %s, want %s", body, got, want)
		}
	}
}

// mcpServer answers JSON-RPC over HTTP like a streamable-HTTP MCP server
// (JSON answers): initialize, tools/list, and tools/call of
// delete_snapshot, which deletes once per snapshot id.
type mcpServer struct {
	deleted []model.LedgerEntry
	posts   int
}

func (s *mcpServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.posts++
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string `json:"name"`
			Arguments struct {
				ID string `json:"id"`
			} `json:"arguments"`
		} `json:"params"`
	}
	json.NewDecoder(r.Body).Decode(&m)
	if m.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	result := `{}`
	if m.Method == "tools/call" {
		n := 0
		for _, d := range s.deleted {
			if d.Key == m.Params.Arguments.ID {
				n++
			}
		}
		if n == 0 {
			s.deleted = append(s.deleted, model.LedgerEntry{Tool: m.Params.Name, Key: m.Params.Arguments.ID, ActionRef: m.Params.Arguments.ID, ReceiptID: "del-" + m.Params.Arguments.ID})
		}
		result = `{"content":[{"type":"text","text":"deleted"}],"isError":false}`
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
}

type mcpSystem struct{ s *mcpServer }

func (m mcpSystem) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	tr, err := httpfault.Join(env.Calls, httpfault.InProcess(m.s), httpfault.JoinOptions{Classify: httpfault.JSONRPC("delete_snapshot"), Key: httpfault.JSONRPCKey("id"),
		Result: func(string, *http.Response, []byte) model.ToolResult {
			return model.ToolResult{Outcome: model.OutcomeCommitted}
		}})
	if err != nil {
		return model.Claim{}, err
	}
	c := &http.Client{Transport: tr}
	for i, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"delete_snapshot","arguments":{"id":"snap-1"}}}`,
	} {
		resp, err := c.Post("http://localhost/mcp", "application/json", bytes.NewReader([]byte(body)))
		if err != nil {
			return model.Claim{Verdict: model.ClaimHold, Reason: "message " + strconv.Itoa(i+1) + ": " + err.Error()}, nil
		}
		resp.Body.Close()
	}
	return model.Claim{Verdict: model.ClaimRelease}, nil
}

func (m mcpSystem) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return m.s.deleted, nil
}

// TestJoinMCPOverHTTP: initialize, the initialized notification and
// tools/list are not commits: a fault at the first tool.commit lands on
// the tools/call, which the server still performs.
func TestJoinMCPOverHTTP(t *testing.T) {
	s := &mcpServer{}
	h := model.NewHarness(payFixture, model.Options{Builtin: []string{model.InvEffectAtMostOnce}})
	res, err := h.Run(func() model.System { return mcpSystem{s} }, &model.Schedule{Version: model.ScheduleVersion, Seed: "m",
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}}})
	if err != nil {
		t.Fatal(err)
	}
	var evs []string
	for _, e := range res.Timeline.Events() {
		evs = append(evs, string(e.Event)+"/"+e.Outcome+"/"+e.FaultID)
	}
	if got := strings.Join(evs, " "); got != "worker.start// tool.commit/unknown/f1 claim/hold/" || s.posts != 4 || len(s.deleted) != 1 {
		t.Fatalf("timeline %s, %d posts, %d deleted", got, s.posts, len(s.deleted))
	}
}

// quoteAfter is a system that charges, then, in a defer, asks for a quote
// (a request no rule classifies: it crosses nothing); quoteErrs records
// each defer's error.
type quoteAfter struct {
	p         *jpayments
	quotes    *int
	quoteErrs *[]error
}

func (s quoteAfter) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	tr, err := httpfault.Join(env.Calls, httpfault.InProcess(s.p), httpfault.JoinOptions{Classify: chargeRules})
	if err != nil {
		return model.Claim{}, err
	}
	c := &http.Client{Transport: tr}
	defer func() {
		resp, err := c.Post("http://127.0.0.1:8080/quote", "application/json", strings.NewReader(`{}`))
		if err == nil {
			resp.Body.Close()
			*s.quotes++
		}
		*s.quoteErrs = append(*s.quoteErrs, err)
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:8080/charges", strings.NewReader(`{"subject":"acct-9","amount":300}`))
	req.Header.Set("Idempotency-Key", task.ID)
	resp, err := c.Do(req)
	if err != nil {
		return model.Claim{}, err
	}
	defer resp.Body.Close()
	var out struct {
		ReceiptID string `json:"receipt_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return model.Claim{}, err
	}
	// the release names the provider's receipt (recorded_agrees_with_ledger)
	return model.Claim{Verdict: model.ClaimRelease, Receipt: out.ReceiptID}, nil
}

func (s quoteAfter) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return s.p.ledger(), nil
}

// TestJoinCrashedWorkerSendsNothing: after a worker_crash at the charge,
// the crashed instance's deferred request, which crosses nothing, is not
// sent (ErrWorkerCrashed); the restarted instance's is.
func TestJoinCrashedWorkerSendsNothing(t *testing.T) {
	p, quotes, errs := &jpayments{}, 0, []error{}
	h := model.NewHarness(payFixture, model.Options{Builtin: []string{model.InvEffectAtMostOnce}})
	res, err := h.Run(func() model.System { return quoteAfter{p: p, quotes: &quotes, quoteErrs: &errs} },
		&model.Schedule{Version: model.ScheduleVersion, Seed: "crash", Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "worker_crash"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Held() || quotes != 1 || len(errs) != 2 || !errors.Is(errs[0], model.ErrWorkerCrashed) || errs[1] != nil || len(p.ledger()) != 1 {
		t.Fatalf("held %v, %d quotes, defers' errors %v, %d charges", res.Held(), quotes, errs, len(p.ledger()))
	}
}

// TestJoinHeldOutlivesCrash: a request tool_timeout holds when the worker
// crashes at the same charge was sent: the provider commits it late, just
// before the restarted worker's charge, through the crashed instance's
// transport (the restarted one never held it), as the model path does.
// The worker that resumes under its key holds (one charge, replayed); one
// that resumes under a key of its own process charges twice.
func TestJoinHeldOutlivesCrash(t *testing.T) {
	faults := []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "tool_timeout"}, {Event: model.EvToolCommit, Ordinal: 1, Kind: "worker_crash"}}
	for _, blind := range []bool{false, true} {
		var res *model.Result
		p := &jpayments{}
		synctest.Test(t, func(t *testing.T) {
			h := model.NewHarness(payFixture, model.Options{Builtin: []string{model.InvEffectAtMostOnce, model.InvNoInventedProgress},
				Clock: properties.BubbleClock})
			n := 0
			var err error
			res, err = h.Run(func() model.System {
				n++
				cfg := defended
				if blind {
					cfg.process = strconv.Itoa(n)
				}
				return paySystem{p: p, cfg: cfg}
			}, &model.Schedule{Version: model.ScheduleVersion, Seed: "held", Faults: faults})
			if err != nil {
				t.Fatalf("blind %v: %v", blind, err)
			}
		})
		rows := p.ledger()
		inv, _ := res.Invariant(model.InvEffectAtMostOnce)
		fired := res.Faults[0].Fired + res.Faults[1].Fired
		if !blind && (!res.Held() || len(rows) != 1 || rows[0].Key != "inv-1:charge" || fired != 2 || res.Claims[0].Verdict != model.ClaimRelease) {
			t.Fatalf("stable key: held %v, rows %+v, faults %+v, claims %+v", res.Held(), rows, res.Faults, res.Claims)
		}
		if blind && (inv.Held || inv.FaultID != "f2" || inv.Event != model.EvToolCommit || inv.Detail != "second ledger effect for task inv-1" ||
			len(rows) != 2 || rows[0].Key != "inv-1:charge:1" || rows[1].Key != "inv-1:charge:2") {
			t.Fatalf("blind resume: %+v, rows %+v", inv, rows)
		}
	}
}
