package sanitize

import (
	"net/netip"
	"strings"
)

// redactIPs replaces every IPv4 and IPv6 literal, with its port or zone.
// A hand-written scanner proposes candidate spans and netip decides on IPv6;
// a regular expression for IPv6 would be both slow and wrong.
func redactIPs(s string) string {
	e := edit{s: s}
	for i := 0; i < len(s); {
		end := ipAt(s, i)
		if end <= i {
			i++
			continue
		}
		e.replace(i, end, Redacted)
		i = end
	}
	return e.result()
}

// ipAt returns the end of an IP literal starting at s[i], or 0.
func ipAt(s string, i int) int {
	c := s[i]
	if c == '[' {
		return bracketedIPv6At(s, i)
	}
	var prev byte
	if i > 0 {
		prev = s[i-1]
	}
	if (isHex(c) || c == ':') && !isWordByte(prev) && prev != ':' && prev != '.' {
		if end := ipv6At(s, i); end > 0 {
			return end
		}
	}
	// Letters may touch an IPv4 literal ("ip10.0.0.1"); only digits and dots
	// make it part of something longer, such as an OID.
	if isDigit(c) && !isDigit(prev) && prev != '.' {
		return ipv4At(s, i)
	}
	return 0
}

func ipv4At(s string, i int) int {
	p := i
	for part := 0; part < 4; part++ {
		if part > 0 {
			if p >= len(s) || s[p] != '.' {
				return 0
			}
			p++
		}
		start, n := p, 0
		for p < len(s) && isDigit(s[p]) && p-start < 4 {
			n = n*10 + int(s[p]-'0')
			p++
		}
		// Leading zeros are accepted: some resolvers read them as octal, and
		// the literal still names a host. So does a part of four digits
		// that is octal written as such ("0177.0.0.1" is 127.0.0.1).
		if p-start == 4 && s[start] == '0' {
			n = octalPart(s[start+1 : p])
		}
		if p == start || n > 255 || p-start > 3 && s[start] != '0' {
			return 0
		}
	}
	if p < len(s) && (isDigit(s[p]) || s[p] == '.' && p+1 < len(s) && isDigit(s[p+1])) {
		return 0
	}
	return withPort(s, p)
}

// octalPart returns the value of three octal digits, or 256 when one is
// not octal.
func octalPart(d string) int {
	n := 0
	for i := 0; i < len(d); i++ {
		if d[i] > '7' {
			return 256
		}
		n = n*8 + int(d[i]-'0')
	}
	return n
}

// The longest textual IPv6 address ("ffff:...:255.255.255.255") and a
// generous interface name.
const (
	maxIPv6Len = 45
	maxZoneLen = 16
)

func ipv6At(s string, i int) int {
	end, colons := i, 0
	for end < len(s) && (isHex(s[end]) || s[end] == ':' || s[end] == '.') {
		if s[end] == ':' {
			colons++
		}
		end++
	}
	spend(end - i)
	if colons < 2 {
		return 0
	}
	if end < len(s) && s[end] == '%' {
		z := end + 1
		for z < len(s) && (isWordByte(s[z]) || s[z] == '-') {
			z++
		}
		if z > end+1 && z-i <= maxIPv6Len+maxZoneLen && validIPv6(s[i:z]) {
			return z
		}
	}
	// Trailing dots and colons usually belong to the sentence ("fe80::1: no
	// route"), so retry without them.
	for e := end; e > i; e-- {
		if e < end && s[e] != '.' && s[e] != ':' {
			break
		}
		if e < len(s) && isWordByte(s[e]) {
			return 0
		}
		// A longer run is no address, and parsing each shorter prefix of
		// a long run of colons would cost time quadratic in its length.
		if e-i <= maxIPv6Len && validIPv6(s[i:e]) {
			return e
		}
	}
	return 0
}

func validIPv6(s string) bool {
	spend(len(s))
	if !ipv6Shape(s) {
		return false
	}
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6()
}

func bracketedIPv6At(s string, i int) int {
	rest := s[i+1:]
	if len(rest) > 64 {
		rest = rest[:64]
	}
	j := strings.IndexByte(rest, ']')
	if j < 2 || strings.IndexByte(rest[:j], ':') < 0 {
		return 0
	}
	if !validIPv6(rest[:j]) {
		return 0
	}
	return withPort(s, i+1+j+1)
}

func withPort(s string, p int) int {
	if p+1 < len(s) && s[p] == ':' && isDigit(s[p+1]) {
		p++
		for p < len(s) && isDigit(s[p]) {
			p++
		}
	}
	return p
}

// ipv6Shape reports whether s may be an IPv6 literal by its shape alone:
// no ":::", at most one "::", at most eight colons, hex groups of at most
// four digits, and dots only in the last group (an embedded IPv4). Every
// address netip accepts has that shape (FuzzIPv6Shape), and most runs of
// colons and hex in text do not: netip.ParseAddr allocates its error, and
// a run of colons was about 45 failed parses a pass.
func ipv6Shape(s string) bool {
	if z := strings.IndexByte(s, '%'); z >= 0 {
		s = s[:z]
	}
	colons, group, doubled := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ':':
			if i > 0 && s[i-1] == ':' {
				if doubled || i > 1 && s[i-2] == ':' {
					return false
				}
				doubled = true
			}
			if colons++; colons > 8 {
				return false
			}
			group = 0
		case c == '.':
			// An embedded IPv4 ends the address: no colon may follow.
			return strings.IndexByte(s[i:], ':') < 0
		case isHex(c):
			if group++; group > 4 && strings.IndexByte(s[i:], '.') < 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}
