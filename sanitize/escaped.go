package sanitize

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// unhideEscaped catches secrets that escapes hid from a tier's rules.
// Upstream bodies reach error text still escaped: a JSON string's "\n"
// glues its letter to the token after it ("\nghp_..." no longer starts a
// word), and "\u0073k_live_...", "%67hp_...", "\x67hp_..." or "&#x67;hp_..."
// spell a token no prefix matches. An escape may itself be escaped
// ("%2567hp_", "\u002567hp_", "password%253D"): a value passed through two
// layers of encoding. out is the tier's result for the raw text; its escapes
// are decoded, layer after layer up to maxDecodeLayers, and the tier runs
// again on the decoded text. When that finds more to redact, the decoded
// result is returned (its escapes are lost, which only costs fidelity on
// text that held a secret); otherwise out is. Decoding out rather than the
// raw text keeps every redaction the first pass made, whatever the decoding
// does to quotes around it.
//
// Input without a backslash, a percent sign or an ampersand costs three
// byte searches. A text longer than fullRecheckLen is checked window by
// window first (see hiddenInWindows): the whole text is decoded and run
// again only when a window hides a secret, so a long text whose escapes
// hide nothing (random text holds a decodable escape every kilobyte or so)
// costs its windows rather than a second run of the tier. A window that
// hides one is proof enough: the decoded run is returned even when it
// redacts no more than out, which happens when its escapes, written out
// again, push the secret past the limit (cut off, it is gone as well).
func unhideEscaped(in, out string, tier func(string) string, sc *scanner) string {
	if strings.IndexByte(in, '\\') < 0 && strings.IndexByte(in, '%') < 0 && strings.IndexByte(in, '&') < 0 {
		// The escapes in out, if any, are the tier's own (the log tier's
		// "\n" for a line break): the first pass saw what they stand for.
		return out
	}
	hidden, known := false, false
	if len(out) > fullRecheckLen {
		if hidden, known = hiddenInWindows(in, len(out), tier, sc); known && !hidden {
			return out
		}
	}
	decoded, ok := decodeLayers(out)
	if !ok {
		return out
	}
	if again := tier(decoded); hidden || foundMore(again, out) {
		return again
	}
	return out
}

// foundMore reports that again, the tier's result for a decoded text,
// redacted what out, its result for the text, did not.
func foundMore(again, out string) bool {
	return strings.Count(again, Redacted) > strings.Count(out, Redacted) ||
		again == GenericDetail && out != GenericDetail
}

// decodeLayers decodes s's escapes layer after layer, up to
// maxDecodeLayers, and reports false when s has none.
func decodeLayers(s string) (string, bool) {
	decoded, ok := decodeEscapes(s)
	if !ok {
		return s, false
	}
	for range maxDecodeLayers - 1 {
		d, ok := decodeEscapes(decoded)
		if !ok {
			break
		}
		decoded = d
	}
	return decoded, true
}

// fullRecheckLen is the longest result that is decoded and run again
// whole without looking at its windows first. It is the public tier's
// limit, so the public tier always takes the exact path, and a log text
// this short would be covered by its windows anyway.
const fullRecheckLen = MaxPublicLen

// Window bounds around an escape of the raw text: the key or the token's
// start before it, the separator and the start of the value after it. A
// rule needs no more to redact (a value cut at the window's end is still
// redacted up to there, which is all the check asks); the window then
// grows to the ends of the words at its borders, so it neither starts
// nor ends inside a token, up to windowWordMax more bytes.
// TestLogLongRecheckReach and TestLogLongRecheckWindows hold the bounds:
// with 16 and 32 bytes they fail.
const (
	windowBefore  = 64
	windowAfter   = 128
	windowWordMax = 512
)

