package sanitize

import "strings"

// Pairs and siblings: a credential's value that its name announces from
// one step further away than a separator or a phrase — an appositive
// ("the new password, <value>, was saved"), the new side of a change
// ("token rotated: old=abc new=<value>", "secret; new value <value>"), an
// item of a scheme list ("X-Signature: t=1712345678,v1=<value>",
// "signature mismatch: sha256=<value>"), or a comparison member of a JSON
// object whose other member names the credential ({"error":"invalid
// token","expected":"<value>"}). Each reads back no further than
// contextReach from the value.

// maxListItems bounds the items of a list, and the words of a change,
// read back between a value and its name.
const maxListItems = 6

// maxItemKey bounds the key of a list item ("v1", "sha256", "previous").
const maxItemKey = 10

// algorithmSuffix returns the length of the part that ends the name k
// when it names the algorithm of a credential or its version rather than
// the credential ("HMAC-SHA256", "x-hub-signature-256", "token_v2"), or
// 0.
func algorithmSuffix(k string) int {
	// Every such part ends in a digit ("256", "v2", "md5"), and most
	// names in a letter.
	if !isDigit(k[len(k)-1]) {
		return 0
	}
	i := len(k)
	for i > 0 && (isDigit(k[i-1]) || isLetter(k[i-1])) {
		i--
	}
	if i == 0 || i == len(k) || k[i-1] != '-' && k[i-1] != '_' {
		return 0
	}
	part := k[i:]
	digits := 0
	for digits < len(part) && isDigit(part[len(part)-1-digits]) {
		digits++
	}
	switch name := part[:len(part)-digits]; {
	case digits == len(part) && digits <= 3:
	case digits > 0 && (len(name) == 1 && name[0]|0x20 == 'v' || len(name) == 3 && hasPrefixFold(name, "sha") || len(name) == 2 && hasPrefixFold(name, "md")):
	default:
		return 0
	}
	return len(k) - i + 1
}

// changeMarkers are the words that mark a side of a change (itemKeyEnd
// holds them too, by their first letter).
var changeMarkers = []string{"old", "new", "current", "previous", "prev"}

func isChangeMarker(s string, b, e int) bool {
	for _, m := range changeMarkers {
		if e-b == len(m) && hasPrefixFold(s[b:e], m) {
			return true
		}
	}
	return false
}

// listedBefore reports the rule of the name that announces the value at
// s[v] as an item "k=<value>" of a list after it: a scheme's or a
// version's key ("sha256=", "v1=") after a separator, or a side of a
// change ("new=", "old=") after the name and its verb.
func listedBefore(s string, v int) *contextRule {
	if v < 2 || s[v-1] != '=' {
		return nil
	}
	lo := max(0, v-contextReach)
	s, v = s[lo:], v-lo
	w := v - 1
	for w > 0 && v-1-w < maxItemKey && (isLetter(s[w-1]) || isDigit(s[w-1])) {
		w--
	}
	// A key glued to a line break or a tab the log tier escaped
	// ("\\n000000=", "\\t0000000000=") starts after it, as keyWordStart
	// reads a name, whether the key's bytes reached back to the escape's
	// letter or stopped at the bound just after it: the items before it
	// are then read across the escape, as they are across the byte it
	// stands for.
	if w > 0 && s[w-1] == '\\' && logEscapeLen(s, w) == 1 {
		w++
	}
	if w >= v-1 || w > 0 && credentialValueByte[s[w-1]] && !afterLogEscape(s, w) {
		return nil
	}
	return itemsBefore(s, w, isChangeMarker(s, w, v-1))
}

