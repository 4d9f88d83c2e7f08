package sanitize

import (
	"encoding/base64"
	"regexp"
	"strings"
)

// Values of key=value style secrets. Quoted forms keep their quotes so the
// surrounding JSON or query stays readable. A backslash ends an unquoted
// value only when it starts one of the escapes the log tier writes (\n, \r,
// \t, \u; a line value ignores \t): in the log tier a line break has become
// the two bytes `\n`, and a value must not run into the next logical line.
const (
	quotedValue   = `\\"(?:[^"\\]|\\[^"])*\\"|"(?:[^"\\\r\n]|\\.)*"?|'[^'\r\n]*'?`
	unquotedWord  = `(?:[^\s&,;"'<>)}\\]|\\[^nrtu\s])+`
	unquotedLine  = `(?:[^\r\n\\]|\\[^nru])+`
	keyValueSep   = `(\\?["']?[ \t]*(?::=|[:=])[ \t]*)`
	assignPattern = `((?i:password|passwd|passphrase|pass|pwd|secret|token|` +
		`(?:api|access|secret|private|signing|encryption|master|client)[_-]?key|apikey|` +
		`credentials?|session[_-]?id|signature))` + keyValueSep + `(` + quotedValue + `|` + unquotedWord + `)`
	headerPattern = `((?i:(?:proxy-)?authorization|cookie))` + keyValueSep + `(` + quotedValue + `|` + unquotedLine + `)`
)

var (
	pemRE = regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`)
	// Token formats with a distinctive prefix; one regular expression so a
	// text with several of them is still scanned once.
	tokenRE = regexp.MustCompile(`(?:AKIA|ASIA)[A-Z0-9]{16,}` +
		`|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}` +
		`|eyJ[A-Za-z0-9_-]{2,}\.eyJ[A-Za-z0-9_-]{2,}(?:\.[A-Za-z0-9_-]+)?` +
		`|xox[abeoprs]-[A-Za-z0-9-]{8,}` +
		`|(?:https?://)?hooks\.slack\.com/[A-Za-z0-9_/-]+`)
	// Greedy userinfo backtracks to the last '@' of the authority, so a
	// malformed DSN with '@' inside the password is still covered.
	userinfoRE = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)([^\s/?#]+)@`)
	dsnRE      = regexp.MustCompile(`([^\s"'(]+)@((?:tcp6?|udp|unix)\()`)
	schemeRE   = regexp.MustCompile(`(?i)\b(bearer|basic|digest)[ \t]+`)
	assignRE   = regexp.MustCompile(assignPattern)
	headerRE   = regexp.MustCompile(headerPattern)
)

// redactSecrets applies the rules shared by both tiers: credentials, tokens,
// cookies and connection-string passwords.
func redactSecrets(s string, f flags) string {
	if f&fPEM != 0 {
		s = replaceMatches(s, pemRE, redactWhole)
	}
	if f&fHeader != 0 {
		s = redactKeyValues(s, headerRE)
	}
	if f&fURL != 0 {
		s = replaceMatches(s, userinfoRE, redactURLUserinfo)
	}
	if f&fDSN != 0 {
		s = replaceMatches(s, dsnRE, redactDSNUserinfo)
	}
	if f&fToken != 0 {
		s = replaceMatches(s, tokenRE, redactWhole)
	}
	if f&fScheme != 0 {
		s = redactSchemes(s)
	}
	if f&fAssign != 0 {
		s = redactKeyValues(s, assignRE)
	}
	return s
}

// replaceMatches rewrites every match of re through fn, and returns s itself
// when there is no match so that the caller can detect "no change" cheaply.
func replaceMatches(s string, re *regexp.Regexp, fn func(b []byte, s string, m []int) []byte) string {
	ms := re.FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s
	}
	b := make([]byte, 0, len(s)+len(ms)*len(Redacted))
	last := 0
	for _, m := range ms {
		b = append(b, s[last:m[0]]...)
		b = fn(b, s, m)
		last = m[1]
	}
	return string(append(b, s[last:]...))
}

func redactWhole(b []byte, _ string, _ []int) []byte { return append(b, Redacted...) }

// redactURLUserinfo keeps the scheme (group 1) so the reader still sees
// which kind of connection failed.
func redactURLUserinfo(b []byte, s string, m []int) []byte {
	b = append(b, s[m[2]:m[3]]...)
	b = append(b, Redacted...)
	return append(b, '@')
}

// redactDSNUserinfo keeps the MySQL DSN protocol (group 2).
func redactDSNUserinfo(b []byte, s string, m []int) []byte {
	b = append(b, Redacted...)
	b = append(b, '@')
	return append(b, s[m[4]:m[5]]...)
}

