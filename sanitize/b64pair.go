package sanitize

import (
	"bytes"
	"encoding/base64"
	"strings"
)

// A credential pair encoded in base64 ("dXNlcjpodW50ZXIy" is
// "user:hunter2") is the value of every entry of a Kubernetes Secret's
// data and of a Docker or HTTP Basic auth, whatever the entry's name: a
// value after a colon that decodes to user:password is redacted.

// minBase64Pair is the shortest encoded pair the prefilter looks for (a
// name and a password of eight bytes), maxBase64Pair the longest one
// decoded.
const (
	minBase64Pair = 12
	maxBase64Pair = 256
)

// base64PairAhead is the prefilter's check at the colon s[i]: whether at
// least minBase64Pair base64 bytes follow it, after a space and a quote.
// It reads no further than scanAhead bytes.
func base64PairAhead(s string, i int) bool {
	p := i + 1
	if p < len(s) && s[p] == ' ' {
		p++
	}
	if p < len(s) && (s[p] == '"' || s[p] == '\'') {
		p++
	}
	// The run read ends minBase64Pair+3 bytes after the colon at most,
	// within scanAhead.
	if len(s)-p < minBase64Pair {
		return false
	}
	for _, c := range []byte(s[p : p+minBase64Pair]) {
		if !base64Bytes[c] {
			return false
		}
	}
	return true
}

// base64PairAt returns the bounds of a base64 value after the colon s[q]
// that decodes to user:password, or an empty span.
func base64PairAt(s string, q int) (int, int) {
	p := q + 1
	for p < len(s) && p-q < 3 && (s[p] == ' ' || s[p] == '"' || s[p] == '\'') {
		p++
	}
	e := p
	for e < len(s) && e-p <= maxBase64Pair && isBase64Byte(s[e]) {
		e++
	}
	spend(e - q)
	if e-p < minBase64Pair || e-p > maxBase64Pair || e < len(s) && isBase64Byte(s[e]) {
		return 0, 0
	}
	if decodesToPair(s[p:e]) {
		return p, e
	}
	return 0, 0
}

// decodesToPair reports whether v is the base64 of printable ASCII
// without spaces that holds a colon after a name and before a password.
func decodesToPair(v string) bool {
	var buf [maxBase64Pair]byte
	enc := base64.StdEncoding
	if len(v)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	n, err := enc.Decode(buf[:], []byte(v))
	if err != nil {
		return false
	}
	d := buf[:n]
	for _, c := range d {
		if c <= ' ' || c > '~' {
			return false
		}
	}
	// Searched as bytes: string(d) of more than 32 bytes was a copy on
	// the heap for every candidate.
	colon := bytes.IndexByte(d, ':')
	return colon > 0 && len(d)-colon > 3
}

func isBase64Byte(c byte) bool { return base64Bytes[c] }

var base64Bytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isAlnum(byte(c)) || c == '+' || c == '/' || c == '='
	}
	return t
}()

// redactBase64Pairs replaces every encoded pair after a colon.
func redactBase64Pairs(s string) string {
	e := edit{s: s}
	for q := strings.IndexByte(s, ':'); q >= 0; {
		if vs, ve := base64PairAt(s, q); ve > vs && vs >= e.last {
			e.replace(vs, ve, Redacted)
			q = ve - 1
		}
		k := strings.IndexByte(s[q+1:], ':')
		if k < 0 {
			break
		}
		q += k + 1
	}
	return e.result()
}
