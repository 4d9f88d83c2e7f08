package sanitize

import (
	"encoding/binary"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/faultline-go/faultline/internal/textclass"
)

const lowerHex = "0123456789abcdef"

// Log returns s fit for a log line: credentials, tokens, cookies and
// connection-string passwords are replaced with Redacted, while SQL, IP
// addresses, host names, paths and stack traces stay for the operator.
// Control characters, line and paragraph separators and the invisible runes
// (bidirectional controls, zero-width characters, tags) are written as visible escapes (`\n`, `\u202e`), so one value
// can neither forge a second log line nor reorder what a reader sees.
func Log(s string) string {
	if isUUID(s) {
		// An identifier, which no rule can tell from a credential by its
		// text alone, on every line of a request's log (the correlation
		// ID): answered without a scan.
		return s
	}
	out, f := logScan(s)
	if f&fEscape == 0 {
		return out
	}
	return unhideEscaped(s, out, logText, logScanner)
}

func logText(s string) string {
	out, _ := logScan(s)
	return out
}

// logScan returns the log tier's text for s and the flags of s, which
// hold fEscape whenever s may hold an escape (always when s was too long
// to scan).
func logScan(s string) (string, flags) {
	// The passes read valid UTF-8 within the limit: a text that is scanned
	// here is, any other is made so (clip, or logCut) and scanned then.
	f, scanned := fEscape|fNonASCII, false
	if len(s) <= MaxLogLen {
		k, found := plainPrefix(s)
		if k == len(s) {
			return s, 0
		}
		// Text that is not valid UTF-8 is made valid before any rule
		// reads it and scanned then: a scan now would be thrown away. The
		// check reads eight ASCII bytes at a time.
		if scanned = utf8.ValidString(s[k:]); scanned {
			var first kvFirst
			f = first.settle(withURL(found | logScanner.scanFirst(s, k, logScanner.want&^found, &first)))
			if f&(secretFlags|fCtrl) == 0 && (f&fNonASCII == 0 || escapeAt(s) < 0) {
				return s, f
			}
			if first.found && f&(fCtrl|fNonASCII) == 0 {
				// Nothing to escape: the pass is the rules alone, and may
				// start from the pair the scan read (see kvFirst).
				return settleFrom(s, f, MaxLogLen, logScanner, first.logPass, true, &first), f
			}
		}
	}
	if f&(fCtrl|fNonASCII) != 0 {
		// Escapes may grow the text past the limit: only the part that can
		// reach the output is read, unless redactions gave back so much
		// room that the cut shows in the output, which then gets what the
		// whole text makes of it.
		if c, ok := logCut(s); ok {
			if out := settleValid(c, logScanner.scan(c), MaxLogLen, logScanner, logPass, true); len(out) >= MaxLogLen-cutShows {
				return out, f
			}
		}
	}
	if !scanned {
		c := clip(s, MaxLogLen, false)
		return settleValid(c, logScanner.scan(c), MaxLogLen, logScanner, logPass, true), f
	}
	return settleValid(s, f, MaxLogLen, logScanner, logPass, true), f
}

// logPass redacts before it escapes: an escape glues a letter to the next
// word ("\\nghp_..."), which would then no longer start a token. The rules
// that read "to the end of the line" stop at a real line break and at an
// escaped one alike, so a later pass over the escaped text finds the same
// spans.
func logPass(s string, f flags) (string, bool) { return (*kvFirst)(nil).logPass(s, f) }

// logPass is the log tier's pass over a text whose first pair of the
// key-value rule k may have read.
func (k *kvFirst) logPass(s string, f flags) (string, bool) {
	r := passRun{first: k}
	t := redactSecrets(s, f, &r)
	if f&(fCtrl|fNonASCII) == 0 {
		return t, r.closed()
	}
	e := escapeAt(t)
	if e < 0 {
		return t, r.closed()
	}
	// The rules settle on the text before its escapes: an escape counts
	// six bytes ("\u0003") where the rules' reach back counts one, so a
	// name a redaction brought within reach of a value would be out of it
	// again in the escaped text, and the next call, which decodes the
	// tier's escapes to look for hidden secrets, would find it. Only the
	// first pass over a text has escapes to write.
	for range 7 {
		if t == s {
			break
		}
		nf := logScanner.rescan(s, f, t)
		if r.closed() && nf == f {
			break
		}
		s, f, r = t, nf, passRun{}
		spend(len(s))
		if t = redactSecrets(s, f, &r); t != s {
			e = escapeAt(t)
		}
	}
	// The rules saw the text before its escapes: an escape that changes
	// it spoils the proof.
	if e < 0 {
		return t, false
	}
	return escapeFrom(t, e, MaxLogLen), false
}

