package ratelimit_test

import (
	"errors"
	"net/http"
	"net/netip"
	"testing"

	"github.com/faultline-go/faultline/ratelimit"
)

// FuzzByIPBehindProxies feeds arbitrary forwarding headers and peer
// addresses: the key is always an address or a /64, a peer outside the
// trusted prefixes always gets its own key whatever the headers say, and
// the only error is the documented one.
func FuzzByIPBehindProxies(f *testing.F) {
	f.Add("198.51.100.1, 10.0.0.1", "", "10.0.0.2:1234")
	f.Add("", "198.51.100.1", "10.0.0.2:1234")
	f.Add("2001:db8::1, ::ffff:10.0.0.1", "", "[::ffff:10.0.0.2]:1")
	f.Add("garbage,,, 10.0.0.1\x00", "\r\n", "10.0.0.2:1")
	f.Add("198.51.100.1", "198.51.100.2", "203.0.113.9:80")
	f.Add("198.51.100.1", "", "@")
	key := ratelimit.ByIPBehindProxies(netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::ffff:10.0.0.0/104"))
	f.Fuzz(func(t *testing.T, xff, realIP, remote string) {
		r := &http.Request{RemoteAddr: remote, Header: http.Header{}}
		if xff != "" {
			r.Header.Set("X-Forwarded-For", xff)
		}
		if realIP != "" {
			r.Header.Set("X-Real-Ip", realIP)
		}
		k, err := key(r)
		if err != nil {
			if !errors.Is(err, ratelimit.ErrEmptyKey) || k != "" {
				t.Fatalf("key %q, error %v", k, err)
			}
			return
		}
		if _, err := netip.ParseAddr(k); err != nil {
			if p, err := netip.ParsePrefix(k); err != nil || p.Bits() != 64 {
				t.Fatalf("key %q is neither an address nor a /64", k)
			}
		}
		peer, err := netip.ParseAddrPort(remote)
		if err != nil {
			return
		}
		if ip := peer.Addr().Unmap(); !netip.MustParsePrefix("10.0.0.0/8").Contains(ip) {
			own, _ := ratelimit.ByIP(&http.Request{RemoteAddr: remote})
			if k != own {
				t.Fatalf("untrusted peer %s keyed %q by its headers, want %q", remote, k, own)
			}
		}
	})
}
