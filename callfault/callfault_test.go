package callfault_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/faultline/faultline/callfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// The client library no adapter exists for: a ledger service's Go client,
// with its own request, reply and error types.

type chargeReq struct {
	Key, Subject, Trace string
	Amount              int64
}

type chargeResp struct {
	Receipt string
	Amount  int64
	Error   string // a failure reported inside a reply (false_success)
}

// busyError is the client library's rate-limit error.
type busyError struct{ wait time.Duration }

func (e busyError) Error() string { return "ledger: busy, retry in " + e.wait.String() }

var (
	errRefused = errors.New("ledger: refused")
	errTimeout = errors.New("ledger: deadline exceeded")
	// errUnavailable and errUnauthorized are the library's 503 and 401
	errUnavailable  = errors.New("ledger: service unavailable")
	errUnauthorized = errors.New("ledger: unauthorized")
)

// ledgerSvc is the provider: its own table, idempotent by key (a charge
// without one is a new charge).
type ledgerSvc struct {
	mu   sync.Mutex
	rows []model.LedgerEntry
}

func (l *ledgerSvc) charge(_ context.Context, r chargeReq) (chargeResp, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.rows {
		if r.Key != "" && e.Key == r.Key {
			return chargeResp{Receipt: e.ReceiptID, Amount: e.Amount}, nil
		}
	}
	id := "ch_" + strconv.Itoa(len(l.rows)+1)
	l.rows = append(l.rows, model.LedgerEntry{Tool: "charge", Key: r.Key, ActionRef: r.Key, Subject: r.Subject, Amount: r.Amount, Trace: r.Trace, ReceiptID: id})
	return chargeResp{Receipt: id, Amount: r.Amount}, nil
}

func (l *ledgerSvc) trace(key string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.rows {
		if e.Key == key {
			return e.Trace
		}
	}
	return ""
}

func (l *ledgerSvc) ledger() []model.LedgerEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]model.LedgerEntry(nil), l.rows...)
}

// biller is production code: it takes its charge function (and a trace
// lookup) from its constructor and imports no faultline package. Its
// options plant the bugs of the counterfactual pairs.
type biller struct {
	charge      func(context.Context, chargeReq) (chargeResp, error)
	traceOf     func(key string) string
	retries     int
	freshKey    bool   // retry under a new key
	trustAnswer bool   // take any answer, an error included, for done
	verifyTrace bool   // hold when the charge does not carry the task's trace
	noKey       bool   // send no idempotency key
	deriveKey   bool   // derive the key from what is charged
	process     string // when set, in every key: a key per process (a blind resume)
	replyIsDone bool   // take a reply without an error for done, its fields unread
	// retryRefused retries a refusal after 100 ms, a permanent one
	// included
	retryRefused bool
	// backoff, when set, is the first wait before a retry of a 503,
	// doubled after each (none: a 503 is retried at once, as any error)
	backoff time.Duration
	// reauth answers a 401 by refreshing its credential after 100 ms and
	// retrying once (none: a 401 is retried at once, as any error)
	reauth bool
}

