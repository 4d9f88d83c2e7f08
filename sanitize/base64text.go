package sanitize

import "strings"

// base64Text decodes v as encoding/base64's StdEncoding (padded) or
// RawStdEncoding (not padded) does text without line breaks (which that
// package skips, and which no caller's value holds). It writes the bytes
// into dst while dst has room and reports how many bytes v decodes to,
// the index of the first ':' among them or -1, and false where the
// package returns an error. Unlike the package it allocates nothing:
// DecodeString allocates its result, and Decode takes a []byte, which a
// string longer than 32 bytes is copied to the heap to become. A text of
// "Basic " words paid that for each (2,603 allocations in 64 KiB).
func base64Text(dst []byte, v string, padded bool) (n, colon int, ok bool) {
	body := v
	switch {
	case padded && len(v)%4 != 0, !padded && len(v)%4 == 1:
		return 0, -1, false
	case padded && strings.HasSuffix(v, "=="):
		body = v[:len(v)-2]
	case padded && strings.HasSuffix(v, "="):
		body = v[:len(v)-1]
	}
	colon = -1
	put := func(c byte) {
		if c == ':' && colon < 0 {
			colon = n
		}
		if n < len(dst) {
			dst[n] = c
		}
		n++
	}
	var acc uint32
	k := 0
	for i := 0; i < len(body); i++ {
		d := base64Values[body[i]]
		if d == 0xff {
			return 0, -1, false
		}
		acc = acc<<6 | uint32(d)
		if k++; k == 4 {
			put(byte(acc >> 16))
			put(byte(acc >> 8))
			put(byte(acc))
			acc, k = 0, 0
		}
	}
	// A final group of two or three digits holds one or two bytes; its
	// spare low bits are dropped unread, as the package does by default.
	switch k {
	case 2:
		put(byte(acc >> 4))
	case 3:
		put(byte(acc >> 10))
		put(byte(acc >> 2))
	}
	return n, colon, true
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
