package sanitize

// Key-value connection strings, whose values may hold spaces: libpq's
// "host=db password=hunter 2 user=app", ADO.NET's "Password=My Pass;".

// dsnValueEnd extends a bare value that a space cut short inside a
// key-value connection string: "host=db password=hunter 2 user=app" is
// ambiguous, but in a run of key=value pairs a word without '=' belongs to
// the value before it. The value is extended over at most two such words,
// and only when a key=value pair stands both before its key and after the
// words, so prose after a value ("token=x for user=bob") keeps its words.
// The reads stay within maxDSNGap bytes of the value.
func dsnValueEnd(s string, ks, vs, ve int) int {
	if ve >= len(s) || s[ve] != ' ' || vs >= len(s) || s[vs] == '"' || s[vs] == '\'' || s[vs] == '\\' || ks < 2 {
		return ve
	}
	if s[ks-1] == ';' {
		return semicolonValueEnd(s, ve)
	}
	if s[ks-1] != ' ' || !pairBefore(s, ks-1) {
		return ve
	}
	// p is at the space before the next word.
	for p, words := ve, 0; words <= 2; words++ {
		w := p + 1
		e, key := w, true
		// A word with a colon names a key of its own ("Cookie:",
		// "Authorization:"): taking it into the value would hide its value
		// from the rule that redacts it.
		for e < len(s) && e-ve < maxDSNGap && !isSpace(s[e]) && s[e] != '=' && s[e] != ':' && !endsValueWord[s[e]] {
			key = key && isKeyNameByte(s[e])
			e++
		}
		spend(e - w)
		switch {
		case e == w || e >= len(s) || e-ve >= maxDSNGap:
			return ve
		case s[e] == '=' && key:
			if words == 0 {
				return ve
			}
			return p
		case s[e] != ' ' || words == 2:
			return ve
		}
		p = e
	}
	return ve
}

// endsValueWord ends a word of a key-value connection string.
var endsValueWord = byteSet("\"'&;,<>)}")

const maxDSNGap = 48

// semicolonValueEnd extends a bare value cut short by a space in an
// ADO.NET or ODBC connection string ("User ID=sa;Password=My Pass;..."),
// where pairs are split by ';' and a value may hold spaces: it runs to the
// next ';' or the end of the line, when that comes within maxDSNGap bytes
// and before any '=', quote or word ending in a colon.
func semicolonValueEnd(s string, ve int) int {
	p := ve
	defer func() { spend(p - ve) }()
	for ; p < len(s) && p-ve < maxDSNGap; p++ {
		switch c := s[p]; {
		case c == ';' || c == '\r' || c == '\n' || c == '\\' && lineBreakAt(s, p) > 0:
			return p
		case c == '=' || c == '"' || c == '\'':
			return ve
		case c == ':' && (p+1 == len(s) || isSpace(s[p+1])):
			// "Cookie: ..." names a key of its own.
			return ve
		}
	}
	if p == len(s) {
		return p
	}
	return ve
}

// pairBefore reports whether the word that ends at s[end] (exclusive) is
// a key=value pair.
func pairBefore(s string, end int) bool {
	// The word's first '=' separates its key: "pass=0=" is a pair whose
	// value ends in '=', as "pass=[redacted]" is once the value is gone,
	// so that the value after it is read alike before and after.
	eq := -1
	for i := end - 1; i >= 0 && end-i < maxDSNGap; i-- {
		if c := s[i]; c == '=' {
			eq = i
		} else if endsPairWord[c] {
			break
		}
	}
	return eq > 0 && isKeyNameByte(s[eq-1]) && eq+1 < end
}

// endsPairWord holds the bytes pairBefore stops at: the '=' of a pair,
// and the spaces and quotes before a word that holds none.
var endsPairWord = byteSet("= \t\n\r\f\v\"'")
