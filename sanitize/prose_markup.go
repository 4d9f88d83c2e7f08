package sanitize

import "strings"

// Markup around a credential's name: Markdown writes a name in bold or
// italics ("**API key**: ...", "__Password:__ ..."), which the context
// rule steps over as it steps over quotes; and the escapes the log tier
// writes before a name, which the next pass reads; and XML's start tags,
// whose name or name attribute names the element's text.

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

// pastLogEscape returns where the text goes on after an escape the log
// tier writes whose backslash is s[p-1] (see logEscapeLen), or p when
// no such escape starts there: a word glued to the escape starts after
// it, as it does after the byte the escape stands for.
func pastLogEscape(s string, p int) int {
	if p > 0 && s[p-1] == '\\' {
		return p + logEscapeLen(s, p)
	}
	return p
}

// escapedBlankAt reports whether s[i] is the backslash of an escape the
// log tier writes for a byte that ends a word (endsWord): "\\t", "\\n",
// "\\r", "\\u000b", "\\u000c". A word read in the tier's output ends
// there as it ended at the byte in the text.
func escapedBlankAt(s string, i int) bool {
	if s[i] != '\\' || i+1 >= len(s) {
		return false
	}
	switch logEscapeLen(s, i+1) {
	case 1:
		return true
	case 5:
		return s[i+2:i+5] == "000" && (s[i+5] == 'b' || s[i+5] == 'c')
	}
	return false
}

// escapedBlankBefore reports whether an escape of escapedBlankAt ends at
// s[i-1], for the rules that read a word backwards.
func escapedBlankBefore(s string, i int) bool {
	b := logEscapeBefore(s, i)
	return b >= 0 && escapedBlankAt(s, b)
}

// afterLogEscape reports whether the name at s[kb] follows an escape the
// log tier writes (see logEscapeLen).
func afterLogEscape(s string, kb int) bool { return logEscapeBefore(s, kb) >= 0 }

// logEscapeBefore returns the index of the backslash of an escape the log
// tier writes that ends at s[i-1], or -1.
func logEscapeBefore(s string, i int) int {
	for _, n := range [...]int{1, 5} {
		if i > n && s[i-n-1] == '\\' && logEscapeLen(s, i-n) == n {
			return i - n - 1
		}
	}
	return -1
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

// elementBefore reports the rule of an XML element with attributes whose
// start tag ends at s[gt] ('>'): `<key name="x">`, `<token id="1">`, or
// whose name attribute names one (`<param name="token" type="x">`). An
// element without attributes is the key-value rule's, and a plist's <key>
// names a setting.
func elementBefore(s string, gt int) *contextRule {
	lt := gt
	for lt > 0 && s[lt-1] != '<' && s[lt-1] != '>' {
		lt--
	}
	spend(gt - lt)
	if lt == 0 || s[lt-1] != '<' || s[gt-1] == '/' {
		return nil
	}
	ne := lt
	for ne < gt && isKeyNameByte(s[ne]) {
		ne++
	}
	// A namespace prefix (<wsse:Password Type="...">) qualifies the name.
	if ne > lt && ne+1 < gt && s[ne] == ':' && isKeyNameByte(s[ne+1]) {
		lt, ne = ne+1, ne+1
		for ne < gt && isKeyNameByte(s[ne]) {
			ne++
		}
	}
	if ne == lt || ne == gt || s[ne] != ' ' {
		return nil
	}
	if r := contextWordAt(s, lt, ne, ':', true); r != nil {
		return r
	}
	return namedByAttribute(s, ne, gt)
}

// namedByAttribute reports the rule of a credential word that the name
// or key attribute among the attributes s[i:gt] of a start tag holds:
// `<param name="token" type="x">`, `<entry key="secret" id="1">`.
func namedByAttribute(s string, i, gt int) *contextRule {
	for i < gt {
		eq := strings.IndexByte(s[i:gt], '=')
		if eq < 0 || i+eq+1 >= gt {
			return nil
		}
		a, q := i+eq, i+eq+1
		n := a
		for n > i && isKeyNameByte(s[n-1]) {
			n--
		}
		c := s[q]
		if c != '"' && c != '\'' {
			return nil
		}
		e := strings.IndexByte(s[q+1:gt], c)
		if e < 0 {
			return nil
		}
		if k := s[n:a]; strings.EqualFold(k, "name") || strings.EqualFold(k, "key") {
			return contextWordAt(s, q+1, q+1+e, ':', true)
		}
		i = q + 1 + e + 1
	}
	return nil
}

// maxInlineTag bounds the name of an inline tag stepped over.
const maxInlineTag = 8

// inlineTagsBefore steps back over up to three start or end tags without
// attributes that HTML puts between a name and its value, as Markdown's
// emphasis does: "API key: <code>...", "<b>...", a table's
// "<td>password</td><td>...", a definition list's "</dt><dd>". It
// returns p when there is none.
func inlineTagsBefore(s string, p, lo int) int {
	for range 3 {
		if p-3 < lo || s[p-1] != '>' {
			return p
		}
		t := p - 1
		for t > lo && p-1-t < maxInlineTag && (isLetter(s[t-1]) || isDigit(s[t-1])) {
			t--
		}
		if t == p-1 || !isLetter(s[t]) {
			return p
		}
		if t > lo && s[t-1] == '/' {
			t--
		}
		if t == lo || s[t-1] != '<' {
			return p
		}
		p = t - 1
		for p > lo && isSpace(s[p-1]) {
			p--
		}
	}
	return p
}