// escapeAt returns the index of the first rune that must be escaped, or of
// the first invalid byte, or -1. ASCII bytes are checked without decoding:
// prose is mostly ASCII. So is U+FFFD, which clip writes for every run of
// invalid bytes and which is not escaped: in text that was random bytes it
// is a third of the runes. An invalid byte is found so that the log pass
// returns valid UTF-8 whatever its rules do to a rune (settleValid): its
// text is valid, and a redaction that cut a rune would leave bytes the
// escaper writes as clip would.
func escapeAt(s string) int {
	spend(len(s))
	for i := 0; i < len(s); {
		// A run of printable ASCII costs one table lookup a byte, and a
		// run of other runes (CJK prose) is read in a loop of its own.
		for i < len(s) && escapeByte[s[i]] == 0 {
			i++
		}
		for i < len(s) && s[i] >= utf8.RuneSelf {
			if strings.HasPrefix(s[i:], replacement) {
				i += len(replacement)
				continue
			}
			n := validLen(s, i)
			if n == 0 || escapeLeads[s[i]] && textclass.IsEscaped(runeAt(s, i)) {
				return i
			}
			i += n
		}
		if i < len(s) && escapeByte[s[i]] != 0 {
			// An ASCII control: the loops stop at no other byte.
			return i
		}
	}
	return -1
}

// escapeByte is 0 for the bytes written as they are and read as one rune
// (printable ASCII), 1 for every other.
var escapeByte = func() (t [256]uint8) {
	for c := range t {
		if c >= utf8.RuneSelf || asciiEscapes[c] != "" {
			t[c] = 1
		}
	}
	return t
}()

// runeAt decodes the valid rune at s[i].
func runeAt(s string, i int) rune {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}

// escapeLeads marks the first bytes of the runes textclass.IsEscaped
// reports: the other runes of CJK or Cyrillic text are not decoded to be
// asked. Beyond the BMP every rune is asked, so the table takes 64 Ki
// runes to build, not the 1.1 Mi that are (TestEscapeLeads).
var escapeLeads = func() (t [256]bool) {
	for r := rune(utf8.RuneSelf); r <= 0xffff; r++ {
		if textclass.IsEscaped(r) {
			t[leadByte(r)] = true
		}
	}
	for c := 0xf0; c <= 0xf4; c++ {
		t[c] = true
	}
	return t
}()

// leadByte returns the first byte of r's UTF-8, r from U+0080 to U+FFFF.
func leadByte(r rune) byte {
	if r < 0x800 {
		return byte(0xc0 | r>>6)
	}
	return byte(0xe0 | r>>12)
}

// replacement is U+FFFD as UTF-8.
const replacement = string(utf8.RuneError)

// asciiEscapes are the escapes of the ASCII controls, empty for the bytes
// written as they are.
var asciiEscapes = func() (t [utf8.RuneSelf]string) {
	for c := range t {
		switch {
		case c == '\n':
			t[c] = `\n`
		case c == '\r':
			t[c] = `\r`
		case c == '\t':
			t[c] = `\t`
		case c < 0x20 || c == 0x7f:
			t[c] = `\u00` + lowerHex[c>>4:c>>4+1] + lowerHex[c&0xf:c&0xf+1]
		}
	}
	return t
}()

// asciiEscapeBytes are asciiEscapes padded to six bytes, for appendEscaped.
var asciiEscapeBytes = func() (t [utf8.RuneSelf][6]byte) {
	for c, e := range asciiEscapes {
		copy(t[c][:], e)
	}
	return t
}()

