package httpfault_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
)

// entry is one payment in the ledger server.
type entry struct {
	Seq       int    `json:"seq"`
	Key       string `json:"key"`
	Order     string `json:"order"`
	Amount    int64  `json:"amount"`
	ReceiptID string `json:"receipt_id"`
}

// ledger is a small payment provider: POST /payments commits a payment
// under its Idempotency-Key header (a key it has committed replays the
// original receipt with 200), GET /payments?key=K reads the ledger back.
// Its entries are the oracle: the test reads them directly.
type ledger struct {
	mu      sync.Mutex
	entries []entry
	posts   int // POST requests received
	gets    int // GET requests received
}

type payment struct {
	Order  string `json:"order"`
	Amount int64  `json:"amount"`
}

type receipt struct {
	ReceiptID string `json:"receipt_id"`
	Key       string `json:"key"`
	Order     string `json:"order"`
	Amount    int64  `json:"amount"`
	Replayed  bool   `json:"replayed"`
	// Error and OK are a success envelope's report of a failure
	// (false_success); a committed answer carries neither.
	Error json.RawMessage `json:"error,omitempty"`
	OK    *bool           `json:"ok,omitempty"`
}

func (l *ledger) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path != "/payments" {
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
		return
	}
	switch r.Method {
	case http.MethodGet:
		l.gets++
		out := []entry{}
		for _, e := range l.entries {
			if e.Key == r.URL.Query().Get("key") {
				out = append(out, e)
			}
		}
		json.NewEncoder(w).Encode(map[string][]entry{"entries": out})
	case http.MethodPost:
		l.posts++
		key := r.Header.Get("Idempotency-Key")
		var p payment
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if key == "" || dec.Decode(&p) != nil || p.Order == "" || p.Amount <= 0 {
			http.Error(w, `{"error":"invalid payment"}`, http.StatusBadRequest)
			return
		}
		for _, e := range l.entries {
			if e.Key == key {
				json.NewEncoder(w).Encode(receipt{ReceiptID: e.ReceiptID, Key: e.Key, Order: e.Order, Amount: e.Amount, Replayed: true})
				return
			}
		}
		e := entry{Seq: len(l.entries) + 1, Key: key, Order: p.Order, Amount: p.Amount, ReceiptID: "rcpt-" + strconv.Itoa(len(l.entries)+1)}
		l.entries = append(l.entries, e)
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(receipt{ReceiptID: e.ReceiptID, Key: e.Key, Order: e.Order, Amount: e.Amount})
	default:
		http.Error(w, `{"error":"method not allowed"}`, http.StatusMethodNotAllowed)
	}
}

func (l *ledger) count() (entries, posts, gets int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries), l.posts, l.gets
}

// startLedger starts the ledger on a loopback port.
func startLedger(t *testing.T) (*ledger, *httptest.Server) {
	t.Helper()
	l := &ledger{}
	srv := httptest.NewServer(l)
	t.Cleanup(srv.Close)
	return l, srv
}

// defences a payment client may have.
type defences struct {
	sameKey  bool // every attempt reuses the payment's idempotency key
	readback bool // an unknown outcome is resolved, and a success verified, by GET /payments?key=K
	typed    bool // a rejection, a denial or a rate limit is not success (a rate limit waits and retries)
	unknown  bool // a timeout is an unknown outcome, not success
	validate bool // a 2xx answer counts only with a receipt naming the key and the amount
	budget   bool // at most 3 attempts
	envelope bool // a 2xx answer whose body carries an error is a refusal
	// transport: a 5xx answer or a failed connection is an unknown
	// outcome (read back, retried), not a refusal
	transport bool
}

var protected = defences{sameKey: true, readback: true, typed: true, unknown: true, validate: true, budget: true, envelope: true, transport: true}

// outcome is what a payment client claims, and what it did.
type outcome struct {
	Claim    string // paid, denied, held or stopped
	Receipt  string
	Verified bool // a readback showed exactly one matching entry
	Attempts int  // POSTs the client tried
	Slept    []string
}

// payer pays through a real http.Client; sleeping is logical (recorded).
type payer struct {
	client *http.Client
	url    string
	d      defences
	keys   int
}

func (p *payer) newKey() string {
	p.keys++
	return "pay-" + strconv.Itoa(p.keys)
}

