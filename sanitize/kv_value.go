package sanitize

import "strings"

// The value of a secret key: where it starts after its separator, and
// where it ends, by its syntax (a quoted string, an escaped JSON string, a
// bare word, a structure, an element's text, a header's line).

// valueAt returns the bounds of the value after the separator at s[q], or
// an empty span when there is none.
func valueAt(s string, q int, line bool) (int, int) {
	if s[q] == '"' || s[q] == '\'' {
		// A quoted value after a keyword in prose: the separator is its
		// opening quote, escaped inside a JSON string.
		p := q
		if s[q] == '"' && q > 0 && s[q-1] == '\\' {
			p--
		}
		return p, valueEnd(s, p, false)
	}
	p := valueStart(s, q)
	switch {
	case s[q] == '>' && p < len(s) && s[p] != '"' && s[p] != '\'' && s[p] != '<':
		return p, elementTextEnd(s, p)
	case s[q] == '>' && strings.HasPrefix(s[p:], cdataOpen):
		return p + len(cdataOpen), cdataEnd(s, p+len(cdataOpen))
	case s[q] == ',':
		if p >= len(s) || s[p] != '"' && s[p] != '\'' {
			return p, p
		}
		p = pairValueStart(s, p)
	case !line && s[q] == ':' && p < len(s) && s[p] == '!':
		p = afterYAMLTag(s, p)
	}
	if !line && p < len(s) && (s[p] == '{' || s[p] == '[' || s[p] == '(') {
		return p, structureEnd(s, p)
	}
	e := valueEnd(s, p, line)
	if !line {
		e = pairPasswordEnd(s, p, e)
	}
	return p, e
}

// pairPasswordEnd extends the value s[p:e] that is the user of a
// user:password pair with quoted parts (token=kevin:'...',
// "user":"{...}") to the end of its password: the quote after the colon
// would otherwise end the value, and leave the password.
func pairPasswordEnd(s string, p, e int) int {
	c := e
	if e > p && s[e-1] != ':' {
		if e >= len(s) || s[e] != ':' || s[p] != '"' && s[p] != '\'' {
			return e
		}
		c = e + 1
	}
	if c == p || c >= len(s) || s[c] != '"' && s[c] != '\'' {
		return e
	}
	return valueEnd(s, c, false)
}

// elementTextEnd returns the end of an element's text starting at s[p],
// which is its value, spaces and all (<password>my secret
// phrase</password>): the tag that closes it or the end of the line.
func elementTextEnd(s string, p int) int {
	e := p
	for e < len(s) && s[e] != '<' && s[e] != '\n' && s[e] != '\r' {
		e++
	}
	spend(e - p)
	for e > p && (s[e-1] == ' ' || s[e-1] == '\t') {
		e--
	}
	return e
}

// pairValueStart reads a name-value pair ({"name":"DB_PASSWORD","value":
// "..."}, as Kubernetes and ECS list environment variables) whose quoted
// member name starts at s[p], after the comma: that token names the member
// whose value is the secret, and is no secret itself. It returns where the
// value starts, or p when no member follows.
func pairValueStart(s string, p int) int {
	e := valueEnd(s, p, false)
	c := e
	for c < len(s) && (s[c] == ' ' || s[c] == '\t') {
		c++
	}
	if e > p+1 && s[e-1] == s[p] && c < len(s) && s[c] == ':' {
		spend(c - e)
		return valueStart(s, c)
	}
	return p
}

// afterYAMLTag steps over a YAML tag before a value (password: !!str
// ...), which is not the value. A tag is a short word: the read stops at
// maxTagLen, so a text of "key:!" pairs without a space costs no more than
// its length. After the tag stands the value, unless it is the key of a
// pair of its own ("token: ! Cookie: sid=..."), which its rule takes; then
// the tag is returned as the value.
func afterYAMLTag(s string, p int) int {
	t := p + 1
	for t < len(s) && t-p < maxTagLen && isTagByte(s[t]) {
		t++
	}
	tagEnd := t
	for t < len(s) && t-tagEnd < 2 && (s[t] == ' ' || s[t] == '\t') {
		t++
	}
	spend(t - p)
	if t > tagEnd && t < len(s) && !isSpace(s[t]) && !valueIsKey(s, t) {
		return t
	}
	return p
}

// structureAfter reports a list or an object as the value after the
// separator at s[q], reading no more than three bytes past it.
func structureAfter(s string, q int) bool {
	p := q + 1
	for n := 0; n < 2 && p < len(s) && s[p] == ' '; n++ {
		p++
	}
	return p < len(s) && (s[p] == '[' || s[p] == '{')
}

// maxTagLen bounds a YAML tag ("!!str", "!secret", "!<tag:yaml.org,2002:str>"
// is longer and is left as it is).
const maxTagLen = 24

func isTagByte(c byte) bool {
	return isWordByte(c) || c == '!' || c == '/' || c == ':' || c == '.' || c == '-'
}

// maxStructure bounds how far structureEnd reads for the closing bracket.
const maxStructure = 256

