package sanitize

import (
	"bytes"
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
// keeps of it anyway, and made valid UTF-8. Random bytes grow about
// twofold (a control to six bytes, a run of invalid bytes to U+FFFD):
// only their first half can reach the output, and validating, scanning
// and redacting the rest would be work for bytes the tier then cuts. It
// reports false, and returns s, when the cut would keep nearly all of
// what clip keeps.
func logCut(s string) (string, bool) {
	b, k := validPrefix(s, logReach)
	if k == len(s) || len(b) > MaxLogLen-len(Truncated)-256 {
		return s, false
	}
	from := max(0, len(b)-256)
	if ws := bytes.LastIndexAny(b[from:], " \t\r\n"); ws >= 0 {
		b = b[:from+ws]
	}
	b = append(b, Truncated...)
	return unsafe.String(unsafe.SliceData(b), len(b)), true
}

// validPrefix returns the longest start of s, ending between runes or
// within a run of invalid bytes, whose text as the log tier writes it is
// at most reach bytes, made valid as strings.ToValidUTF8 makes it (one
// U+FFFD for each run of invalid bytes), and the length of that start.
// appendEscaped writes the runes of textclass.IsEscaped as `\uXXXX` or,
// beyond the BMP, `\UXXXXXXXX`: no rune is written shorter than it is
// read, so the valid text is at most reach bytes too.
func validPrefix(s string, reach int) ([]byte, int) {
	spend(min(len(s), reach))
	b := make([]byte, 0, min(3*len(s), reach)+len(Truncated))
	n, k, inRun := 0, 0, false
	for k < len(s) {
		if c := s[k]; c < utf8.RuneSelf {
			if n += int(escapedLen[c]); n > reach {
				break
			}
			b = append(b, c)
			k++
			inRun = false
			continue
		}
		r, size := utf8.DecodeRuneInString(s[k:])
		if size == 1 {
			// An invalid byte: only the first of a run is written.
			if !inRun {
				if n += len(string(utf8.RuneError)); n > reach {
					break
				}
				b = utf8.AppendRune(b, utf8.RuneError)
			}
			k++
			inRun = true
			continue
		}
		w := size
		if textclass.IsEscaped(r) {
			w = len(`\u0000`)
			if r > 0xffff {
				w = len(`\U00000000`)
			}
		}
		if n += w; n > reach {
			break
		}
		b = append(b, s[k:k+size]...)
		k += size
		inRun = false
	}
	return b, k
}
