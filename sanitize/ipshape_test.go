package sanitize

import (
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
)

// ipv6Shape only turns away what netip would refuse: every form of an
// address netip accepts passes it, compressed, expanded, with an embedded
// IPv4 or a zone.
func TestIPv6ShapeAcceptsEveryAddress(t *testing.T) {
	fixed := []string{
		"::", "::1", "1::", "fe80::1", "fe80::1%eth0", "fe80::1%25en0", "::ffff:192.0.2.1",
		"64:ff9b::10.1.2.3", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8",
		"2001:DB8::CAFE", "0000:0000:0000:0000:0000:0000:0000:0001", "1:2:3:4:5:6:1.2.3.4",
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b [16]byte
		for i := range b {
			// Zero runs of every length, so "::" falls anywhere.
			if r.IntN(3) > 0 {
				b[i] = byte(r.IntN(256))
			}
		}
		a := netip.AddrFrom16(b)
		fixed = append(fixed, a.String(), a.StringExpanded(), strings.ToUpper(a.String()))
		if r.IntN(4) == 0 {
			fixed = append(fixed, a.WithZone("eth"+string(rune('0'+r.IntN(10)))).String())
		}
	}
	for _, s := range fixed {
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is6() {
			t.Fatalf("test input %q is no IPv6 address: %v", s, err)
		}
		if !ipv6Shape(s) {
			t.Errorf("ipv6Shape(%q) = false for an address netip accepts", s)
		}
	}
}

// The shapes it turns away, each of which cost netip a failed parse and
// its error's allocation.
func TestIPv6ShapeRefuses(t *testing.T) {
	for _, s := range []string{":::", "::::::", "1::2::3", "12345::1", "1:2:3:4:5:6:7:8:9:0", "1.2::3", "::g", "1:2.3:4"} {
		if ipv6Shape(s) {
			t.Errorf("ipv6Shape(%q) = true", s)
		}
	}
}

// Runs of colons (a separator line, a log's field padding) and of hex
// and colons cost the public tier a failed parse per candidate prefix,
// each allocating netip's error: 361 allocations for 64 KiB of ':'.
func TestPublicColonRunsAllocate(t *testing.T) {
	for _, u := range []string{":", "::1:", "a:b:", "ff::ff::", ":::8080 ", "::ffff:1.2.3.4:"} {
		s := fill(u)
		if n := testing.AllocsPerRun(3, func() { sink = Public(s) }); n > 20 {
			t.Errorf("Public(%q x %d): %.0f allocations", u, len(s)/len(u), n)
		}
	}
}

// FuzzIPv6Shape holds ipv6Shape to netip: no text netip reads as an IPv6
// address is turned away by its shape.
func FuzzIPv6Shape(f *testing.F) {
	for _, s := range []string{"::", "fe80::1%eth0", "::ffff:192.0.2.1", "1:2:3:4:5:6:7::", ":::", "1::2::3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if a, err := netip.ParseAddr(s); err == nil && a.Is6() && !ipv6Shape(s) {
			t.Fatalf("ipv6Shape(%q) = false for an address netip accepts", s)
		}
	})
}