// hiddenInWindows reports whether an escape of in hides a secret: the
// windows around in's decodable escapes (windows that overlap merged)
// that scans alone do not clear (windowInert) are put through the check
// that unhideEscaped runs on a short text. The escapes are taken from in,
// not from the tier's result: that result also holds the tier's own
// escapes (the log tier writes every control byte of random text as one),
// which stand for what the first pass saw. Windows that would cover more
// than half of the result, n bytes, or most of in's first denseProbe
// bytes, are not run (known is false): one run over the whole decoded
// result costs less.
func hiddenInWindows(in string, n int, tier func(string) string, sc *scanner) (hidden, known bool) {
	var w [maxWindows][2]int
	k, ok := windows(in, n/2, &w)
	if !ok {
		return false, false
	}
	bufs := windowBufs.Get().(*[4][]byte)
	defer windowBufs.Put(bufs)
	// The windows that scans cannot clear are checked together, one after
	// the other between lines that no rule reads a value across, so that
	// random text with a trigger in a window every few kilobytes costs one
	// check, not one per window.
	cat := bufs[3][:0]
	for _, ab := range w[:k] {
		if win := in[ab[0]:ab[1]]; !windowInert(win, sc, bufs) {
			if len(cat) > 0 {
				cat = append(cat, windowGap...)
			}
			cat = append(cat, win...)
		}
	}
	bufs[3] = cat
	if len(cat) == 0 {
		return false, true
	}
	return windowHides(unsafe.String(unsafe.SliceData(cat), len(cat)), tier, bufs), true
}

// windowGap separates windows checked together: a line break ends what
// the rules read to the end of a line, and the line of one dot between is
// a value of its own for a key that takes the next line's text ("password:"
// before a line break), so no rule reads one window's text as the value of
// a key in another.
const windowGap = "\n\n.\n\n"

// windowBufs hold a window decoded layer after layer and then escaped,
// and the windows checked together, so the windows of random text cost no
// allocation.
var windowBufs = sync.Pool{New: func() any { return new([4][]byte) }}

// windowInert reports, from scans and the token rule, that the check of
// w cannot find more to redact: no rule that redacts (the flags a scan
// raises for the tier's redacting rules) is triggered by w, by w decoded,
// or by w decoded and then escaped as the log tier writes it (an escape
// glues its letter to the next word: a decoded tab before "oken=" is
// logged as "\token="), but the token rule at a prefix with no token
// after it (noneRedacts), and decoding spelled no marker. The tier's
// result for w then holds no more markers than w, and the decoded run
// none more than that: the tier's own escapes in its result decode to the
// bytes of w they stand for.
func windowInert(w string, sc *scanner, bufs *[4][]byte) bool {
	redacting := sc.want & publicFlags
	f := sc.scan(w)
	if !noneRedacts(w, f&redacting) {
		return false
	}
	ds, ok := decodeLayersIn(w, bufs)
	if !ok {
		return true
	}
	// The decoded and the escaped text differ from the one before only
	// around the escapes: rescan reads just those bytes.
	if f = sc.rescan(w, f, ds); !noneRedacts(ds, f&redacting) || strings.Count(ds, Redacted) > strings.Count(w, Redacted) {
		return false
	}
	if i := escapeAt(ds); i >= 0 {
		bufs[2] = appendEscaped(bufs[2][:0], ds, i, len(ds)*10)
		e := unsafe.String(unsafe.SliceData(bufs[2]), len(bufs[2]))
		if !noneRedacts(e, sc.rescan(ds, f, e)&redacting) {
			return false
		}
	}
	return true
}

// noneRedacts reports that no rule redacts in s, given r, the redacting
// flags of a scan of s: none, or only a token's prefix with no token
// after it. A decoded escape spells such a prefix in one window of random
// text in six ("%7C" after a digit is the '|' of a Facebook app token),
// and a run of the token rule over the window is a small part of the
// tier's two runs that windowHides would make.
func noneRedacts(s string, r flags) bool {
	return r == 0 || r == fToken && redactTokens(s) == s
}

