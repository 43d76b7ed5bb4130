package httpfault_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
)

// bound is how long a test waits for requests that must complete; it only
// turns a deadlock into a failure and is never reached by a passing test.
const bound = 30 * time.Second

// await fails the test if done is not closed within bound.
func await(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(bound):
		t.Fatalf("%s did not complete within %s: the transport holds its lock across the round trip", what, bound)
	}
}

// TestRoundTripsOverlap: a request that is neither a commit nor a read
// goes through while a commit is still at the server: the commit's
// handler waits for the other request to arrive.
func TestRoundTripsOverlap(t *testing.T) {
	arrivedA, arrivedB := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a":
			close(arrivedA)
			select {
			case <-arrivedB:
			case <-time.After(bound):
				http.Error(w, "b never arrived", http.StatusGatewayTimeout)
				return
			}
		case "/b":
			close(arrivedB)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	rules, _ := httpfault.Rules(httpfault.Rule{Method: "POST", Path: "/a", Class: httpfault.Commit, Tool: "a"})
	status := make([]int, 2)
	errs := make([]error, 2)
	res, err := runClient(t, clientSystem{opts: httpfault.JoinOptions{Classify: rules}, do: func(ctx context.Context, c *http.Client, _ *httpfault.Joined) {
		done := make(chan struct{})
		var wg sync.WaitGroup
		for i, p := range []string{"/a", "/b"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if p == "/b" {
					<-arrivedA
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+p, strings.NewReader(`{}`))
				req.Header.Set("Idempotency-Key", "k"+p)
				resp, err := c.Do(req)
				if errs[i] = err; err == nil {
					status[i] = resp.StatusCode
					resp.Body.Close()
				}
			}()
		}
		go func() { wg.Wait(); close(done) }()
		await(t, done, "a commit and an overlapping request")
	}})
	if err != nil || errs[0] != nil || errs[1] != nil || status[0] != http.StatusNoContent || status[1] != http.StatusNoContent {
		t.Fatalf("run error %v; statuses %v, errors %v", err, status, errs)
	}
	var evs []string
	for _, e := range res.Timeline.Events() {
		evs = append(evs, string(e.Event)+"/"+e.Outcome)
	}
	if got := strings.Join(evs, " "); got != "worker.start/ tool.commit/committed claim/hold" {
		t.Fatalf("timeline %s: want /a as the one commit", got)
	}
}

// TestConcurrentClients: 8 clients of one joined transport, 25 requests
// each (commits and requests that are neither, in turn), under -race:
// the commits cross tool.commit one at a time, taking the ordinals 1 to
// 100 each once, every scheduled fault is reached and fires once, and the
// server receives exactly what the faults let through.
func TestConcurrentClients(t *testing.T) {
	var mu sync.Mutex
	posts, gets := 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		if r.Method == http.MethodPost {
			posts++
		} else {
			gets++
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"receipt_id":"r","amount":1}`)
	}))
	t.Cleanup(srv.Close)
	rules, _ := httpfault.Rules(httpfault.Rule{Method: "POST", Path: "/p/*/*", Class: httpfault.Commit, Tool: "p"})
	const clients, each = 8, 25
	res, err := runClient(t, clientSystem{opts: httpfault.JoinOptions{Classify: rules}, do: func(ctx context.Context, c *http.Client, _ *httpfault.Joined) {
		var wg sync.WaitGroup
		for i := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range each {
					url := fmt.Sprintf("%s/p/%d/%d", srv.URL, i, j)
					var req *http.Request
					if (i+j)%2 == 0 {
						req, _ = http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"amount":1}`))
						//faultline:ignore each j is a new request of its own, not a retry
						req.Header.Set("Idempotency-Key", fmt.Sprintf("k-%d-%d", i, j))
					} else {
						req, _ = http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
					}
					if resp, err := c.Do(req); err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
				}
			}()
		}
		wg.Wait()
	}}, model.FaultEntry{ID: "rl", Event: model.EvToolCommit, Ordinal: 5, Kind: "rate_limit"},
		model.FaultEntry{ID: "tt", Event: model.EvToolCommit, Ordinal: 10, Kind: "tool_timeout"},
		model.FaultEntry{ID: "tac", Event: model.EvToolCommit, Ordinal: 20, Kind: "timeout_after_commit"},
		model.FaultEntry{ID: "ps", Event: model.EvToolCommit, Ordinal: 30, Kind: "partial_success_response"})
	if err != nil {
		t.Fatal(err)
	}
	var ordinals []int
	for _, e := range res.Timeline.Events() {
		if e.Event == model.EvToolCommit {
			ordinals = append(ordinals, e.Ordinal)
		}
	}
	for i, o := range ordinals {
		if o != i+1 {
			t.Fatalf("commit ordinals %v: want 1 to 100 in order", ordinals)
		}
	}
	if len(ordinals) != 100 {
		t.Fatalf("%d commits; want 100", len(ordinals))
	}
	for _, f := range res.Faults {
		if !f.Reached || f.Fired != 1 {
			t.Errorf("fault %s: reached %v, fired %d; want reached, fired once", f.ID, f.Reached, f.Fired)
		}
	}
	// the rate limit is answered in the server's place; the held request
	// arrives once, late
	if posts != 99 || gets != 100 {
		t.Errorf("the server received %d POSTs and %d GETs; want 99 and 100", posts, gets)
	}
}

