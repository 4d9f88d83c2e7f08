package sanitize

import (
	"encoding/base64"
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
	}
	if f&fAssign != 0 {
		// Not closed in general: a spaced value ("password=hunter 2
		// user=app") is extended over the words before the next pair, and a
		// redaction can make such a pair of what follows it. The rule tells
		// when its redactions cannot have done so.
		t, settled := redactKeyValues(s)
		if settled {
			s = r.note(s, t)
		} else {
			s = r.noteOpen(s, t)
		}
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
// bytes in starts, so the other bytes cost no call.
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
	if r.fold {
		// A byte with 0x20 set equals a lower-case letter exactly when it
		// was that letter in either case.
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

// redactUserinfo replaces the userinfo of every URL. The authority runs to
// the first '/', '?', '#' or space, and the userinfo to its last '@', so a
// malformed DSN with '@' inside the password is still covered. A password
// may also hold a raw '/', '?' or '#' ("postgres://app:pa/ss@db/x"): when
// the authority stops there and holds a "user:", the userinfo runs to the
// last '@' of the word. That can take a path that holds an '@' with it
// ("https://u:p@host/@alice"), which loses the host but never a password.
//
// It also reports whether its result is settled, which it is when s holds
// one URL whose userinfo ended at the last '@' of its authority: the
// result's userinfo is then the marker alone, which holds no ':' to read
// on from, no '@' and no '/', so a second run finds the same authority and
// replaces the marker with itself (TestUserinfoSettled).
func redactUserinfo(s string) (string, bool) {
	e := edit{s: s}
	// The end of the current word and its last '@', found once per word:
	// a word of repeated "://" costs one pass.
	wordEnd, wordAt := -1, -1
	urls, inAuthority := 0, false
	for i := 0; ; {
		k := indexSchemeSep(s, i)
		if k < 0 {
			spend(len(s) - i)
			break
		}
		urls++
		spend(k - i + 3)
		start := k + 3
		i = start
		if start-3 < e.last {
			continue
		}
		at, end := -1, start
		for ; end < len(s) && !endsAuthority[s[end]]; end++ {
			if s[end] == '@' {
				at = end
			}
		}
		spend(end - start)
		// The colon of "user:" is before the first '@' if there is one.
		userEnd := end
		if at >= 0 {
			userEnd = strings.IndexByte(s[start:end], '@') + start
		}
		if end < len(s) && !endsWord[s[end]] && strings.IndexByte(s[start:userEnd], ':') >= 0 {
			if start >= wordEnd {
				wordEnd, wordAt = start, -1
				for ; wordEnd < len(s) && !endsWord[s[wordEnd]]; wordEnd++ {
					if s[wordEnd] == '@' {
						wordAt = wordEnd
					}
				}
				spend(wordEnd - start)
			}
			at = max(at, wordAt)
		}
		if end < len(s) && (s[end] == ' ' || s[end] == '\t') {
			at = max(at, spacedUserinfoEnd(s, start, end, at))
		}
		if at < 0 {
			if ps, pe := cutPassword(s, start, end); pe > ps {
				e.replace(ps, pe, Redacted)
				i = pe
			}
			continue
		}
		if at <= start {
			continue
		}
		inAuthority = at < end
		e.replace(start, at, Redacted)
		i = at
	}
	return e.result(), urls == 1 && inAuthority
}

// cutUserColon returns the index of the colon of "user:" in an authority
// that starts at s[p], when it comes within the prefilter's reach and
// before any '@', '/', '.', '[' or blank, or 0.
func cutUserColon(s string, p int) int {
	for k := p; k < len(s) && k-p < scanAhead-3; k++ {
		switch c := s[k]; {
		case c == ':':
			if k == p {
				return 0
			}
			return k
		case c == '@' || c == '.' || c == '[' || endsAuthority[c] || endsWord[c]:
			return 0
		}
	}
	return 0
}

// cutPassword finds the password of a URL whose host part the text cut
// away: "scheme://user:pass" at the end of the text or before a quote
// (a message that quotes a DSN up to its first bytes: "\"postgres://svc:
// Hunter2Pa..."). A password of digits alone is a port ("localhost:8080").
func cutPassword(s string, start, end int) (int, int) {
	colon := cutUserColon(s, start)
	if colon == 0 {
		return 0, 0
	}
	cut := end
	if k := strings.IndexAny(s[colon:end], "\"'\\"); k >= 0 {
		cut = colon + k
	} else if end < len(s) {
		return 0, 0
	}
	if pw := s[colon+1 : cut]; pw == "" || strings.Trim(pw, "0123456789") == "" {
		return 0, 0
	}
	return colon + 1, cut
}

// spacedUserinfoEnd finds the '@' that ends a userinfo whose password holds
// a raw space or tab ("postgres://app:hunter 2@db/x", "redis://:p@ss
// w0rd@10.0.0.1"): such a URL is malformed, and drivers quote it back in
// their errors. The authority at s[start:end] stops at that space. It is
// read on only when it has a password that is not a port ("host:5432") and,
// if it holds an '@' already, the host after it has neither a dot nor a
// port, so "https://u:p@db.example.com is down, mail ops@example.com"
// keeps its host. The '@' must follow within three more words and
// maxUserinfoGap bytes, before any line break, quote or '/'. It returns
// that '@', or -1.
func spacedUserinfoEnd(s string, start, end, at int) int {
	userEnd := end
	if at >= 0 {
		userEnd = start + strings.IndexByte(s[start:end], '@')
	}
	u := s[start:userEnd]
	colon := strings.IndexByte(u, ':')
	if colon < 0 || u[0] == '[' {
		return -1
	}
	if at < 0 {
		if pw := u[colon+1:]; strings.Trim(pw, "0123456789") == "" {
			return -1
		}
	} else if host := s[at+1 : end]; host == "" || strings.ContainsAny(host, ".:[") {
		return -1
	}
	found, gaps, p := -1, 0, end
	defer func() { spend(p - end) }()
	for ; p < len(s) && p-end < maxUserinfoGap; p++ {
		switch c := s[p]; {
		case c == ' ' || c == '\t':
			if found >= 0 {
				return found
			}
			if gaps++; gaps > 3 {
				return -1
			}
		case c == '@':
			if p+1 < len(s) && (isAlnum(s[p+1]) || s[p+1] == '[') {
				found = p
			}
		case endsAuthority[c] || endsWord[c]:
			return found
		}
	}
	return found
}

const maxUserinfoGap = 64

// indexSchemeSep returns the index of the first "://" at or after s[i], or
// -1. It looks for the slashes: error chains hold far more colons ("op:
// err: cause") than slashes.
func indexSchemeSep(s string, i int) int {
	for j := i + 1; j < len(s); {
		k := strings.IndexByte(s[j:], '/')
		if k < 0 {
			return -1
		}
		k += j
		if s[k-1] == ':' && k+1 < len(s) && s[k+1] == '/' {
			return k - 1
		}
		j = k + 1
	}
	return -1
}

var endsWord = byteSet(" \t\n\r\f\v\"'<>`")

var endsAuthority = byteSet(" \t\n\r\f\v/?#")

// redactDSNUserinfo replaces the user and password of a MySQL DSN
// ("user:pw@tcp(host)/db"), and the password of a userinfo written
// without a scheme.
func redactDSNUserinfo(s string) string {
	e := edit{s: s}
	for i := 0; i < len(s); i++ {
		if s[i] != '@' {
			continue
		}
		if dsnProtocol(s[i+1:]) == 0 {
			if ps, pe := bareUserinfoPassword(s, i); pe > ps && ps >= e.last {
				e.replace(ps, pe, Redacted)
			}
			continue
		}
		start := i
		for start > e.last && !isSpace(s[start-1]) && strings.IndexByte("\"'(", s[start-1]) < 0 {
			start--
		}
		spend(i - start)
		if start == i {
			continue
		}
		e.replace(start, i, Redacted)
	}
	return e.result()
}

// bareUserinfoPassword finds the password of "user:password@host" written
// without a scheme (a registry, a git remote, a proxy setting): the word
// before the '@' at s[at] holds one ':', what follows it is shaped like a
// credential and a host follows the '@'. It returns the password's bounds,
// reading no further back than the prefilter's reach.
func bareUserinfoPassword(s string, at int) (int, int) {
	if at+1 >= len(s) || !isAlnum(s[at+1]) {
		return 0, 0
	}
	lo := max(0, at-(scanBehind-1))
	colon, w := -1, at
	for ; w > lo && !endsBareUser[s[w-1]]; w-- {
		if s[w-1] == ':' {
			if colon >= 0 {
				return 0, 0
			}
			colon = w - 1
		}
	}
	if colon <= w || w > 0 && !endsWord[s[w-1]] {
		return 0, 0
	}
	if !contextRules[0].shape.holds(s[colon+1 : at]) {
		return 0, 0
	}
	return colon + 1, at
}

// endsBareUser holds the bytes before which a bare userinfo starts: the
// end of a word, or '/', '@', '(' or '=' (the userinfo of a URL, an
// address, a MySQL DSN or a key's value is no bare one). One lookup per
// byte read back: the scan asks at every '@'.
var endsBareUser = func() (t [256]bool) {
	t = endsWord
	for _, c := range []byte("/@(=") {
		t[c] = true
	}
	return t
}()

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
	if v >= end || placeholderAt(s, v, end) {
		return 0, 0
	}
	return v, end
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
// the key as the scheme's credential would hide it from that rule.
func startsKeyValue(s string, start, end int) bool {
	if end-start < 2 || s[end-1] != ':' {
		return false
	}
	_, _, ok := keyBefore(s, end-1)
	return ok
}

func isToken68(c byte) bool {
	return isWordByte(c) || strings.IndexByte("-.~+/:", c) >= 0
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
	defer func() { spend(i - from) }()
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

func isAlnum(c byte) bool { return isDigit(c) || isLetter(c) }
