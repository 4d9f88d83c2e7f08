package sanitize

import (
	"strings"
)

// redactSecrets applies the rules shared by both tiers: credentials, tokens,
// cookies and connection-string passwords. Each rule is a hand-written
// scanner that returns s itself when it finds nothing.
func redactSecrets(s string, f flags, r *passRun) string {
	if f&fPEM != 0 {
		s = r.note(s, pemRule.redact(s))
	}
	if f&fURL != 0 {
		// Not closed in general: a redaction can join what a quote had
		// split into two words, so a second look may find a longer
		// userinfo. The rule tells when its redaction cannot have.
		t, settled := redactUserinfo(s)
		if settled {
			s = r.note(s, t)
		} else {
			s = r.noteOpen(s, t)
		}
	}
	if f&fDSN != 0 {
		s = r.note(s, redactDSNUserinfo(s))
	}
	if f&fToken != 0 {
		s = r.note(s, redactTokens(s))
	}
	if f&fScheme != 0 {
		s = r.note(s, schemeRule.redact(s))
	}
	if f&fUserOption != 0 {
		s = r.note(s, userOptionRule.redact(s))
		s = r.note(s, redactPasswordFlags(s))
		s = r.note(s, redactStdinSecrets(s))
	}
	if f&fAssign != 0 {
		// Not closed in general: a spaced value ("password=hunter 2
		// user=app") is extended over the words before the next pair, and a
		// redaction can make such a pair of what follows it. The rule tells
		// when its redactions cannot have done so.
		t, settled := redactPairs(s, r.first)
		if settled {
			s = r.note(s, t)
		} else {
			s = r.noteOpen(s, t)
		}
	}
	if f&fSQLSecret != 0 {
		// After the key-value rule, which reads PASSWORD '...' too: a
		// literal it cut short at a doubled quote is taken whole here.
		s = r.note(s, redactStatementPasswords(s))
		s = r.note(s, redactInsertedSecrets(s))
	}
	if f&fBase64Pair != 0 {
		s = r.note(s, redactBase64Pairs(s))
	}
	if f&fContext != 0 {
		s = r.note(s, redactContextValues(s))
	}
	if f&fCard != 0 {
		s = r.note(s, redactCards(s))
	}
	return s
}

// A passRun follows the rules of one pass, so that the pass can prove it
// reached a fixed point and settle can skip the pass that would confirm it.
// The proof: if the first rule the pass ran is the only one that changed
// the text, the rule returns its own output unchanged (every rule is
// closed so: TestRulesClosed, FuzzPublic, FuzzLog), and the result holds
// no trigger its input lacked (rescan finds no new flag), then a second
// pass runs the same rules on the result: the first leaves it as it is,
// and every later rule already ran on exactly that text and found
// nothing. A rule that ran before the change saw other text, so it spoils
// the proof; so does a second change.
type passRun struct {
	ran, changed, open bool
	// first is the scan's reading of the first key-value pair, if any.
	first *kvFirst
}

// note records that a rule turned before into after, and returns after.
func (r *passRun) note(before, after string) string {
	if after != before {
		r.open = r.open || r.ran || r.changed
		r.changed = true
	}
	r.ran = true
	return after
}

// noteOpen records a rule that may change its own output ("::::" loses
// one address at a time to the IP rule): a change it makes spoils the
// proof.
func (r *passRun) noteOpen(before, after string) string {
	if after != before {
		r.open = true
	}
	return r.note(before, after)
}

// closed reports whether the pass proved its result a fixed point.
func (r *passRun) closed() bool { return r.changed && !r.open }

// A spanRule replaces the spans that at finds. at(s, i) returns the start
// and end of a span found at s[i] (start may lie after i, to keep a prefix
// such as "Bearer "), or an empty span. It is asked only where it can find
// something: where lead occurs, found with strings.Index, or else at the
// bytes in starts where they start a word (at finds nothing inside one),
// so the other bytes cost no call.
type spanRule struct {
	lead   string
	starts [256]bool
	// folded holds, for starts that are two letters in both cases, each
	// lower-case letter in every byte of a word, so that next passes
	// over eight bytes that hold neither in a few operations.
	folded [2]uint64
	fold   bool
	at     func(s string, i int) (int, int)
}

func leadRule(lead string, at func(s string, i int) (int, int)) *spanRule {
	return &spanRule{lead: lead, at: at}
}

func startsRule(starts string, at func(s string, i int) (int, int)) *spanRule {
	r := &spanRule{starts: byteSet(starts), at: at}
	n := 0
	for c := byte('a'); c <= 'z'; c++ {
		if r.starts[c] && r.starts[c-'a'+'A'] && n < len(r.folded) {
			r.folded[n] = uint64(c) * 0x0101010101010101
			n++
		}
	}
	r.fold = n == len(r.folded) && len(starts) == 2*n
	return r
}

