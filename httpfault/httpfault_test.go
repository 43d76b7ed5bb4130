package httpfault_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

func single(t *testing.T, kind string, ordinal int) *model.Schedule {
	t.Helper()
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: kind, Config: copperfin.ConfigOfControls(0),
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: ordinal, Kind: kind}}}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	return s
}

// newTransport builds a fault transport over a real loopback transport
// that itself refuses any non-loopback dial target (a second guard).
func newTransport(t *testing.T, s *model.Schedule, opts httpfault.Options) *httpfault.Transport {
	t.Helper()
	ft, err := httpfault.New(&loopbackOnly{base: &http.Transport{}}, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ft.CloseIdleConnections)
	return ft
}

// loopbackOnly fails the test's request if it would leave for a host
// that is not 127.0.0.1: whatever the fault transport lets through must
// be loopback.
type loopbackOnly struct{ base *http.Transport }

func (l *loopbackOnly) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Hostname() != "127.0.0.1" {
		return nil, errors.New("test guard: a request to " + r.URL.Host + " reached the base transport")
	}
	return l.base.RoundTrip(r)
}

func (l *loopbackOnly) CloseIdleConnections() { l.base.CloseIdleConnections() }

// TestTimeoutAfterCommitBlindRetryDuplicates is the thought experiment of
// the paper against a real server: the provider commits, the reply is
// lost; a client that retries under a new key pays twice, a client that
// keeps its idempotency key and reads the ledger back pays once, proven.
func TestTimeoutAfterCommitBlindRetryDuplicates(t *testing.T) {
	blind := protected
	blind.sameKey, blind.readback = false, false
	for _, c := range []struct {
		name           string
		d              defences
		want           string
		entries, posts int
	}{
		{"blind retry", blind, `paid receipt="rcpt-2" verified=false attempts=2 slept=[]`, 2, 2},
		{"same key and readback", protected, `paid receipt="rcpt-1" verified=true attempts=1 slept=[]`, 1, 1},
	} {
		l, srv := startLedger(t)
		ft := newTransport(t, single(t, "timeout_after_commit", 1), httpfault.Options{})
		p := &payer{client: &http.Client{Transport: ft}, url: srv.URL, d: c.d}
		got := p.pay("O-731", 7400)
		entries, posts, _ := l.count()
		if got.String() != c.want || entries != c.entries || posts != c.posts {
			t.Errorf("%s: %s, ledger %d entries after %d posts; want %s, %d entries after %d posts", c.name, got, entries, posts, c.want, c.entries, c.posts)
		}
		want := []httpfault.Fault{{FaultReport: model.FaultReport{ID: "f1", Kind: "timeout_after_commit", Event: model.EvToolCommit, Ordinal: 1,
			Reached: true, Fired: 1, FiredAt: 1, Oracle: model.OracleLedgerReadback, Observed: []string{}},
			Key: httpfault.Key{Domain: model.DomainTool, Boundary: model.BoundaryEffect, Phase: model.Phase("after_commit"), Correlation: model.CorrelationIsolated, Oracle: model.OracleLedgerReadback}}}
		if diff := cmp.Diff(want, ft.Faults()); diff != "" {
			t.Errorf("%s: fault report (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestCounterfactualPairs: for every tool kind the transport injects, a
// client lacking the defence the kind defeats breaks (it pays twice,
// claims a payment that never happened, releases without proof, or
// retries until the transport stops it), and the protected client
// contains it; exact claims, ledger entries and server requests.
func TestCounterfactualPairs(t *testing.T) {
	without := func(f func(*defences)) defences { d := protected; f(&d); return d }
	blind := without(func(d *defences) { d.sameKey, d.readback = false, false })
	untyped := without(func(d *defences) { d.typed = false })
	cases := []struct {
		kind      string
		d         defences
		want      string
		entries   int
		posts     int // POSTs the server received
		gets      int
		fired     int
		protected bool
	}{
		{"timeout_after_commit", blind, `paid receipt="rcpt-2" verified=false attempts=2 slept=[]`, 2, 2, 0, 1, false},
		{"timeout_after_commit", protected, `paid receipt="rcpt-1" verified=true attempts=1 slept=[]`, 1, 1, 1, 1, true},
		{"timeout_before_send", without(func(d *defences) { d.unknown = false }), `paid receipt="" verified=false attempts=1 slept=[]`, 0, 0, 0, 1, false},
		{"timeout_before_send", protected, `paid receipt="rcpt-1" verified=true attempts=2 slept=[]`, 1, 1, 2, 1, true},
		{"reject_before_commit", untyped, `paid receipt="" verified=false attempts=1 slept=[]`, 0, 0, 0, 1, false},
		{"reject_before_commit", protected, `denied receipt="" verified=false attempts=1 slept=[]`, 0, 0, 0, 1, true},
		{"sandbox_denial", untyped, `paid receipt="" verified=false attempts=1 slept=[]`, 0, 0, 0, 1, false},
		{"sandbox_denial", protected, `denied receipt="" verified=false attempts=1 slept=[]`, 0, 0, 0, 1, true},
		{"rate_limit", untyped, `paid receipt="" verified=false attempts=1 slept=[]`, 0, 0, 0, 1, false},
		{"rate_limit", protected, `paid receipt="rcpt-1" verified=true attempts=2 slept=[1]`, 1, 1, 1, 1, true},
		{"partial_success_response", without(func(d *defences) { d.validate, d.readback = false, false }), `paid receipt="" verified=false attempts=1 slept=[]`, 1, 1, 0, 1, false},
		{"partial_success_response", protected, `paid receipt="rcpt-1" verified=true attempts=1 slept=[]`, 1, 1, 1, 1, true},
		{"malformed_response", blind, `paid receipt="rcpt-2" verified=false attempts=2 slept=[]`, 2, 2, 0, 1, false},
		{"malformed_response", protected, `paid receipt="rcpt-1" verified=true attempts=1 slept=[]`, 1, 1, 1, 1, true},
		{"output_drift", blind, `paid receipt="rcpt-2" verified=false attempts=2 slept=[]`, 2, 2, 0, 1, false},
		{"output_drift", protected, `paid receipt="rcpt-1" verified=true attempts=1 slept=[]`, 1, 1, 1, 1, true},
		{"tool_timeout", blind, `paid receipt="rcpt-2" verified=false attempts=2 slept=[]`, 2, 2, 0, 1, false},
		{"tool_timeout", protected, `paid receipt="rcpt-1" verified=true attempts=2 slept=[]`, 1, 2, 2, 1, true},
		// unbounded retries end at the transport's own stop: 20 requests
		// (10 POSTs, 10 readbacks), the 21st refused
		{"budget_exhaustion", without(func(d *defences) { d.budget = false }), `stopped receipt="" verified=false attempts=11 slept=[]`, 0, 0, 10, 10, false},
		{"budget_exhaustion", protected, `held receipt="" verified=false attempts=3 slept=[]`, 0, 0, 3, 3, true},
	}
	var kinds []string
	for _, c := range cases {
		l, srv := startLedger(t)
		ft := newTransport(t, single(t, c.kind, 1), httpfault.Options{MaxRequests: 20})
		p := &payer{client: &http.Client{Transport: ft}, url: srv.URL, d: c.d}
		got := p.pay("O-731", 7400)
		if err := ft.Flush(); err != nil {
			t.Errorf("%s: flush: %v", c.kind, err)
		}
		entries, posts, gets := l.count()
		if got.String() != c.want || entries != c.entries || posts != c.posts || gets != c.gets {
			t.Errorf("%s (protected %t): %s; ledger %d entries, %d posts, %d gets\n\twant %s; %d entries, %d posts, %d gets",
				c.kind, c.protected, got, entries, posts, gets, c.want, c.entries, c.posts, c.gets)
		}
		if f := ft.Faults()[0]; !f.Reached || f.Fired != c.fired {
			t.Errorf("%s: fault %+v, want fired %d", c.kind, f.FaultReport, c.fired)
		}
		if !slices.Contains(kinds, c.kind) {
			kinds = append(kinds, c.kind)
		}
	}
	// every kind the transport injects has its pair
	want := httpfault.Kinds()
	slices.Sort(want)
	slices.Sort(kinds)
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Fatalf("kinds with a pair (-injected +tested):\n%s", diff)
	}
}

// TestKindsAreTheToolDomain: the transport injects every tool-domain kind
// of the catalogue, and nothing else.
func TestKindsAreTheToolDomain(t *testing.T) {
	if diff := cmp.Diff(model.KindsOf(model.DomainTool, false), httpfault.Kinds()); diff != "" {
		t.Fatalf("kinds (-tool domain +injected):\n%s", diff)
	}
}

// TestTruePhase: a kind reaches the server before the client is answered
// exactly when its spec's phase is after_commit; a tool_timeout's request
// reaches it late (at Flush); the exchange log says which were sent.
func TestTruePhase(t *testing.T) {
	for _, kind := range httpfault.Kinds() {
		spec, _ := model.Spec(kind)
		l, srv := startLedger(t)
		ft := newTransport(t, single(t, kind, 1), httpfault.Options{})
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/payments", strings.NewReader(`{"order":"O-731","amount":7400}`))
		req.Header.Set("Idempotency-Key", "k-1")
		resp, err := (&http.Client{Transport: ft}).Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		entries, posts, _ := l.count()
		after := spec.Phase == model.Phase("after_commit")
		if (posts == 1) != after || entries != posts {
			t.Errorf("%s (phase %s): the server got %d posts and holds %d entries before the client's answer", kind, spec.Phase, posts, entries)
		}
		if x := ft.Exchanges(); len(x) != 1 || x[0].Sent != after || x[0].FaultID != "f1" || x[0].Commit != 1 {
			t.Errorf("%s: exchanges %+v", kind, x)
		}
		if err := ft.Flush(); err != nil {
			t.Fatal(err)
		}
		late := 0
		if kind == "tool_timeout" {
			late = 1
		}
		if entries, posts, _ := l.count(); posts != btoi(after)+late || entries != posts {
			t.Errorf("%s: after flush %d posts, %d entries", kind, posts, entries)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestResponseDisturbances pins what the client reads for each response
// disturbance of a committed answer, and the timeout error's shape.
func TestResponseDisturbances(t *testing.T) {
	want := map[string]string{
		"partial_success_response": `{"amount":7400,"key":"k-1","order":"O-731","replayed":false}`,
		"malformed_response":       `{"receipt_id":"rcpt-1","key":"k-1","order`, // the first 41 of 83 bytes
		"output_drift":             `{"amount":"7400","key":"k-1","order":"O-731","receiptId":"rcpt-1","replayed":false}`,
		"reject_before_commit":     `{"error":"rejected before commit"}`,
		"rate_limit":               `{"error":"rate limited"}`,
	}
	for kind, body := range want {
		_, srv := startLedger(t)
		ft := newTransport(t, single(t, kind, 1), httpfault.Options{})
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/payments", strings.NewReader(`{"order":"O-731","amount":7400}`))
		req.Header.Set("Idempotency-Key", "k-1")
		resp, err := (&http.Client{Transport: ft}).Do(req)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := strings.TrimSpace(string(b)); got != body || resp.ContentLength != int64(len(b)) {
			t.Errorf("%s: body %s (length %d, header %d), want %s", kind, got, len(b), resp.ContentLength, body)
		}
		if kind == "rate_limit" && (resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1") {
			t.Errorf("rate_limit: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		if kind == "reject_before_commit" && resp.StatusCode != 422 {
			t.Errorf("reject_before_commit: %d", resp.StatusCode)
		}
	}
	_, srv := startLedger(t)
	ft := newTransport(t, single(t, "timeout_after_commit", 1), httpfault.Options{})
	_, err := (&http.Client{Transport: ft}).Post(srv.URL+"/payments", "application/json", strings.NewReader(`{}`))
	var te *httpfault.TimeoutError
	if !errors.As(err, &te) || !errors.Is(err, os.ErrDeadlineExceeded) || !te.Timeout() || !te.Sent {
		t.Fatalf("timeout error %#v", err)
	}
	// the server answered 400 (no key): the reply is still lost, but
	// nothing was committed, so the fault did not fire
	if f := ft.Faults()[0]; !f.Reached || f.Fired != 0 {
		t.Fatalf("fault on a rejected request: %+v", f.FaultReport)
	}
}

// TestOrdinalsCountCommits: ordinals count commit requests only (GETs pass
// through uncounted), a fault at an ordinal never reached is reported so,
// and a persistent kind fires on every later commit.
func TestOrdinalsCountCommits(t *testing.T) {
	s := &model.Schedule{Version: model.ScheduleVersion, Config: copperfin.ConfigOfControls(0), Faults: []model.FaultEntry{
		{Event: model.EvToolCommit, Ordinal: 2, Kind: "budget_exhaustion"},
		{ID: "late", Event: model.EvToolCommit, Ordinal: 9, Kind: "rate_limit"},
	}}
	l, srv := startLedger(t)
	ft := newTransport(t, s, httpfault.Options{})
	c := &http.Client{Transport: ft}
	var got []string
	for i, m := range []string{"GET", "POST", "GET", "POST", "POST", "GET"} {
		req, _ := http.NewRequest(m, srv.URL+"/payments?key=k", strings.NewReader(`{"order":"O-731","amount":1}`))
		req.Header.Set("Idempotency-Key", "k-"+string(rune('a'+i)))
		if m == "GET" {
			req.Body = nil
		}
		resp, err := c.Do(req)
		if err != nil {
			got = append(got, m+" timeout")
			continue
		}
		resp.Body.Close()
		got = append(got, m+" "+resp.Status)
	}
	want := []string{"GET 200 OK", "POST 201 Created", "GET 200 OK", "POST timeout", "POST timeout", "GET 200 OK"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("answers (-want +got):\n%s", diff)
	}
	if entries, posts, gets := l.count(); entries != 1 || posts != 1 || gets != 3 {
		t.Fatalf("server: %d entries, %d posts, %d gets", entries, posts, gets)
	}
	f := ft.Faults()
	if !f[0].Reached || f[0].Fired != 2 || f[0].FiredAt != 4 || f[0].Key.Correlation != model.CorrelationPersistent {
		t.Fatalf("budget_exhaustion report %+v", f[0])
	}
	if f[1].ID != "late" || f[1].Reached || f[1].Fired != 0 {
		t.Fatalf("unreached fault report %+v", f[1])
	}
	var commits []int
	for _, x := range ft.Exchanges() {
		commits = append(commits, x.Commit)
	}
	if diff := cmp.Diff([]int{0, 1, 0, 2, 3, 0}, commits); diff != "" {
		t.Fatalf("commit ordinals (-want +got):\n%s", diff)
	}
}

// TestCovered: the coverage keys of the fired faults, each once, sorted.
func TestCovered(t *testing.T) {
	var keys []string
	for _, kind := range httpfault.Kinds() {
		_, srv := startLedger(t)
		ft := newTransport(t, single(t, kind, 1), httpfault.Options{})
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/payments", strings.NewReader(`{"order":"O-731","amount":7400}`))
		req.Header.Set("Idempotency-Key", "k-1")
		if resp, err := (&http.Client{Transport: ft}).Do(req); err == nil {
			resp.Body.Close()
		}
		for _, k := range ft.Covered() {
			if !slices.Contains(keys, k.String()) {
				keys = append(keys, k.String())
			}
		}
	}
	slices.Sort(keys)
	want := []string{
		"tool/effect/after_commit/isolated/ledger_readback",
		"tool/effect/after_commit/isolated/receipt",
		"tool/effect/before_commit/isolated/ledger_readback",
		"tool/sandbox/before_validation/isolated/ledger_readback",
		"tool/tool_call/before_commit/isolated/budget_counter",
		"tool/tool_call/before_commit/isolated/ledger_readback",
		"tool/tool_call/before_commit/persistent/budget_counter",
	}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Fatalf("covered keys (-want +got):\n%s", diff)
	}
	ft := newTransport(t, single(t, "rate_limit", 3), httpfault.Options{})
	if len(ft.Covered()) != 0 {
		t.Fatalf("keys covered before any request: %v", ft.Covered())
	}
}

// recorder is a base transport that records what reaches it and never
// touches the network.
type recorder struct {
	mu    sync.Mutex
	hosts []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hosts = append(r.hosts, req.URL.Host)
	return &http.Response{StatusCode: 204, Status: "204 No Content", Header: http.Header{}, Body: http.NoBody, Request: req}, nil
}

// TestAllowlist: with the default allowlist only loopback hosts reach the
// base transport; every other host is refused with ErrRefused before
// anything is sent, faults or not; a custom allowlist replaces the
// default.
func TestAllowlist(t *testing.T) {
	allowed := []string{"http://127.0.0.1:8080/p", "http://127.3.4.5/p", "http://[::1]:9/p", "http://localhost:1/p", "http://LOCALHOST./p", "http://[::ffff:127.0.0.1]/p"}
	refused := []string{"http://example.com/p", "http://10.0.0.1/p", "http://192.0.2.1:80/p", "http://0.0.0.0/p", "http://[::]/p",
		"http://127.0.0.1.nip.io/p", "http://localhost.example.com/p", "http://[::ffff:10.0.0.1]/p", "http://169.254.169.254/p", "http://[fe80::1]/p"}
	for _, sched := range []*model.Schedule{single(t, "timeout_after_commit", 1), single(t, "tool_timeout", 1)} {
		rec := &recorder{}
		ft, err := httpfault.New(rec, sched, httpfault.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := &http.Client{Transport: ft}
		for _, u := range refused {
			_, err := c.Post(u, "application/json", strings.NewReader("{}"))
			if !errors.Is(err, httpfault.ErrRefused) {
				t.Errorf("%s: %v, want ErrRefused", u, err)
			}
		}
		if err := ft.Flush(); err != nil {
			t.Fatal(err)
		}
		if len(rec.hosts) != 0 {
			t.Fatalf("refused hosts reached the base transport: %v", rec.hosts)
		}
		for _, u := range allowed {
			req, _ := http.NewRequest(http.MethodGet, u, nil)
			if _, err := c.Do(req); err != nil {
				t.Errorf("%s: %v", u, err)
			}
		}
		if len(rec.hosts) != len(allowed) {
			t.Fatalf("allowed hosts sent: %v", rec.hosts)
		}
		for _, x := range ft.Exchanges()[:len(refused)] {
			if x.Sent || x.Commit != 0 || !strings.Contains(x.Err, "host not in the allowlist") {
				t.Fatalf("refused exchange %+v", x)
			}
		}
		if f := ft.Faults()[0]; f.Reached {
			t.Fatalf("a refused request reached a fault: %+v", f)
		}
	}
	_, err := (&http.Client{Transport: mustNew(t, &recorder{}, httpfault.Options{})}).Get("http://user:secret@example.com:81/x")
	want := `Get "http://user:***@example.com:81/x": httpfault: host not in the allowlist: refusing GET http://example.com:81/x: host "example.com" (allowed: 127.0.0.0/8, ::1, localhost)`
	if err == nil || err.Error() != want {
		t.Fatalf("error %q\nwant  %q", err, want)
	}
	// a custom allowlist replaces the default
	rec := &recorder{}
	c := &http.Client{Transport: mustNew(t, rec, httpfault.Options{Allow: []string{"192.0.2.0/24", "tool.test"}})}
	for _, u := range []string{"http://192.0.2.7/p", "http://TOOL.test/p", "http://127.0.0.1/p", "http://sub.tool.test/p"} {
		c.Get(u)
	}
	if diff := cmp.Diff([]string{"192.0.2.7", "TOOL.test"}, rec.hosts); diff != "" {
		t.Fatalf("custom allowlist sent (-want +got):\n%s", diff)
	}
}

func mustNew(t *testing.T, base http.RoundTripper, opts httpfault.Options) *httpfault.Transport {
	t.Helper()
	ft, err := httpfault.New(base, &model.Schedule{Version: model.ScheduleVersion, Config: copperfin.ConfigOfControls(0)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ft
}

// TestRedirectToDisallowedHostRefused: a real loopback server redirecting
// to another host gets the redirect refused; nothing leaves loopback.
func TestRedirectToDisallowedHostRefused(t *testing.T) {
	srv := startRedirect(t, "http://192.0.2.1/steal")
	ft := newTransport(t, &model.Schedule{Version: model.ScheduleVersion, Config: copperfin.ConfigOfControls(0)}, httpfault.Options{})
	_, err := (&http.Client{Transport: ft}).Get(srv.URL + "/start")
	if !errors.Is(err, httpfault.ErrRefused) {
		t.Fatalf("redirect: %v", err)
	}
	x := ft.Exchanges()
	if len(x) != 2 || !x[0].Sent || x[0].Status != http.StatusFound || x[1].Sent || x[1].URL != "http://192.0.2.1/steal" {
		t.Fatalf("exchanges %+v", x)
	}
}

func startRedirect(t *testing.T, to string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, to, http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestStopConditions: the transport stops after MaxRequests requests,
// before forwarding more than MaxEffects commits (late deliveries
// included), and once its logical clock reaches Expiry; once stopped,
// nothing more is sent.
func TestStopConditions(t *testing.T) {
	post := func(c *http.Client, url, key string) error {
		req, _ := http.NewRequest(http.MethodPost, url+"/payments", strings.NewReader(`{"order":"O-731","amount":5}`))
		req.Header.Set("Idempotency-Key", key)
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	empty := &model.Schedule{Version: model.ScheduleVersion, Config: copperfin.ConfigOfControls(0)}

	l, srv := startLedger(t)
	ft := newTransport(t, empty, httpfault.Options{MaxRequests: 3})
	c := &http.Client{Transport: ft}
	var errs []error
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		errs = append(errs, post(c, srv.URL, k))
	}
	if entries, _, _ := l.count(); entries != 3 || errs[2] != nil || !errors.Is(errs[3], httpfault.ErrStopped) || !errors.Is(errs[4], httpfault.ErrStopped) ||
		ft.Stopped() != "more than 3 requests" {
		t.Fatalf("max requests: %d entries, errors %v, stopped %q", entries, errs, ft.Stopped())
	}

	// two effects allowed: the held request's late delivery is the
	// second, so the third commit is refused
	l, srv = startLedger(t)
	ft = newTransport(t, single(t, "tool_timeout", 1), httpfault.Options{MaxEffects: 2})
	c = &http.Client{Transport: ft}
	errs = nil
	for _, k := range []string{"a", "b", "c"} {
		errs = append(errs, post(c, srv.URL, k))
	}
	if entries, posts, _ := l.count(); entries != 2 || posts != 2 || errs[1] != nil || !errors.Is(errs[2], httpfault.ErrStopped) || ft.Stopped() != "more than 2 effects" {
		t.Fatalf("max effects: %d entries %d posts, errors %v, stopped %q", entries, posts, errs, ft.Stopped())
	}
	if _, err := c.Get(srv.URL + "/payments?key=a"); !errors.Is(err, httpfault.ErrStopped) {
		t.Fatalf("a readback after the stop: %v", err)
	}

	// a logical clock the test controls
	var now model.Millis
	l, srv = startLedger(t)
	ft = newTransport(t, empty, httpfault.Options{Clock: func() model.Millis { return now }, Expiry: 500})
	c = &http.Client{Transport: ft}
	errs = nil
	for _, at := range []model.Millis{0, 499, 500, 10} {
		now = at
		errs = append(errs, post(c, srv.URL, "k"))
	}
	if entries, posts, _ := l.count(); entries != 1 || posts != 2 || errs[1] != nil || !errors.Is(errs[2], httpfault.ErrStopped) || !errors.Is(errs[3], httpfault.ErrStopped) ||
		ft.Stopped() != "expired at 500 ms of the logical clock" {
		t.Fatalf("expiry: %d entries %d posts, errors %v, stopped %q", entries, posts, errs, ft.Stopped())
	}
}

// TestNewErrors: bad schedules and options are errors that name the
// problem.
func TestNewErrors(t *testing.T) {
	ok := single(t, "rate_limit", 1)
	proxied := &http.Transport{Proxy: http.ProxyFromEnvironment}
	cases := []struct {
		base http.RoundTripper
		s    *model.Schedule
		opts httpfault.Options
		want string
	}{
		{nil, nil, httpfault.Options{}, "httpfault: no schedule"},
		{nil, &model.Schedule{Version: 1, Config: copperfin.ConfigOfControls(0), Faults: []model.FaultEntry{{Event: model.EvProposal, Ordinal: 1, Kind: "subject_swap"}}}, httpfault.Options{},
			"httpfault: fault f1: subject_swap at proposal is not a tool fault the HTTP transport injects (it injects at tool.commit: timeout_after_commit, partial_success_response, sandbox_denial, timeout_before_send, reject_before_commit, malformed_response, output_drift, rate_limit, tool_timeout, budget_exhaustion)"},
		{nil, &model.Schedule{Version: 1, Config: copperfin.ConfigOfControls(0), Faults: []model.FaultEntry{{ID: "x", Event: model.EvToolCommit, Ordinal: 1, Kind: "break_trace_lineage"}}}, httpfault.Options{},
			"httpfault: fault x: break_trace_lineage at tool.commit is not a tool fault the HTTP transport injects (it injects at tool.commit: timeout_after_commit, partial_success_response, sandbox_denial, timeout_before_send, reject_before_commit, malformed_response, output_drift, rate_limit, tool_timeout, budget_exhaustion)"},
		{nil, &model.Schedule{Version: 1, Config: copperfin.ConfigOfControls(0), Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 0, Kind: "rate_limit"}}}, httpfault.Options{},
			"httpfault: schedule: faults[0]: ordinal 0 must be 1 or more"},
		{nil, &model.Schedule{Version: 1, Config: copperfin.ConfigOfControls(0), Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "rate_limit", Target: "/payments"}}}, httpfault.Options{},
			`httpfault: fault f1: target "/payments": the HTTP transport takes no target`},
		{nil, &model.Schedule{Version: 1, Config: copperfin.ConfigOfControls(0), Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "rate_limit", Tool: "charge"}}}, httpfault.Options{},
			`httpfault: fault f1: tool "charge": the HTTP transport cannot tell tools apart (its ordinal counts every commit request); leave "tool" out`},
		{nil, ok, httpfault.Options{Allow: []string{"10.0.0.0/33"}}, `httpfault: allowlist entry "10.0.0.0/33" is not a valid CIDR prefix`},
		{nil, ok, httpfault.Options{Allow: []string{"*.corp"}}, `httpfault: allowlist entry "*.corp" is neither an IP address, a CIDR prefix nor a host name`},
		{nil, ok, httpfault.Options{Allow: []string{"http://localhost"}}, `httpfault: allowlist entry "http://localhost" is neither an IP address, a CIDR prefix nor a host name`},
		{nil, ok, httpfault.Options{MaxEffects: -1}, "httpfault: negative limit (max requests 0, max effects -1, expiry 0)"},
		{nil, ok, httpfault.Options{Expiry: 10}, "httpfault: Expiry needs a Clock"},
		{proxied, ok, httpfault.Options{}, "httpfault: the base transport has a Proxy; set it to nil (the allowlist cannot vouch for where a proxy sends)"},
	}
	for _, c := range cases {
		if _, err := httpfault.New(c.base, c.s, c.opts); err == nil || err.Error() != c.want {
			t.Errorf("New: %v\nwant %s", err, c.want)
		}
	}
}

// TestDefaultBaseReachesLoopback: with no base given, the transport sends
// through its own proxy-less clone of the default transport.
func TestDefaultBaseReachesLoopback(t *testing.T) {
	l, srv := startLedger(t)
	ft, err := httpfault.New(nil, single(t, "timeout_after_commit", 1), httpfault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ft.CloseIdleConnections()
	_, err = (&http.Client{Transport: ft}).Post(srv.URL+"/payments", "application/json", bytes.NewReader([]byte(`{"order":"O-731","amount":3}`)))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("%v", err)
	}
	// no key: the server refused it, so nothing was committed
	if entries, posts, _ := l.count(); entries != 0 || posts != 1 {
		t.Fatalf("%d entries, %d posts", entries, posts)
	}
}
