package sanitize

import (
	"encoding/base64"
	"strings"
)

// redactSecrets applies the rules shared by both tiers: credentials, tokens,
// cookies and connection-string passwords. Each rule is a hand-written
// scanner that returns s itself when it finds nothing.
func redactSecrets(s string, f flags) string {
	if f&fPEM != 0 {
		s = pemRule.redact(s)
	}
	if f&fURL != 0 {
		s = userinfoRule.redact(s)
	}
	if f&fDSN != 0 {
		s = redactDSNUserinfo(s)
	}
	if f&fToken != 0 {
		s = tokenRule.redact(s)
	}
	if f&fScheme != 0 {
		s = schemeRule.redact(s)
	}
	if f&fAssign != 0 {
		s = redactKeyValues(s)
	}
	return s
}

// A spanRule replaces the spans that at finds. at(s, i) returns the start
// and end of a span found at s[i] (start may lie after i, to keep a prefix
// such as "Bearer "), or an empty span. It is asked only where it can find
// something: where lead occurs, found with strings.Index, or else at the
// bytes in starts, so the other bytes cost no call.
type spanRule struct {
	lead   string
	starts [256]bool
	at     func(s string, i int) (int, int)
}

func leadRule(lead string, at func(s string, i int) (int, int)) *spanRule {
	return &spanRule{lead: lead, at: at}
}

// anchoredRule is asked at every byte some token trigger is anchored on.
func anchoredRule(at func(s string, i int) (int, int)) *spanRule {
	r := &spanRule{at: at}
	for c := range triggersByAnchor {
		r.starts[c] = triggersByAnchor[c] != nil
	}
	return r
}

func startsRule(starts string, at func(s string, i int) (int, int)) *spanRule {
	return &spanRule{starts: byteSet(starts), at: at}
}

var (
	pemRule      = leadRule("-----BEGIN", pemAt)
	userinfoRule = leadRule("://", userinfoAt)
	tokenRule    = anchoredRule(tokenAt)
	schemeRule   = startsRule("bBdD", schemeCredentialAt)
)

// next returns the first place at or after i where the rule may match, or
// len(s).
func (r *spanRule) next(s string, i int) int {
	if r.lead != "" {
		if k := strings.Index(s[i:], r.lead); k >= 0 {
			return i + k
		}
		return len(s)
	}
	for i < len(s) && !r.starts[s[i]] {
		i++
	}
	return i
}

func (r *spanRule) redact(s string) string {
	e := edit{s: s}
	for i := r.next(s, 0); i < len(s); i = r.next(s, i+1) {
		start, end := r.at(s, i)
		// A token found from its anchor may start before the end of the
		// last span: only the rest of it is new.
		start = max(start, e.last)
		if end <= start {
			continue
		}
		e.replace(start, end, Redacted)
		i = end - 1
	}
	return e.result()
}

// pemAt finds a PEM private key block. Without its END line (a truncated
// dump) the key runs to the end of the text.
func pemAt(s string, i int) (int, int) {
	if s[i] != '-' || !strings.HasPrefix(s[i:], "-----BEGIN") {
		return 0, 0
	}
	end := pemLabelEnd(s, i+len("-----BEGIN"))
	if end < 0 {
		return 0, 0
	}
	for p := end; ; {
		k := strings.Index(s[p:], "-----END")
		if k < 0 {
			return i, len(s)
		}
		p += k + len("-----END")
		if e := pemLabelEnd(s, p); e >= 0 {
			return i, e
		}
	}
}

// pemLabelEnd parses " RSA PRIVATE KEY-----" (any label ending in PRIVATE
// KEY, optionally BLOCK) at s[p] and returns the index after the dashes.
func pemLabelEnd(s string, p int) int {
	e := p
	for e < len(s) && (s[e] == ' ' || isDigit(s[e]) || 'A' <= s[e] && s[e] <= 'Z') {
		e++
	}
	label := strings.TrimSuffix(s[p:e], " BLOCK")
	if !strings.HasSuffix(label, "PRIVATE KEY") || !strings.HasPrefix(s[e:], "-----") {
		return -1
	}
	return e + len("-----")
}