// maxWindows bounds the windows of one text; with every window but the
// first and the last at least windowBefore+windowAfter bytes, half of a
// log text holds fewer.
const maxWindows = 256

// windows stores in w the merged windows around in's decodable escapes
// and returns their number, or false when they cover more than budget
// bytes. It reads no further than a tier's result can reach back into its
// input: valid text is cut to the limit before any rule reads it, and
// invalid text to four times the limit before its runs of invalid bytes
// shrink to one U+FFFD each.
func windows(in string, budget int, w *[maxWindows][2]int) (int, bool) {
	end := min(len(in), 4*MaxLogLen)
	spend(end)
	k, covered := 0, 0
	for i := 0; i < end; i++ {
		if !escapeStarts[in[i]] {
			// Escape-dense text (JSON in JSON) stops here or at the next
			// byte; other text skips to its next escape eight bytes a step.
			if i+1 < end && escapeStarts[in[i+1]] {
				i++
			} else if i = nextEscapeStart(in, i+1, end); i == end {
				break
			}
		}
		_, n := decodeAt(in, i)
		if n == 0 {
			continue
		}
		a, b := max(0, i-windowBefore), windowEnd(in, min(len(in), i+n+windowAfter))
		if k == 0 || a > w[k-1][1] {
			a = windowStart(in, a)
		}
		if k > 0 && a <= w[k-1][1] {
			covered += max(0, b-w[k-1][1])
			w[k-1][1] = max(b, w[k-1][1])
		} else {
			if k == maxWindows {
				return 0, false
			}
			covered += b - a
			w[k] = [2]int{a, b}
			k++
		}
		// Windows that cover most of the first few kilobytes will cover
		// most of the text: escape-dense text goes to the whole run
		// before its windows cost a decoding of every escape.
		if covered > budget || i >= denseProbe && 4*covered > 3*i {
			return 0, false
		}
		i += n - 1
	}
	return k, true
}

// denseProbe is where windows first judge the text escape-dense.
const denseProbe = 4 << 10

// windowHides runs unhideEscaped's check on one window of the raw text,
// decoding in bufs[0] and bufs[1].
func windowHides(w string, tier func(string) string, bufs *[4][]byte) bool {
	o := tier(w)
	d, ok := decodeLayersIn(o, bufs)
	return ok && foundMore(tier(d), o)
}

// decodeLayersIn is decodeLayers writing its layers to bufs[0] and
// bufs[1] in turn, so the windows of random text cost no allocation: the
// result lives in one of them.
func decodeLayersIn(s string, bufs *[4][]byte) (string, bool) {
	d, ok := appendDecoded(bufs[0][:0], s, len(s))
	if !ok {
		return s, false
	}
	for range maxDecodeLayers - 1 {
		bufs[0] = d
		next, ok := appendDecoded(bufs[1][:0], unsafe.String(unsafe.SliceData(d), len(d)), len(d))
		if !ok {
			break
		}
		bufs[1], d = d, next
	}
	bufs[0] = d
	return unsafe.String(unsafe.SliceData(d), len(d)), true
}

// windowStart moves i back to the start of the word it falls in.
func windowStart(s string, i int) int {
	for stop := max(0, i-windowWordMax); i > stop && windowByte(s[i-1]); i-- {
	}
	return i
}

// windowEnd moves i on to the end of the word it falls in.
func windowEnd(s string, i int) int {
	for stop := min(len(s), i+windowWordMax); i < stop && windowByte(s[i]); i++ {
	}
	return i
}

// windowByte reports the bytes of tokens and values: letters, digits and
// the punctuation tokens are made of.
func windowByte(c byte) bool {
	return isAlnum(c) || c == '-' || c == '_' || c == '.' || c == '+' || c == '/' || c == '=' || c == '~' || c >= utf8.RuneSelf
}

