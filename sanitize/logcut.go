package sanitize

import (
	"bytes"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/faultline-go/faultline/internal/textclass"
)

// logReach is how many bytes of a text, as the log tier writes it (valid
// UTF-8, escaped), the tier reads: its limit and a margin for the rules
// that read past a byte to decide on it (a value's end, a DSN's '@'). A
// redaction only shortens the text; where the redactions give back more
// than the margin, the cut would show in the output, and logScan reads
// the whole text instead.
const logReach = MaxLogLen + 4<<10

// cutShows is how far short of the limit a result of logCut's text must
// fall to show the cut: clip cuts at the limit, less its marker, the bytes
// of a rune and the 256 it searches for whitespace.
const cutShows = 300

// escapedLen is the length of an ASCII byte as the log tier writes it.
var escapedLen = func() (t [utf8.RuneSelf]uint8) {
	for c, e := range asciiEscapes {
		t[c] = uint8(max(1, len(e)))
	}
	return t
}()

// logCut returns s cut, as clip cuts, where its text as the log tier
// writes it would pass logReach bytes, when that is short of what clip
// keeps of it anyway, and made valid UTF-8. Random bytes grow about
// twofold (a control to six bytes, a run of invalid bytes to U+FFFD):
// only their first half can reach the output, and validating, scanning
// and redacting the rest would be work for bytes the tier then cuts. It
// reports false, and returns s without allocating, when the cut would
// keep nearly all of what clip keeps.
func logCut(s string) (string, bool) {
	if len(s)*len(`\u0000`) <= logReach {
		// No byte is written longer than a control's escape: a text this
		// short always fits, as a window of the escape re-check does.
		return s, false
	}
	if escapedFits(s, logReach) {
		// A bound counted by a table, which stops early on text that
		// grows (random bytes): a 64 KiB log of lines whose escaped line
		// breaks fit is not copied byte by byte to find it whole.
		return s, false
	}
	// The valid text is built while it is measured, in a buffer of the
	// pool: the texts that are not cut (a window of the escape re-check)
	// cost no allocation, and the others one copy.
	buf := cutBufs.Get().(*[]byte)
	defer cutBufs.Put(buf)
	b, k := appendValidPrefix((*buf)[:0], s, logReach)
	*buf = b[:0]
	if k == len(s) || len(b) > MaxLogLen-len(Truncated)-256 {
		return s, false
	}
	from := max(0, len(b)-256)
	if ws := bytes.LastIndexAny(b[from:], " \t\r\n"); ws >= 0 {
		b = b[:from+ws]
	}
	c := append(append(make([]byte, 0, len(b)+len(Truncated)), b...), Truncated...)
	return unsafe.String(unsafe.SliceData(c), len(c)), true
}

// escapedFits reports that s, as the log tier writes it, is at most reach
// bytes by escapeGrowth's bound, which no byte's escape or U+FFFD exceeds:
// true only when appendValidPrefix would keep s whole. Eight bytes are
// summed between tests of the room left.
func escapedFits(s string, reach int) bool {
	room, i := reach-len(s), 0
	for ; room >= 0 && i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		room -= int(escapeGrowth[b[0]]) + int(escapeGrowth[b[1]]) + int(escapeGrowth[b[2]]) + int(escapeGrowth[b[3]]) +
			int(escapeGrowth[b[4]]) + int(escapeGrowth[b[5]]) + int(escapeGrowth[b[6]]) + int(escapeGrowth[b[7]])
	}
	for ; room >= 0 && i < len(s); i++ {
		room -= int(escapeGrowth[s[i]])
	}
	spend(i)
	return room >= 0
}

// cutBufs hold logCut's valid text: it is at most logReach bytes, as no
// rune is written shorter than it is read.
var cutBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, logReach)
	return &b
}}

// appendValidPrefix appends to dst the longest start of s, ending between
// runes or within a run of invalid bytes, whose text as the log tier
// writes it is at most reach bytes, made valid as strings.ToValidUTF8
// makes it, and returns the length of that start. The tier writes one
// U+FFFD for each run of invalid bytes and the runes of
// textclass.IsEscaped as `\uXXXX` or, beyond the BMP, `\UXXXXXXXX`
// (appendEscaped).
func appendValidPrefix(dst []byte, s string, reach int) ([]byte, int) {
	spend(min(len(s), reach))
	n, k, inRun := 0, 0, false
	for k < len(s) {
		c := s[k]
		if c < utf8.RuneSelf {
			if n += int(escapedLen[c]); n > reach {
				break
			}
			dst = append(dst, c)
			k++
			inRun = false
			continue
		}
		size := validLen(s, k)
		if size == 0 {
			// An invalid byte: only the first of a run is written.
			if !inRun {
				if n += len(replacement); n > reach {
					break
				}
				dst = append(dst, replacement...)
			}
			k++
			inRun = true
			continue
		}
		w := size
		if escapeLeads[c] && textclass.IsEscaped(runeAt(s, k)) {
			w = len(`\u0000`)
			if size == utf8.UTFMax {
				w = len(`\U00000000`)
			}
		}
		if n += w; n > reach {
			break
		}
		dst = append(dst, s[k:k+size]...)
		k += size
		inRun = false
	}
	return dst, k
}

// validLen returns the length of the UTF-8 sequence at s[i], a byte from
// 0x80 up, or 0 when it is invalid there. Most bytes of random text are
// not a valid sequence's start, or fail at the byte after it: a table
// answers them without decoding a rune.
func validLen(s string, i int) int {
	lead := utf8Leads[s[i]]
	size := int(lead.size)
	if size == 0 || i+size > len(s) || s[i+1] < lead.lo || s[i+1] > lead.hi {
		return 0
	}
	for j := i + 2; j < i+size; j++ {
		if s[j] < 0x80 || s[j] > 0xbf {
			return 0
		}
	}
	return size
}

// utf8Leads gives, for each byte from 0x80 up, the length of the UTF-8
// sequence it starts (0 for none) and the range of the byte after it
// (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF).
var utf8Leads = func() (t [256]struct{ size, lo, hi byte }) {
	for c := 0xc2; c <= 0xf4; c++ {
		l := &t[c]
		l.lo, l.hi = 0x80, 0xbf
		switch {
		case c <= 0xdf:
			l.size = 2
		case c <= 0xef:
			l.size = 3
		default:
			l.size = 4
		}
		switch c {
		case 0xe0:
			l.lo = 0xa0
		case 0xed:
			l.hi = 0x9f
		case 0xf0:
			l.lo = 0x90
		case 0xf4:
			l.hi = 0x8f
		}
	}
	return t
}()

// appendValid appends s to dst as strings.ToValidUTF8(s, "\uFFFD") writes
// it, but stops once more than max bytes were appended, and reports
// whether it wrote all of s within max.
func appendValid(dst []byte, s string, max int) ([]byte, bool) {
	base, inRun := len(dst), false
	for i := 0; i < len(s); {
		if len(dst)-base > max {
			return dst, false
		}
		if c := s[i]; c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			inRun = false
			continue
		}
		size := validLen(s, i)
		if size == 0 {
			if !inRun {
				dst = append(dst, replacement...)
			}
			i++
			inRun = true
			continue
		}
		dst = append(dst, s[i:i+size]...)
		i += size
		inRun = false
	}
	return dst, len(dst)-base <= max
}
