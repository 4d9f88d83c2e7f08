package sanitize

// Markup around a credential's name: Markdown writes a name in bold or
// italics ("**API key**: ...", "__Password:__ ..."), which the context
// rule steps over as it steps over quotes; and the escapes the log tier
// writes before a name, which the next pass reads.

// emphasisBefore steps back over the "*", "**", "_" or "__" that closes
// an emphasis after a separator ("API key:** <value>"), and returns p
// when there is none or no ':' or '=' precedes it.
func emphasisBefore(s string, p, lo int) int {
	b := p
	for b > lo && p-b < 2 && (s[b-1] == '*' || s[b-1] == '_') && s[b-1] == s[p-1] {
		b--
	}
	if b == p || b == lo || s[b-1] != ':' && s[b-1] != '=' {
		return p
	}
	return b
}

// logEscapeLen returns the length, without its backslash, of the escape
// of a control byte the log tier writes whose backslash is s[i-1]: "n",
// "t", "r" or "u" and four hexadecimal digits; or 0.
func logEscapeLen(s string, i int) int {
	switch {
	case i >= len(s):
		return 0
	case s[i] == 'n' || s[i] == 't' || s[i] == 'r':
		return 1
	case s[i] == 'u' && i+5 <= len(s) && isHex(s[i+1]) && isHex(s[i+2]) && isHex(s[i+3]) && isHex(s[i+4]):
		return 5
	}
	return 0
}

// afterLogEscape reports whether the name at s[kb] follows an escape the
// log tier writes (see logEscapeLen).
func afterLogEscape(s string, kb int) bool {
	for _, n := range [...]int{1, 5} {
		if kb > n && s[kb-n-1] == '\\' && logEscapeLen(s, kb-n) == n {
			return true
		}
	}
	return false
}

// escapedNameStart returns where the name that ends at s[q] starts when
// it follows an escape the log tier writes, and whether it does: from
// kb, where keyWordStart put it (past the escapes of one letter), and
// past the digits of "\\u0007".
func escapedNameStart(s string, kb, q int) (int, bool) {
	if kb > 0 && s[kb-1] == '\\' && logEscapeLen(s, kb) == 5 && kb+5 < q {
		kb += 5
	}
	return kb, afterLogEscape(s, kb)
}
