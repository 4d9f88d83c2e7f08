package problem

import (
	"encoding/binary"
	"sync"

	"github.com/faultline-go/faultline/sanitize"
)

// The public tier is the costliest step of rendering, and what reaches it
// from outside the kit repeats: bind's messages and codes, the pointers of
// a form's fields, a service's extension values, a route's paths. So the
// JSON renderings of recent short strings are remembered (types and
// instances are remembered by publicInstance's own memo): the tier is a pure function of its input, each slot
// keeps copies of its input and output (no caller's memory is retained,
// and a warm slot is reused without allocating), a slot is checked against
// its input and never trusted on its hash, and a slot another request
// holds is not waited for.
// publicMemo holds enough slots for a form of a few hundred fields to
// render from memory with few collisions.
var publicMemo [2048]memoSlotJSON

type memoSlotJSON struct {
	sync.Mutex
	in, out []byte
}

// maxMemoJSON bounds the strings the memos keep: field errors, codes,
// extension values and paths are short; a long text is rare enough to
// scan.
const maxMemoJSON = 128

// appendPublicURI writes s as publicInstance renders it, as a JSON string;
// publicInstance remembers recent types and instances itself, so a second
// memo here would only keep the same answer twice.
func appendPublicURI(dst []byte, s string) []byte {
	out, plain := publicInstanceOf(s)
	if !plain {
		return appendString(dst, out)
	}
	dst = append(dst, '"')
	dst = append(dst, out...)
	return append(dst, '"')
}

// appendPointer writes a JSON Pointer as publicPointer renders it; the
// common pointer, which the tier leaves as it is, costs what appendPublic
// costs.
func appendPointer(dst []byte, ptr string) []byte {
	start := len(dst)
	dst = appendPublic(dst, ptr)
	if len(dst)-start == len(ptr)+2 && string(dst[start+1:len(dst)-1]) == ptr {
		return dst
	}
	return appendString(dst[:start], publicPointer(ptr))
}

// appendPublic writes s through the public tier as a JSON string, from
// publicMemo when it is remembered there.
func appendPublic(dst []byte, s string) []byte {
	if len(s) > maxMemoJSON {
		return appendString(dst, sanitize.Public(s))
	}
	slot := &publicMemo[memoHash(s)&uint64(len(publicMemo)-1)]
	if slot.TryLock() {
		if len(slot.out) != 0 && string(slot.in) == s {
			dst = append(dst, slot.out...)
			slot.Unlock()
			return dst
		}
		slot.Unlock()
	}
	// The tier runs with no slot held, so nothing it does can leave one
	// locked.
	start := len(dst)
	dst = appendString(dst, sanitize.Public(s))
	if slot.TryLock() {
		slot.in = append(slot.in[:0], s...)
		slot.out = append(slot.out[:0], dst[start:]...)
		slot.Unlock()
	}
	return dst
}

// memoHash spreads the short strings that are cached (pointers that
// differ in one digit, messages of one family) over the slots: a multiply
// per word and a final mix, a third of maphash's cost. A string made to
// collide costs its own rendering, as it did before there was a memo.
func memoHash(s string) uint64 {
	const k = 0x9E3779B97F4A7C15
	n := len(s)
	h := uint64(n) * k
	rest := s
	for ; len(rest) > 8; rest = rest[8:] {
		h = (h ^ binary.LittleEndian.Uint64([]byte(rest))) * k
		h ^= h >> 32
	}
	// The last word overlaps the one before it when s is longer than 8; a
	// shorter s is read as two overlapping halves, or three bytes, which
	// together with its length still tell every s of its length apart.
	var w uint64
	switch {
	case n >= 8:
		w = binary.LittleEndian.Uint64([]byte(s[n-8:]))
	case n >= 4:
		w = uint64(binary.LittleEndian.Uint32([]byte(s))) | uint64(binary.LittleEndian.Uint32([]byte(s[n-4:])))<<32
	case n > 0:
		w = uint64(s[0]) | uint64(s[n/2])<<8 | uint64(s[n-1])<<16
	}
	h = (h ^ w) * k
	h ^= h >> 32
	h *= 0xFF51AFD7ED558CCD
	h ^= h >> 33
	return h
}
