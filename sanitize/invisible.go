package sanitize

// IsInvisible reports whether r is a format character that renders as
// nothing yet changes what a reader sees or what a program compares: the
// bidirectional marks, embeddings, overrides and isolates ("Trojan Source"
// reordering), the zero-width spaces and joiners, the word joiner and the
// invisible operators, the byte order mark, the soft hyphen, the Mongolian
// vowel separator, the interlinear annotation controls and the Unicode tag
// characters (which can smuggle a hidden ASCII message past a human reader
// to an AI agent). It is the kit's one definition: the log tier escapes
// these runes and the problem renderer replaces them.
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