// itemsBefore reads back from the list item that starts at s[p] over the
// items before it ("t=1712345678,"), the marks that separate them and,
// for a side of a change (change), the verbs and qualifiers after the
// name ("credential rotated, new value"), to the name that announces the
// list. A list's own item names no credential, and a word of prose that
// neither names one nor qualifies a name ("checksum sha256=...") ends it.
func itemsBefore(s string, p int, change bool) *contextRule {
	for range maxListItems {
		p = spacesBefore(s, p, 0, true)
		if p == 0 {
			return nil
		}
		switch c := s[p-1]; {
		case c == ',' || c == ';' || c == '(' || change && c == '.':
			p--
			continue
		case change && c == '>' && p > 1 && s[p-2] == '-':
			p -= 2
			continue
		case c == '"' || c == '\'':
			// a quoted item: old="abc"
			o := strings.LastIndexByte(s[:p-1], c)
			if o < 1 || s[o-1] != '=' {
				return nil
			}
			spend(p - o)
			p = o
			continue
		case c == ':':
			return qualifiedName(s, p-1, ':', true)
		case c == ']':
			return redactedKeyBefore(s, p)
		}
		a := itemStartBefore(s, p)
		if a == p {
			return nil
		}
		if strings.IndexByte(s[a:p], '=') > 0 {
			p = a
			continue
		}
		if m := markerItemStart(s, a); change && m >= 0 {
			p = m
			continue
		}
		if r := phraseNameAt(s, p, 0); r != nil {
			return r
		}
		// the words after the name: "rotated", "mismatch (got"
		b := letterWordBefore(s, p)
		if b != a || classOf(s, b, p)&(pcVerb|pcAux|pcQual|pcCompare) == 0 {
			return nil
		}
		p = b
	}
	return nil
}

// itemStartBefore returns where the list item that ends at s[p] starts:
// at the first of its value bytes, up to maxValueLead of them. An item
// glued to an escape the log tier writes ("\\n0=") starts after it, as
// it does after the line break the escape stands for: the items before it
// are then read across the escape.
func itemStartBefore(s string, p int) int {
	a := p
	for a > 0 && p-a < maxValueLead && credentialValueByte[s[a-1]] {
		a--
	}
	spend(p - a)
	if q := pastLogEscape(s, a); q < p {
		a = q
	}
	return a
}

// redactedKeyBefore reports the credential row when the marker that
// ends at s[p] is the value the key-value rule redacted after a key it
// knows ("X-Signature: [redacted],v1=..."): the list is that key's.
func redactedKeyBefore(s string, p int) *contextRule {
	m := p - len(Redacted)
	if m < 2 || s[m:p] != Redacted {
		return nil
	}
	q := spacesBefore(s, m, 0, false)
	if q == 0 || s[q-1] != ':' && s[q-1] != '=' {
		return nil
	}
	if _, _, ok := keyBefore(s, q-1); ok {
		return credentialRule
	}
	return nil
}

// pairedBefore reports the rule of a name that announces the run of
// value bytes s[v:runEnd], which holds the trigger s[i], as an
// appositive, the new side of a change in words ("new value <value>") or
// a comparison member of a JSON object, and where its value starts; or,
// for a run that opens with a list item's key ("sha256=<value>",
// "v1=<value>", "new=<value>"), the rule of that item. sep marks a
// separator between v and i.
func pairedBefore(s string, v, i, runEnd int, sep bool) (int, *contextRule) {
	if e := itemKeyEnd(s, v, i, runEnd, sep); e > 0 {
		// a name whose own digits are the trigger ("hmac_sha256=")
		if r := credentialBefore(s, e+1); r != nil {
			return e + 1, r
		}
		if r := listedBefore(s, e+1); r != nil {
			return e + 1, r
		}
	}
	if v == 0 {
		return v, nil
	}
	lo := max(0, v-contextReach)
	if r := appositiveAt(s, v, runEnd, lo); r != nil {
		return v, r
	}
	switch s[v-1] {
	case ' ', '\n', ':':
		return v, changedValueBefore(s, v, lo)
	case '>':
		return v, elementSiblingBefore(s[lo:], v-1-lo, runEnd-lo)
	case '"', '\'', '`':
		if v > 2 && s[v-2] == '=' {
			return v, listedBefore(s, v-1)
		}
		if s[v-1] == '"' {
			return v, siblingBefore(s[lo:], v-1-lo, runEnd-lo)
		}
	}
	return v, nil
}