func (p *payer) pay(order string, amount int64) outcome {
	var o outcome
	key := p.newKey()
	body, _ := json.Marshal(payment{Order: order, Amount: amount})
	for attempt := 1; ; attempt++ {
		if p.d.budget && attempt > 3 {
			o.Claim = "held"
			return o
		}
		if attempt > 1 && !p.d.sameKey {
			key = p.newKey()
		}
		o.Attempts++
		req, _ := http.NewRequest(http.MethodPost, p.url+"/payments", bytes.NewReader(body))
		req.Header.Set("Idempotency-Key", key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := p.client.Do(req)
		var ne net.Error
		var op *net.OpError
		switch {
		case errors.Is(err, model.ErrWorkerCrashed):
			o.Claim = "stopped" // the harness stopped the worker
			return o
		case err != nil && errors.As(err, &ne) && ne.Timeout():
			if !p.d.unknown {
				o.Claim = "paid" // a timeout taken as done
				return o
			}
		case err != nil && p.d.typed && p.d.transport && errors.As(err, &op):
			// a failed connection: the outcome is unknown
		case err != nil:
			if !p.d.typed {
				o.Claim = "paid" // any answer but a timeout is success
				return o
			}
			o.Claim = "denied"
			return o
		default:
			var r receipt
			decodeErr := json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			ok2xx := resp.StatusCode >= 200 && resp.StatusCode <= 299
			switch {
			case ok2xx && p.d.envelope && (r.Error != nil || r.OK != nil && !*r.OK):
				o.Claim = "denied" // the body's error is the answer
				return o
			case !ok2xx && !p.d.typed:
				o.Claim = "paid"
				return o
			case resp.StatusCode == http.StatusTooManyRequests:
				o.Slept = append(o.Slept, resp.Header.Get("Retry-After"))
				continue
			case resp.StatusCode >= 500 && p.d.transport:
				// a server error: the outcome is unknown
			case !ok2xx:
				o.Claim = "denied"
				return o
			case !p.d.validate || decodeErr == nil && r.ReceiptID != "" && r.Key == key && r.Amount == amount:
				o.Claim, o.Receipt = "paid", r.ReceiptID
				if p.d.readback {
					o.Verified = p.verify(key, amount, r.ReceiptID)
					if !o.Verified {
						o.Claim = "held"
					}
				}
				return o
			}
			// a 2xx answer without a valid receipt: the outcome is unknown
		}
		if p.d.readback {
			if e, ok := p.lookup(key, amount); ok {
				o.Claim, o.Receipt, o.Verified = "paid", e.ReceiptID, true
				return o
			}
		}
	}
}

// lookup reads the ledger back for key: exactly one entry of the amount.
func (p *payer) lookup(key string, amount int64) (entry, bool) {
	resp, err := p.client.Get(p.url + "/payments?key=" + key)
	if err != nil {
		return entry{}, false
	}
	defer resp.Body.Close()
	var out struct{ Entries []entry }
	if json.NewDecoder(resp.Body).Decode(&out) != nil || len(out.Entries) != 1 || out.Entries[0].Amount != amount {
		return entry{}, false
	}
	return out.Entries[0], true
}

func (p *payer) verify(key string, amount int64, receiptID string) bool {
	e, ok := p.lookup(key, amount)
	return ok && e.ReceiptID == receiptID
}

func (o outcome) String() string {
	return fmt.Sprintf("%s receipt=%q verified=%t attempts=%d slept=%v", o.Claim, o.Receipt, o.Verified, o.Attempts, o.Slept)
}

// rows is the ledger as the oracle reads it.
func (l *ledger) rows() []model.LedgerEntry {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []model.LedgerEntry
	for _, e := range l.entries {
		out = append(out, model.LedgerEntry{Tool: "pay", Key: e.Key, ActionRef: e.Key, Amount: e.Amount, ReceiptID: e.ReceiptID})
	}
	return out
}

// payRules: POST /payments commits (tool pay), GET /payments reads.
var payRules, _ = httpfault.Rules(
	httpfault.Rule{Method: "POST", Path: "/payments", Class: httpfault.Commit, Tool: "pay"},
	httpfault.Rule{Method: "GET", Path: "/payments", Class: httpfault.Read},
)

// clientSystem runs do with a client over a transport joined to the run
// (Classify defaults to payRules); its provider is the ledger l (nil:
// none).
type clientSystem struct {
	l    *ledger
	base http.RoundTripper
	opts httpfault.JoinOptions
	do   func(ctx context.Context, c *http.Client, tr *httpfault.Joined)
}

func (s clientSystem) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	opts := s.opts
	if opts.Classify == nil {
		opts.Classify = payRules
	}
	tr, err := httpfault.Join(env.Calls, s.base, opts)
	if err != nil {
		return model.Claim{}, err
	}
	s.do(ctx, &http.Client{Transport: tr}, tr)
	return model.Claim{Verdict: model.ClaimHold, Reason: "test client"}, nil
}

func (s clientSystem) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return s.l.rows(), nil
}

// runClient runs s once under faults, on the model's logical clock, and
// returns the result and the run's error.
func runClient(t *testing.T, s clientSystem, faults ...model.FaultEntry) (*model.Result, error) {
	t.Helper()
	if s.base == nil {
		s.base = loopbackOnly()
	}
	return model.NewHarness(payFixture, model.Options{Builtin: []string{}}).Run(
		func() model.System { return s }, &model.Schedule{Version: model.ScheduleVersion, Seed: "ledger", Faults: faults})
}

// payOnce has a payer with defences d pay once through the joined
// transport against the ledger on a loopback port, under faults.
func payOnce(t *testing.T, d defences, faults ...model.FaultEntry) (outcome, *ledger, *model.Result) {
	t.Helper()
	l, srv := startLedger(t)
	var got outcome
	res, err := runClient(t, clientSystem{l: l, do: func(_ context.Context, c *http.Client, _ *httpfault.Joined) {
		got = (&payer{client: c, url: srv.URL, d: d}).pay("O-731", 7400)
	}}, faults...)
	if err != nil {
		t.Fatal(err)
	}
	return got, l, res
}

// at is one fault of kind at the ordinal-th commit.
func at(kind string, ordinal int) model.FaultEntry {
	return model.FaultEntry{Event: model.EvToolCommit, Ordinal: ordinal, Kind: kind}
}

// loopbackOnly is a transport whose dialer fails a connection to any
// address but 127.0.0.1: whatever the joined transport lets through must
// be loopback.
func loopbackOnly() *http.Transport {
	d := &net.Dialer{}
	return &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, _, _ := net.SplitHostPort(addr); host != "127.0.0.1" {
			return nil, errors.New("test guard: a connection to " + addr + " reached the base transport")
		}
		return d.DialContext(ctx, network, addr)
	}}
}
