package sanitize

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/faultline-go/faultline/internal/textclass"
)

// escapeAtRef and appendEscapedRef are escapeAt and appendEscaped as they
// were before their printable runs were read by a table and copied eight
// bytes a store: a byte at a time, each run with append.
func escapeAtRef(s string) int {
	spend(len(s))
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if asciiEscapes[c] != "" {
				return i
			}
			i++
			continue
		}
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
	return -1
}

func appendEscapedRef(dst []byte, s string, i, limit int) []byte {
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
			// A run of printable ASCII is copied whole, up to the limit.
			e, end := i+1, min(len(s), i+limit+1-(len(dst)-base))
			for e < end && s[e] >= ' ' && s[e] < 0x7f {
				e++
			}
			dst = append(dst, s[i:e]...)
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

// escapeTexts mix printable runs of every length with controls, invalid
// bytes, U+FFFD, escaped runes and valid multi-byte runes.
func escapeTexts() []string {
	rng := rand.New(rand.NewPCG(27, 5555))
	parts := []string{"a", "ab", "abcdefg", "abcdefgh", "abcdefghi", "hello world, the request failed", "\n", "\x00", "\x1b", "\x7f",
		"\t", "\xff", "\xe2\x80", "\ufffd", "\u202e", "\u2028", "\U000e0041", "日本", "é", "\xed\xa0\x80", " "}
	var texts []string
	for n := 0; n < 3000; n++ {
		var b strings.Builder
		for b.Len() < rng.IntN(300) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		texts = append(texts, b.String())
	}
	for _, in := range hostile64K {
		texts = append(texts, in.s[:2<<10])
	}
	return append(texts, randomText(8<<10, false), randomText(8<<10, true))
}

// TestEscapeShortcuts compares escapeAt and appendEscaped with their
// byte-at-a-time forms, from every start and at limits that cut the text
// anywhere, into buffers with and without room to spare.
func TestEscapeShortcuts(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 55555))
	for _, s := range escapeTexts() {
		if got, want := escapeAt(s), escapeAtRef(s); got != want {
			t.Fatalf("escapeAt(%q) = %d, want %d", s, got, want)
		}
		for range 8 {
			i := rng.IntN(len(s) + 1)
			for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
				i--
			}
			limit := rng.IntN(len(s)*6 + 2)
			pre := []byte("prefix")
			dst := slices.Grow(pre[:len(pre):len(pre)], rng.IntN(64))
			got := appendEscaped(dst, s, i, limit)
			want := appendEscapedRef(slices.Clone(pre), s, i, limit)
			if string(got) != string(want) {
				t.Fatalf("appendEscaped(%q, %d, %d) = %q, want %q", s, i, limit, got, want)
			}
		}
	}
}

// escapeControls returns s as the log pass escapes it (escapeFrom), for
// tests that compare the tier's output with what escaping alone makes.
func escapeControls(s string, limit int) string {
	if i := escapeAt(s); i >= 0 {
		return escapeFrom(s, i, limit)
	}
	return s
}
