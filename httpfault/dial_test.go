package httpfault_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/faultline/faultline/httpfault"
)

// counting is a server that counts the requests reaching it.
func counting(t *testing.T, l net.Listener) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	if l != nil {
		srv.Listener.Close()
		srv.Listener = l
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &hits
}

// pay posts one payment with a key to url through c.
func pay(ctx context.Context, c *http.Client, url string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/payments", strings.NewReader(`{"order":"O-731","amount":3}`))
	req.Header.Set("Idempotency-Key", "k-1")
	resp, err := c.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	return err
}

// TestProxySetAfterJoinIgnored: a Proxy set on the base after Join does
// not reach the joined transport (it sends through its own clone): the
// payment goes to the loopback ledger, the proxy sees nothing. The same
// base used directly sends through the proxy.
func TestProxySetAfterJoinIgnored(t *testing.T) {
	l, srv := startLedger(t)
	proxy, proxied := counting(t, nil)
	proxyURL, _ := url.Parse(proxy.URL)
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	var got error
	_, err := runClient(t, clientSystem{l: l, base: base, do: func(ctx context.Context, c *http.Client, tr *httpfault.Joined) {
		base.Proxy = http.ProxyURL(proxyURL)
		got = pay(ctx, c, srv.URL)
		tr.CloseIdleConnections()
	}})
	if err != nil || got != nil {
		t.Fatalf("run error %v, client error %v", err, got)
	}
	if entries, posts, _ := l.count(); entries != 1 || posts != 1 || proxied.Load() != 0 {
		t.Fatalf("ledger: %d entries, %d posts; proxy: %d requests; want 1, 1, 0", entries, posts, proxied.Load())
	}
	// counterfactual: the base itself now sends through the proxy
	if err := pay(context.Background(), &http.Client{Transport: base}, srv.URL); err != nil || proxied.Load() != 1 {
		t.Fatalf("direct: %v, proxy saw %d requests; want 1", err, proxied.Load())
	}
}

// TestDialElsewhereRefused: a base whose DialContext (or deprecated Dial)
// connects somewhere
// other than the allowed address it was asked for has the connection
// closed before a byte of the request is written; the client sees
// ErrRefused and the run ends with it. The same base used directly
// delivers the request elsewhere.
func TestDialElsewhereRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	_, elsewhere := counting(t, ln)
	d := &net.Dialer{}
	for _, hook := range []string{"DialContext", "Dial"} {
		t.Run(hook, func(t *testing.T) {
			base := &http.Transport{}
			if hook == "Dial" {
				//lint:ignore SA1019 the deprecated hook still dials, and is checked too
				base.Dial = func(network, _ string) (net.Conn, error) { return d.Dial(network, ln.Addr().String()) }
			} else {
				base.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
					return d.DialContext(ctx, network, ln.Addr().String())
				}
			}
			t.Cleanup(base.CloseIdleConnections)
			dialElsewhere(t, base, ln, elsewhere)
		})
	}
}

// dialElsewhere runs a payment through base, whose dialer connects to ln
// whatever it is asked for, and checks the refusal, then the
// counterfactual.
func dialElsewhere(t *testing.T, base *http.Transport, ln net.Listener, elsewhere *atomic.Int32) {
	l, srv := startLedger(t)
	before := elsewhere.Load()
	var got error
	_, err := runClient(t, clientSystem{l: l, base: base, opts: httpfault.JoinOptions{Allow: []string{"127.0.0.1"}}, do: func(ctx context.Context, c *http.Client, _ *httpfault.Joined) {
		got = pay(ctx, c, srv.URL)
	}})
	want := fmt.Sprintf("httpfault: host not in the allowlist: the base transport's dialer, asked for %s, connected to %s (allowed: 127.0.0.1)", srv.Listener.Addr(), ln.Addr())
	if !errors.Is(got, httpfault.ErrRefused) || err == nil || err.Error() != want {
		t.Fatalf("client error %v\nrun error %v\nwant %s", got, err, want)
	}
	if entries, posts, _ := l.count(); entries != 0 || posts != 0 || elsewhere.Load() != before {
		t.Fatalf("ledger: %d entries, %d posts; elsewhere: %d requests; want 0, 0, 0", entries, posts, elsewhere.Load()-before)
	}
	// counterfactual: the base itself delivers the payment elsewhere
	if err := pay(context.Background(), &http.Client{Transport: base}, srv.URL); err != nil || elsewhere.Load() != before+1 {
		t.Fatalf("direct: %v, elsewhere saw %d requests; want 1", err, elsewhere.Load()-before)
	}
}

// TestAllowedNameDialsItsAddress: with only a name allowed, a connection
// to an address the name resolves to is accepted.
func TestAllowedNameDialsItsAddress(t *testing.T) {
	l, srv := startLedger(t)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	var got error
	_, err := runClient(t, clientSystem{l: l, base: &http.Transport{}, opts: httpfault.JoinOptions{Allow: []string{"localhost"}}, do: func(ctx context.Context, c *http.Client, _ *httpfault.Joined) {
		got = pay(ctx, c, "http://localhost:"+port)
	}})
	if err != nil || got != nil {
		t.Fatalf("run error %v, client error %v", err, got)
	}
	if entries, _, _ := l.count(); entries != 1 {
		t.Fatalf("%d entries, want 1", entries)
	}
}