func (b biller) bill(ctx context.Context, id, subject string, amount int64, trace string) (string, bool) {
	key := id + ":charge"
	switch {
	case b.noKey:
		key = ""
	case b.deriveKey:
		key = fmt.Sprintf("%s/%d", subject, amount)
	case b.process != "":
		key += ":" + b.process
	}
	wait, refreshed := b.backoff, false
	for attempt := 0; attempt <= b.retries; attempt++ {
		if attempt > 0 && b.freshKey {
			key = id + ":charge-" + strconv.Itoa(attempt)
		}
		resp, err := b.charge(ctx, chargeReq{Key: key, Subject: subject, Amount: amount, Trace: trace})
		if b.trustAnswer || b.replyIsDone && err == nil {
			return resp.Receipt, true
		}
		var busy busyError
		switch {
		case errors.As(err, &busy):
			//faultline:ignore production code waits on the time package; the test runs it in a synctest bubble, whose clock is the run's
			time.Sleep(busy.wait)
			continue
		case errors.Is(err, errUnavailable) && wait > 0:
			//faultline:ignore production code waits on the time package; the test runs it in a synctest bubble, whose clock is the run's
			time.Sleep(wait)
			wait *= 2
			continue
		case errors.Is(err, errUnauthorized) && b.reauth:
			if refreshed {
				return "", false
			}
			// a fresh credential, fetched after a pause: a retry at the
			// instant of the 401 crosses with it and is refused again
			//faultline:ignore production code waits on the time package; the test runs it in a synctest bubble, whose clock is the run's
			time.Sleep(100 * time.Millisecond)
			refreshed = true
			continue
		case errors.Is(err, errRefused) && b.retryRefused:
			//faultline:ignore production code waits on the time package; the test runs it in a synctest bubble, whose clock is the run's
			time.Sleep(100 * time.Millisecond)
			continue
		case errors.Is(err, errRefused):
			return "", false
		case err != nil || resp.Receipt == "":
			continue
		}
		return resp.Receipt, !b.verifyTrace || b.traceOf(key) == trace
	}
	return "", false
}

// spec renders each fault as this client library would show it.
var spec = callfault.Spec[chargeReq, chargeResp]{
	Tool: "charge",
	Key:  func(r chargeReq) (string, error) { return r.Key, nil },
	Action: func(r chargeReq, key string) model.Action {
		return model.Action{IdempotencyKey: key, Subject: r.Subject, Amount: r.Amount, TraceID: r.Trace}
	},
	Receipt: func(r chargeResp) string { return r.Receipt },
	Lost:    func(string, bool) error { return errTimeout },
	Rejected: func(_ string, res model.ToolResult) error {
		switch res.Class {
		case "unavailable":
			return errUnavailable
		case "unauthorized":
			return errUnauthorized
		}
		return errRefused
	},
	RateLimited:  func(d time.Duration) error { return busyError{d} },
	StripReceipt: func(r chargeResp) chargeResp { r.Receipt = ""; return r },
	Drift:        func(chargeResp) chargeResp { return chargeResp{} },
	SetTrace:     func(r chargeReq, trace string) chargeReq { r.Trace = trace; return r },
	ErrorReply:   func(reason string) chargeResp { return chargeResp{Error: reason} },
}

type billSystem struct {
	l    *ledgerSvc
	cfg  biller
	spec callfault.Spec[chargeReq, chargeResp]
}

func (s billSystem) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	charge, err := callfault.Wrap(env.Calls, s.spec, s.l.charge)
	if err != nil {
		return model.Claim{}, err
	}
	b := s.cfg
	b.charge, b.traceOf = charge, s.l.trace
	if receipt, ok := b.bill(ctx, task.ID, task.Subject, task.Amount, task.Trace); ok {
		return model.Claim{Verdict: model.ClaimRelease, Receipt: receipt}, nil
	}
	return model.Claim{Verdict: model.ClaimHold, Reason: "not proven"}, nil
}

func (s billSystem) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return s.l.ledger(), nil
}

var billFixture = model.Fixture{Name: "bill", Tasks: []model.Task{{ID: "inv-1", Actor: "agent", Subject: "acct-9",
	Tenant: "t", Purpose: "invoice", Amount: 300, Trace: "tr-1", RetryBudget: 2}}}

