package sanitize

// Markup around a credential's name: Markdown writes a name in bold or
// italics ("**API key**: ...", "__Password:__ ..."), which the context
// rule steps over as it steps over quotes.

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
