package sanitize

import "strings"

// base64Colon decodes v as encoding/base64's StdEncoding (padded) or
// RawStdEncoding (not padded) does text without line breaks (which that
// package skips, and which no caller's value holds), and reports the index
// of the first ':' among the decoded bytes or -1, and false where the
// package returns an error. Unlike DecodeString it allocates nothing: a
// text of "Basic " words paid an allocation for each (2,603 in 64 KiB).
func base64Colon(v string, padded bool) (colon int, ok bool) {
	body := v
	switch {
	case padded && len(v)%4 != 0, !padded && len(v)%4 == 1:
		return -1, false
	case padded && strings.HasSuffix(v, "=="):
		body = v[:len(v)-2]
	case padded && strings.HasSuffix(v, "="):
		body = v[:len(v)-1]
	}
	colon = -1
	for i := 0; i < len(body); i += 4 {
		g := body[i:min(i+4, len(body))]
		// The digits of a group, in the high bits of x: a final group
		// of two or three holds one or two bytes, and its spare low bits
		// are dropped unread, as the package does by default.
		var x uint32
		for j := range 4 {
			var d byte
			if j < len(g) {
				if d = base64Values[g[j]]; d == 0xff {
					return -1, false
				}
			}
			x = x<<6 | uint32(d)
		}
		for j := range len(g) - 1 {
			if colon < 0 && byte(x>>(16-8*j)) == ':' {
				colon = i/4*3 + j
			}
		}
	}
	return colon, true
}

// base64Values maps the standard base64 alphabet to its digits' values
// and every other byte to 0xff.
var base64Values = func() (t [256]byte) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := range t {
		t[i] = 0xff
	}
	for i := range len(alphabet) {
		t[alphabet[i]] = byte(i)
	}
	return t
}()
