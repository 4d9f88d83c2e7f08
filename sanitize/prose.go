package sanitize

import "math/bits"

// The context rule finds a credential by the word that names it, whatever
// words surround the two: a credential word ("token", "API key",
// "client_secret", "accessToken"), then any separator people write (':',
// '=', ":=", "::=", "=>", a space, "is", quotes of every kind, brackets,
// an escaped quote inside JSON, one line break), then a value shaped like a
// credential. Ordinary words after the name ("the token expired", "key not
// found") are not shaped so and stay.
//
// It is found from the value backwards: a credential holds a digit or a
// capital inside a word, which prose rarely does, so most bytes cost one
// table lookup and only those few look back for a name.

// mayEndContextWord holds the bytes a name that ends in a credential
// word may end with: the words' last letters, a plural 's', the
// separators contextWordAt trims and the digits of an algorithm's or a
// version's suffix (see algorithmSuffix).
var mayEndContextWord = func() (t [256]bool) {
	for c := range 256 {
		t[c] = len(contextWordsByLast[c]) > 0
	}
	for _, c := range []byte("sS._-0123456789") {
		t[c] = true
	}
	return t
}()

// credentialValueByte holds the bytes of a credential's value in prose.
// A value ends at a space, a quote, a bracket, '&', ',', ';' or a
// backslash (an escaped quote ends a JSON-escaped value).
var credentialValueByte = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~+/=%:@!$*#^|?")

// minContextValue is the shortest value of any row of contextRules, or
// that a linking word announces (holdsLinked): a shorter run ("42", "v2")
// is not looked behind.
var minContextValue = func() int {
	n := minLinkedValue
	for _, r := range contextRules {
		n = min(n, r.shape.min)
	}
	return n
}()

// maxValueLead bounds how far into a value its first digit or inner
// capital may lie: the value is read back only that far from it.
const maxValueLead = 32

// contextReach bounds how far before its value the name of a credential
// is read: separators, quotes, one line break, a filler word and the name.
const contextReach = 112

// contextTrigger reports whether s[i] is a byte the context rule looks
// back from: a digit, or a capital after a lower-case letter. The letter
// of an escape ("\\nA0=", "\\u202eKey") starts no word the capital is
// inside: the escape stands for a line break or a rune, after which the
// capital starts one, as it does after the real one. Read as inside, the
// capital would answer for its run first, and the run's triggers after it
// would go unread: the log tier found on its own output, whose escapes it
// writes, what it had not found on the text.
func contextTrigger(s string, i int) bool {
	c := s[i]
	return c-'0' < 10 || c-'A' < 26 && i > 0 && s[i-1]-'a' < 26 && !escapeLetterBefore(s, i)
}

// escapeLetterBefore reports whether the lower-case letter before s[i]
// ends an escape: "\\n" and the like, or "\\u" and four hex digits. It
// is looser than logEscapeLen (any letter one or five bytes after a
// backslash), so that contextTrigger stays small enough to be inlined
// where it is called a byte at a time.
func escapeLetterBefore(s string, i int) bool {
	return i >= 2 && (s[i-2] == '\\' || i >= 6 && s[i-6] == '\\')
}

// contextValueAt looks back from the trigger at s[i] for the start of a
// value that a credential word announces, and returns it with the rule
// and the end of the run of value bytes around s[i]. A run that starts
// more than maxValueLead bytes before i is no value. Starts are tried from
// the nearest: the run's own start and each ':' or '=' inside it
// ("user:pass", "token=abc" glued to a word).
func contextValueAt(s string, i int) (vs, runEnd int, r *contextRule) {
	runEnd = i
	// ahead is the run's first ':' or '=' after s[i] (see pairAhead).
	ahead := 0
	for runEnd < len(s) && credentialValueByte[s[runEnd]] {
		if c := s[runEnd]; (c == ':' || c == '=') && ahead == 0 {
			ahead = runEnd
		}
		runEnd++
	}
	lo := max(0, i-maxValueLead)
	p := i
	// sep marks a separator between the run's start and s[i]: no key
	// that starts the run then holds the trigger (see pairedBefore).
	sep := false
	for ; p > lo && credentialValueByte[s[p-1]]; p-- {
		if c := s[p-1]; c == ':' || c == '=' {
			sep = true
			if runEnd-p < minContextValue {
				continue
			}
			if r = credentialBefore(s, p); r != nil {
				return p, runEnd, r
			}
		}
	}
	spend(runEnd - p)
	if p > 0 && credentialValueByte[s[p-1]] || runEnd-p < minContextValue {
		return pairAhead(s, ahead, runEnd)
	}
	// A run glued to an escape the log tier writes ("\\t0000=...") starts
	// after it, as it does after the tab or the line break the escape
	// stands for: the tier reads its own output as it read the text.
	if q := pastLogEscape(s, p); q <= i {
		p = q
	}
	r, keyed := credentialOrKeyBefore(s, p)
	if r != nil {
		return p, runEnd, r
	}
	if keyed {
		return pairAhead(s, ahead, runEnd)
	}
	if r = phraseBefore(s, p, true); r != nil {
		return p, runEnd, r
	}
	if vs, r := pairedBefore(s, p, i, runEnd, sep); r != nil {
		return vs, runEnd, r
	}
	// The password of a user:password pair whose parts are quoted
	// (kevin:'...', "{user}":"{...}") is announced by the word before the
	// user: the pair is redacted whole.
	if u := pairUserStart(s, p); u >= 0 {
		if r = credentialBefore(s, u); r != nil {
			return u, runEnd, r
		}
	}
	if r = namedElsewhere(s, p, runEnd); r != nil {
		return p, runEnd, r
	}
	if sep {
		if vs, r := qualifiedPairAt(s, p, i); r != nil {
			return vs, runEnd, r
		}
	}
	if r = callArgumentBefore(s, p); r != nil {
		return p, runEnd, r
	}
	return pairAhead(s, ahead, runEnd)
}

