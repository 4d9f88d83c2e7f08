package problem

import (
	"encoding/binary"
	"sync"

	"github.com/faultline-go/faultline/sanitize"
)

// appendPublic writes s through the public tier as a JSON string. The
// tier is the costliest step of rendering, and what reaches it from
// outside the kit repeats: bind's messages and codes, the pointers of a
// form's fields, a service's extension values. So the rendering of recent
// short strings is remembered, as publicInstance remembers paths: the
// tier is a pure function of its input, each slot keeps copies of its
// input and output (no caller's memory is retained, and a warm slot is
// reused without allocating), and a slot another request holds is not
// waited for.
func appendPublic(dst []byte, s string) []byte {
	if len(s) > maxMemoPublic {
		return appendString(dst, sanitize.Public(s))
	}
	slot := &publicMemo[memoIndex(s)]
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

// memoIndex picks s's slot in publicMemo. A slot is checked against its
// input, so the hash need only spread the short strings that are cached
// (pointers that differ in one digit, messages of one family), which a
// multiply per word does at a third of maphash's cost; a string made to
// collide costs its own scan, as it did before there was a memo.
func memoIndex(s string) int {
	const k = 0x9E3779B97F4A7C15
	n := len(s)
	h := uint64(n) * k
	rest := s
	for ; len(rest) > 8; rest = rest[8:] {
		h = (h ^ binary.LittleEndian.Uint64([]byte(rest))) * k
		h ^= h >> 32
	}
	// The last word overlaps the one before it when s is longer than 8.
	var w uint64
	if n >= 8 {
		w = binary.LittleEndian.Uint64([]byte(s[n-8:]))
	} else {
		for i := range len(rest) {
			w |= uint64(rest[i]) << (8 * i)
		}
	}
	h = (h ^ w) * k
	h ^= h >> 32
	h *= 0xFF51AFD7ED558CCD
	h ^= h >> 33
	return int(h >> (64 - publicMemoBits))
}

const publicMemoBits = 11

// maxMemoPublic bounds the strings publicMemo keeps: field errors, codes
// and extension values are short; a long detail is rare enough to scan.
const maxMemoPublic = 128

// publicMemo holds enough slots for a form of a few hundred fields to
// render from memory with few collisions.
var publicMemo [1 << publicMemoBits]struct {
	sync.Mutex
	in, out []byte
}
