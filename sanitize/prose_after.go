package sanitize

// Names after their value: the context rule reads back from a value for
// the word that names it, but some texts name a credential only after
// it. Python's and JavaScript's libraries write the value first
// ("'<value>' is not a valid API key", "<value> is an invalid key"), and
// an error body may put its comparison member before the member that
// says what was compared ({"expected":"<value>","error":"signature
// mismatch"}, <Expected>...</Expected><Code>SignatureDoesNotMatch</Code>).
// Each reads forward no further than contextReach past the value.

// maxNameAfter bounds the words between the linking word after a value
// and the name that follows it ("is not a valid API key", "does not
// appear to be a valid API key").
const maxNameAfter = 8

// namedElsewhere reports the rule of a name that stands elsewhere than
// right before the value at s[p] whose run of value bytes ends at
// s[runEnd]: after it (nameAfter), before the user of a "user /
// password" pair (slashUserAt), or SQL's "IDENTIFIED BY" (identifiedByAt).
// A byte or two around the value turns most values away from each before
// a call: the "/" or the "y" of "by" just before it, the first two
// letters of the word after it.
func namedElsewhere(s string, p, runEnd int) *contextRule {
	if p > 3 {
		c2, c3 := s[p-2]|0x20, s[p-3]|0x20
		if c2 == 'y' || c3 == 'y' {
			if r := identifiedByAt(s, p); r != nil {
				return r
			}
		}
		if c2 == '/' || c3 == '/' {
			if u := slashUserAt(s, p); u >= 0 {
				if r := credentialBefore(s, u); r != nil {
					return r
				}
			}
		}
	}
	e := runEnd
	if e < len(s) && isQuote[s[e]] {
		e++
	}
	if e+3 >= len(s) || s[e] != ' ' || !linkingFirst[s[e+1]] || !linkingSecond[s[e+2]] {
		return nil
	}
	return nameAfter(s, p, runEnd)
}

// linkingFirst and linkingSecond hold the first and the second letters
// of the words linkingAfter takes, isQuote the quotes that may close a
// value before them.
var (
	linkingFirst  = byteSet("iwadls")
	linkingSecond = byteSet("saroep")
	isQuote       = byteSet("\"'`")
)

// nameAfter reports the rule of a credential word that names the run of
// value bytes s[v:runEnd] after it: the value, its closing quote, a
// linking word ("is", "isn't", "was", "does", "looks") and up to
// maxNameAfter words on the same line, the last of which is the name.
// The rule must allow a bare space before a value: a word that names a
// credential only as a key ("login") names none here.
func nameAfter(s string, v, runEnd int) *contextRule {
	e := runEnd
	if v > 0 && e < len(s) && (s[v-1] == '"' || s[v-1] == '\'' || s[v-1] == '`') && s[e] == s[v-1] {
		e++
	}
	if e+3 >= len(s) || s[e] != ' ' || !linkingAfter(s, e+1) {
		return nil
	}
	p := e + 1
	for p < len(s) && isLetter(s[p]) || p < len(s) && s[p] == '\'' {
		p++
	}
	lo := p
	for range maxNameAfter {
		// A colon or a comma may end a word ("was rejected: not a
		// valid signature").
		if p+1 < len(s) && (s[p] == ':' || s[p] == ',') {
			p++
		}
		if p >= len(s) || s[p] != ' ' || p-lo > contextReach {
			return nil
		}
		b := p + 1
		p = b
		for p < len(s) && p-b < maxKeyWord && isKeyNameByte(s[p]) {
			p++
		}
		spend(p - b + 1)
		if p == b {
			return nil
		}
		if r := contextWordAt(s, b, p, 'i', true); r != nil && r.spaced {
			return r
		}
	}
	return nil
}

// linkingAfter reports whether a word that links a value to what it is
// starts at s[i]: "is", "isn't", "was", "wasn't", "are", "does",
// "doesn't", "looks", "seems", "appears".
func linkingAfter(s string, i int) bool {
	e := i
	for e < len(s) && e-i <= len("doesn't") && (isLetter(s[e]) || s[e] == '\'') {
		e++
	}
	if e == i || e-i > len("doesn't") || e < len(s) && s[e] != ' ' {
		return false
	}
	switch w := s[i:e]; w {
	case "is", "isn't", "was", "wasn't", "are", "does", "doesn't", "looks", "seems", "appears":
		return true
	}
	return false
}

// namedAfter reports the rule of the first credential name that ends
// after s[e], the end of a value, read forward to the byte stop or
// contextReach bytes: a word's end or a part of a name in camel case
// ("SignatureDoesNotMatch"). The name is read in s[e:], so that none
// starts inside the value. An escape the log tier writes counts as the
// one byte it stands for, so that the tier reads as far in its output
// ("\\u000b", "\\n") as in the text it escaped.
func namedAfter(s string, e int, stop byte) *contextRule {
	t := s[e:reachAfter(s, e, contextReach)]
	spend(len(t))
	for i := 1; i < len(t) && t[i-1] != stop; i++ {
		if isLetter(t[i-1]) && (!isLetter(t[i]) || 'a' <= t[i-1] && 'A' <= t[i] && t[i] <= 'Z') {
			if r := phraseNameAt(t, i, 0); r != nil {
				return r
			}
		}
	}
	return nil
}

// reachAfter returns where n bytes after s[e] end, an escape of the log
// tier's counted as one byte.
func reachAfter(s string, e, n int) int {
	i := e
	for ; n > 0 && i < len(s); n-- {
		if s[i] == '\\' {
			i += logEscapeLen(s, i+1)
		}
		i++
	}
	spend(i - e)
	return min(i, len(s))
}
