package sanitize

import "strings"

// Key-value secrets are found from their separator backwards: ':' and '='
// are rare in prose, so clean text costs one byte comparison per byte, and
// a key matches by its ending, so "db_password" and "X-Api-Key" need no
// list of their own.

var (
	secretKeys = []string{"password", "passwd", "passphrase", "pass", "pwd", "secret", "token",
		"apikey", "credential", "credentials", "session_id", "session-id", "sessionid", "signature"}
	keyQualifiers = []string{"api", "access", "secret", "private", "signing", "encryption", "master", "client"}
	// Header keys take the rest of the line as their value.
	lineKeys = []string{"authorization", "cookie"}
)

type keyword struct {
	word string
	line bool
}

// keysByLast groups the key names by their last byte, in either case, so
// that a separator after an ordinary word ("order:") costs one lookup
// instead of a comparison with every name. No name is a suffix of another,
// so the grouping cannot change which one matches.
var keysByLast = func() (t [256][]keyword) {
	add := func(w string, line bool) {
		c := w[len(w)-1]
		t[c] = append(t[c], keyword{w, line})
		t[c-'a'+'A'] = append(t[c-'a'+'A'], keyword{w, line})
	}
	for _, w := range lineKeys {
		add(w, true)
	}
	for _, w := range secretKeys {
		add(w, false)
	}
	return t
}()

// mayEndKey holds the bytes that can stand just before the separator of a
// secret key: most separators follow an ordinary word ("order: ...") and
// are rejected by one lookup.
var mayEndKey = func() (t [256]bool) {
	for c := range 256 {
		t[c] = len(keysByLast[c]) > 0
	}
	for _, c := range []byte(" \t\"'\\yY") {
		t[c] = true
	}
	return t
}()

// keyBefore reports whether the separator at s[q] (':' or '=') follows a
// secret key, allowing the quotes and spaces of JSON and YAML in between.
// It returns where the key's keyword starts and whether the value runs to
// the end of the line.
func keyBefore(s string, q int) (start int, line, ok bool) {
	if q == 0 || !mayEndKey[s[q-1]] {
		return 0, false, false
	}
	j := q
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		j--
	}
	if j > 0 && s[j-1] == '\\' {
		j--
	}
	if j == 0 {
		return 0, false, false
	}
	k := s[:j]
	for _, w := range keysByLast[k[j-1]] {
		if hasSuffixFold(k, w.word) {
			return j - len(w.word), w.line, true
		}
	}
	if k[j-1]|0x20 == 'y' && hasSuffixFold(k, "key") {
		r := k[:len(k)-3]
		if strings.HasSuffix(r, "_") || strings.HasSuffix(r, "-") {
			r = r[:len(r)-1]
		}
		for _, w := range keyQualifiers {
			if hasSuffixFold(r, w) {
				return len(r) - len(w), false, true
			}
		}
	}
	return 0, false, false
}

// valueAt returns the bounds of the value after the separator at s[q], or
// an empty span when there is none.
func valueAt(s string, q int, line bool) (int, int) {
	p := q + 1
	if s[q] == ':' && p < len(s) && s[p] == '=' {
		p++
	}
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	return p, valueEnd(s, p, line)
}

// valueEnd parses one value starting at s[p]: an escaped JSON string, a
// JSON string, a single-quoted string (the last two possibly unterminated),
// else a bare word, or for header keys the rest of the line.
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
	case '"':
		e := p + 1
		for e < len(s) {
			c := s[e]
			if c == '"' {
				return e + 1
			}
			if c == '\r' || c == '\n' {
				return e
			}
			if c == '\\' && e+1 < len(s) && s[e+1] != '\n' {
				e += 2
				continue
			}
			e++
		}
		return min(e, len(s))
	case '\'':
		e := p + 1
		for e < len(s) && s[e] != '\'' && s[e] != '\r' && s[e] != '\n' {
			e++
		}
		if e < len(s) && s[e] == '\'' {
			e++
		}
		return e
	}
	if line {
		return lineEnd(s, p)
	}
	e := p
	for e < len(s) {
		c := s[e]
		if c == '\\' {
			if e+1 < len(s) && !isSpace(s[e+1]) && strings.IndexByte("nrtu", s[e+1]) < 0 {
				e += 2
				continue
			}
			break
		}
		if endsBareValue[c] {
			break
		}
		e++
	}
	return e
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

// redactKeyValues replaces the values of secret keys. A separator may be
// followed by spaces ("password: x"), so a value can be the next key
// ("password= client_secret: x"); that pair is skipped so that the later
// secret is not hidden behind the earlier key.
func redactKeyValues(s string) string {
	e := edit{s: s}
	// The next ':' and '=' are found with IndexByte, which skips prose
	// faster than a loop over its bytes.
	colon, eq := indexFrom(s, 0, ':'), indexFrom(s, 0, '=')
	for q := min(colon, eq); q < len(s); q = min(colon, eq) {
		if colon == q {
			colon = indexFrom(s, q+1, ':')
		} else {
			eq = indexFrom(s, q+1, '=')
		}
		ks, line, ok := keyBefore(s, q)
		if !ok || ks < e.last {
			continue
		}
		vs, ve := valueAt(s, q, line)
		if ve <= vs || valueIsKey(s, vs, ve) {
			continue
		}
		cs, ce := valueCore(s, vs, ve)
		e.replace(cs, ce, Redacted)
		e.last = ve
		if colon < ve {
			colon = indexFrom(s, ve, ':')
		}
		if eq < ve {
			eq = indexFrom(s, ve, '=')
		}
	}
	return e.result()
}

// indexFrom returns the index of the first c in s at or after i, or len(s).
func indexFrom(s string, i int, c byte) int {
	if k := strings.IndexByte(s[i:], c); k >= 0 {
		return i + k
	}
	return len(s)
}

// valueIsKey reports whether the value s[vs:ve] begins with another secret
// key: only letters, '_', '.', '-', quotes or a backslash may precede that
// key's keyword, so a value like "hunter2 token=x" is redacted whole.
func valueIsKey(s string, vs, ve int) bool {
	p := vs
	for p < ve && mayLeadKey[s[p]] {
		p++
	}
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	if p >= len(s) || s[p] != ':' && s[p] != '=' {
		return false
	}
	ks, line, ok := keyBefore(s, p)
	if !ok || ks < vs {
		return false
	}
	nvs, nve := valueAt(s, p, line)
	return nve > nvs
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
	mayLeadKey    = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_.-\"'\\")
)

func byteSet(chars string) (t [256]bool) {
	for i := 0; i < len(chars); i++ {
		t[chars[i]] = true
	}
	return t
}

func hasSuffixFold(s, lower string) bool {
	return len(s) >= len(lower) && hasPrefixFold(s[len(s)-len(lower):], lower)
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
