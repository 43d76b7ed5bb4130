package httpfault

//lint:file-ignore SA1019 sealBase wraps the deprecated Dial and DialTLS hooks too

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// defaultAllow is the allowlist used when JoinOptions.Allow is empty: the
// loopback addresses and the name localhost.
var defaultAllow = []string{"127.0.0.0/8", "::1", "localhost"}

// allowlist is a parsed JoinOptions.Allow: address prefixes and exact host
// names. Names are compared, never resolved.
type allowlist struct {
	nets  []*net.IPNet
	names []string
	text  string
}

// parseAllow parses allowlist entries: an IP address, a CIDR prefix or a
// host name (letters, digits, '-' and '.', one optional trailing dot).
func parseAllow(entries []string) (*allowlist, error) {
	if len(entries) == 0 {
		entries = defaultAllow
	}
	a := &allowlist{text: strings.Join(entries, ", ")}
	for _, e := range entries {
		switch {
		case strings.Contains(e, "/") && net.ParseIP(e[:strings.Index(e, "/")]) != nil:
			_, n, err := net.ParseCIDR(e)
			if err != nil {
				return nil, fmt.Errorf("httpfault: allowlist entry %q is not a valid CIDR prefix", e)
			}
			a.nets = append(a.nets, n)
		case net.ParseIP(e) != nil:
			ip := net.ParseIP(e)
			bits := 128
			if ip.To4() != nil {
				ip, bits = ip.To4(), 32
			}
			a.nets = append(a.nets, &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)})
		case validName(e):
			a.names = append(a.names, canonicalName(e))
		default:
			return nil, fmt.Errorf("httpfault: allowlist entry %q is neither an IP address, a CIDR prefix nor a host name", e)
		}
	}
	return a, nil
}

func validName(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

func canonicalName(s string) string { return strings.ToLower(strings.TrimSuffix(s, ".")) }

// allows reports whether host (a URL's Hostname: an IP literal without
// brackets, or a name) is allowed.
func (a *allowlist) allows(host string) bool {
	if ip := net.ParseIP(host); ip != nil {
		for _, n := range a.nets {
			if n.Contains(ip) {
				return true
			}
		}
		return false
	}
	h := canonicalName(host)
	for _, n := range a.names {
		if n == h {
			return true
		}
	}
	return false
}

// sealBase returns the transport a Join sends through. A nil base is a
// clone of http.DefaultTransport; an *http.Transport is cloned (changes
// to it after Join do not reach the clone) with its Proxy cleared and
// every dialer wrapped to check, at connect time, the address it is asked
// for and the address it reached; InProcess is kept as it is (no
// socket). Any other base is refused: the allowlist cannot see where it
// connects. A base with a Proxy is refused (the allowlist cannot vouch
// for where a proxy sends). A dial refused fails the run (fail).
func sealBase(base http.RoundTripper, a *allowlist, fail func(error)) (http.RoundTripper, error) {
	var t *http.Transport
	switch b := base.(type) {
	case nil:
		t = http.DefaultTransport.(*http.Transport).Clone()
	case *http.Transport:
		if b.Proxy != nil {
			return nil, errors.New("httpfault: the base transport has a Proxy; set it to nil (the allowlist cannot vouch for where a proxy sends)")
		}
		t = b.Clone()
	case inProcess:
		return b, nil
	default:
		return nil, fmt.Errorf("httpfault: the base transport (%T) is neither an *http.Transport nor InProcess: the allowlist cannot check where it connects; pass an *http.Transport (dialers of its own are checked) and wrap the joined transport instead", base)
	}
	t.Proxy = nil
	// The deprecated Dial and DialTLS hooks still dial: they are wrapped too.
	dial := t.DialContext
	if dial == nil && t.Dial != nil {
		d := t.Dial
		dial = func(_ context.Context, network, addr string) (net.Conn, error) { return d(network, addr) }
	}
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	t.Dial, t.DialContext = nil, a.checkedDial(dial)
	tlsDial := t.DialTLSContext
	if tlsDial == nil && t.DialTLS != nil {
		d := t.DialTLS
		tlsDial = func(_ context.Context, network, addr string) (net.Conn, error) { return d(network, addr) }
	}
	t.DialTLS, t.DialTLSContext = nil, nil
	if tlsDial != nil {
		t.DialTLSContext = a.checkedDial(tlsDial)
	}
	return sealed{t: t, fail: fail}, nil
}

// errDial marks a connection the allowlist refused at dial time.
type errDial struct{ err error }

func (e *errDial) Error() string { return e.err.Error() }
func (e *errDial) Unwrap() error { return e.err }

// checkedDial wraps dial: the address asked for must be allowed, and so
// must the address the connection reached (an IP in the list, or one the
// allowed name asked for resolves to); otherwise the connection is closed
// and the dial fails with ErrRefused.
func (a *allowlist) checkedDial(dial func(context.Context, string, string) (net.Conn, error)) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil || !a.allows(host) {
			return nil, &errDial{fmt.Errorf("%w: refusing a connection to %s (allowed: %s)", ErrRefused, addr, a.text)}
		}
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if remote := conn.RemoteAddr(); !a.reached(ctx, host, remote) {
			conn.Close()
			return nil, &errDial{fmt.Errorf("%w: the base transport's dialer, asked for %s, connected to %v (allowed: %s)", ErrRefused, addr, remote, a.text)}
		}
		return conn, nil
	}
}

// reached reports whether remote, the far end of a connection dialed for
// host, is allowed: an IP in the list's prefixes, or, when host is an
// allowed name, one of the addresses host resolves to.
func (a *allowlist) reached(ctx context.Context, host string, remote net.Addr) bool {
	if remote == nil {
		return false
	}
	h, _, err := net.SplitHostPort(remote.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(h)
	if ip == nil {
		return false
	}
	for _, n := range a.nets {
		if n.Contains(ip) {
			return true
		}
	}
	if net.ParseIP(host) != nil {
		return false
	}
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return false
	}
	for _, r := range addrs {
		if r.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// sealed is the sealed base: a dial the allowlist refused ends the run.
type sealed struct {
	t    *http.Transport
	fail func(error)
}

// RoundTrip implements http.RoundTripper.
func (s sealed) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.t.RoundTrip(req)
	if d := (*errDial)(nil); errors.As(err, &d) {
		s.fail(d.err)
	}
	return resp, err
}

// CloseIdleConnections closes the idle connections of the joined
// transport's own clone of its base (http.Client.CloseIdleConnections
// calls it); the base given to Join keeps its own.
func (j *Joined) CloseIdleConnections() {
	if s, ok := j.base.(sealed); ok {
		s.t.CloseIdleConnections()
	}
}