var (
	pemRule    = leadRule("-----BEGIN", pemAt)
	schemeRule = startsRule("bBdD", schemeCredentialAt)
	// curl -u user:password, --user user:password; a lead of one byte is
	// found by IndexByte.
	userOptionRule = leadRule("-", userOptionPasswordAt)
)

// next returns the first place at or after i where the rule may match, or
// len(s).
func (r *spanRule) next(s string, i int) int {
	if r.lead != "" {
		if k := strings.Index(s[i:], r.lead); k >= 0 {
			spend(k + 1)
			return i + k
		}
		spend(len(s) - i)
		return len(s)
	}
	from := i
	for {
		if r.fold {
			// A byte with 0x20 set equals a lower-case letter exactly when
			// it was that letter in either case.
			for ; i+8 <= len(s); i += 8 {
				x := load64(s, i) | foldBytes
				if hasZeroByte(x^r.folded[0])|hasZeroByte(x^r.folded[1]) != 0 {
					break
				}
			}
		}
		for i < len(s) && !r.starts[s[i]] {
			i++
		}
		if i == len(s) || i == 0 || !isWordByte(s[i-1]) {
			break
		}
		i++
	}
	spend(i - from)
	return i
}

// hasZeroByte is nonzero exactly when a byte of x is zero.
func hasZeroByte(x uint64) uint64 {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	return (x - ones) &^ x & high
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
			spend(len(s) - p)
			return i, len(s)
		}
		spend(k)
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

// userOptionAt returns the length of a "-u " or "--user" option (with its
// space or '=') that starts a word at s[i], or 0.
func userOptionAt(s string, i int) int {
	if i > 0 && !isSpace(s[i-1]) {
		return 0
	}
	for _, opt := range []string{"-u ", "--user ", "--user=", "--proxy-user ", "--proxy-user="} {
		if strings.HasPrefix(s[i:], opt) {
			return len(opt)
		}
	}
	// curl takes a short option's value glued to it too ("-uadmin:pw");
	// userPartEnd then wants the colon, so mysql's "-uroot" keeps its user.
	if strings.HasPrefix(s[i:], "-u") && i+2 < len(s) && !endsWord[s[i+2]] && s[i+2] != '-' {
		return 2
	}
	return 0
}

// optionSecrets end the names of command-line options whose next word is
// a secret ("--password x", "--client-secret x", "--api-key x").
var optionSecrets = []string{"password", "passwd", "pwd", "token", "secret", "apikey", "api-key", "api_key", "access-key", "secret-key"}

// secretOptionAt returns the length of a "--<name> " option that starts a
// word at s[i] and names a secret, or 0. Names are read up to
// maxOptionName bytes, within the prefilter's reach.
func secretOptionAt(s string, i int) int {
	if i > 0 && !isSpace(s[i-1]) || !strings.HasPrefix(s[i:], "--") {
		return 0
	}
	e := i + 2
	for e < len(s) && e-i < 2+maxOptionName && (isAlnum(s[e]) || s[e] == '-' || s[e] == '_') {
		e++
	}
	if e >= len(s) || s[e] != ' ' {
		return 0
	}
	for _, w := range optionSecrets {
		if hasSuffixFold(s[i+2:e], w) {
			return e + 1 - i
		}
	}
	return 0
}

const maxOptionName = 20

// secretOptionValueAt finds the value of a secret option at s[p]: a quoted
// string (its quotes stay) or a word that looks like a credential, so
// prose about the option ("use --password to set it") and usage text
// ("--token <value>") keep their words.
func secretOptionValueAt(s string, p int) (int, int) {
	if p >= len(s) {
		return 0, 0
	}
	if q := s[p]; q == '"' || q == '\'' {
		k := strings.IndexByte(s[p+1:min(len(s), p+1+maxQuotedPassword)], q)
		if k <= 0 {
			return 0, 0
		}
		spend(k)
		if keyOfItsOwn(s, p+2+k) {
			return 0, 0
		}
		return p + 1, p + 1 + k
	}
	e := p
	for e < len(s) && !isSpace(s[e]) && s[e] != '"' && s[e] != '\'' {
		e++
	}
	spend(e - p)
	if e == p || !looksLikeCredential(s[p:e], false) || keyOfItsOwn(s, e-1) {
		return 0, 0
	}
	return p, e
}

// keyOfItsOwn reports whether s[q] is the separator of a key the
// key-value rule knows, which ends the word an option took for its value
// ("--passwd client_secret: ...", `--token "api_key": "..."`): that rule
// takes the key's value, which redacting the key would hide from it.
func keyOfItsOwn(s string, q int) bool {
	if q >= len(s) || s[q] != ':' && s[q] != '=' {
		return false
	}
	_, _, ok := keyBefore(s, q)
	return ok
}