// maxDecodeLayers bounds the layers of encoding undone. Each layer is one
// linear pass over a text that shrinks; real values are encoded once or
// twice, and a text nested deeper than this is not decoded further.
const maxDecodeLayers = 4

// escapeStarts marks the bytes that may start an escape.
var escapeStarts = byteSet("%\\&")

// escapeStartBits is escapeStarts as bits that can be or-ed together.
var escapeStartBits = func() (t [256]uint8) {
	for c, ok := range escapeStarts {
		if ok {
			t[c] = 1
		}
	}
	return t
}()

// nextEscapeStart returns the index of the first byte of s[i:end] that
// may start an escape, or end. Random text holds one every 85 bytes or
// so: eight bytes are tested with one branch, not eight.
func nextEscapeStart(s string, i, end int) int {
	for ; i+8 <= end; i += 8 {
		b := s[i : i+8]
		if escapeStartBits[b[0]]|escapeStartBits[b[1]]|escapeStartBits[b[2]]|escapeStartBits[b[3]]|
			escapeStartBits[b[4]]|escapeStartBits[b[5]]|escapeStartBits[b[6]]|escapeStartBits[b[7]] != 0 {
			break
		}
	}
	for i < end && !escapeStarts[s[i]] {
		i++
	}
	return i
}

// decodeEscapes decodes, in one pass, the escapes that hide a token's
// characters or glue it to the previous word: percent-encodings, \xHH,
// \uHHHH (with surrogate pairs), the JSON and C escapes of whitespace and
// '/', and HTML character references (&#61; &#x67; &quot; &amp; ...).
// Escaped quotes and backslashes stay as they are, so quoted values keep
// their bounds. It reports false when s has no such escape.
func decodeEscapes(s string) (string, bool) {
	// No escape decodes to more bytes than it is written with.
	b, ok := appendDecoded(nil, s, len(s))
	if !ok {
		return s, false
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), true
}

// appendDecoded appends s with its escapes decoded to dst, growing dst by
// room bytes at the first escape, or reports false, leaving dst as it
// was, when s has none.
func appendDecoded(dst []byte, s string, room int) ([]byte, bool) {
	first := 0
	for first < len(s) && !escapeStarts[s[first]] {
		first++
	}
	if first == len(s) {
		return dst, false
	}
	decoded, start := false, 0
	for i := first; i < len(s); {
		if !escapeStarts[s[i]] {
			i++
			continue
		}
		r, n := decodeAt(s, i)
		if n == 0 {
			i++
			continue
		}
		if !decoded {
			dst = slices.Grow(dst, room)
			decoded = true
		}
		dst = append(dst, s[start:i]...)
		if r >= rawByte {
			dst = append(dst, byte(r-rawByte))
		} else {
			dst = utf8.AppendRune(dst, r)
		}
		i += n
		start = i
	}
	if !decoded {
		return dst, false
	}
	return append(dst, s[start:]...), true
}

// rawByte marks a decoded value that is one byte, not a rune: %HH and \xHH
// spell bytes, and a multi-byte UTF-8 sequence spelled that way must come
// out as those bytes.
const rawByte = utf8.MaxRune + 1

// percentAt decodes the percent escape at s[i], as decodeAt does.
func percentAt(s string, i int) (rune, int) {
	if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
		return 0, 0
	}
	// A byte above ASCII spells UTF-8 only next to the escapes of the
	// rest of its sequence: alone it is a name between percent signs
	// ("%FEED_PASSWORD%"), which hides nothing.
	v := hexValue(s[i+1])<<4 | hexValue(s[i+2])
	if v >= utf8.RuneSelf && (i+3 >= len(s) || s[i+3] != '%') && (i < 3 || s[i-3] != '%') {
		return 0, 0
	}
	return byteRune(v), 3
}