// escapeFrom returns s with the runes of textclass.IsEscaped from s[i] on
// written as escapes, or only its first limit bytes and a few more when
// the escaped text is longer: an escape is up to ten bytes for one to
// four, and the tier cuts its text to limit anyway (clip reads no more
// than that, and sees the result is longer), so random bytes are not
// escaped to six times their length, through a growing buffer, to be cut.
func escapeFrom(s string, i, limit int) string {
	// A text of half the limit or more gets room for the limit: text that
	// is mostly controls stops there without growing the buffer. A
	// shorter one gets room for what its bytes can grow to, counted by a
	// table: a line with one line break costs its length, and one of
	// controls (a window of the escape re-check) no growth. The bytes are
	// handed over without the copy a []byte's conversion makes, as a
	// strings.Builder does.
	size := limit
	if 2*len(s) < limit {
		spend(len(s) - i)
		size = len(s)
		for _, c := range []byte(s[i:]) {
			size += int(escapeGrowth[c])
		}
		size = min(size, limit)
	}
	b := appendEscaped(make([]byte, 0, size+len(`\U00000000`)), s, i, limit)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// escapeGrowth bounds the bytes appendEscaped adds for a byte: an ASCII
// control's escape less the byte, and for a byte from 0x80 up two, as an
// invalid byte becomes U+FFFD (three) and an escaped rune at most three
// bytes for each of its own (`\u0085` for two).
var escapeGrowth = func() (t [256]uint8) {
	for c := range t {
		t[c] = 2
		if c < utf8.RuneSelf {
			t[c] = uint8(max(1, len(asciiEscapes[c])) - 1)
		}
	}
	return t
}()

// appendEscaped appends s to dst with the runes from s[i] on that
// textclass.IsEscaped reports written as escapes, stopping once more than
// limit bytes were appended.
func appendEscaped(dst []byte, s string, i, limit int) []byte {
	spend(len(s))
	base := len(dst)
	dst = append(dst, s[:i]...)
	for i < len(s) && len(dst)-base <= limit {
		if cap(dst)-len(dst) < len(`\U00000000`) {
			// No byte is written as more than six: one growth to what the
			// rest can need, not append's steps of a quarter each, which
			// cost NUL bytes five copies.
			dst = slices.Grow(dst, min(limit+1-(len(dst)-base), len(`\u0000`)*(len(s)-i))+len(`\U00000000`))
		}
		if c := s[i]; c < utf8.RuneSelf {
			if k := len(asciiEscapes[c]); k != 0 {
				// Six bytes stored at once and k of them kept: the room is
				// there, and a copy call per control cost 64 KiB of NUL
				// bytes 3 % of the tier.
				n := len(dst)
				*(*[6]byte)(dst[n : n+6]) = asciiEscapeBytes[c]
				dst = dst[:n+k]
				i++
				continue
			}
			// A run of printable ASCII is copied whole, up to the limit: a
			// short one (random text's) as one store of eight bytes, whose
			// tail the next write covers, not a call to copy.
			e, end := i+1, min(len(s), i+limit+1-(len(dst)-base))
			for e < end && escapeByte[s[e]] == 0 {
				e++
			}
			if n := len(dst); e-i <= 8 && len(s)-i >= 8 && cap(dst)-n >= 8 {
				binary.LittleEndian.PutUint64(dst[n:n+8], load64(s, i))
				dst = dst[:n+e-i]
			} else {
				dst = append(dst, s[i:e]...)
			}
			i = e
			continue
		}
		if strings.HasPrefix(s[i:], replacement) {
			dst = append(dst, replacement...)
			i += len(replacement)
			continue
		}
		n := validLen(s, i)
		switch {
		case n == 0:
			// A run of invalid bytes is written as one U+FFFD, as clip
			// writes it.
			dst = append(dst, replacement...)
			for n = 1; i+n < len(s) && s[i+n] >= utf8.RuneSelf && validLen(s, i+n) == 0; n++ {
			}
		case escapeLeads[s[i]] && textclass.IsEscaped(runeAt(s, i)):
			r := runeAt(s, i)
			// Tags lie beyond the BMP and take \U with eight digits, as in
			// Go, so an escape never reads as a shorter one and a digit.
			esc, digits := `\u`, 4
			if r > 0xffff {
				esc, digits = `\U`, 8
			}
			dst = append(dst, esc...)
			for k := digits - 1; k >= 0; k-- {
				dst = append(dst, lowerHex[r>>(4*k)&0xf])
			}
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return dst
}

// isUUID reports s in the canonical form of RFC 9562 §4: 32 hexadecimal
// digits in groups of 8, 4, 4, 4 and 12 joined by hyphens. Its digits are
// random, so a test that branches on each one (digit or letter?) mispredicts
// about half the time: 120 ns per fresh UUID against 20 ns for a repeated
// one. A table lookup folded into one value keeps the loop free of
// data-dependent branches.
func isUUID(s string) bool {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	s = s[:36]
	all := hexDigit[s[0]] & hexDigit[s[1]] & hexDigit[s[2]] & hexDigit[s[3]] &
		hexDigit[s[4]] & hexDigit[s[5]] & hexDigit[s[6]] & hexDigit[s[7]] &
		hexDigit[s[9]] & hexDigit[s[10]] & hexDigit[s[11]] & hexDigit[s[12]] &
		hexDigit[s[14]] & hexDigit[s[15]] & hexDigit[s[16]] & hexDigit[s[17]] &
		hexDigit[s[19]] & hexDigit[s[20]] & hexDigit[s[21]] & hexDigit[s[22]] &
		hexDigit[s[24]] & hexDigit[s[25]] & hexDigit[s[26]] & hexDigit[s[27]] &
		hexDigit[s[28]] & hexDigit[s[29]] & hexDigit[s[30]] & hexDigit[s[31]] &
		hexDigit[s[32]] & hexDigit[s[33]] & hexDigit[s[34]] & hexDigit[s[35]]
	return all != 0
}

// hexDigit is 1 for the bytes isHex accepts and 0 for every other.
var hexDigit = func() (t [256]uint8) {
	for c := range t {
		if isHex(byte(c)) {
			t[c] = 1
		}
	}
	return t
}()
