package sanitize

import "strings"

// Phrases: the words people put between a credential's name and its value
// when they write a sentence rather than a key ("password set to ...",
// "token for tenant 42: ...", "signature mismatch: got ... want ...",
// "<key name="x">..."). credentialBefore reads a separator and the name
// right before it; phraseBefore, asked when that fails, reads back over a
// few words of a small grammar, so that ordinary words after a name still
// need a value shaped like a credential after them, and a word outside the
// grammar ends the look-back. It reads no further back than contextReach
// from the value, as rescan requires.

// A phraseClass says what a word may do between a name and its value.
type phraseClass uint16

const (
	// pcCompare announces one side of a comparison ("got", "expected"):
	// for a signature or a key check both sides derive from the secret.
	pcCompare phraseClass = 1 << iota
	// pcTo ends a verb phrase before its value ("set to", "configured as").
	pcTo
	// pcVerb changes a credential ("set", "rotated", "updated").
	pcVerb
	// pcAux stands between a name and its verb ("was", "has been").
	pcAux
	// pcNow ends a phrase that gives the value now held ("secret now").
	pcNow
	// pcPrep opens a qualifier of the name ("password for user alice").
	pcPrep
	// pcQual may qualify a name before a separator ("token provided:").
	pcQual
	// pcLink separates like a colon ("is", "was").
	pcLink
	// pcJoin joins the sides of a comparison ("expected A but got B",
	// "computed A does not match expected B").
	pcJoin
	// pcNot negates a joining word ("does not match").
	pcNot
	// pcFrom gives the old value of a change ("changed from A to B").
	pcFrom
	// pcWho is the subject of a comparison word ("the key you provided").
	pcWho
	// pcCode is a word that names a credential only after a word of
	// pcCodeKind ("recovery code", not "exit code").
	pcCode
	// pcCodeKind makes a pcCode word a credential's name.
	pcCodeKind
)

// phraseWords holds the words of the grammar by a hash of their lower
// case (see classOf), in open addressing: the look-back runs at every
// credential-shaped run that no name announces, and a map's lookup would
// cost it several times the rest.
var phraseWords = func() (t [phraseTableSize]struct {
	word  string
	class phraseClass
}) {
	add := func(c phraseClass, words string) {
		for _, w := range strings.Fields(words) {
			i := phraseSlot(w)
			for t[i].word != "" && t[i].word != w {
				i = (i + 1) % phraseTableSize
			}
			t[i].word = w
			t[i].class |= c
		}
	}
	add(pcCompare, "got get gets want wants wanted expected expecting expect received receiving provided given sent supplied passed actual "+
		"entered used specified submitted presented")
	add(pcTo, "to as into from")
	add(pcFrom, "from")
	add(pcWho, "you we they user client caller server")
	add(pcCode, "code codes")
	add(pcCodeKind, "verification recovery backup access auth authorization security mfa otp confirmation pairing activation "+
		"invite invitation login signin sms one-time onetime 2fa two-factor totp hotp single-use 2-step two-step 2sv")
	add(pcVerb, "set sets change changed changes update updated updates reset resets rotate rotated rotates renew renewed "+
		"regenerated generated configured switched replaced refreshed overridden overwritten defaulted initialized assigned "+
		"saved stored issued created moved setting updating changing rotating resetting configuring")
	add(pcAux, "is was are were has have had been be will would should must just now successfully automatically also "+
		"still then being gets got the its")
	add(pcNow, "now still became becomes remains be value")
	add(pcPrep, "for of from in on at with by")
	add(pcQual, "used provided given supplied sent received entered passed set mismatch mismatched value was is were are "+
		"generated returned issued configured specified submitted presented changed updated rotated reset "+
		"expected invalid wrong incorrect bad rejected does did do not match header field param parameter argument string "+
		"new current accepted recognized valid authorized failed denied refused")
	add(pcLink, "is was are were equals")
	add(pcJoin, "but and while match matches matched equal vs versus")
	add(pcNot, "not does did do")
	return t
}()