// appositiveAt reports the rule of a name that announces the run of
// value bytes s[v:runEnd] set off by commas, quoted or not, with one
// line break at most before it; the second comma may be the end of the
// text or of its line ("... the password, <value>").
func appositiveAt(s string, v, runEnd, lo int) *contextRule {
	e := runEnd
	if e < len(s) && (s[e] == '"' || s[e] == '\'' || s[e] == '`') {
		e++
	}
	if e < len(s) && s[e] != ',' && s[e] != ';' && s[e] != '\n' && s[e] != '\r' {
		return nil
	}
	q, _ := openersBefore(s, v, lo)
	c := spacesBefore(s, q, lo, true)
	if c <= lo || s[c-1] != ',' {
		return nil
	}
	return appositiveName(s[lo:], c-1-lo)
}

// itemKeyEnd returns the index of the '=' that ends a list item's key at
// the start of the run s[v:runEnd], or 0. The key of a value is a side
// of a change, or a scheme's, a version's or a name's with digits
// ("v1", "sha256", "hmac_sha256"): the trigger s[i] then stands in the
// key, with no separator before it (sep). A word in letters alone
// ("password=") is a key the key-value rule reads.
func itemKeyEnd(s string, v, i, runEnd int, sep bool) int {
	// The marker that the first letter allows, compared once.
	m := ""
	switch s[v] | 0x20 {
	case 'o':
		m = "old"
	case 'n':
		m = "new"
	case 'c':
		m = "current"
	case 'p':
		m = "prev"
		if v+8 < runEnd && s[v+8] == '=' {
			m = "previous"
		}
	}
	if e := v + len(m); m != "" && e+minContextValue < runEnd && s[e] == '=' && hasPrefixFold(s[v:e], m) {
		return e
	}
	if sep || !isDigit(s[i]) || i-v >= maxKeyWord {
		return 0
	}
	for e := i + 1; e < runEnd && e-i <= maxItemKey; e++ {
		switch c := s[e]; {
		case c == '=':
			if e+minContextValue >= runEnd || !allKeyName(s[v:i]) {
				return 0
			}
			return e
		case !isKeyNameByte(c):
			return 0
		}
	}
	return 0
}

func allKeyName(k string) bool {
	for i := 0; i < len(k); i++ {
		if !isKeyNameByte(k[i]) {
			return false
		}
	}
	return true
}

// appositiveName reports the rule of a name that ends at the comma
// s[c] before a value set off by commas ("the new password, <value>,
// was saved"). A name after a preposition ("sorted by key, <id>, then")
// heads a list of its own.
func appositiveName(s string, c int) *contextRule {
	r := phraseNameAt(s, c, 0)
	if r == nil {
		return nil
	}
	kb := keyWordStart(s, c, 0)
	q := spacesBefore(s, kb, 0, false)
	if q < kb && classOf(s, letterWordBefore(s, q), q)&pcPrep != 0 {
		return nil
	}
	return r
}

// changedValueBefore reports the rule of a change whose new side the
// words "new value" (or "old value"), with or without a colon, announce
// before the value at s[v].
func changedValueBefore(s string, v, lo int) *contextRule {
	p := v - 1
	if s[p] == ' ' && p > 0 && s[p-1] == ':' {
		p--
	}
	if s[p] == ':' && p-lo >= 3 && s[p-1]|0x20 >= 'a' {
		// "old: abc new: <value>"
		if m := letterWordBefore(s, p); m >= lo && isChangeMarker(s, m, p) {
			return itemsBefore(s[lo:], m-lo, true)
		}
	}
	if p-lo < len("value") || s[p-1]|0x20 != 'e' || !hasSuffixFold(s[:p], "value") {
		return nil
	}
	s, p = s[lo:], p-lo
	b := p - len("value")
	e := spacesBefore(s, b, 0, false)
	m := letterWordBefore(s, e)
	if e == b || m == e || !isChangeMarker(s, m, e) {
		return nil
	}
	return itemsBefore(s, m, true)
}

// markerItemStart returns the start of the side of a change whose value
// starts at s[a] when a marker announces it in words ("old: abc",
// "previous value abc"), or -1.
func markerItemStart(s string, a int) int {
	q := spacesBefore(s, a, 0, false)
	if q > 0 && s[q-1] == ':' {
		q = spacesBefore(s, q-1, 0, false)
	}
	if q == a {
		return -1
	}
	w := letterWordBefore(s, q)
	if q-w == len("value") && hasPrefixFold(s[w:q], "value") {
		q = spacesBefore(s, w, 0, false)
		if q == w {
			return -1
		}
		w = letterWordBefore(s, q)
	}
	if w == q || !isChangeMarker(s, w, q) {
		return -1
	}
	return w
}

