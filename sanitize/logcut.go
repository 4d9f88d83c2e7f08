package sanitize

import (
	"strings"
	"unicode/utf8"

	"github.com/faultline-go/faultline/internal/textclass"
)

// logReach is how many bytes of a text, as the log tier writes it (valid
// UTF-8, escaped), the tier reads: its limit and a margin for the rules
// that read past a byte to decide on it (a value's end, a DSN's '@'). A
// redaction only shortens the text, so the bytes beyond can reach the
// output only where redactions gave back more than the margin, and those
// are dropped as clip drops the bytes beyond the limit.
const logReach = MaxLogLen + 4<<10

// escapedLen is the length of an ASCII byte as the log tier writes it:
// controls become `\n`, `\r`, `\t` or `\u00XX`.
var escapedLen = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case c == '\n' || c == '\r' || c == '\t':
			t[c] = 2
		case c < 0x20 || c == 0x7f:
			t[c] = 6
		default:
			t[c] = 1
		}
	}
	return t
}()

// logCut returns s cut, as clip cuts, where its text as the log tier
// writes it would pass logReach bytes, when that is short of what clip
// keeps of it anyway. Random bytes grow about threefold (a control to six
// bytes, a run of invalid bytes to U+FFFD): their first third is all that
// can reach the output, and validating, scanning and redacting the rest
// would be work for bytes the tier then cuts. It reports false, and
// returns s, when the cut would keep nearly all of what clip keeps.
func logCut(s string) (string, bool) {
	k, valid := escapedPrefix(s, logReach)
	if k == len(s) || valid > MaxLogLen-len(Truncated)-256 {
		return s, false
	}
	c := strings.ToValidUTF8(s[:k], "\uFFFD")
	if ws := strings.LastIndexAny(c[max(0, len(c)-256):], " \t\r\n"); ws >= 0 {
		c = c[:max(0, len(c)-256)+ws]
	}
	return c + Truncated, true
}

// escapedPrefix returns the longest start of s, ending between runes or
// within a run of invalid bytes, whose text as the log tier writes it is
// at most reach bytes, and the length of that start once made valid
// UTF-8. strings.ToValidUTF8 writes one U+FFFD for each run of invalid
// bytes, and appendEscaped writes the runes of textclass.IsEscaped as
// `\uXXXX` or, beyond the BMP, `\UXXXXXXXX`.
func escapedPrefix(s string, reach int) (k, valid int) {
	spend(min(len(s), reach))
	n, inRun := 0, false
	for k < len(s) {
		if c := s[k]; c < utf8.RuneSelf {
			if n += int(escapedLen[c]); n > reach {
				break
			}
			k++
			valid++
			inRun = false
			continue
		}
		r, size := utf8.DecodeRuneInString(s[k:])
		w, v := size, size
		switch {
		case size == 1 && r == utf8.RuneError:
			w, v = 3, 3
			if inRun {
				w, v = 0, 0
			}
		case textclass.IsEscaped(r) && r > 0xffff:
			w = 10
		case textclass.IsEscaped(r):
			w = 6
		}
		if n += w; n > reach {
			break
		}
		inRun = size == 1 && r == utf8.RuneError
		k += size
		valid += v
	}
	return k, valid
}