var traceJoined = model.UserInvariant{Name: "trace_joined", Owner: "billing", Oracle: "ledger_readback",
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

func runBill(t *testing.T, sys billSystem, faults ...model.FaultEntry) (*model.Result, []model.LedgerEntry) {
	t.Helper()
	var res *model.Result
	synctest.Test(t, func(t *testing.T) {
		h := model.NewHarness(billFixture, model.Options{
			Builtin:    []string{model.InvEffectAtMostOnce, model.InvNoInventedProgress, model.InvBudget},
			Invariants: []model.UserInvariant{traceJoined},
			Clock:      properties.BubbleClock,
		})
		var err error
		res, err = h.Run(func() model.System { return sys }, &model.Schedule{Version: model.ScheduleVersion, Seed: "bill", Faults: faults})
		if err != nil {
			t.Fatal(err)
		}
	})
	return res, sys.l.ledger()
}

var defended = biller{retries: 2, verifyTrace: true, backoff: 600 * time.Millisecond, reauth: true}

// TestWrapCounterfactuals: for every kind at tool.commit, a biller with
// the planted bug breaks the named invariant, read from the provider's
// own rows, and the defended biller holds.
func TestWrapCounterfactuals(t *testing.T) {
	trusting := biller{trustAnswer: true}
	fresh := biller{retries: 2, freshKey: true}
	const none = "release although the ledger holds no effect of the task"
	const twice = "second ledger effect for task inv-1"
	for _, tc := range []struct {
		kind      string
		bad       biller
		inv       string
		event     model.EventName
		first     int
		detail    string
		badRows   int
		goodRows  int
		goodClaim model.ClaimVerdict
	}{
		{"sandbox_denial", trusting, model.InvNoInventedProgress, model.EvClaim, 3, none, 0, 0, model.ClaimHold},
		{"timeout_before_send", trusting, model.InvNoInventedProgress, model.EvClaim, 3, none, 0, 1, model.ClaimRelease},
		{"reject_before_commit", trusting, model.InvNoInventedProgress, model.EvClaim, 3, none, 0, 0, model.ClaimHold},
		{"rate_limit", trusting, model.InvNoInventedProgress, model.EvClaim, 3, none, 0, 1, model.ClaimRelease},
		{"tool_timeout", fresh, model.InvEffectAtMostOnce, model.EvToolCommit, 3, twice, 2, 1, model.ClaimRelease},
		{"budget_exhaustion", biller{retries: 5}, model.InvBudget, model.EvToolCommit, 5, "attempt 4 exceeds one plus the retry budget of 2", 0, 0, model.ClaimHold},
		{"timeout_after_commit", fresh, model.InvEffectAtMostOnce, model.EvToolCommit, 3, twice, 2, 1, model.ClaimRelease},
		{"partial_success_response", fresh, model.InvEffectAtMostOnce, model.EvToolCommit, 3, twice, 2, 1, model.ClaimRelease},
		{"malformed_response", fresh, model.InvEffectAtMostOnce, model.EvToolCommit, 3, twice, 2, 1, model.ClaimRelease},
		{"output_drift", fresh, model.InvEffectAtMostOnce, model.EvToolCommit, 3, twice, 2, 1, model.ClaimRelease},
		{"break_trace_lineage", biller{}, "trace_joined", model.EvClaim, 3, "charge ch_1 carries trace orphan-req-1", 1, 1, model.ClaimHold},
		{"false_success", biller{retries: 2, replyIsDone: true}, model.InvNoInventedProgress, model.EvClaim, 3, none, 0, 1, model.ClaimRelease},
		// before commit (after it: TestWrapTransportAfterCommit)
		{"server_error", trusting, model.InvNoInventedProgress, model.EvClaim, 3, none, 0, 1, model.ClaimRelease},
		{"network_error", trusting, model.InvNoInventedProgress, model.EvClaim, 3, none, 0, 1, model.ClaimRelease},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			f := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: tc.kind}
			res, rows := runBill(t, billSystem{l: &ledgerSvc{}, cfg: tc.bad, spec: spec}, f)
			inv, _ := res.Invariant(tc.inv)
			if inv.Held || inv.Event != tc.event || inv.FaultID != "f1" || inv.Detail != tc.detail || inv.FirstSeq != tc.first {
				t.Fatalf("undefended: %s %+v, want broken at %s (seq %d) by f1: %s", tc.inv, inv, tc.event, tc.first, tc.detail)
			}
			if len(rows) != tc.badRows || res.Faults[0].Fired != 1 && tc.kind != "budget_exhaustion" {
				t.Fatalf("undefended: %d rows (want %d), fault %+v", len(rows), tc.badRows, res.Faults[0])
			}
			res, rows = runBill(t, billSystem{l: &ledgerSvc{}, cfg: defended, spec: spec}, f)
			if !res.Held() || len(rows) != tc.goodRows || res.Faults[0].Fired == 0 || res.Claims[0].Verdict != tc.goodClaim {
				t.Fatalf("defended: held %v, %d rows (want %d), fault %+v, claims %+v, invariants %+v", res.Held(), len(rows), tc.goodRows, res.Faults[0], res.Claims, res.Invariants)
			}
		})
	}
}

