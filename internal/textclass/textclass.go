// Package textclass holds the kit's definitions of the runes a text must
// not carry as they are: the ones sanitize's log tier writes as escapes
// and the problem renderer replaces, and the bytes an HTTP field name may
// hold. They are plumbing shared by those packages and the CLI, not API.
package textclass

import "strings"

// IsInvisible reports whether r is a format character that renders as
// nothing yet changes what a reader sees or what a program compares: the
// bidirectional marks, embeddings, overrides and isolates ("Trojan Source"
// reordering), the zero-width spaces and joiners, the word joiner and the
// invisible operators, the byte order mark, the soft hyphen, the Mongolian
// vowel separator, the interlinear annotation controls and the Unicode tag
// characters (which can smuggle a hidden ASCII message past a human reader
// to an AI agent). It is the kit's one definition: sanitize's log tier
// escapes these runes and the problem renderer replaces them.
func IsInvisible(r rune) bool {
	switch {
	case r < 0xad:
		return false
	case r == 0xad, // soft hyphen
		r == 0x061c,                  // Arabic letter mark
		r == 0x180e,                  // Mongolian vowel separator
		0x200b <= r && r <= 0x200f,   // zero-width space, non-joiner, joiner; LRM, RLM
		0x202a <= r && r <= 0x202e,   // embeddings and overrides
		0x2060 <= r && r <= 0x2064,   // word joiner, invisible operators
		0x2066 <= r && r <= 0x2069,   // isolates
		r == 0xfeff,                  // zero-width no-break space, byte order mark
		0xfff9 <= r && r <= 0xfffb,   // interlinear annotation
		0xe0000 <= r && r <= 0xe007f: // tags
		return true
	}
	return false
}

// IsEscaped reports whether sanitize's log tier writes r as a visible escape:
// C0 and C1 controls and DEL (a terminal reads U+009B as it reads ESC [),
// the line and paragraph separators, and the runes of IsInvisible. A
// renderer that puts text on one line of its own (a CLI message) folds the
// same runes.
func IsEscaped(r rune) bool {
	switch {
	case r < 0x20, 0x7f <= r && r <= 0x9f:
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	}
	return IsInvisible(r)
}

// IsFieldName reports whether s is an HTTP field name: an RFC 9110 token
// (§5.1, §5.6.2), visible ASCII but the delimiters. net/http drops a
// header whose name is none, so the kit refuses such a name where it is
// configured rather than send nothing under it.
func IsFieldName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return s != ""
}