// phraseEndings holds, by a word's last letter, a bit for each letter
// before it that ends a word of the classes that may stand right before
// a value: most words of prose before a value end otherwise, and cost no
// more than this lookup.
var phraseEndings = func() (t [26]uint32) {
	const first = pcCompare | pcTo | pcNow | pcLink | pcJoin | pcCode
	for _, e := range phraseWords {
		if w := e.word; e.class&first != 0 {
			t[w[len(w)-1]-'a'] |= 1 << (w[len(w)-2] - 'a')
		}
	}
	return t
}()

// mayEndPhrase reports whether s[:p] may end in a word that stands right
// before a value, by its last two letters: false only for a word that
// cannot.
func mayEndPhrase(s string, p int) bool {
	if p < 2 || !isLetter(s[p-1]) {
		return true
	}
	return isLetter(s[p-2]) && phraseEndings[s[p-1]|0x20-'a']&(1<<(s[p-2]|0x20-'a')) != 0
}

// phraseTableSize is a power of two, over twice the words of phraseWords.
const phraseTableSize = 1 << 9

// maxPhraseWord bounds a word of the grammar, and maxQualifiers and
// maxQualifier the words between a name and its separator.
const (
	maxPhraseWord = 13
	maxQualifiers = 4
	maxQualifier  = 48
)

// phraseSlot returns the first slot of phraseWords a word's lower case
// may take: a hash of its length and three of its letters, which tells
// the grammar's words apart well enough and costs no loop.
func phraseSlot(w string) int {
	h := uint32(len(w))<<16 ^ uint32(w[0]|0x20)<<8 ^ uint32(w[1]|0x20)<<4 ^ uint32(w[len(w)-1]|0x20)
	return int(h * 0x9e3779b1 >> 23)
}

// classOf returns the class of the word of letters s[b:e], in any case.
func classOf(s string, b, e int) phraseClass {
	if e-b < 2 || e-b > maxPhraseWord {
		return 0
	}
	w := s[b:e]
	for i := phraseSlot(w); phraseWords[i].word != ""; i = (i + 1) % phraseTableSize {
		if len(phraseWords[i].word) == len(w) && hasPrefixFold(w, phraseWords[i].word) {
			return phraseWords[i].class
		}
	}
	return 0
}

// letterWordBefore returns the start of the run of letters that ends at
// s[p], which is p when there is none or when it is part of a longer
// word.
func letterWordBefore(s string, p int) int {
	b := p
	for b > 0 && p-b <= maxPhraseWord && isLetter(s[b-1]) {
		b--
	}
	if b > 0 && isWordByte(s[b-1]) {
		return p
	}
	return b
}

// phraseBefore reports the rule whose word names the value at s[v]
// through one of the phrases above. top marks the caller's own value:
// the text is then bounded to contextReach before it, and the value may
// be the second side of a comparison whose first side a name announces.
func phraseBefore(s string, v int, top bool) *contextRule {
	if v > 0 && s[v-1] == ' ' && !mayEndPhrase(s, v-1) {
		return nil
	}
	if top {
		if pairAt(s, v) {
			return nil
		}
		lo := max(0, v-contextReach)
		s, v = s[lo:], v-lo
	}
	if v > 0 && s[v-1] == '>' {
		if r := elementBefore(s, v-1); r != nil {
			return r
		}
	}
	p, _ := openersBefore(s, v, 0)
	p = spacesBefore(s, p, 0, true)
	if !mayEndPhrase(s, p) {
		return nil
	}
	b := letterWordBefore(s, p)
	cls := classOf(s, b, p)
	cmp := cls&pcCompare != 0
	if !cmp && b == p {
		cmp, b = keyValueMarkerBefore(s, v)
	}
	if cmp {
		return comparisonAt(s, b, top)
	}
	if q, sep := phraseSepBefore(s, p, b, cls); q >= 0 {
		if r := qualifiedName(s, q, sep, false); r != nil || q != p-1 || s[q] != ':' {
			return r
		}
		// a comparison word before a colon: "..., got: ..."
		if w := letterWordBefore(s, q); w < q && classOf(s, w, q)&pcCompare != 0 {
			return comparisonAt(s, w, top)
		}
		return nil
	}
	switch {
	case top && (cls&pcJoin != 0 || b == p && p > 0 && (s[p-1] == ',' || s[p-1] == ';')):
		// the next of a list of values: "keys: A, B", "tokens A and B"
		return comparedBefore(s, p, b, cls, true)
	case cls&pcTo != 0:
		return changedBefore(s, b, top)
	case cls&pcNow != 0:
		return auxName(s, b)
	case cls&pcCode != 0:
		return phraseNameAt(s, p, 0)
	}
	return nil
}

