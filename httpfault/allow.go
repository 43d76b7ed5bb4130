package httpfault

import (
	"fmt"
	"net"
	"strings"
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