// structureEnd returns the end of the object, array or tuple that opens at
// s[p] ({"value": "..."}, [..., ...], YAML's {value: ...}, Python's
// ('user', '...')): a secret key's value that is a structure is redacted
// whole, since the secret is somewhere inside it. Quoted strings are
// skipped, escapes respected. A structure that does not close within
// maxStructure bytes ends at the first line break after its opening, or
// at the bound.
func structureEnd(s string, p int) int {
	limit := min(len(s), p+maxStructure)
	depth, e := 0, p
	defer func() { spend(e - p) }()
	for e < limit {
		switch s[e] {
		case '\\':
			e += 2
			continue
		case '"', '\'':
			quote := s[e]
			e++
			for e < limit && s[e] != quote {
				if s[e] == '\\' {
					e++
				}
				e++
			}
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			depth--
			if depth == 0 {
				e++
				return e
			}
		}
		e++
	}
	e = min(e, limit)
	if n := strings.IndexAny(s[p:e], "\r\n"); n >= 0 {
		return p + n
	}
	return e
}

// valueStart skips the rest of the separator ("=>", ":=", "::=") and the
// spaces after it; after an XML tag, the value may start on the next line.
func valueStart(s string, q int) int {
	p := q + 1
	for n := 0; n < 3 && p < len(s) && (s[p] == ':' || s[p] == '=' || s[p] == '>'); n++ {
		p++
	}
	if s[q] == '>' {
		for p < len(s) && isSpace(s[p]) {
			p++
		}
		spend(p - q)
		return p
	}
	// Markdown's bold or italic name closes its emphasis after the
	// separator ("**Client Secret:** `...`"): the value follows it.
	if p < len(s) && (s[p] == '*' || s[p] == '_') {
		p = emphasisEnd(s, p)
	}
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	spend(p - q)
	return p
}

// emphasisEnd returns the end of the "*", "**", "_" or "__" that closes
// an emphasis at s[p] before a space, or p.
func emphasisEnd(s string, p int) int {
	e := p
	for e < len(s) && e-p < 2 && (s[e] == '*' || s[e] == '_') && s[e] == s[p] {
		e++
	}
	if e == p || e >= len(s) || s[e] != ' ' && s[e] != '\t' {
		return p
	}
	return e
}

// valueEnd parses one value starting at s[p]: an escaped JSON string, a
// JSON string, a single-quoted string (the last two possibly unterminated),
// else a bare word, or for header keys the rest of the line. A backslash
// escapes the next byte inside either quote, so "it\'s" is one value.
func valueEnd(s string, p int, line bool) int {
	if p >= len(s) {
		return p
	}
	switch s[p] {
	case '\\':
		if p+1 < len(s) && s[p+1] == '"' {
			if e := escapedStringEnd(s, p+2); e > 0 {
				return e
			}
		}
	case '"', '\'':
		return quotedValueEnd(s, p)
	}
	if line {
		return foldedLineEnd(s, p)
	}
	e := p
	var pair bracketPair
	for e < len(s) {
		c := s[e]
		// One lookup a byte: the backslash, which may escape the next
		// byte into the value, and the brackets are looked at only once a
		// byte stops.
		if !endsBareOrEscape[c] {
			e++
			continue
		}
		if c == '\\' && e+1 < len(s) && !isSpace(s[e+1]) && strings.IndexByte("nrtu", s[e+1]) < 0 {
			pair.inner = pair.inner || s[e+1] == '['
			e += 2
			continue
		}
		if c == '[' {
			pair.inner = true
			e++
			continue
		}
		if c == ']' && !pair.closes(s, p, e) {
			e++
			continue
		}
		break
	}
	spend(e - p)
	return e
}

// A bracketPair follows the brackets of a bare value that starts at s[p],
// so that each ']' is decided in a few operations: inner records a '['
// inside the value, before whether a '[' opened before its key (0 until
// asked, then 1 or -1), which is the same for every ']' of the value.
type bracketPair struct {
	inner  bool
	before int8
}

// closes reports whether the ']' at s[e] closes a bracket opened before
// the key of the pair whose bare value starts at s[p] ("[token=abc]",
// "[a=b token=abc]"): a '[' stands at most maxTagLead bytes before the
// key with no ']' or line break between, and the ']' ends the value's
// word. A ']' inside a value ("pass]word", "[x=a]b]", "[x=a[0]]") is the
// value's.
func (b *bracketPair) closes(s string, p, e int) bool {
	if b.inner || e+1 < len(s) && !endsBareValue[s[e+1]] && s[e+1] != ']' && s[e+1] != '[' {
		return false
	}
	if b.before == 0 {
		b.before = -1
		if openedBefore(s, p, '[', ']') >= 0 {
			b.before = 1
		}
	}
	return b.before == 1
}