// changedBefore reports the rule of a name changed to the value after
// the word at s[b] ("to", "as", "from"): "password set to", "set password
// to", "password changed from A to" (top lets the old value A lead back
// to the name).
func changedBefore(s string, b int, top bool) *contextRule {
	p := spacesBefore(s, b, 0, false)
	b = letterWordBefore(s, p)
	if c := classOf(s, b, p); c&pcAux != 0 && c&pcVerb == 0 && b < p {
		// an adverb: "updated successfully to"
		p = spacesBefore(s, b, 0, false)
		b = letterWordBefore(s, p)
	}
	if classOf(s, b, p)&pcVerb != 0 {
		return auxName(s, b)
	}
	if r := phraseNameAt(s, p, 0); r != nil && verbBefore(s, keyWordStart(s, p, 0)) {
		return r
	}
	if !top {
		return nil
	}
	a := p
	for a > 0 && p-a < maxValueLead && credentialValueByte[s[a-1]] {
		a--
	}
	spend(p - a)
	q := spacesBefore(s, a, 0, false)
	if a == p || q == a || classOf(s, letterWordBefore(s, q), q)&pcFrom == 0 {
		return nil
	}
	return phraseBefore(s, a, false)
}

// pairAt reports whether a key in lower case and '=' start the run at
// s[v] ("password=...", "api_key=..."): contextValueAt has read that key
// for the value after it, and the words before the pair name the pair,
// not a credential. Base64's '=' ends a value of mixed case.
func pairAt(s string, v int) bool {
	i := v
	for i < len(s) && i-v < maxKeyWord && ('a' <= s[i] && s[i] <= 'z' || s[i] == '_') {
		i++
	}
	return i > v && i+1 < len(s) && s[i] == '=' && s[i+1] != '='
}

// phraseSepBefore finds a separator that ends at s[p]: ':', '=', an
// arrow, a table's '|', a dash between spaces, or the linking word
// s[b:p] of class cls. It returns where the separator starts and its
// kind: ':' for one credentialBefore reads too, 'a' for one of this
// file's own, 0 for a linking word; or -1.
func phraseSepBefore(s string, p, b int, cls phraseClass) (int, byte) {
	if b < p {
		if b > 0 && s[b-1] == ' ' && cls&pcLink != 0 {
			return b, 0
		}
		return -1, 0
	}
	if p == 0 {
		return -1, 0
	}
	switch c := s[p-1]; {
	case c == '|':
		return p - 1, 'a'
	case c == ':' || c == '=':
		q := p - 1
		for n := 0; n < 2 && q > 0 && separatorOps[s[q-1]]; n++ {
			q--
		}
		return q, ':'
	case c == '>' && p > 1 && s[p-2] == '-':
		return p - 2, 'a'
	case c == '>' && p > 1 && s[p-2] == '=':
		return p - 2, ':'
	case p >= 3 && s[p-3:p] == "\u2192":
		return p - 3, 'a'
	case p < len(s) && s[p] == ' ':
		// A dash between spaces ("token - ...", "key — ..."); a
		// comma, a semicolon or a slash between spaces ends a clause
		// or pairs two words ("sorted by key, <trace id>", "key /
		// value") as often as it gives a value.
		if c == '-' && p > 1 && s[p-2] == ' ' {
			return p - 1, 'a'
		}
		if p > 3 && s[p-4] == ' ' && (s[p-3:p] == "\u2013" || s[p-3:p] == "\u2014") {
			return p - 3, 'a'
		}
	}
	return -1, 0
}

