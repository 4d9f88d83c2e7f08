package correlation

import (
	"crypto/rand"
	"encoding/binary"
	"strings"
	"sync"
	"time"

	"github.com/faultline-go/faultline/internal/logmark"
)

// Valid reports whether id is acceptable as a correlation ID: 8 to 128 bytes,
// each one of A-Z a-z 0-9 and . _ ~ + / = -. The alphabet covers UUIDs, ULIDs,
// base64 and base64url tokens while leaving out everything that could split a
// header, a log line or a JSON string, and what the log tier of sanitize
// would redact (an ID shaped like an access token) when sanitize is linked in.
func Valid(id string) bool {
	return rejectReason(id) == ""
}

const (
	minIDLen = 8
	maxIDLen = 128
)

// rejectReason is Valid with an explanation for the log. The reasons are
// constants, so a valid ID costs no allocation.
func rejectReason(id string) string {
	switch {
	case id == "":
		return "empty"
	case len(id) < minIDLen:
		return "too_short"
	case len(id) > maxIDLen:
		return "too_long"
	}
	// Most IDs are random (UUIDs, trace IDs): a branch per byte on its
	// class (letter? digit?) would mispredict about every other byte. The
	// table folds them into one value; the loop below only names the
	// reason for an ID that fails.
	all := uint8(1)
	for i := 0; i < len(id); i++ {
		all &= idByte[id[i]]
	}
	if all != 0 {
		// An ID shaped like a credential (a token a client put in its
		// request ID) is redacted in every log line, where an operator
		// would search for it in vain, and would be echoed to the client
		// as it came: a fresh ID replaces it. The log tier is sanitize's
		// when it is linked in, as it is with every faultline middleware.
		if logmark.Altered(id) {
			return "secret_shaped"
		}
		return ""
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case idByte[c] != 0:
		case c < 0x20 || c == 0x7f:
			return "control_char"
		case c >= 0x80:
			return "non_ascii"
		default:
			return "invalid_char"
		}
	}
	return ""
}

// idByte is 1 for the bytes an ID may hold (see Valid), the one
// definition of its alphabet.
var idByte = func() (t [256]uint8) {
	for c := range t {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._~+/=-", byte(c)) >= 0 {
			t[c] = 1
		}
	}
	return t
}()

// randChunk is the number of random bytes a UUIDv7 needs (rand_a and rand_b
// share 10 bytes with the version and variant bits).
const randChunk = 10

// randBuf amortises the crypto/rand call over many IDs. Buffers live in a
// sync.Pool, so concurrent callers never share one and never take a lock.
type randBuf struct {
	b   [randChunk * 64]byte
	off int
}

var randPool = sync.Pool{New: func() any { return &randBuf{off: len(randBuf{}.b)} }}

// idLen is the length of a generated ID in its canonical form.
const idLen = 36

// newID returns a fresh UUIDv7 (RFC 9562) in its canonical 36-character
// form: a 48-bit Unix millisecond timestamp, so IDs sort roughly by
// creation time in logs and indexes, and 74 bits from crypto/rand. It
// carries nothing about the host or the process. IDs created within the
// same millisecond are not ordered among themselves. Safe for concurrent
// use.
func newID() string { return newIDAt(time.Now()) }

// newIDAt is newID stamped with now, for callers that have read the clock
// already: on some machines reading it costs as much as the rest of the ID.
func newIDAt(now time.Time) string {
	var u [16]byte
	ms := uint64(now.UnixMilli())
	u[0] = byte(ms >> 40)
	u[1] = byte(ms >> 32)
	u[2] = byte(ms >> 24)
	u[3] = byte(ms >> 16)
	u[4] = byte(ms >> 8)
	u[5] = byte(ms)

	rb := randPool.Get().(*randBuf)
	if rb.off+randChunk > len(rb.b) {
		rand.Read(rb.b[:])
		rb.off = 0
	}
	copy(u[6:], rb.b[rb.off:rb.off+randChunk])
	rb.off += randChunk
	randPool.Put(rb)

	u[6] = 0x70 | u[6]&0x0f // version 7
	u[8] = 0x80 | u[8]&0x3f // variant 10

	var s [idLen]byte
	formatUUID(&s, &u)
	return string(s[:])
}

// formatUUID writes u in the canonical form, eight digits at a time:
// a loop over the 16 bytes, a table lookup and two stores each with
// their bounds checks, cost three times as much, and the ID is made on
// nearly every request of a service whose clients send none.
func formatUUID(s *[idLen]byte, u *[16]byte) {
	g1 := hexDigits8(binary.BigEndian.Uint32(u[4:]))
	g2 := hexDigits8(binary.BigEndian.Uint32(u[8:]))
	binary.BigEndian.PutUint64(s[0:], hexDigits8(binary.BigEndian.Uint32(u[0:])))
	binary.BigEndian.PutUint32(s[9:], uint32(g1>>32))
	binary.BigEndian.PutUint32(s[14:], uint32(g1))
	binary.BigEndian.PutUint32(s[19:], uint32(g2>>32))
	binary.BigEndian.PutUint32(s[24:], uint32(g2))
	binary.BigEndian.PutUint64(s[28:], hexDigits8(binary.BigEndian.Uint32(u[12:])))
	s[8], s[13], s[18], s[23] = '-', '-', '-', '-'
}

// hexDigits8 returns the eight lower-case hex digits of x, the first in the
// top byte. Each nibble gets a byte of its own (the high nibbles of x's
// bytes in every other byte, the low ones between), then '0' is added to
// each, and the 39 more that lead from '9'+1 to 'a' to those over 9.
func hexDigits8(x uint32) uint64 {
	v := uint64(x)
	v = (v | v<<16) & 0x0000ffff0000ffff
	v = (v | v<<8) & 0x00ff00ff00ff00ff
	n := (v>>4)&0x000f000f000f000f<<8 | v&0x000f000f000f000f
	over9 := (n + 0x0606060606060606) >> 4 & 0x0101010101010101
	return n + 0x3030303030303030 + over9*39
}