// decodeAt decodes the escape at s[i], returning its value (see byteRune)
// and length, or a length of 0 when s[i] starts none.
func decodeAt(s string, i int) (rune, int) {
	if s[i] == '&' {
		return entityAt(s, i)
	}
	if s[i] == '%' {
		return percentAt(s, i)
	}
	if i+1 >= len(s) {
		return 0, 0
	}
	switch s[i+1] {
	case '\\':
		// A JSON string inside a JSON string inside JSON, as logs of logs
		// write it, escapes its quotes twice ("{\\\"password\\\":...}", or
		// "{\\"password\\":...}" when the middle layer lost one): each
		// layer sheds one backslash of a run that ends at a quote, down
		// to the once-escaped quote the rules read.
		if escapedQuoteRun(s, i+2) {
			return '\\', 2
		}
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'f':
		return '\f', 2
	case 'b':
		return '\b', 2
	case '/':
		return '/', 2
	case '0':
		return 0, 2
	case 'x':
		if i+3 < len(s) && isHex(s[i+2]) && isHex(s[i+3]) {
			return byteRune(hexValue(s[i+2])<<4 | hexValue(s[i+3])), 4
		}
	case 'u':
		r, ok := hex4(s, i+2)
		if !ok {
			return 0, 0
		}
		if utf16.IsSurrogate(r) {
			if i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
				if lo, ok := hex4(s, i+8); ok {
					if p := utf16.DecodeRune(r, lo); p != utf8.RuneError {
						return p, 12
					}
				}
			}
			return utf8.RuneError, 6
		}
		return r, 6
	}
	return 0, 0
}

// escapedQuoteRun reports whether the backslashes from s[i] on, at most
// maxEscapeRun, end at a quote.
func escapedQuoteRun(s string, i int) bool {
	j := i
	for j < len(s) && j-i < maxEscapeRun && s[j] == '\\' {
		j++
	}
	return j < len(s) && s[j] == '"'
}

// maxEscapeRun bounds the backslashes read before a quote: four layers of
// escaping write seven.
const maxEscapeRun = 8

// htmlEntities are the named character references that spell the bytes
// the rules hinge on: quotes, separators and brackets.
var htmlEntities = map[string]rune{
	"quot": '"', "apos": '\'', "amp": '&', "lt": '<', "gt": '>', "equals": '=', "colon": ':', "sol": '/',
}

// entityAt decodes an HTML character reference at s[i]: "&#61;", "&#x3D;"
// or one of htmlEntities, each ended by ';'.
func entityAt(s string, i int) (rune, int) {
	j := i + 1
	if j < len(s) && s[j] == '#' {
		j++
		digit := isDigit
		if j < len(s) && (s[j] == 'x' || s[j] == 'X') {
			j++
			digit = isHex
		}
		k := j
		for k < len(s) && k-j < 7 && digit(s[k]) {
			k++
		}
		if k == j || k >= len(s) || s[k] != ';' {
			return 0, 0
		}
		var r rune
		for _, c := range []byte(s[j:k]) {
			if s[j-1] == '#' {
				r = r*10 + rune(c-'0')
			} else {
				r = r<<4 | rune(hexValue(c))
			}
		}
		if r == 0 || r > utf8.MaxRune || utf16.IsSurrogate(r) {
			return 0, 0
		}
		return r, k + 1 - i
	}
	k := j
	for k < len(s) && k-j < 6 && isLetter(s[k]) {
		k++
	}
	if k < len(s) && s[k] == ';' {
		if r, ok := htmlEntities[s[j:k]]; ok {
			return r, k + 1 - i
		}
	}
	return 0, 0
}

// byteRune carries a decoded byte: ASCII as itself, other bytes offset so
// the writer emits the byte rather than its rune.
func byteRune(c byte) rune {
	if c < utf8.RuneSelf {
		return rune(c)
	}
	return rawByte + rune(c)
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		if !isHex(c) {
			return 0, false
		}
		r = r<<4 | rune(hexValue(c))
	}
	return r, true
}

func hexValue(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