// qualifiedName reports the rule of a name that stands before the
// separator at s[q], with up to maxQualifiers words between them: words
// of pcQual, pcVerb or pcAux, then any words after a preposition ("key
// for bucket logs =", "HMAC mismatch for hook 7:"). With none between,
// only a comparison word after the separator (cmp) or a separator of
// this file's own makes the phrase: a name and a colon, an '=' or "is"
// alone are credentialBefore's.
func qualifiedName(s string, q int, sep byte, cmp bool) *contextRule {
	own := sep == 'a'
	if own {
		sep = ':'
	}
	p := spacesBefore(s, q, 0, false)
	if r := phraseNameAt(s, p, sep); r != nil {
		// credentialBefore reads no code name ("MFA code = ...").
		if cmp || own || codeNameAt(s, keyWordStart(s, p, 0), p) != nil {
			return r
		}
		return nil
	}
	// The words read so far, kept so that they are classified only once
	// a name stands before them: most look-backs find none.
	var words [maxQualifiers][2]int
	for n := range maxQualifiers {
		b := p
		for b > 0 && p-b < maxQualifier && qualifierByte[s[b-1]] {
			b--
		}
		np := spacesBefore(s, b, 0, false)
		if b == p || np == b {
			return nil
		}
		words[n] = [2]int{b, p}
		// A name the qualifiers may not follow may be one of them, after
		// a preposition ("passphrase for key '~/.ssh/id_rsa':").
		if r := phraseNameAt(s, np, sep); r != nil && qualifiersFollowName(s, words[:n+1]) {
			return r
		}
		p = np
	}
	return nil
}

// qualifiersFollowName reports whether the words between a name and its
// separator, in the order they were read back from the separator, may
// follow the name: read backwards, the words so far may when a
// preposition or a parenthesis opens them or each is a qualifier.
func qualifiersFollowName(s string, words [][2]int) bool {
	valid := true
	for _, w := range words {
		switch cls := classOf(s, w[0], w[1]); {
		case cls&pcPrep != 0 || s[w[0]] == '(':
			valid = true
		case cls&(pcQual|pcVerb|pcAux|pcTo) == 0:
			valid = false
		}
	}
	return valid
}

// auxName reports the rule of a name before the verb or adverb at s[b],
// with up to three auxiliaries between them ("password has been changed
// to", "token is now").
func auxName(s string, b int) *contextRule {
	p := spacesBefore(s, b, 0, false)
	if p == b {
		return nil
	}
	for range 3 {
		if r := phraseNameAt(s, p, 0); r != nil {
			return r
		}
		w := letterWordBefore(s, p)
		if w == p || classOf(s, w, p)&pcAux == 0 {
			return nil
		}
		q := spacesBefore(s, w, 0, false)
		if q == w {
			return nil
		}
		p = q
	}
	return phraseNameAt(s, p, 0)
}

// verbBefore reports whether a verb of pcVerb stands before the name at
// s[kb], with up to two words between ("changed the secret to", "set the
// api key to").
func verbBefore(s string, kb int) bool {
	p := kb
	for range 3 {
		q := spacesBefore(s, p, 0, false)
		if q == p {
			return false
		}
		b := letterWordBefore(s, q)
		if b == q {
			return false
		}
		if classOf(s, b, q)&pcVerb != 0 {
			return true
		}
		p = b
	}
	return false
}