// quotedValueEnd finds the end of the string that the quote at s[p]
// opens: after its closing quote, or at the end of the line or the text.
func quotedValueEnd(s string, p int) int {
	quote := s[p]
	e, end := p+1, -1
	for e < len(s) {
		c := s[e]
		if c == quote {
			end = e + 1
			break
		}
		if c == '\r' || c == '\n' {
			end = e
			break
		}
		if c == '\\' && e+1 < len(s) && s[e+1] != '\n' {
			e += 2
			continue
		}
		e++
	}
	spend(e - p)
	if end >= 0 {
		return end
	}
	return min(e, len(s))
}

// escapedStringEnd finds the closing \" of a string inside a JSON string.
func escapedStringEnd(s string, e int) int {
	for e < len(s) {
		switch s[e] {
		case '"':
			return 0
		case '\\':
			if e+1 < len(s) && s[e+1] == '"' {
				return e + 2
			}
			e += 2
			continue
		}
		e++
	}
	return 0
}

// valueCore returns the part of the value s[vs:ve] that is replaced: its
// quotes stay so that the surrounding JSON or query stays readable.
func valueCore(s string, vs, ve int) (int, int) {
	v := s[vs:ve]
	switch {
	case strings.HasPrefix(v, `\"`):
		if len(v) >= 4 && strings.HasSuffix(v, `\"`) {
			return vs + 2, ve - 2
		}
		return vs + 2, ve
	case v[0] == '"' || v[0] == '\'':
		if len(v) >= 2 && v[len(v)-1] == v[0] {
			return vs + 1, ve - 1
		}
		return vs + 1, ve
	}
	return vs, ve
}

var (
	endsBareValue = byteSet(" \t\n\r\f\v&,;\"'<>)}")
	// endsBareOrEscape is endsBareValue, the backslash and the brackets.
	endsBareOrEscape = byteSet(" \t\n\r\f\v&,;\"'<>)}\\[]")
	mayLeadKey       = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_.-\"'\\")
)

// placeholderAt reports whether the value s[vs:ve] stands for a secret
// kept elsewhere, and is none itself: a reference to a variable
// ("${DB_PASSWORD}", "%NUGET_PW%", "$PGPASS", a "{{ .Values.token }}"
// template) or a mask of one byte repeated ("XXXXXXXX", "********"). A
// bare "${NAME" ends before its brace, which is read after it.
func placeholderAt(s string, vs, ve int) bool {
	v := s[vs:ve]
	if len(v) < 3 {
		return false
	}
	if ve < len(s) && s[ve] == '}' && strings.HasPrefix(v, "${") {
		if ve+1 < len(s) && !endsBareValue[s[ve+1]] {
			return false
		}
		v = s[vs : ve+1]
	}
	switch {
	case strings.HasPrefix(v, "${{") && strings.HasSuffix(v, "}}"):
		return true
	case strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}"):
		return allReferenceBytes(v[2 : len(v)-1])
	case v[0] == '%' && v[len(v)-1] == '%':
		return allReferenceBytes(v[1 : len(v)-1])
	case v[0] == '$' && 'A' <= v[1] && v[1] <= 'Z':
		// strings.ToUpper(v) == v without the copy ToUpper makes of a
		// name with a small letter: allReferenceBytes admits ASCII only.
		return !hasASCIILower(v) && allReferenceBytes(v[1:])
	case strings.HasPrefix(v, "{{") && strings.HasSuffix(v, "}}"):
		return true
	case strings.HasPrefix(v, "var.") || strings.HasPrefix(v, "local."):
		// Terraform's reference to a variable or a local value
		// ("administrator_login_password = var.db_password").
		return allReferenceBytes(v[strings.IndexByte(v, '.')+1:])
	}
	// A mask repeats its first byte: most values differ at the second.
	return len(v) >= 4 && v[1] == v[0] && strings.Count(v, v[:1]) == len(v)
}

// hasASCIILower reports whether s holds a byte from 'a' to 'z'.
func hasASCIILower(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'a' <= s[i] && s[i] <= 'z' {
			return true
		}
	}
	return false
}

// allReferenceBytes reports whether a variable's name is all name bytes.
func allReferenceBytes(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isWordByte(c) && c != '.' && c != '-' && c != ':' {
			return false
		}
	}
	return true
}

// slashPairEnd extends the value s[p:e] over the word after " / ", each
// bare or quoted: a user and a password written so after a key
// ("credentials: svc / <password>", "creds = 'svc' / '<password>'") are
// one value. A value that
// is a validation word or a placeholder announces no pair.
func slashPairEnd(s string, p, e int) int {
	if e+3 >= len(s) || s[e+1] != '/' {
		return e
	}
	return slashPasswordEnd(s, p, e)
}

func slashPasswordEnd(s string, p, e int) int {
	if e <= p || s[e] != ' ' || s[e+2] != ' ' {
		return e
	}
	if cs, ce := valueCore(s, p, e); ce <= cs || isValidationWord(s[cs:ce]) || placeholderAt(s, cs, ce) {
		return e
	}
	if n := valueEnd(s, e+3, false); n > e+3 {
		return n
	}
	return e
}