// TestWrapTransportAfterCommit: server_error and network_error after the
// provider charged (target after_commit). The biller that retries under a
// fresh key charges twice (effect_at_most_once, from the provider's two
// rows); the defended biller keeps its key, is replayed and releases.
func TestWrapTransportAfterCommit(t *testing.T) {
	for _, kind := range []string{"server_error", "network_error"} {
		f := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: kind, Target: "after_commit"}
		res, rows := runBill(t, billSystem{l: &ledgerSvc{}, cfg: biller{retries: 2, freshKey: true}, spec: spec}, f)
		inv, _ := res.Invariant(model.InvEffectAtMostOnce)
		if inv.Held || inv.Detail != "second ledger effect for task inv-1" || len(rows) != 2 || res.Faults[0].Fired != 1 {
			t.Fatalf("%s, fresh key: %+v, %d rows", kind, inv, len(rows))
		}
		res, rows = runBill(t, billSystem{l: &ledgerSvc{}, cfg: defended, spec: spec}, f)
		if !res.Held() || len(rows) != 1 || res.Claims[0].Verdict != model.ClaimRelease {
			t.Fatalf("%s, defended: held %v, %d rows, claims %+v, invariants %+v", kind, res.Held(), len(rows), res.Claims, res.Invariants)
		}
	}
}

// TestWrapKinds: every catalogue kind at tool.commit, then the five
// outside it; a spec without the optional renderers drops the four that
// need them.
func TestWrapKinds(t *testing.T) {
	const outside = " server_error network_error do_not_retry provider_outage credential_expired"
	all := "timeout_after_commit partial_success_response break_trace_lineage sandbox_denial timeout_before_send reject_before_commit malformed_response output_drift rate_limit tool_timeout budget_exhaustion false_success" + outside
	if got := strings.Join(callfault.Kinds(), " "); got != all {
		t.Fatalf("Kinds %s", got)
	}
	if got := strings.Join(spec.Kinds(), " "); got != all {
		t.Fatalf("spec.Kinds %s", got)
	}
	bare := callfault.Spec[chargeReq, chargeResp]{Tool: "charge"}
	if got := strings.Join(bare.Kinds(), " "); got != "timeout_after_commit sandbox_denial timeout_before_send reject_before_commit malformed_response rate_limit tool_timeout budget_exhaustion"+outside {
		t.Fatalf("bare Kinds %s", got)
	}
}