// comparedBefore reports the rule that announces the first side of a
// comparison that ends at s[p] ("expected token A but got", "want A,
// got"), the word s[b:p] of class cls before it: the value of the first
// side, after an optional ',' or ';' and a joining word. Without either,
// and always for a list of values (list), the first side must hold a
// digit or a capital, as digests and keys do, so that a word of prose
// before a comparison word ("the client sent ...") costs no look-back
// for a name, and "invalid token type, <id>" keeps its identifier.
func comparedBefore(s string, p, b int, cls phraseClass, list bool) *contextRule {
	joined := false
	if p > 0 && (s[p-1] == ',' || s[p-1] == ';') {
		p, joined = spacesBefore(s, p-1, 0, false), true
		b = letterWordBefore(s, p)
		cls = classOf(s, b, p)
	}
	if cls&pcJoin != 0 {
		p, joined = spacesBefore(s, b, 0, false), true
		for range 2 {
			if b = letterWordBefore(s, p); b == p || classOf(s, b, p)&pcNot == 0 {
				break
			}
			p = spacesBefore(s, b, 0, false)
		}
	}
	for n := 0; n < 2 && p > 0 && pairClosers[s[p-1]]; n++ {
		p--
	}
	a := p
	marked := joined && !list
	for a > 0 && p-a < maxValueLead && credentialValueByte[s[a-1]] {
		a--
		marked = marked || contextTriggerByte[s[a]]
	}
	spend(p - a)
	if !marked || a == p || s[p-1] == ':' || a > 0 && credentialValueByte[s[a-1]] || !sideOpens(s, a) {
		return nil
	}
	if r := credentialBefore(s, a); r != nil {
		return r
	}
	return phraseBefore(s, a, false)
}

// comparisonAt reports the rule of a name that announces the value
// after the comparison word at s[b]: after a separator ("mismatch: got
// ..."), right before it ("token sent ...", "the key you provided ..."),
// or, when top, through the first side of the comparison.
func comparisonAt(s string, b int, top bool) *contextRule {
	p := spacesBefore(s, b, 0, true)
	b = letterWordBefore(s, p)
	cls := classOf(s, b, p)
	if top {
		if r := comparedBefore(s, p, b, cls, false); r != nil {
			return r
		}
	}
	if q, sep := phraseSepBefore(s, p, b, cls); q >= 0 {
		return qualifiedName(s, q, sep, true)
	}
	if cls&pcWho != 0 {
		p = spacesBefore(s, b, 0, false)
	}
	return phraseNameAt(s, p, 0)
}

// sideOpens reports whether what stands before the first side of a
// comparison at s[a] may announce it: a separator, a comparison or
// linking word, a name, or the marker of a key's value.
func sideOpens(s string, a int) bool {
	q, _ := openersBefore(s, a, 0)
	q = spacesBefore(s, q, 0, false)
	if q == 0 {
		return false
	}
	switch s[q-1] {
	case ':', '=':
		return true
	case ']':
		ok, _ := keyValueMarkerBefore(s, a)
		return ok
	}
	w := letterWordBefore(s, q)
	return w < q && (classOf(s, w, q)&(pcCompare|pcLink) != 0 || phraseNameAt(s, q, 0) != nil)
}

// phraseNameAt reports the rule of the credential name that ends at s[p],
// with sep as credentialBefore's separator (0 for none).
func phraseNameAt(s string, p int, sep byte) *contextRule {
	for n := 0; n < 2 && p > 0 && nameClosers[s[p-1]]; n++ {
		p--
	}
	if p == 0 || !mayEndContextWord[s[p-1]] {
		return nil
	}
	kb := keyWordStart(s, p, 0)
	spend(p - kb)
	if r := contextWordAt(s, kb, p, sep, false); r != nil {
		return r
	}
	return codeNameAt(s, kb, p)
}

