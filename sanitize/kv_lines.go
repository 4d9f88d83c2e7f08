package sanitize

import "strings"

// Values on the next line: YAML and pretty-printed JSON put a key's value
// after a line break, Kubernetes pairs a name with its value on the next
// line, YAML's block scalars start on the line after their indicator.

// namedValueBefore reports whether the member "value" starting at s[v],
// whose separator is s[q], holds the value of a secret named just before
// it: a name-value pair, as Kubernetes lists environment variables in YAML
// ("- name: DB_PASSWORD" then "value: ..." on the next line), .NET and
// Spring configure in XML (<add key="ApiToken" value="..."/>, <property
// name="password" value="..."/>) and logfmt writes (name=DB_PASSWORD
// value=...). Between the name and "value" stand at most a closing quote,
// spaces and one line break. The name is not read back to its start: like
// every key rule it is known by its ending, and the bytes read stay within
// the prefilter's reach of the separator.
func namedValueBefore(s string, v, q int) bool {
	if v > 0 && isKeyNameByte(s[v-1]) {
		return false // "default_value", "values"
	}
	lo := max(q-scanBehind, 0)
	p := v
	if p > lo && (s[p-1] == '"' || s[p-1] == '\'') {
		p--
	}
	if p > lo && s[p-1] == '\\' {
		p-- // an escaped quote
	}
	gap := p
	for p > lo && (s[p-1] == ' ' || s[p-1] == '\t') {
		p--
	}
	if n := lineBreakBefore(s, p, lo); n > 0 {
		p -= n
	} else if p == gap {
		return false // "DB_PASSWORDvalue"
	}
	for p > lo && (s[p-1] == ' ' || s[p-1] == '\t') {
		p--
	}
	if p > lo && s[p-1] == ',' && p < gap {
		// YAML's flow style: {name: API_TOKEN, value: ...}
		p--
	}
	if p > lo && (s[p-1] == '"' || s[p-1] == '\'') {
		p--
		if p > lo && s[p-1] == '\\' {
			p--
		}
	}
	if p <= lo || !isKeyNameByte(s[p-1]) {
		return false
	}
	w := p
	for w > lo && isKeyNameByte(s[w-1]) {
		w--
	}
	_, _, ok := secretKeyEnding(s[w:p])
	return ok
}

// lineBreakBefore returns the length of the line break that ends at s[p],
// real or escaped as JSON and the log tier write it ("\r\n", `\n`), reading
// no further back than lo, or 0.
func lineBreakBefore(s string, p, lo int) int {
	switch {
	case p > lo && s[p-1] == '\n':
		if p-1 > lo && s[p-2] == '\r' {
			return 2
		}
		return 1
	case p-1 > lo && s[p-2] == '\\' && (s[p-1] == 'n' || s[p-1] == 'r'):
		if p-3 > lo && s[p-4] == '\\' && s[p-3] == 'r' {
			return 4
		}
		return 2
	}
	return 0
}

// lineBreakAt returns the length of the line break at s[p], real or
// escaped as JSON and the log tier write it ("\r\n", `\n`), or 0.
func lineBreakAt(s string, p int) int {
	switch {
	case p >= len(s):
		return 0
	case s[p] == '\n':
		return 1
	case s[p] == '\r':
		if p+1 < len(s) && s[p+1] == '\n' {
			return 2
		}
		return 1
	case s[p] == '\\' && p+1 < len(s) && (s[p+1] == 'n' || s[p+1] == 'r'):
		if s[p+1] == 'r' && strings.HasPrefix(s[p+2:], `\n`) {
			return 4
		}
		return 2
	}
	return 0
}