// siblingBefore reports the credential row for a JSON string whose
// opening quote is s[q], the value of a member whose key is a comparison
// word ("expected", "received"), when a member before it in the same
// object names a credential in its text ("error":"signature mismatch"),
// or one after it, which the value's run of bytes ends before s[end].
func siblingBefore(s string, q, end int) *contextRule {
	// A JSON string inside a JSON string escapes its quotes.
	esc := q > 0 && s[q-1] == '\\'
	if esc {
		q--
	}
	p := spacesBefore(s, q, 0, false)
	if p < 2 || s[p-1] != ':' {
		return nil
	}
	p = spacesBefore(s, p-1, 0, false)
	if p == 0 || s[p-1] != '"' {
		return nil
	}
	ke := p - 1
	if esc && ke > 0 && s[ke-1] == '\\' {
		ke--
	}
	k := letterWordBefore(s, ke)
	if k == ke || k == 0 || s[k-1] != '"' || classOf(s, k, ke)&pcCompare == 0 && !isChangeMarker(s, k, ke) {
		return nil
	}
	if r := namedBefore(s, k-1, '{'); r != nil {
		return r
	}
	return namedAfter(s, end, '}')
}

// elementSiblingBefore reports the credential row for the text of an
// element whose start tag, a comparison word or a side of a change
// (<Expected>), ends at s[gt], when a word before it names a credential
// (<Code>SignatureDoesNotMatch</Code>), or one after the text, which
// ends before s[end].
func elementSiblingBefore(s string, gt, end int) *contextRule {
	lt := gt
	for lt > 0 && gt-lt <= maxPhraseWord && isLetter(s[lt-1]) {
		lt--
	}
	if lt == gt || lt == 0 || s[lt-1] != '<' || classOf(s, lt, gt)&pcCompare == 0 && !isChangeMarker(s, lt, gt) {
		return nil
	}
	if r := namedBefore(s, lt-1, 0); r != nil {
		return r
	}
	return namedAfter(s, end, 0)
}

// namedBefore reports the rule of the first credential name that ends
// before s[e], read back to the byte stop or the start of s: a word's
// end or a part of a name in camel case ("SignatureDoesNotMatch").
func namedBefore(s string, e int, stop byte) *contextRule {
	spend(e)
	for i := e; i > 0 && s[i] != stop; i-- {
		if isLetter(s[i-1]) && (!isLetter(s[i]) || 'a' <= s[i-1] && 'A' <= s[i] && s[i] <= 'Z') {
			if r := phraseNameAt(s, i, 0); r != nil {
				return r
			}
		}
	}
	return nil
}

// slashUserAt returns the start of the user that a password at s[p]
// follows after " / " ("creds: deploy / <password>", "login: admin /
// <password>"), or -1: the word before the user names the pair, and the
// password alone is redacted. Either may be quoted ("login: 'admin' /
// '<password>'").
func slashUserAt(s string, p int) int {
	if isQuote[s[p-1]] {
		p--
	}
	if p < 4 || s[p-1] != ' ' || s[p-2] != '/' || s[p-3] != ' ' {
		return -1
	}
	q := p - 3
	if q > 1 && isQuote[s[q-1]] {
		q--
	}
	return pairUserBefore(s, q)
}

// identifiedByAt reports the credential row for the value at s[p] after
// SQL's "IDENTIFIED BY" (CREATE USER and ALTER USER in MySQL, MariaDB and
// Oracle: "IDENTIFIED BY '<password>'"), quoted or not.
func identifiedByAt(s string, p int) *contextRule {
	q := p
	if q > 0 && isQuote[s[q-1]] {
		q--
	}
	if q < len(" identified by ") || s[q-1] != ' ' || s[q-2]|0x20 != 'y' || !hasSuffixFold(s[:q-1], " identified by") {
		return nil
	}
	return credentialRule
}