// userOptionPasswordAt finds the password of curl's "-u user:password":
// the user stays, what follows its first ':' up to the next space goes.
func userOptionPasswordAt(s string, i int) (int, int) {
	if n := secretOptionAt(s, i); n > 0 {
		return secretOptionValueAt(s, i+n)
	}
	if vs, ve := keystorePasswordAt(s, i); ve > vs {
		return vs, ve
	}
	n := userOptionAt(s, i)
	if n == 0 {
		return 0, 0
	}
	p := i + n
	for p < len(s) && s[p] == ' ' {
		p++
	}
	v := userPartEnd(s, p)
	if v < 0 {
		return 0, 0
	}
	v++
	if c := s[p]; (c == '\'' || c == '"') && v <= p+quotedLen(s, p) {
		// A pair quoted whole ('api:pa ss!') ends at its closing quote.
		// "<user:password>" names the pair a reader writes there.
		if e := p + 1 + quotedLen(s, p); e > v && !placeholderAt(s, v, e) && !(s[p+1] == '<' && s[e-1] == '>') &&
			!examplePair(s[p+1:v-1], s[v:e]) {
			return v, e
		}
		return 0, 0
	}
	// A quoted password ("kevin:'pa ss'") ends at its closing quote, which
	// stays.
	if v < len(s) && (s[v] == '\'' || s[v] == '"') {
		if q := quotedLen(s, v); q > 0 && !placeholderAt(s, v+1, v+1+q) {
			return v + 1, v + 1 + q
		}
		return 0, 0
	}
	end := v
	for end < len(s) && !endsWord[s[end]] {
		end++
	}
	spend(end - v)
	if v >= end || placeholderAt(s, v, end) || examplePair(s[p:v-1], s[v:end]) {
		return 0, 0
	}
	return v, end
}

// examplePair reports a user:password pair that holds no password: a
// shell expansion the shell replaces with one at run time ("$2",
// "$(cat pw.txt)", "${PW}"), or an example's ("test:test", "xxx:yyy",
// "username:password").
func examplePair(user, pw string) bool {
	switch {
	case pw == "":
		return false
	case pw[0] == '$' || strings.EqualFold(user, pw) || strings.Count(pw, pw[:1]) == len(pw):
		return true
	}
	for _, w := range [...]string{"password", "passwd", "pass", "pwd", "secret"} {
		if strings.EqualFold(pw, w) {
			return true
		}
	}
	return false
}

const maxQuotedPassword = 256

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
	for end < len(s) && s[end] == '=' {
		end++
	}
	spend(end - start)
	// A token68 credential ends with its padding; "bearer expires_in=3600"
	// is a parameter list, not a token.
	if end < len(s) && isWordByte(s[end]) {
		return 0, 0
	}
	if !looksLikeCredential(s[start:end], scheme == "basic") || startsKeyValue(s, start, end) {
		return 0, 0
	}
	return start, end
}

// startsKeyValue reports a word after a scheme word that is the key of a
// secret of its own ("Bearer Authorization: token ...", "Basic
// client_secret: ..."): the key-value rule redacts its value, and taking
// the key as the scheme's credential would hide it from that rule. A key
// and '=' count too: "Bearer password=<value>" is no token (the value's
// word byte after '=' says so), and once the key-value rule has redacted
// the value, "Bearer password=[redacted]" must not read as one either.
func startsKeyValue(s string, start, end int) bool {
	if end-start < 2 || s[end-1] != ':' && s[end-1] != '=' {
		return false
	}
	_, _, ok := keyBefore(s, end-1)
	return ok
}

func isToken68(c byte) bool { return token68Bytes[c] }

var token68Bytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isWordByte(byte(c)) || strings.IndexByte("-.~+/:", byte(c)) >= 0
	}
	return t
}()

// looksLikeCredential separates opaque credentials from English words: real
// tokens carry digits, inner capitals or punctuation, and a Basic
// credential decodes to "user:password".
func looksLikeCredential(tok string, basic bool) bool {
	if basic {
		tok := strings.TrimRight(tok, ".:")
		for _, padded := range []bool{true, false} {
			if colon, ok := base64Colon(tok, padded); ok && colon >= 0 {
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

// foldedLineEnd finds the end of a header value that starts at i: its
// line and the lines folded onto it, which start with a space or a tab.
func foldedLineEnd(s string, i int) int {
	e := lineEnd(s, i)
	for {
		n := lineBreakAt(s, e)
		if n == 0 || e+n >= len(s) {
			return e
		}
		if c := s[e+n]; c != ' ' && c != '\t' && (c != '\\' || !strings.HasPrefix(s[e+n:], `\t`)) {
			return e
		}
		e = lineEnd(s, e+n+1)
	}
}

// lineEnd finds the end of the logical line starting at i: a real line
// break, or the escaped one the log tier writes.
func lineEnd(s string, i int) int {
	from := i
	for ; i < len(s); i++ {
		if c := s[i]; c == '\r' || c == '\n' || c == '\\' && i+1 < len(s) && strings.IndexByte("nru", s[i+1]) >= 0 {
			break
		}
	}
	spend(i - from)
	return i
}

// isAlnum is one lookup: wordStart asks it at most stops of the scan.
func isAlnum(c byte) bool { return alnumBytes[c] }

var alnumBytes = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