// nextLineValue finds the value of a key whose line ends at its separator
// ("password:" then the value on the next line, as YAML indents it and
// pretty-printed JSON may break it). The next line counts as the value only
// when it holds exactly one value: a quoted string or a single bare word,
// which may be followed by a comma, spaces and the end of the line or of an
// enclosing string. A line of several words is prose about the key
// ("password reset failed:" / "user not found"), not its value, and stays.
// A header folded onto a line that starts with a space or a tab (obsolete
// in HTTP/1.1 but still parsed) continues the header: its whole line goes.
// p is the start of the next line; the reads stop at its end.
func nextLineValue(s string, p int, line bool) (int, int, bool) {
	from := p
	for p < len(s) {
		if s[p] == ' ' || s[p] == '\t' {
			p++
		} else if s[p] == '\\' && p+1 < len(s) && s[p+1] == 't' {
			p += 2
		} else {
			break
		}
	}
	spend(p - from)
	if p >= len(s) || lineBreakAt(s, p) > 0 {
		return 0, 0, false
	}
	if line && p > from {
		return p, foldedLineEnd(s, p), true
	}
	if valueIsKey(s, p) {
		return 0, 0, false
	}
	e := valueEnd(s, p, false)
	if e <= p || emptyPair(s[p:e]) || holdsKey(s, p, e) {
		return 0, 0, false
	}
	r := e
	if r < len(s) && s[r] == ',' {
		r++
	}
	for r < len(s) && (s[r] == ' ' || s[r] == '\t') {
		r++
	}
	spend(r - e)
	if r < len(s) && lineBreakAt(s, r) == 0 && !closesValue[s[r]] {
		return 0, 0, false
	}
	return p, e, true
}

// holdsKey reports whether the word s[p:e] holds a secret key's separator
// ("0Authorization:x"): the word is then a pair of its own, whose value
// its key's rule takes, and not the value of the line before. Were it
// taken, redacting its value first ("0Authorization:[redacted]") would
// change what the line before is found to hold.
func holdsKey(s string, p, e int) bool {
	for i := p; i < e; i++ {
		if c := s[i]; c == ':' || c == '=' {
			if _, _, ok := keyBefore(s, i); ok {
				return true
			}
		}
	}
	return false
}

// emptyPair reports whether w is a key with an empty value ("DB_PASSWORD=",
// "url:"), as in a list of unset variables: the key of the next line, not
// the value of the last. Base64 padding also ends in '=', but base64 has no
// '_', '.' or '-' before it, and a name of secret or configuration keys
// usually has.
func emptyPair(w string) bool {
	last := w[len(w)-1]
	if len(w) < 2 || last != '=' && last != ':' {
		return false
	}
	w = w[:len(w)-1]
	named := false
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !isKeyNameByte(c) {
			return false
		}
		named = named || c == '_' || c == '.' || c == '-'
	}
	return named || last == ':'
}

// closesValue holds the bytes that may end a line's only value besides a
// line break: the end of an enclosing string, object, list or element.
var closesValue = byteSet("\"'}])<")

// blockIndicator returns the length of the YAML indicator of a block
// scalar at s[p] ("|", ">-", "|+"), whose value starts on the next line,
// or 0.
func blockIndicator(s string, p int) int {
	if s[p] != '|' && s[p] != '>' {
		return 0
	}
	if p+1 < len(s) && (s[p+1] == '-' || s[p+1] == '+') {
		return 2
	}
	return 1
}

// blockScalarLine returns the bounds of the first line of a YAML block
// scalar whose indicator ends at s[p]: the indented line after the break.
// A block scalar holds any text, so the whole line goes; its later lines
// are not read (a multi-line secret there is a private key, which its own
// rule finds).
func blockScalarLine(s string, p int) (int, int, bool) {
	from := p
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	spend(p - from)
	n := lineBreakAt(s, p)
	if n == 0 {
		return 0, 0, false
	}
	v := p + n
	for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
		v++
	}
	if s[v-1] != ' ' && s[v-1] != '\t' || v >= len(s) || lineBreakAt(s, v) > 0 {
		return 0, 0, false
	}
	return v, lineEnd(s, v), true
}
