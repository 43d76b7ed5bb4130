package httpfault_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/faultline/faultline/internal/catalog"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
)

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
		firedAt        int
	}{
		{"blind retry", blind, `paid receipt="rcpt-2" verified=false attempts=2 slept=[]`, 2, 2, 2},
		{"same key and readback", protected, `paid receipt="rcpt-1" verified=true attempts=1 slept=[]`, 1, 1, 2},
	} {
		got, l, res := payOnce(t, c.d, at("timeout_after_commit", 1))
		entries, posts, _ := l.count()
		if got.String() != c.want || entries != c.entries || posts != c.posts {
			t.Errorf("%s: %s, ledger %d entries after %d posts; want %s, %d entries after %d posts", c.name, got, entries, posts, c.want, c.entries, c.posts)
		}
		want := []model.FaultReport{{ID: "f1", Kind: "timeout_after_commit", Event: model.EvToolCommit, Ordinal: 1,
			Reached: true, Fired: 1, FiredAt: c.firedAt, Oracle: "ledger_readback", Observed: []string{}}}
		if diff := cmp.Diff(want, res.Faults); diff != "" {
			t.Errorf("%s: fault report (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestCounterfactualPairs: for every tool kind the joined transport
// renders, a client lacking the defence the kind defeats breaks (it pays
// twice, claims a payment that never happened, releases without proof, or
// retries until the harness stops its worker), and the protected client
// contains it; exact claims, ledger entries and server requests.
// break_trace_lineage, which this payer cannot see, has its pair in
// TestJoinCounterfactuals.
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
		// unbounded retries end at the harness's bound of crossings per
		// task: 200 POSTs and 200 readbacks cross, the next POST finds the
		// worker stopped
		{"budget_exhaustion", without(func(d *defences) { d.budget = false }), `stopped receipt="" verified=false attempts=201 slept=[]`, 0, 0, 200, 200, false},
		{"budget_exhaustion", protected, `held receipt="" verified=false attempts=3 slept=[]`, 0, 0, 3, 3, true},
		// a 200 whose body says the payment failed: a payer that reads
		// the envelope alone claims a payment the ledger lacks
		{"false_success", without(func(d *defences) { d.envelope, d.validate, d.readback = false, false, false }), `paid receipt="" verified=false attempts=1 slept=[]`, 0, 0, 0, 1, false},
		{"false_success", protected, `denied receipt="" verified=false attempts=1 slept=[]`, 0, 0, 0, 1, true},
	}
	cases = append(cases, []struct {
		kind      string
		d         defences
		want      string
		entries   int
		posts     int
		gets      int
		fired     int
		protected bool
	}{
		// before commit: a 500 or a refused connection taken as success
		// claims a payment that never happened; the protected client
		// reads back, finds none and pays under the same key
		{"server_error", untyped, `paid receipt="" verified=false attempts=1 slept=[]`, 0, 0, 0, 1, false},
		{"server_error", protected, `paid receipt="rcpt-1" verified=true attempts=2 slept=[]`, 1, 1, 2, 1, true},
		{"network_error", untyped, `paid receipt="" verified=false attempts=1 slept=[]`, 0, 0, 0, 1, false},
		{"network_error", protected, `paid receipt="rcpt-1" verified=true attempts=2 slept=[]`, 1, 1, 2, 1, true},
	}...)
	var kinds []string
	for _, c := range cases {
		got, l, res := payOnce(t, c.d, at(c.kind, 1))
		entries, posts, gets := l.count()
		if got.String() != c.want || entries != c.entries || posts != c.posts || gets != c.gets {
			t.Errorf("%s (protected %t): %s; ledger %d entries, %d posts, %d gets\n\twant %s; %d entries, %d posts, %d gets",
				c.kind, c.protected, got, entries, posts, gets, c.want, c.entries, c.posts, c.gets)
		}
		if f := res.Faults[0]; !f.Reached || f.Fired != c.fired {
			t.Errorf("%s: fault %+v, want fired %d", c.kind, f, c.fired)
		}
		if !slices.Contains(kinds, c.kind) {
			kinds = append(kinds, c.kind)
		}
	}
	// the provider's refusals outside the catalogue have their pairs in
	// TestJoinProviderRefusals
	want := slices.DeleteFunc(httpfault.Kinds(), func(k string) bool {
		return k == "break_trace_lineage" || k == "do_not_retry" || k == "provider_outage" || k == "credential_expired"
	})
	slices.Sort(want)
	slices.Sort(kinds)
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Fatalf("kinds with a pair (-rendered +tested):\n%s", diff)
	}
}