// TestWrapDefaults: the default renderings, as the biller's call sees
// them, and the rate limit's wait on the bubble's clock.
func TestWrapDefaults(t *testing.T) {
	base := callfault.Spec[chargeReq, chargeResp]{Tool: "charge", Key: spec.Key, Receipt: spec.Receipt}
	for kind, want := range map[string]string{
		"timeout_after_commit": "callfault: charge: timeout awaiting the reply (timeout_after_commit)",
		"reject_before_commit": "callfault: charge: rejected (reject_before_commit): provider rejected the request before commit",
		"rate_limit":           "callfault: charge: rate limited, retry after 100ms",
		"malformed_response":   "callfault: the reply does not decode (tool charge, malformed_response)",
		"server_error":         "callfault: charge: server error (server_error)",
		"network_error":        "callfault: charge: connection refused (network_error)",
	} {
		var got error
		l := &ledgerSvc{}
		sys := sysFunc{l: l, run: func(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
			charge, err := callfault.Wrap(env.Calls, base, l.charge)
			if err != nil {
				return model.Claim{}, err
			}
			_, got = charge(ctx, chargeReq{Key: "k"})
			return model.Claim{Verdict: model.ClaimHold}, nil
		}}
		h := model.NewHarness(billFixture, model.Options{Builtin: []string{}})
		if _, err := h.Run(func() model.System { return sys }, &model.Schedule{Version: model.ScheduleVersion, Seed: "d",
			Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: kind}}}); err != nil {
			t.Fatal(err)
		}
		if got == nil || got.Error() != want {
			t.Errorf("%s: %v, want %s", kind, got, want)
		}
	}
	var te *callfault.TimeoutError
	if err := error(&callfault.TimeoutError{Tool: "x", Kind: "tool_timeout"}); !errors.As(err, &te) || !te.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("TimeoutError: %v", err)
	}
	res, _ := runBill(t, billSystem{l: &ledgerSvc{}, cfg: defended, spec: spec}, model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "rate_limit"})
	if at := res.Timeline.Events()[2].At; res.Timeline.Events()[2].Event != model.EvToolCommit || at != 100 {
		t.Errorf("the retry after the rate limit at %d ms (%s), want 100", at, res.Timeline.Events()[2].Event)
	}
}

type sysFunc struct {
	l   *ledgerSvc
	run func(context.Context, model.Env, model.Task) (model.Claim, error)
}

func (s sysFunc) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	return s.run(ctx, env, task)
}
func (s sysFunc) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return s.l.ledger(), nil
}

// TestWrapBadInput: a bad spec is refused by Wrap; a key extractor's
// error and a kind the spec cannot render end the run with an error naming
// them, though the system swallows the call's error.
func TestWrapBadInput(t *testing.T) {
	l := &ledgerSvc{}
	for name, tc := range map[string]struct {
		calls model.Calls
		s     callfault.Spec[chargeReq, chargeResp]
		f     func(context.Context, chargeReq) (chargeResp, error)
		want  string
	}{
		"nil calls": {nil, spec, l.charge, "callfault: Wrap: nil Calls (use the Env.Calls the harness hands to System.Run)"},
		"nil f":     {nopCalls{}, spec, nil, "callfault: Wrap: nil call"},
		"no tool":   {nopCalls{}, callfault.Spec[chargeReq, chargeResp]{Key: spec.Key}, l.charge, "callfault: Wrap: Spec.Tool is empty"},
	} {
		if _, err := callfault.Wrap(tc.calls, tc.s, tc.f); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v", name, err)
		}
	}
	bare := callfault.Spec[chargeReq, chargeResp]{Tool: "charge", Key: spec.Key, Receipt: spec.Receipt}
	for name, tc := range map[string]struct {
		s    callfault.Spec[chargeReq, chargeResp]
		kind string
		want string
	}{
		"key error": {callfault.Spec[chargeReq, chargeResp]{Tool: "charge", Key: func(chargeReq) (string, error) { return "", errors.New("no invoice") }}, "", "callfault: tool charge: idempotency key: no invoice"},
	} {
		var faults []model.FaultEntry
		if tc.kind != "" {
			faults = append(faults, model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: tc.kind})
		}
		_, err := model.NewHarness(billFixture, model.Options{Builtin: []string{}}).Run(func() model.System {
			return billSystem{l: &ledgerSvc{}, cfg: biller{trustAnswer: true}, spec: tc.s}
		}, &model.Schedule{Version: model.ScheduleVersion, Seed: "b", Faults: faults})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: run error %v\nwant %s", name, err, tc.want)
		}
	} // a kind the spec cannot render does not act: reached, not fired,
	// the run inconclusive (never green), the charge made as asked
	for _, kind := range []string{"partial_success_response", "break_trace_lineage", "output_drift"} {
		l := &ledgerSvc{}
		res, err := model.NewHarness(billFixture, model.Options{Builtin: []string{}}).Run(func() model.System {
			return billSystem{l: l, cfg: biller{trustAnswer: true}, spec: bare}
		}, &model.Schedule{Version: model.ScheduleVersion, Seed: "b", Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: kind}}})
		if err != nil || !res.Faults[0].Reached || res.Faults[0].Fired != 0 || res.RunVerdict != model.Inconclusive {
			t.Errorf("%s on a spec that cannot render it: err %v, fault %+v, verdict %s", kind, err, res.Faults[0], res.RunVerdict)
		}
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

