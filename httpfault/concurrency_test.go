package httpfault_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
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

// TestExchangesDuringRequest: the tool server's handler reads the
// transport's log and fault reports while the request is in flight; the
// request completes and the handler sees the exchange as sent, its answer
// not yet recorded.
func TestExchangesDuringRequest(t *testing.T) {
	var ft *httpfault.Transport
	var seen []httpfault.Exchange
	var faults []httpfault.Fault
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen, faults = ft.Exchanges(), ft.Faults()
		ft.Covered()
		ft.Stopped()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"receipt_id":"r1","amount":3}`)
	}))
	t.Cleanup(srv.Close)
	ft = newTransport(t, single(t, "partial_success_response", 1), httpfault.Options{})
	done := make(chan struct{})
	var resp *http.Response
	var err error
	go func() {
		defer close(done)
		resp, err = (&http.Client{Transport: ft}).Post(srv.URL+"/payments", "application/json", strings.NewReader(`{}`))
	}()
	await(t, done, "a request whose handler calls Exchanges")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != `{"amount":3}` {
		t.Errorf("answer %s, want the receipt removed", body)
	}
	want := []httpfault.Exchange{{Seq: 1, Method: "POST", URL: srv.URL + "/payments", Commit: 1, Sent: true}}
	if !slices.Equal(seen, want) {
		t.Errorf("the handler saw %+v\nwant %+v", seen, want)
	}
	if len(faults) != 1 || !faults[0].Reached || faults[0].Fired != 0 {
		t.Errorf("the handler saw faults %+v: want reached, not yet fired", faults)
	}
	want[0].FaultID, want[0].Status = "f1", http.StatusCreated
	if got := ft.Exchanges(); !slices.Equal(got, want) {
		t.Errorf("after the request: %+v\nwant %+v", got, want)
	}
}

// TestRoundTripsOverlap: a second client's request goes through while the
// first one's is still at the server: the first request's handler waits
// for the second request to arrive.
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
	ft := newTransport(t, &model.Schedule{Version: model.ScheduleVersion, Config: copperfin.ConfigOfControls(0)}, httpfault.Options{})
	c := &http.Client{Transport: ft}
	status := make([]int, 2)
	errs := make([]error, 2)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i, p := range []string{"/a", "/b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if p == "/b" {
				<-arrivedA
			}
			resp, err := c.Post(srv.URL+p, "application/json", strings.NewReader(`{}`))
			if errs[i] = err; err == nil {
				status[i] = resp.StatusCode
				resp.Body.Close()
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	await(t, done, "two overlapping requests")
	if errs[0] != nil || errs[1] != nil || status[0] != http.StatusNoContent || status[1] != http.StatusNoContent {
		t.Fatalf("statuses %v, errors %v", status, errs)
	}
	x := ft.Exchanges()
	if len(x) != 2 || x[0].Commit != 1 || x[1].Commit != 2 || x[0].URL != srv.URL+"/a" || x[1].URL != srv.URL+"/b" {
		t.Fatalf("exchanges %+v: want /a as commit 1, /b as commit 2", x)
	}
}

// TestConcurrentClients: 8 clients of one transport, 25 requests each
// (commits and readbacks in turn), under -race: every request is logged
// once with a distinct sequence number, the commits take the ordinals 1 to
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
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "concurrent", Config: copperfin.ConfigOfControls(0), Faults: []model.FaultEntry{
		{ID: "rl", Event: model.EvToolCommit, Ordinal: 5, Kind: "rate_limit"},
		{ID: "tt", Event: model.EvToolCommit, Ordinal: 10, Kind: "tool_timeout"},
		{ID: "tac", Event: model.EvToolCommit, Ordinal: 20, Kind: "timeout_after_commit"},
		{ID: "ps", Event: model.EvToolCommit, Ordinal: 30, Kind: "partial_success_response"},
	}}
	ft := newTransport(t, s, httpfault.Options{})
	c := &http.Client{Transport: ft}
	const clients, each = 8, 25
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range each {
				var resp *http.Response
				var err error
				if (i+j)%2 == 0 {
					resp, err = c.Post(fmt.Sprintf("%s/p/%d/%d", srv.URL, i, j), "application/json", strings.NewReader(`{"amount":1}`))
				} else {
					resp, err = c.Get(fmt.Sprintf("%s/p/%d/%d", srv.URL, i, j))
				}
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}()
	}
	wg.Wait()
	if err := ft.Flush(); err != nil {
		t.Fatal(err)
	}
	x := ft.Exchanges()
	if len(x) != clients*each+1 {
		t.Fatalf("%d exchanges, want %d requests and one late delivery", len(x), clients*each+1)
	}
	var ordinals []int
	late := 0
	for i, e := range x {
		if e.Seq != i+1 {
			t.Fatalf("exchange %d has seq %d", i, e.Seq)
		}
		switch {
		case e.Late:
			late++
			if e.Commit != 10 || e.FaultID != "tt" || !e.Sent || e.Status != http.StatusCreated {
				t.Errorf("late delivery %+v", e)
			}
		case e.Commit > 0:
			ordinals = append(ordinals, e.Commit)
		}
	}
	slices.Sort(ordinals)
	for i, o := range ordinals {
		if o != i+1 {
			t.Fatalf("commit ordinals %v: want 1 to 100 each once", ordinals)
		}
	}
	if len(ordinals) != 100 || late != 1 {
		t.Fatalf("%d commits, %d late deliveries; want 100 and 1", len(ordinals), late)
	}
	for _, f := range ft.Faults() {
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
	ft, err := httpfault.New(rec, single(t, "rate_limit", 1), httpfault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"ftp://127.0.0.1/x", "file://localhost/etc/passwd", "gopher://[::1]:70/", "ws://127.0.0.1:9/s"} {
		req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader("{}"))
		_, err := ft.RoundTrip(req)
		scheme := u[:strings.Index(u, ":")]
		want := fmt.Sprintf("httpfault: scheme not http or https: refusing POST %s: scheme %q (the transport sends only http and https)", u, scheme)
		if !errors.Is(err, httpfault.ErrScheme) || err.Error() != want {
			t.Errorf("%s: %v\nwant %s", u, err, want)
		}
	}
	if len(rec.hosts) != 0 {
		t.Fatalf("requests of other schemes reached the base transport: %v", rec.hosts)
	}
	for _, x := range ft.Exchanges() {
		if x.Sent || x.Commit != 0 {
			t.Fatalf("refused exchange %+v", x)
		}
	}
	if f := ft.Faults()[0]; f.Reached {
		t.Fatalf("a refused request reached a fault: %+v", f)
	}
	// http and https (any case) pass
	for _, u := range []string{"http://127.0.0.1/p", "HTTPS://127.0.0.1/p"} {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		if _, err := ft.RoundTrip(req); err != nil {
			t.Errorf("%s: %v", u, err)
		}
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
	byID map[string]http.RoundTripper
}

func (c *chain) RoundTrip(r *http.Request) (*http.Response, error) { return c.hops[0].RoundTrip(r) }

// TestWrappedProxyRefused: New refuses a base that wraps an
// *http.Transport with a Proxy anywhere it can reach, naming where; a
// wrapper of proxy-less transports, cycles included, is accepted.
func TestWrappedProxyRefused(t *testing.T) {
	ok := single(t, "rate_limit", 1)
	proxied := func() *http.Transport { return &http.Transport{Proxy: http.ProxyFromEnvironment} }
	direct := &http.Transport{}
	loop := &chain{hops: []http.RoundTripper{direct}}
	loop.self = loop
	cases := []struct {
		base http.RoundTripper
		want string
	}{
		{&loopbackOnly{base: proxied()}, "(*httpfault_test.loopbackOnly) wraps an *http.Transport with a Proxy at .base"},
		{&wrapper{inner: &wrapper{inner: proxied()}}, "(*httpfault_test.wrapper) wraps an *http.Transport with a Proxy at .inner.inner"},
		{struct{ http.RoundTripper }{proxied()}, "(struct { http.RoundTripper }) wraps an *http.Transport with a Proxy at .RoundTripper"},
		{&chain{hops: []http.RoundTripper{direct, proxied()}}, "(*httpfault_test.chain) wraps an *http.Transport with a Proxy at .hops[1]"},
		{&chain{hops: []http.RoundTripper{direct}, byID: map[string]http.RoundTripper{"p": proxied()}}, "(*httpfault_test.chain) wraps an *http.Transport with a Proxy at .byID[p]"},
	}
	for _, c := range cases {
		want := "httpfault: the base transport " + c.want + "; set it to nil (the allowlist cannot vouch for where a proxy sends)"
		if _, err := httpfault.New(c.base, ok, httpfault.Options{}); err == nil || err.Error() != want {
			t.Errorf("New(%T): %v\nwant %s", c.base, err, want)
		}
	}
	for _, base := range []http.RoundTripper{&loopbackOnly{base: direct}, &wrapper{name: "w", inner: direct}, loop, struct{ http.RoundTripper }{}} {
		if _, err := httpfault.New(base, ok, httpfault.Options{}); err != nil {
			t.Errorf("New(%T): %v", base, err)
		}
	}
}