// TestTransportErrorsAfterCommit: server_error and network_error after
// the provider committed (target after_commit). A client that takes the
// 500 or the reset connection as a refusal denies a payment the ledger
// holds; one that retries under a fresh key without reading back pays
// twice; the protected client reads back and finds its one payment.
func TestTransportErrorsAfterCommit(t *testing.T) {
	without := func(f func(*defences)) defences { d := protected; f(&d); return d }
	refusal := without(func(d *defences) { d.transport = false })
	blind := without(func(d *defences) { d.sameKey, d.readback = false, false })
	for _, c := range []struct {
		kind, want           string
		d                    defences
		entries, posts, gets int
	}{
		{"server_error", `denied receipt="" verified=false attempts=1 slept=[]`, refusal, 1, 1, 0},
		{"server_error", `paid receipt="rcpt-2" verified=false attempts=2 slept=[]`, blind, 2, 2, 0},
		{"server_error", `paid receipt="rcpt-1" verified=true attempts=1 slept=[]`, protected, 1, 1, 1},
		{"network_error", `denied receipt="" verified=false attempts=1 slept=[]`, refusal, 1, 1, 0},
		{"network_error", `paid receipt="rcpt-2" verified=false attempts=2 slept=[]`, blind, 2, 2, 0},
		{"network_error", `paid receipt="rcpt-1" verified=true attempts=1 slept=[]`, protected, 1, 1, 1},
	} {
		f := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: c.kind, Target: "after_commit"}
		got, l, res := payOnce(t, c.d, f)
		entries, posts, gets := l.count()
		if got.String() != c.want || entries != c.entries || posts != c.posts || gets != c.gets || res.Faults[0].Fired != 1 {
			t.Errorf("%s %+v: %s; ledger %d entries, %d posts, %d gets; fault %+v\n\twant %s; %d, %d, %d", c.kind, c.d, got, entries, posts, gets, res.Faults[0], c.want, c.entries, c.posts, c.gets)
		}
	}
}

// postTwice posts k-1, then k-2, to the ledger, recording how many POSTs
// the server had received when the client got each answer.
func postTwice(t *testing.T, kind string) (atAnswer []int, l *ledger) {
	t.Helper()
	l, srv := startLedger(t)
	_, err := runClient(t, clientSystem{l: l, do: func(ctx context.Context, c *http.Client, _ *httpfault.Joined) {
		for _, key := range []string{"k-1", "k-2"} {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/payments", strings.NewReader(`{"order":"O-731","amount":7400}`))
			req.Header.Set("Idempotency-Key", key)
			if resp, err := c.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			_, posts, _ := l.count()
			atAnswer = append(atAnswer, posts)
		}
	}}, at(kind, 1))
	if err != nil {
		t.Fatal(err)
	}
	return atAnswer, l
}