// codeNameAt reports the credential row for a name s[kb:p] of pcCode
// after a word of pcCodeKind ("recovery code").
func codeNameAt(s string, kb, p int) *contextRule {
	// Only "code" and "codes" are of pcCode: other lengths need no lookup.
	if n := p - kb; n != len("code") && n != len("codes") || classOf(s, kb, p)&pcCode == 0 {
		return nil
	}
	q := spacesBefore(s, kb, 0, false)
	if q < kb && (classOf(s, letterWordBefore(s, q), q)|classOf(s, keyWordStart(s, q, 0), q))&pcCodeKind != 0 {
		return credentialRule
	}
	return nil
}

// credentialRule is the row of contextRules whose shape a code named so
// must have.
var credentialRule = func() *contextRule {
	for i := range contextRules {
		if contextRules[i].name == "credential" {
			return &contextRules[i]
		}
	}
	panic("sanitize: no credential row in contextRules")
}()

// qualifierByte holds the bytes of a word that qualifies a name: a
// user, a tenant, an address, a URL or a file's path (a Windows one too,
// or one the public tier redacted), quoted or in parentheses.
var qualifierByte = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.@'\"`():/\\[]")

// keyNamesEntry reports whether the name at s[kb] is an attribute inside
// a markup tag: the '<' that opens the tag stands at most maxTagLead bytes
// before it, with no '>' or line break between.
func keyNamesEntry(s string, kb int) bool {
	o := openedBefore(s, kb, '<', '>')
	return o >= 0 && o+1 < kb && isLetter(s[o+1])
}

// openedBefore returns where the last open byte before s[p] stands, when
// it stands at most maxTagLead bytes before it with no close byte or line
// break between, and -1 otherwise: the '<' of a tag around an attribute,
// the '[' of a list of pairs around a key.
func openedBefore(s string, p int, open, close byte) int {
	for k := p - 1; k >= 0 && p-k <= maxTagLead; k-- {
		switch s[k] {
		case open:
			spend(p - k)
			return k
		case close, '\n':
			spend(p - k)
			return -1
		}
	}
	spend(min(p, maxTagLead))
	return -1
}

// maxTagLead bounds how far before an attribute its tag may open, and
// before a key the bracket of its list.
const maxTagLead = 64

// keyValueMarkerBefore reports whether a marker the key-value rule wrote
// stands before the value at s[v], and where it starts: that rule takes
// the first word after a key it knows ("token: got ...") for the value,
// so the comparison word is gone by the time this rule reads the text.
// Only such a key's marker counts: the context rule never redacts after
// that key, so its own output is no marker of this kind, and running it
// again changes nothing.
//
// Only spaces count around the marker, not tabs: the log tier writes a tab
// as "\t", so a marker a tab set off would count in the pass that wrote it
// and not in the escaped text the next pass reads, and the log tier's
// result would not be a fixed point.
func keyValueMarkerBefore(s string, v int) (bool, int) {
	p, _ := openersBefore(s, v, 0)
	p = plainSpacesBefore(s, p)
	m := p - len(Redacted)
	if p == v || m < 1 || s[m:p] != Redacted {
		return false, p
	}
	q := plainSpacesBefore(s, m)
	if q == m || q == 0 || s[q-1] != ':' && s[q-1] != '=' {
		return false, p
	}
	if !markerKeyBefore(s, q-1) {
		return false, p
	}
	return true, m
}

// markerKeyBefore reports whether a key the key-value rule knows stands
// before the separator at s[q], also when the key is glued to the escape
// of a line break, a tab or another control byte ("\\nApiKey:",
// "\\u00070SeCret:"): the log tier writes those
// escapes, so the next pass and the escape re-check, which decodes them,
// must both see the key.
func markerKeyBefore(s string, q int) bool {
	if _, _, ok := keyBefore(s, q); ok {
		return true
	}
	kb, ok := escapedNameStart(s, keyWordStart(s, q, 0), q)
	if !ok {
		return false
	}
	_, _, ok = keyBefore(s[kb:], q-kb)
	return ok
}

// plainSpacesBefore steps back over the spaces before s[p].
func plainSpacesBefore(s string, p int) int {
	for p > 0 && s[p-1] == ' ' {
		p--
	}
	return p
}