// credentialBefore reports the rule whose word names the value starting at
// s[v], reading back no more than contextReach bytes.
func credentialBefore(s string, v int) *contextRule {
	r, _ := credentialOrKeyBefore(s, v)
	return r
}

// credentialOrKeyBefore is credentialBefore that also reports a value a
// key the key-value rule knows announces: that rule redacts it with the
// syntax of its value, so no other reading of the context rule applies.
func credentialOrKeyBefore(s string, v int) (r *contextRule, keyed bool) {
	lo := max(0, v-contextReach)
	p, opened, keyLine, spaced := valueOpeningBefore(s, v, lo)
	// sep is ':' for a separator that holds a colon and no '=', '=' for
	// one that holds '=', 'i' for a linking word.
	sep := byte(0)
	switch {
	case p > lo && (s[p-1] == ':' || s[p-1] == '=' || s[p-1] == '>' && p-1 > lo && s[p-2] == '='):
		sep = ':'
		for n := 0; n < 3 && p > lo && separatorOps[s[p-1]]; n++ {
			if p--; s[p] == '=' {
				sep = '='
			}
		}
		// A key the key-value rule knows ("password=", "api_key:") is
		// its to redact, with the syntax of its value: the context rule
		// would only read the value again. That rule does not read a
		// value inside markup ("secret: <code>...") or on the next line.
		if c := s[p]; keyLine && (c == ':' || c == '=') {
			if _, _, ok := keyBefore(s, p); ok {
				return nil, true
			}
		}
		p = spacesBefore(s, p, lo, false)
	case p > lo && cellSeparatorBefore(s, p, lo) > 0:
		// Read as a space is: the rules that take a spaced value and the
		// value's shape decide.
		p = spacesBefore(s, p-cellSeparatorBefore(s, p, lo), lo, false)
	case spaced && linkingWordBefore(s, p, lo) > 0:
		sep = 'i'
		p = spacesBefore(s, p-linkingWordBefore(s, p, lo), lo, false)
	case !spaced && !opened:
		return nil, false
	}
	p = indexBefore(s, p, lo)
	for n := 0; n < 3 && p > lo && nameClosers[s[p-1]]; n++ {
		p--
	}
	ke := p
	if ke == lo || !mayEndContextWord[s[ke-1]] {
		return scriptKeyBefore(s, ke, lo), false
	}
	kb := keyWordStart(s, ke, lo)
	spend(v - kb)
	if r := contextWordAt(s, kb, ke, sep, opened); r != nil {
		return r, false
	}
	return namedBeforeWord(s, kb, ke, lo, sep), false
}

// namedBeforeWord reports the rule of a credential named by the word
// before s[kb:ke], the word that stands between the name and the value.
func namedBeforeWord(s string, kb, ke, lo int, sep byte) *contextRule {
	switch {
	case sep == 0 && saslCommandBefore(s, kb, ke, lo):
		return &contextRules[0]
	case sep == ':' && kb > lo+1 && s[kb-1] == ' ' && ke-kb <= 12 && isLowerWord(s[kb:ke]):
		// A filler word between the name and its colon: "Invalid API
		// key provided: ...", "token received: ...".
		ke = kb - 1
		kb = keyWordStart(s, ke, lo)
		return contextWordAt(s, kb, ke, sep, true)
	}
	return nil
}