// TestWrapDeterministic: the same schedule twice gives the same timeline.
func TestWrapDeterministic(t *testing.T) {
	faults := []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "tool_timeout"}, {Event: model.EvToolCommit, Ordinal: 2, Kind: "rate_limit"}}
	a, _ := runBill(t, billSystem{l: &ledgerSvc{}, cfg: defended, spec: spec}, faults...)
	b, _ := runBill(t, billSystem{l: &ledgerSvc{}, cfg: defended, spec: spec}, faults...)
	if !reflect.DeepEqual(a.Timeline, b.Timeline) || len(a.Timeline.Events()) != 5 {
		t.Fatalf("timelines differ or wrong length (%d):\n%+v\n%+v", len(a.Timeline.Events()), a.Timeline, b.Timeline)
	}
}

// TestWrapKeyless: a call without an idempotency key (a spec without Key)
// is tested, not refused: after a lost reply the retrying biller charges
// twice and the violation says the charge went without a key; a biller
// that derives its key from the request holds.
func TestWrapKeyless(t *testing.T) {
	keyless := spec
	keyless.Key = nil
	for _, tc := range []struct {
		derive bool
		rows   int
		detail string
	}{
		{false, 2, "second ledger effect for task inv-1, sent without an idempotency key"},
		{true, 1, ""},
	} {
		l := &ledgerSvc{}
		s := keyless
		if tc.derive {
			s.Key = spec.Key
		}
		sys := billSystem{l: l, cfg: biller{retries: 2, noKey: !tc.derive, deriveKey: tc.derive}, spec: s}
		res, rows := runBill(t, sys, model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"})
		inv, _ := res.Invariant(model.InvEffectAtMostOnce)
		if len(rows) != tc.rows || inv.Detail != tc.detail || inv.Held != (tc.detail == "") || res.Faults[0].Fired != 1 {
			t.Fatalf("derive %v: %d rows, %+v", tc.derive, len(rows), inv)
		}
		if d := res.Timeline.Events()[1].Detail; !tc.derive && d != "charge sent without an idempotency key, replayed false receipt false" {
			t.Fatalf("timeline: %s", d)
		}
	}
}

// TestWrapHeldOutlivesCrash: a call tool_timeout holds when the worker
// crashes at the same charge was sent: the provider commits it late, just
// before the restarted worker's charge, through the crashed instance's
// wrapper (the restarted one never held it), as the model path does. The
// biller that resumes under its key holds (one charge); one that resumes
// under a key of its own process charges twice.
func TestWrapHeldOutlivesCrash(t *testing.T) {
	faults := []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "tool_timeout"}, {Event: model.EvToolCommit, Ordinal: 1, Kind: "worker_crash"}}
	for _, blind := range []bool{false, true} {
		var res *model.Result
		l := &ledgerSvc{}
		synctest.Test(t, func(t *testing.T) {
			h := model.NewHarness(billFixture, model.Options{Builtin: []string{model.InvEffectAtMostOnce, model.InvNoInventedProgress},
				Clock: properties.BubbleClock})
			n := 0
			var err error
			res, err = h.Run(func() model.System {
				n++
				cfg := defended
				if blind {
					cfg.process = strconv.Itoa(n)
				}
				return billSystem{l: l, cfg: cfg, spec: spec}
			}, &model.Schedule{Version: model.ScheduleVersion, Seed: "held", Faults: faults})
			if err != nil {
				t.Fatalf("blind %v: %v", blind, err)
			}
		})
		rows := l.ledger()
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