// TestTruePhase: a tool kind's request reaches the server before the
// client is answered exactly when its spec's phase is after_commit; a
// tool_timeout's request reaches it late, just before the next commit;
// budget_exhaustion keeps the next commit from the server too.
func TestTruePhase(t *testing.T) {
	for _, kind := range catalog.Kinds(model.Domain("tool"), false) {
		spec, _ := model.Spec(kind)
		atAnswer, l := postTwice(t, kind)
		first := btoi(spec.Phase == model.Phase("after_commit"))
		second := first + 1
		switch kind {
		case "tool_timeout":
			second = 2 // the held k-1, then k-2
		case "budget_exhaustion":
			second = 0
		}
		if !slices.Equal(atAnswer, []int{first, second}) {
			t.Errorf("%s (phase %s): the server had %v posts at the client's answers, want [%d %d]", kind, spec.Phase, atAnswer, first, second)
		}
		var keys []string
		for _, e := range l.rows() {
			keys = append(keys, e.Key)
		}
		want := []string{"k-1", "k-2"}[2-second:]
		if !slices.Equal(keys, want) {
			t.Errorf("%s: ledger keys %v, want %v", kind, keys, want)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// postOnce posts body under key k-1 to the ledger through the joined
// transport under faults and returns what the client got.
func postOnce(t *testing.T, body string, faults ...model.FaultEntry) (*http.Response, []byte, *model.Result, error) {
	t.Helper()
	_, srv := startLedger(t)
	var resp *http.Response
	var b []byte
	var err error
	res, rerr := runClient(t, clientSystem{do: func(ctx context.Context, c *http.Client, _ *httpfault.Joined) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/payments", strings.NewReader(body))
		req.Header.Set("Idempotency-Key", "k-1")
		if resp, err = c.Do(req); err == nil {
			b, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
	}}, faults...)
	if rerr != nil {
		t.Fatal(rerr)
	}
	return resp, b, res, err
}

// TestResponseDisturbances pins what the client reads for each kind that
// answers in the provider's place or rewrites its answer, and the timeout
// error's shape.
func TestResponseDisturbances(t *testing.T) {
	want := map[string]string{
		"partial_success_response": `{"amount":7400,"key":"k-1","order":"O-731","replayed":false}`,
		"malformed_response":       `{"receipt_id":"rcpt-1","key":"k-1","order`, // the first 41 of 83 bytes
		"output_drift":             `{"amount":"7400","key":"k-1","order":"O-731","receiptId":"rcpt-1","replayed":false}`,
		"reject_before_commit":     `{"error":"rejected before commit"}`,
		"rate_limit":               `{"error":"rate limited"}`,
	}
	for kind, body := range want {
		resp, b, _, err := postOnce(t, `{"order":"O-731","amount":7400}`, at(kind, 1))
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if got := strings.TrimSpace(string(b)); got != body || resp.ContentLength != int64(len(b)) {
			t.Errorf("%s: body %s (length %d, header %d), want %s", kind, got, len(b), resp.ContentLength, body)
		}
		if kind == "rate_limit" && (resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" || resp.Header.Get("Retry-After-Ms") != "100") {
			t.Errorf("rate_limit: %d, Retry-After %q, Retry-After-Ms %q", resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("Retry-After-Ms"))
		}
		if kind == "reject_before_commit" && resp.StatusCode != 422 {
			t.Errorf("reject_before_commit: %d", resp.StatusCode)
		}
	}
	_, _, _, err := postOnce(t, `{"order":"O-731","amount":7400}`, at("timeout_after_commit", 1))
	var te *httpfault.TimeoutError
	if !errors.As(err, &te) || !errors.Is(err, os.ErrDeadlineExceeded) || !te.Timeout() || !te.Sent ||
		te.Error() != "httpfault: timeout awaiting response (timeout_after_commit)" {
		t.Fatalf("timeout error %#v", err)
	}
	// the server answers 400 (no order): nothing was committed, so the
	// fault does not fire and the client reads the provider's answer
	resp, b, res, err := postOnce(t, `{}`, at("timeout_after_commit", 1))
	if err != nil || resp.StatusCode != http.StatusBadRequest || strings.TrimSpace(string(b)) != `{"error":"invalid payment"}` {
		t.Fatalf("a rejected request under timeout_after_commit: %v, %v, %s", resp, err, b)
	}
	if f := res.Faults[0]; !f.Reached || f.Fired != 0 {
		t.Fatalf("fault on a rejected request: %+v", f)
	}
}

// TestOrdinalsCountCommits: ordinals count commit requests only (GETs
// cross ledger.readback, not tool.commit), a fault at an ordinal never
// reached is reported so, and a persistent kind fires on every later
// commit.
func TestOrdinalsCountCommits(t *testing.T) {
	l, srv := startLedger(t)
	var got []string
	res, err := runClient(t, clientSystem{l: l, do: func(ctx context.Context, c *http.Client, _ *httpfault.Joined) {
		for i, m := range []string{"GET", "POST", "GET", "POST", "POST", "GET"} {
			req, _ := http.NewRequestWithContext(ctx, m, srv.URL+"/payments?key=k", strings.NewReader(`{"order":"O-731","amount":1}`))
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
	}}, at("budget_exhaustion", 2), model.FaultEntry{ID: "late", Event: model.EvToolCommit, Ordinal: 9, Kind: "rate_limit"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"GET 200 OK", "POST 201 Created", "GET 200 OK", "POST timeout", "POST timeout", "GET 200 OK"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("answers (-want +got):\n%s", diff)
	}
	if entries, posts, gets := l.count(); entries != 1 || posts != 1 || gets != 3 {
		t.Fatalf("server: %d entries, %d posts, %d gets", entries, posts, gets)
	}
	f := res.Faults
	if !f[0].Reached || f[0].Fired != 2 || f[0].FiredAt != 5 {
		t.Fatalf("budget_exhaustion report %+v", f[0])
	}
	if f[1].ID != "late" || f[1].Reached || f[1].Fired != 0 {
		t.Fatalf("unreached fault report %+v", f[1])
	}
	var crossings []string
	for _, e := range res.Timeline.Events() {
		crossings = append(crossings, string(e.Event)+"#"+strconv.Itoa(e.Ordinal))
	}
	if diff := cmp.Diff([]string{"worker.start#1", "ledger.readback#1", "tool.commit#1", "ledger.readback#2", "tool.commit#2", "tool.commit#3", "ledger.readback#3", "claim#0"}, crossings); diff != "" {
		t.Fatalf("crossings (-want +got):\n%s", diff)
	}
}

// TestCovered: each tool kind fires on a single commit through the joined
// transport; the coverage keys of the fired faults, each once, sorted.
func TestCovered(t *testing.T) {
	var keys []string
	for _, kind := range catalog.Kinds(model.Domain("tool"), false) {
		_, _, res, _ := postOnce(t, `{"order":"O-731","amount":7400}`, at(kind, 1))
		for _, f := range res.Faults {
			spec, _ := model.Spec(f.Kind)
			k := string(spec.Domain) + "/" + string(spec.Boundary) + "/" + string(spec.Phase) + "/" + string(spec.Correlation) + "/" + string(spec.Oracle)
			if f.Fired > 0 && !slices.Contains(keys, k) {
				keys = append(keys, k)
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
}

// recorder is a handler (the base is InProcess(rec)) that records the
// hosts that reach it; nothing touches the network.
type recorder struct {
	mu    sync.Mutex
	hosts []string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hosts = append(r.hosts, req.Host)
	w.WriteHeader(http.StatusNoContent)
}

// TestAllowlist: with the default allowlist only loopback hosts reach the
// base transport; every other host is refused with ErrRefused before
// anything is sent or any fault is reached, and the run ends with the
// first refusal; a custom allowlist replaces the default.
func TestAllowlist(t *testing.T) {
	allowed := []string{"http://127.0.0.1:8080/p", "http://127.3.4.5/p", "http://[::1]:9/p", "http://localhost:1/p", "http://LOCALHOST./p", "http://[::ffff:127.0.0.1]/p"}
	refused := []string{"http://example.com/p", "http://10.0.0.1/p", "http://192.0.2.1:80/p", "http://0.0.0.0/p", "http://[::]/p",
		"http://127.0.0.1.nip.io/p", "http://localhost.example.com/p", "http://[::ffff:10.0.0.1]/p", "http://169.254.169.254/p", "http://[fe80::1]/p"}
	anyPost, _ := httpfault.Rules(httpfault.Rule{Method: "POST", Class: httpfault.Commit})
	for _, kind := range []string{"timeout_after_commit", "tool_timeout"} {
		rec := &recorder{}
		res, err := runClient(t, clientSystem{base: httpfault.InProcess(rec), opts: httpfault.JoinOptions{Classify: anyPost}, do: func(ctx context.Context, c *http.Client, _ *httpfault.Joined) {
			for _, u := range refused {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader("{}"))
				req.Header.Set("Idempotency-Key", "k")
				if _, err := c.Do(req); !errors.Is(err, httpfault.ErrRefused) {
					t.Errorf("%s: %v, want ErrRefused", u, err)
				}
			}
			if len(rec.hosts) != 0 {
				t.Errorf("refused hosts reached the base transport: %v", rec.hosts)
			}
			for _, u := range allowed {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
				if _, err := c.Do(req); err != nil {
					t.Errorf("%s: %v", u, err)
				}
			}
		}}, at(kind, 1))
		want := `httpfault: host not in the allowlist: refusing POST http://example.com/p: host "example.com" (allowed: 127.0.0.0/8, ::1, localhost)`
		if err == nil || err.Error() != want {
			t.Fatalf("run error %v\nwant %s", err, want)
		}
		if len(rec.hosts) != len(allowed) {
			t.Fatalf("allowed hosts sent: %v", rec.hosts)
		}
		if res != nil && res.Faults[0].Reached {
			t.Fatalf("a refused request reached a fault: %+v", res.Faults[0])
		}
	}
	var got error
	runClient(t, clientSystem{base: httpfault.InProcess(&recorder{}), do: func(_ context.Context, c *http.Client, _ *httpfault.Joined) {
		_, got = c.Get("http://user:secret@example.com:81/x")
	}})
	want := `Get "http://user:***@example.com:81/x": httpfault: host not in the allowlist: refusing GET http://example.com:81/x: host "example.com" (allowed: 127.0.0.0/8, ::1, localhost)`
	if got == nil || got.Error() != want {
		t.Fatalf("error %q\nwant  %q", got, want)
	}
	// a custom allowlist replaces the default
	rec := &recorder{}
	runClient(t, clientSystem{base: httpfault.InProcess(rec), opts: httpfault.JoinOptions{Allow: []string{"192.0.2.0/24", "tool.test"}}, do: func(_ context.Context, c *http.Client, _ *httpfault.Joined) {
		for _, u := range []string{"http://192.0.2.7/p", "http://TOOL.test/p", "http://127.0.0.1/p", "http://sub.tool.test/p"} {
			c.Get(u)
		}
	}})
	if diff := cmp.Diff([]string{"192.0.2.7", "TOOL.test"}, rec.hosts); diff != "" {
		t.Fatalf("custom allowlist sent (-want +got):\n%s", diff)
	}
}

// TestRedirectToDisallowedHostRefused: a real loopback server redirecting
// to another host gets the redirect refused; nothing leaves loopback.
func TestRedirectToDisallowedHostRefused(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		http.Redirect(w, r, "http://192.0.2.1/steal", http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	var got error
	_, err := runClient(t, clientSystem{do: func(_ context.Context, c *http.Client, _ *httpfault.Joined) {
		_, got = c.Get(srv.URL + "/start")
	}})
	if !errors.Is(got, httpfault.ErrRefused) || hits != 1 {
		t.Fatalf("redirect: %v after %d requests at the server", got, hits)
	}
	want := `httpfault: host not in the allowlist: refusing GET http://192.0.2.1/steal: host "192.0.2.1" (allowed: 127.0.0.0/8, ::1, localhost)`
	if err == nil || err.Error() != want {
		t.Fatalf("run error %v\nwant %s", err, want)
	}
}

// TestJoinErrors: bad options are errors that name the problem.
func TestJoinErrors(t *testing.T) {
	proxied := &http.Transport{Proxy: http.ProxyFromEnvironment}
	for _, c := range []struct {
		base  http.RoundTripper
		allow []string
		want  string
	}{
		{nil, []string{"10.0.0.0/33"}, `httpfault: allowlist entry "10.0.0.0/33" is not a valid CIDR prefix`},
		{nil, []string{"*.corp"}, `httpfault: allowlist entry "*.corp" is neither an IP address, a CIDR prefix nor a host name`},
		{nil, []string{"http://localhost"}, `httpfault: allowlist entry "http://localhost" is neither an IP address, a CIDR prefix nor a host name`},
		{proxied, nil, "httpfault: the base transport has a Proxy; set it to nil (the allowlist cannot vouch for where a proxy sends)"},
	} {
		if _, err := httpfault.Join(nopCalls{}, c.base, httpfault.JoinOptions{Classify: payRules, Allow: c.allow}); err == nil || err.Error() != c.want {
			t.Errorf("Join: %v\nwant %s", err, c.want)
		}
	}
}

// TestDefaultBaseReachesLoopback: with no base given, the transport sends
// through its own proxy-less clone of the default transport.
func TestDefaultBaseReachesLoopback(t *testing.T) {
	l, srv := startLedger(t)
	var got error
	_, err := model.NewHarness(payFixture, model.Options{Builtin: []string{}}).Run(func() model.System {
		return clientSystem{l: l, do: func(ctx context.Context, c *http.Client, _ *httpfault.Joined) {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/payments", strings.NewReader(`{"order":"O-731","amount":3}`))
			req.Header.Set("Idempotency-Key", "k-1")
			_, got = c.Do(req)
		}}
	}, &model.Schedule{Version: model.ScheduleVersion, Seed: "default", Faults: []model.FaultEntry{at("timeout_after_commit", 1)}})
	if err != nil || !errors.Is(got, os.ErrDeadlineExceeded) {
		t.Fatalf("run error %v, client error %v", err, got)
	}
	if entries, posts, _ := l.count(); entries != 1 || posts != 1 {
		t.Fatalf("%d entries, %d posts", entries, posts)
	}
}