// valueOpeningBefore steps back from the value at s[v] over what opens it:
// quotes and brackets, inline tags, spaces and, after spaces, a Markdown
// emphasis. It returns where the separator or the name ends, and whether
// the value stands where the key-value rule reads one: on its key's line,
// outside markup.
func valueOpeningBefore(s string, v, lo int) (p int, opened, keyLine, spaced bool) {
	p, opened = openersBefore(s, v, lo)
	keyLine = true
	if p > lo && s[p-1] == '>' {
		if t := inlineTagsBefore(s, p, lo); t < p {
			p, opened, keyLine = t, true, false
		}
	}
	q := p
	p = spacesBefore(s, p, lo, true)
	spaced = p < q
	if spaced {
		for k := p; k < q && keyLine; k++ {
			keyLine = s[k] != '\n'
		}
		p = emphasisBefore(s, p, lo)
	}
	return p, opened, keyLine, spaced
}

// openersBefore steps back over up to two bytes that open a value (quotes,
// brackets, an escaped quote, a typographic quote), and reports whether
// there was one.
func openersBefore(s string, p, lo int) (int, bool) {
	opened := false
	for range 2 {
		// Most values follow a byte that opens none: an ASCII byte of no
		// opener, which no case takes (the typographic quotes end in a
		// byte from 0x80 up).
		if p == lo || s[p-1] < 0x80 && !valueOpeners[s[p-1]] {
			return p, opened
		}
		switch {
		case p > lo && valueOpeners[s[p-1]]:
			p--
			if p > lo && s[p-1] == '\\' {
				p--
			}
		case p-3 >= lo && (s[p-3:p] == "\u201c" || s[p-3:p] == "\u2018"):
			p -= 3
		case p-2 >= lo && s[p-2:p] == "\u00ab":
			p -= 2
		default:
			return p, opened
		}
		opened = true
	}
	return p, opened
}

// spacesBefore steps back over spaces and tabs and, when lines is set,
// one line break (real, or escaped as JSON writes it) with the spaces
// before it. A tab may be escaped too: the log tier writes it so, and a
// later pass must read its output as the first read the text.
func spacesBefore(s string, p, lo int, lines bool) int {
	p = blanksBefore(s, p, lo)
	// A line break ends in '\n', or in the 'n' or 'r' of an escaped one.
	if !lines || p == lo || s[p-1] != '\n' && s[p-1] != 'n' && s[p-1] != 'r' {
		return p
	}
	n := lineBreakBefore(s, p, lo)
	if n == 0 {
		return p
	}
	return blanksBefore(s, p-n, lo)
}

// blanksBefore steps back over spaces and tabs, real or escaped.
func blanksBefore(s string, p, lo int) int {
	for p > lo {
		switch {
		case s[p-1] == ' ' || s[p-1] == '\t':
			p--
		case s[p-1] == 't' && p-1 > lo && s[p-2] == '\\':
			p -= 2
		default:
			return p
		}
	}
	return p
}

// cellSeparators part a name from its value in a table's row (psql's
// " | ", a Markdown table), an arrow of a mapping, and the
// full-width colon and equals sign of CJK text.
var cellSeparators = [...]string{"|", "->", "<-", "\u2192", "\uff1a", "\uff1d"}

// cellSeparatorBefore returns the length of a cell separator that ends at
// s[p], or 0.
func cellSeparatorBefore(s string, p, lo int) int {
	if c := s[p-1]; c != '|' && c != '>' && c != '-' && c < 0x80 {
		return 0
	}
	for _, sep := range cellSeparators {
		if p-len(sep) >= lo && s[p-len(sep):p] == sep {
			return len(sep)
		}
	}
	return 0
}

// linkingWordBefore returns the length of "is", "was", "are", "as" or
// "equals" ending at s[p] after a space, or 0.
func linkingWordBefore(s string, p, lo int) int {
	if p == lo || s[p-1]|0x20 != 's' && s[p-1]|0x20 != 'e' {
		return 0
	}
	for _, w := range [...]string{"is", "was", "are", "as", "equals"} {
		if p-len(w)-1 >= lo && hasSuffixFold(s[:p], w) && s[p-len(w)-1] == ' ' {
			return len(w)
		}
	}
	return 0
}

// keyWordStart returns the start of the name that ends at s[ke].
func keyWordStart(s string, ke, lo int) int {
	kb := ke
	for kb > lo && ke-kb < maxKeyWord && isKeyNameByte(s[kb-1]) {
		kb--
	}
	// The log tier writes a line break or a tab before a name as "\\n" or
	// "\\t": the name starts after the escape, as it does once the escape
	// re-check decodes it.
	if kb > lo && kb+1 < ke && s[kb-1] == '\\' && (s[kb] == 'n' || s[kb] == 't' || s[kb] == 'r') {
		kb++
	}
	return kb
}