// runAtLeast returns the end of the run of bytes accepted by ok starting at
// p, or 0 when it is shorter than n.
func runAtLeast(s string, p, n int, ok func(byte) bool) int {
	e := p
	for e < len(s) && ok(s[e]) {
		e++
	}
	if e-p < n {
		return 0
	}
	return e
}

// userinfoAt finds the userinfo of a URL. The authority runs to the first
// '/', '?', '#' or space, and the userinfo to its last '@', so a malformed
// DSN with '@' inside the password is still covered.
func userinfoAt(s string, i int) (int, int) {
	if !strings.HasPrefix(s[i:], "://") {
		return 0, 0
	}
	start := i + 3
	at := -1
	for e := start; e < len(s) && !endsAuthority[s[e]]; e++ {
		if s[e] == '@' {
			at = e
		}
	}
	if at <= start {
		return 0, 0
	}
	return start, at
}

var endsAuthority = byteSet(" \t\n\r\f\v/?#")

// redactDSNUserinfo replaces the user and password of a MySQL DSN
// ("user:pw@tcp(host)/db").
func redactDSNUserinfo(s string) string {
	e := edit{s: s}
	for i := 0; i < len(s); i++ {
		if s[i] != '@' || dsnProtocol(s[i+1:]) == 0 {
			continue
		}
		start := i
		for start > e.last && !isSpace(s[start-1]) && strings.IndexByte("\"'(", s[start-1]) < 0 {
			start--
		}
		if start == i {
			continue
		}
		e.replace(start, i, Redacted)
	}
	return e.result()
}

// dsnProtocol reports the length of a MySQL DSN protocol and its opening
// parenthesis at the start of s ("tcp(" in "user:pw@tcp(db:3306)/app").
func dsnProtocol(s string) int {
	if s == "" || s[0] != 't' && s[0] != 'u' {
		return 0
	}
	for _, p := range []string{"tcp(", "tcp6(", "udp(", "unix("} {
		if strings.HasPrefix(s, p) {
			return len(p)
		}
	}
	return 0
}

// schemeCredentialAt handles HTTP authorization schemes outside a header
// line. The words also occur in prose ("basic validation failed"), so a
// Bearer or Basic credential is redacted only when it looks like one;
// Digest credentials are parameter lists and are redacted to the end of the
// line.
func schemeCredentialAt(s string, i int) (int, int) {
	if i > 0 && isWordByte(s[i-1]) {
		return 0, 0
	}
	var scheme string
	for _, w := range []string{"bearer", "basic", "digest"} {
		if hasPrefixFold(s[i:], w) {
			scheme = w
			break
		}
	}
	start := i + len(scheme)
	if scheme == "" || start >= len(s) || s[start] != ' ' && s[start] != '\t' {
		return 0, 0
	}
	for start < len(s) && (s[start] == ' ' || s[start] == '\t') {
		start++
	}
	if scheme == "digest" {
		if digestParamsAt(s, start) {
			return start, lineEnd(s, start)
		}
		return 0, 0
	}
	end := start
	for end < len(s) && isToken68(s[end]) {
		end++
	}
	if !looksLikeCredential(s[start:end], scheme == "basic") {
		return 0, 0
	}
	return start, end
}

func isToken68(c byte) bool {
	return isWordByte(c) || strings.IndexByte("-.~+/=:", c) >= 0
}

// looksLikeCredential separates opaque credentials from English words: real
// tokens carry digits, inner capitals or punctuation, and a Basic
// credential decodes to "user:password".
func looksLikeCredential(tok string, basic bool) bool {
	if basic {
		tok := strings.TrimRight(tok, ".:")
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
			if dec, err := enc.DecodeString(tok); err == nil && strings.IndexByte(string(dec), ':') >= 0 {
				return true
			}
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

func isAlnum(c byte) bool     { return isDigit(c) || isLetter(c) }
func isBase64URL(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }
func isWebhookByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '/' || c == '-'
}