// TestSchemeRefused: a request whose scheme is not http or https is
// refused before anything is sent, whatever its host.
func TestSchemeRefused(t *testing.T) {
	rec := &recorder{}
	res, err := runClient(t, clientSystem{base: httpfault.InProcess(rec), do: func(ctx context.Context, _ *http.Client, tr *httpfault.Joined) {
		for _, u := range []string{"ftp://127.0.0.1/x", "file://localhost/etc/passwd", "gopher://[::1]:70/", "ws://127.0.0.1:9/s"} {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader("{}"))
			_, err := tr.RoundTrip(req)
			scheme := u[:strings.Index(u, ":")]
			want := fmt.Sprintf("httpfault: scheme not http or https: refusing POST %s: scheme %q (the transport sends only http and https)", u, scheme)
			if !errors.Is(err, httpfault.ErrScheme) || err.Error() != want {
				t.Errorf("%s: %v\nwant %s", u, err, want)
			}
		}
		if len(rec.hosts) != 0 {
			t.Errorf("requests of other schemes reached the base transport: %v", rec.hosts)
		}
		// http and https (any case) pass
		for _, u := range []string{"http://127.0.0.1/p", "HTTPS://127.0.0.1/p"} {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			if _, err := tr.RoundTrip(req); err != nil {
				t.Errorf("%s: %v", u, err)
			}
		}
	}}, at("rate_limit", 1))
	want := `httpfault: scheme not http or https: refusing POST ftp://127.0.0.1/x: scheme "ftp" (the transport sends only http and https)`
	if err == nil || err.Error() != want {
		t.Fatalf("run error %v\nwant %s", err, want)
	}
	if res != nil && res.Faults[0].Reached {
		t.Fatalf("a refused request reached a fault: %+v", res.Faults[0])
	}
	if len(rec.hosts) != 2 {
		t.Fatalf("sent %v, want the two http(s) requests", rec.hosts)
	}
}

// wrapper hides a transport inside unexported fields.
type wrapper struct {
	name  string
	inner http.RoundTripper
}

func (w *wrapper) RoundTrip(r *http.Request) (*http.Response, error) { return w.inner.RoundTrip(r) }

// chain holds several transports and may point to itself.
type chain struct {
	self *chain
	hops []http.RoundTripper
}

func (c *chain) RoundTrip(r *http.Request) (*http.Response, error) { return c.hops[0].RoundTrip(r) }

// TestUninspectableBaseRefused: Join refuses a base it cannot see into
// (anything but an *http.Transport or InProcess: the allowlist could not
// check where it connects), whatever it wraps; a nil base, an
// *http.Transport without a Proxy and InProcess are accepted.
func TestUninspectableBaseRefused(t *testing.T) {
	proxied := func() *http.Transport { return &http.Transport{Proxy: http.ProxyFromEnvironment} }
	direct := &http.Transport{}
	loop := &chain{hops: []http.RoundTripper{direct}}
	loop.self = loop
	cases := []struct {
		base http.RoundTripper
		typ  string
	}{
		{&wrapper{inner: &wrapper{inner: proxied()}}, "*httpfault_test.wrapper"},
		{struct{ http.RoundTripper }{proxied()}, "struct { http.RoundTripper }"},
		{&chain{hops: []http.RoundTripper{direct, proxied()}}, "*httpfault_test.chain"},
		{&wrapper{name: "w", inner: direct}, "*httpfault_test.wrapper"},
		{loop, "*httpfault_test.chain"},
		{struct{ http.RoundTripper }{}, "struct { http.RoundTripper }"},
	}
	opts := httpfault.JoinOptions{Classify: payRules}
	for _, c := range cases {
		want := "httpfault: the base transport (" + c.typ + ") is neither an *http.Transport nor InProcess: the allowlist cannot check where it connects; pass an *http.Transport (dialers of its own are checked) and wrap the joined transport instead"
		if _, err := httpfault.Join(nopCalls{}, c.base, opts); err == nil || err.Error() != want {
			t.Errorf("Join(%T): %v\nwant %s", c.base, err, want)
		}
	}
	for _, base := range []http.RoundTripper{nil, direct, loopbackOnly(), httpfault.InProcess(&recorder{})} {
		if _, err := httpfault.Join(nopCalls{}, base, opts); err != nil {
			t.Errorf("Join(%T): %v", base, err)
		}
	}
}