const maxKeyWord = 48

func isLowerWord(w string) bool {
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// contextWordAt reports the rule whose word ends the name s[kb:ke]: the
// whole name, or its last part after '_', '-', '.' or a lower-case letter
// before a capital, or any ending of a name in capitals alone, each also
// with a plural 's'. sep is the separator credentialBefore found, opened
// whether a quote or a bracket opened the value.
func contextWordAt(s string, kb, ke int, sep byte, opened bool) *contextRule {
	for ke > kb && (s[ke-1] == '.' || s[ke-1] == '-' || s[ke-1] == '_') {
		ke--
	}
	if ke-kb < 2 {
		return nil
	}
	k := s[kb:ke]
	if r := contextWordEnding(s, kb, k, sep, opened); r != nil {
		return r
	}
	if k[len(k)-1]|0x20 == 's' {
		if r := contextWordEnding(s, kb, k[:len(k)-1], sep, opened); r != nil {
			return r
		}
	}
	// Most names end in a letter other than 'e' and have none of these
	// suffixes; one comparison turns them away.
	n := 0
	switch c := k[len(k)-1]; {
	case isDigit(c):
		if n = algorithmSuffix(k); n == 0 {
			n = countSuffix(k)
		}
	case c|0x20 == 'e':
		n = valuePartSuffix(k)
	}
	if n > 0 {
		return contextWordAt(s, kb, ke-n, sep, opened)
	}
	return sessionIDAt(s, kb, k)
}

// sessionIDAt reports the credential row when the name k at s[kb] is
// "id" after the word "session" ("invalid session ID: ..."): a session's
// identifier is the credential that holds it open, as "session_id=" is
// to the key-value rule, while "id" alone names every other thing.
func sessionIDAt(s string, kb int, k string) *contextRule {
	const word = "session "
	if len(k) != 2 || k[0]|0x20 != 'i' || k[1]|0x20 != 'd' || kb < len(word) || !hasPrefixFold(s[kb-len(word):], word) {
		return nil
	}
	if b := kb - len(word); b > 0 && isWordByte(s[b-1]) {
		return nil
	}
	return credentialRule
}

func contextWordEnding(s string, kb int, k string, sep byte, opened bool) *contextRule {
	for _, cw := range contextWordsByLast[k[len(k)-1]] {
		if !hasSuffixFold(k, cw.word) || sep == 0 && !opened && !cw.rule.spaced {
			continue
		}
		n := len(k) - len(cw.word)
		if n > 0 && !partBoundary(k, n) && len(cw.word) < minGluedWord {
			continue
		}
		// An attribute "key=" names an entry (<entry key="...">);
		// "key=..." in logfmt, env files and prose holds a key, and so
		// does "key = ..." when the value is shaped like one: the key of
		// a map entry or a loop in code ("key = value", "key = 42",
		// "key = \"orders\"") is not.
		if n == 0 && sep == '=' && cw.word == "key" && keyNamesEntry(s, kb) {
			continue
		}
		if namesIdentifiers(cw.word) && qualifiedAway(s, kb, k[:n], cw.rule) {
			return nil
		}
		return cw.rule
	}
	return nil
}

// namesIdentifiers reports the words that a qualifier makes name an
// identifier ("primary key", "page token"): a password, a secret or a
// passphrase stays one whatever its qualifier ("registry password").
func namesIdentifiers(w string) bool { return w == "key" || w == "token" || w == "tok" || w == "tkn" }

// qualifiedAway reports whether the qualifier before the word (the part
// of the name before it, or else the word before the name) is one of the
// rule's ignoreAfter.
func qualifiedAway(s string, kb int, prefix string, r *contextRule) bool {
	q := prefix
	for q != "" && (q[len(q)-1] == '_' || q[len(q)-1] == '-' || q[len(q)-1] == '.') {
		q = q[:len(q)-1]
	}
	if q == "" && kb > 1 && s[kb-1] == ' ' {
		e := kb - 1
		b := e
		for b > 0 && e-b < 16 && isLetter(s[b-1]) {
			b--
		}
		q = s[b:e]
	} else {
		k := len(q)
		for k > 0 && q[k-1] != '_' && q[k-1] != '-' && q[k-1] != '.' && q[k-1] != ' ' {
			k--
		}
		q = q[k:]
	}
	if q == "" {
		return false
	}
	// Every match ends as q does, in either case: only the words that end
	// with its last letter are compared.
	for _, w := range r.ignoreByLast[q[len(q)-1]|0x20] {
		if len(q) == len(w) && hasPrefixFold(q, w) || hasSuffixFold(q, w) && len(q) > len(w) && 'A' <= q[len(q)-len(w)] && q[len(q)-len(w)] <= 'Z' {
			return true
		}
	}
	return false
}

// maxPlaceholderRun is the length of a run of one byte repeated that marks
// a placeholder ("XXXXXX", "000000"), not a credential.
const maxPlaceholderRun = 6

// minLongValue is the length from which a value of at least four digits
// and four letters counts however seldom it switches between them
// ("12345678-ABCD-...-1234567890AB").
const minLongValue = 32

// contextValueEnd trims the punctuation that ends a sentence or a clause
// from the run of value bytes s[vs:e].
func contextValueEnd(s string, vs, e int) int {
	for e > vs && clauseEnds[s[e-1]] {
		e--
	}
	return e
}

// redactContextValues replaces every value a credential word announces.
func redactContextValues(s string) string {
	e := edit{s: s}
	skip := 0
	for i := 0; i < len(s); i++ {
		if i = nextContextTrigger(s, i, len(s)); i == len(s) {
			break
		}
		if i < skip {
			// The rest of a run already read: its triggers (the digits of
			// "0123456789") answer for nothing more.
			i = skip - 1
			continue
		}
		if !contextTrigger(s, i) {
			continue
		}
		vs, runEnd, r := contextValueAt(s, i)
		skip = runEnd
		if r == nil || vs < e.last {
			continue
		}
		ve := contextValueEnd(s, vs, runEnd)
		if !r.shape.holds(s[vs:ve]) && !(quotedWhole(s, vs, ve) && r.shape.holdsQuoted(s[vs:ve])) &&
			!(linkedValue(s, vs) && r.shape.holdsLinked(s[vs:ve])) {
			continue
		}
		e.replace(vs, ve, Redacted)
		i = runEnd - 1
	}
	return e.result()
}

var contextTriggerByte = byteSet("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")

// nextContextTrigger returns the index of the first byte of s[i:hi] that
// contextTrigger accepts (a digit, or a capital after a lower-case
// letter), or hi, so that the capitals that start words and sentences
// cost its callers nothing. Prose holds few triggers, so it tests eight
// bytes at a time: a byte between '0' and '9', 'A' and 'Z' or 'a' and 'z'
// has its top bit set in the word that the byte-range test of "Bit
// Twiddling Hacks" computes (exact for bytes below 0x80; bytes from 0x80
// up are none of them), and a capital counts where the lower-case mark of
// the byte before it, moved up one byte, meets it (looked for only in a
// word that holds a digit or a capital).
func nextContextTrigger(s string, i, hi int) int {
	const lo7, hi1 = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	const ones = lo7 / 0x7f
	for ; i+8 <= hi; i += 8 {
		x := load64(s, i)
		low := x & lo7
		digit := (ones*(127+':') - low) & (low + ones*(127-'/'))
		capital := (ones*(127+'[') - low) & (low + ones*(127-'@'))
		if (digit|capital)&^x&hi1 == 0 {
			continue
		}
		after := (ones*(127+'{') - low) & (low + ones*(127-'`')) &^ x & hi1 << 8
		if i > 0 && 'a' <= s[i-1] && s[i-1] <= 'z' {
			after |= 0x80
		}
		// The marks are exact but for a capital after an escape's letter
		// (which its callers check again), so the first is the trigger: on
		// text dense with triggers a walk to it byte by byte was a branch
		// a byte.
		if m := (digit | capital&after) &^ x & hi1; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < hi && !contextTrigger(s, i) {
		i++
	}
	return i
}

// contextAt is the prefilter's check: whether the trigger at s[i] may
// start what redactContextValues redacts. It returns the end of the run
// of value bytes it read, before which no other trigger need be checked.
func contextAt(s string, i int) (bool, int) {
	_, runEnd, r := contextValueAt(s, i)
	return r != nil, runEnd
}

// The byte sets the context rule steps over, one lookup each: the quotes
// and braces around the parts of a pair, the operators of a separator,
// what may close a name or open a value, and what ends a clause.
var (
	pairOpeners  = byteSet("\"'{")
	pairClosers  = byteSet("\"'}")
	separatorOps = byteSet(":=>?+!")
	nameClosers  = byteSet("\"'`\\])*")
	valueOpeners = byteSet("\"'`([{<")
	clauseEnds   = byteSet(".:!?-")
)