// redactKeyValues redacts the values of re's key-value matches. Its
// separator may be followed by spaces ("password: x"), so a match can take
// the next key for its value ("password= client_secret: x"); such a match
// is skipped and the search resumes at that key, so the later secret is not
// hidden behind the earlier one.
func redactKeyValues(s string, re *regexp.Regexp) string {
	var b []byte
	last := 0
	for i := 0; i < len(s); {
		m := re.FindStringSubmatchIndex(s[i:])
		if m == nil {
			break
		}
		for k := range m {
			m[k] += i
		}
		if valueIsKey(s, m[6], m[7]) {
			i = m[6]
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(s)+len(Redacted))
		}
		b = append(b, s[last:m[0]]...)
		b = redactKeyValue(b, s, m)
		last, i = m[1], m[1]
	}
	if b == nil {
		return s
	}
	return string(append(b, s[last:]...))
}

// valueIsKey reports whether the value s[vs:ve] begins with another
// key-value pair: a key possibly prefixed by more of its name ("client_"),
// quotes or an escape. Digits and spaces in front rule it out, so a value
// like "hunter2 token=x" is still redacted as a whole.
func valueIsKey(s string, vs, ve int) bool {
	for _, re := range []*regexp.Regexp{assignRE, headerRE} {
		m := re.FindStringIndex(s[vs:])
		if m == nil || m[0] >= ve-vs {
			continue
		}
		prefix := s[vs : vs+m[0]]
		if strings.TrimLeft(prefix, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_.-\"'\\") == "" {
			return true
		}
	}
	return false
}

// redactKeyValue keeps the key and separator (groups 1 and 2) and the quotes
// of the value (group 3).
func redactKeyValue(b []byte, s string, m []int) []byte {
	b = append(b, s[m[2]:m[5]]...)
	v := s[m[6]:m[7]]
	switch {
	case strings.HasPrefix(v, `\"`):
		b = append(b, `\"`...)
		b = append(b, Redacted...)
		if len(v) >= 4 && strings.HasSuffix(v, `\"`) {
			b = append(b, `\"`...)
		}
	case v[0] == '"' || v[0] == '\'':
		b = append(b, v[0])
		b = append(b, Redacted...)
		if len(v) >= 2 && v[len(v)-1] == v[0] {
			b = append(b, v[0])
		}
	default:
		b = append(b, Redacted...)
	}
	return b
}

// redactSchemes handles HTTP authorization schemes outside a header line.
// The words also occur in prose ("basic validation failed"), so a Bearer or
// Basic credential is redacted only when it looks like one; Digest
// credentials are parameter lists and are redacted to the end of the line.
func redactSchemes(s string) string {
	ms := schemeRE.FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s
	}
	var b []byte
	last := 0
	for _, m := range ms {
		if m[0] < last {
			continue
		}
		start := m[1]
		end := start
		if hasPrefixFold(s[m[2]:], "digest") {
			if digestParamsAt(s, start) {
				end = lineEnd(s, start)
			}
		} else {
			for end < len(s) && isToken68(s[end]) {
				end++
			}
			if !looksLikeCredential(s[start:end], hasPrefixFold(s[m[2]:], "basic")) {
				end = start
			}
		}
		if end == start {
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(s))
		}
		b = append(b, s[last:start]...)
		b = append(b, Redacted...)
		last = end
	}
	if b == nil {
		return s
	}
	return string(append(b, s[last:]...))
}

func isToken68(c byte) bool {
	return isWordByte(c) || strings.IndexByte("-.~+/=:", c) >= 0
}

// looksLikeCredential separates opaque credentials from English words: real
// tokens carry digits, inner capitals or punctuation.
func looksLikeCredential(tok string, basic bool) bool {
	if basic {
		tok := strings.TrimRight(tok, ".:")
		if dec, err := base64.StdEncoding.DecodeString(tok); err == nil && strings.IndexByte(string(dec), ':') >= 0 {
			return true
		}
		if dec, err := base64.RawStdEncoding.DecodeString(tok); err == nil && strings.IndexByte(string(dec), ':') >= 0 {
			return true
		}
	}
	if len(tok) < 8 {
		return false
	}
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if isDigit(c) || i > 0 && 'A' <= c && c <= 'Z' || strings.IndexByte("-._~+/=:", c) >= 0 {
			return true
		}
	}
	return false
}

func digestParamsAt(s string, i int) bool {
	j := i
	for j < len(s) && isWordByte(s[j]) {
		j++
	}
	return j > i && j < len(s) && s[j] == '='
}

// lineEnd finds the end of the logical line starting at i: a real line
// break, or the escaped one the log tier writes.
func lineEnd(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\r', '\n':
			return i
		case '\\':
			if i+1 < len(s) && strings.IndexByte("nru", s[i+1]) >= 0 {
				return i
			}
		}
	}
	return i
}

// dsnProtocol reports the length of a MySQL DSN protocol and its opening
// parenthesis at the start of s ("tcp(" in "user:pw@tcp(db:3306)/app").
func dsnProtocol(s string) int {
	for _, p := range []string{"tcp(", "tcp6(", "udp(", "unix("} {
		if strings.HasPrefix(s, p) {
			return len(p)
		}
	}
	return 0
}
