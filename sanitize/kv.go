package sanitize

import (
	"slices"
	"strings"
)

// Key-value secrets are found from their separator backwards: ':' and '='
// are rare in prose, so clean text costs one byte comparison per byte, and
// a key matches by its ending, so "db_password" and "X-Api-Key" need no
// list of their own.

type keyword struct {
	word string
	line bool
	// tail holds the word's last eight bytes as keyTails does, and
	// letters whether they are all of it and all letters: then a match of
	// tail is a match of the word.
	tail     keyTail
	letters  bool
	whole    bool
	separate bool
}

// keysByLast groups the key names by their last byte, in either case, so
// that a separator after an ordinary word ("order:") costs one lookup
// instead of a comparison with every name. No name is a suffix of another,
// so the grouping cannot change which one matches.
var keysByLast = func() (t [256][]keyword) {
	add := func(w string, line bool) {
		k := keyword{word: w, line: line, tail: tailOf(w), letters: len(w) <= 8, whole: slices.Contains(wholeKeys, w),
			separate: slices.Contains(separateKeys, w)}
		for i := 0; i < len(w); i++ {
			k.letters = k.letters && 'a' <= w[i] && w[i] <= 'z'
		}
		c := w[len(w)-1]
		t[c] = append(t[c], k)
		t[c-'a'+'A'] = append(t[c-'a'+'A'], k)
	}
	for _, w := range lineKeys {
		add(w, true)
	}
	for _, w := range secretKeys {
		add(w, false)
	}
	return t
}()

// keyTails holds the last two bytes of every key name, of the qualified
// "..._key" names and of the type names withoutTypeName skips, hashed by
// tailIndex, and for each pair the last eight bytes (all of a shorter
// name) of the names that end with it: a filter that lets through every
// key and few other words ("validation" ends as "session" and
// "authorization" do in two bytes and in four, not in eight).
var keyTails = func() (t [1 << 10][]keyTail) {
	add := func(w string) {
		k := tailOf(w)
		if i := tailIndex(w[len(w)-2], w[len(w)-1]); !slices.Contains(t[i], k) {
			t[i] = append(t[i], k)
		}
	}
	for _, w := range lineKeys {
		add(w)
	}
	for _, w := range secretKeys {
		add(w)
	}
	for _, w := range []string{"key", "code", "str", "string", "value"} {
		add(w)
	}
	return t
}()

// A keyTail holds the last bytes of a name, each with 0x20 set (a byte
// that matches a name's in either case, as hasSuffixFold compares, has the
// same), in the top bytes of a word that mask selects.
type keyTail struct{ bits, mask uint64 }

// tailOf returns the keyTail of the last eight bytes of w (all of a
// shorter w).
func tailOf(w string) keyTail {
	n := min(len(w), 8)
	var buf [8]byte
	copy(buf[8-n:], w[len(w)-n:])
	k := keyTail{mask: ^uint64(0) << (8 * (8 - n))}
	k.bits = (load64(string(buf[:]), 0) | foldBytes) & k.mask
	return k
}

const foldBytes = 0x2020202020202020

// keyTailAt reports whether the name that ends at s[j] (j >= 2) may end
// with a name of keyTails. Before the eighth byte of s it does not read
// further than the pair.
func keyTailAt(s string, j int) bool {
	ks := keyTails[tailIndex(s[j-2], s[j-1])]
	if len(ks) == 0 || j < 8 {
		return len(ks) > 0
	}
	x := load64(s, j-8) | foldBytes
	for _, k := range ks {
		if x&k.mask == k.bits {
			return true
		}
	}
	return false
}

// mayKeyBefore is keyBefore's first test for the ':' or '=' at s[q], cheap
// enough to run before the call: a word of prose before it ("validation:
// ") ends with a lower-case letter, and keyBefore rejects it by its last
// bytes alone unless it is a plural ('s'), which keyBefore reads further.
// It reports false only where keyBefore finds no key (TestMayKeyBefore).
func mayKeyBefore(s string, q int) bool {
	if q < 2 {
		return false
	}
	c := s[q-1]
	if c < 'a' || c > 'z' || c == 's' {
		return true
	}
	return len(keyTails[tailIndex(s[q-2], c)]) > 0 && keyTailAt(s, q)
}

// tailIndex hashes two bytes, folding case: letters keep their place in
// the alphabet and every byte its low five bits.
func tailIndex(a, b byte) int { return int(a&31)<<5 | int(b&31) }

// mayEndKey holds the bytes that can stand just before the separator of a
// secret key: most separators follow an ordinary word ("order: ...") and
// are rejected by one lookup.
var mayEndKey = func() (t [256]bool) {
	for c := range 256 {
		t[c] = len(keysByLast[c]) > 0
	}
	for _, c := range []byte(" \t\"'\\yYgGrR]") {
		t[c] = true
	}
	return t
}()

// keyBefore reports whether the separator at s[q] follows a secret key,
// allowing the quotes and spaces of JSON and YAML in between. Separators
// are ':' and '=', with the operators around '=' that configuration and
// code use ("=>", ":=", "::=", "?=", ".=", "+="), ',' after a quoted key
// (setProperty("K", "v")) and '>' closing an XML element named after the
// key. It returns where the key's keyword starts and whether the value runs
// to the end of the line.
func keyBefore(s string, q int) (start int, line, ok bool) {
	if q == 0 {
		return 0, false, false
	}
	switch s[q] {
	case '"', '\'':
		return quotedAfterKeyword(s, q)
	case '>':
		if s[q-1] == '"' || s[q-1] == '\'' {
			start, ok = namedElementBefore(s, q)
			return start, false, ok
		}
	}
	j, ok := keyEndBefore(s, q)
	if !ok {
		return 0, false, false
	}
	// A plural of a secret's name ("api_keys", "tokens") names secrets
	// when its value is a list or an object of them; before a number or a
	// word it counts or describes them ("tokens: 4096").
	plural := j >= 3 && s[j-1]|0x20 == 's' && (s[q] == ':' || s[q] == '=') && structureAfter(s, q)
	// Most separators follow an ordinary word ("order:"): its last two
	// bytes end no key name and no type name, and one lookup rejects it.
	if j < 2 || !plural && !keyTailAt(s, j) {
		return 0, false, false
	}
	j = withoutTypeName(s, j)
	if j == 0 {
		return 0, false, false
	}
	// A property list's value element (<string> after </key>) is a tag of
	// its own, which the checks below would read as the key. Only '>'
	// closes one, so the other separators skip the look back.
	if s[q] == '>' {
		if v, found := keyElementValue(s, q); found && !secretKeyTag(s, j) {
			return v, false, true
		}
	}
	start, line, ok = keyNameEnding(s, q, j, plural)
	if !ok || inPath(s, start, q) && !assignsInPath(s, q) || s[q] == '>' && !xmlTagBefore(s, start, q) {
		return 0, false, false
	}
	return start, line, true
}

// keyEndBefore finds where the name of a key ends before the separator at
// s[q]: before the rest of an operator ("=>", ":=", "::=", "?=", ".=",
// "+="), spaces, a closing quote (escaped inside a JSON string) and the
// bracket of an array element ($config['secret'] = ...).
func keyEndBefore(s string, q int) (int, bool) {
	j := q
	switch s[q] {
	case '=':
		for n := 0; n < 3 && j > 0 && isAssignOp(s[j-1]); n++ {
			j--
		}
	case ',':
		if s[q-1] != '"' && s[q-1] != '\'' {
			return 0, false
		}
	case '>':
		if !isWordByte(s[q-1]) {
			return 0, false
		}
	}
	if j == 0 || !mayEndKey[s[j-1]] {
		return 0, false
	}
	// Most keys end in a letter or digit, before none of what follows.
	if isAlnum(s[j-1]) {
		return j, true
	}
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j > 1 && s[j-1] == ']' && (s[j-2] == '\'' || s[j-2] == '"') {
		j--
	} else if j > 1 && s[j-1] == ']' && isAlnum(s[j-2]) {
		// A bare array key: PHP's print_r writes "[password] => ...".
		return j - 1, true
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		j--
	}
	if j > 0 && s[j-1] == '\\' {
		j--
	}
	return j, true
}

// secretKeyTag reports whether the name that ends at s[j] names a secret
// by its ending, in which case an element of that name is the key itself.
func secretKeyTag(s string, j int) bool {
	_, _, ok := secretKeyEnding(s[:j])
	return ok
}

// keyNameEnding reports whether the name that ends at s[j], before the
// separator at s[q], names a secret: by its ending, in the plural, as the
// "value" of a name-value pair, or as "key" in a URL's query.
func keyNameEnding(s string, q, j int, plural bool) (start int, line, ok bool) {
	k := s[:j]
	if start, line, ok = secretKeyEnding(k); ok {
		return start, line, true
	}
	if plural && k[j-1]|0x20 == 's' {
		if start, line, ok = secretKeyEnding(k[:j-1]); ok {
			return start, line, true
		}
	}
	if k[j-1]|0x20 == 'e' && s[q] != ',' && s[q] != '>' && hasSuffixFold(k, "value") {
		if namedValueBefore(s, j-len("value"), q) {
			return j - len("value"), false, true
		}
	}
	// "key" alone names too many things, but not as a URL's query
	// parameter: "?key=..." is how many APIs take their key. Nor does
	// "code", but a long "?code=..." (or "#code=") is OAuth's
	// authorization code on its way to the redirect URI, which buys tokens
	// while it lives; a country's, a promotion's or an error's is short.
	if s[q] == '=' && j == q && j >= 4 {
		if hasSuffixFold(k, "key") && (k[j-4] == '?' || k[j-4] == '&') {
			return j - 3, false, true
		}
		if j >= 5 && hasSuffixFold(k, "code") && (k[j-5] == '?' || k[j-5] == '&' || k[j-5] == '#') && queryValueLen(s, q+1) >= minOAuthCode {
			return j - 4, false, true
		}
	}
	return 0, false, false
}

// qualifiersByLast holds keyQualifiers by their last letter: a word
// before "key" is checked against the few that end as it does, not all of
// them (a text of "key=key=..." checked every qualifier at every '=').
// Indexed by the byte with 0x20 set, which folds letters to lower case and
// maps no other byte onto a letter (qualifiers end with a letter).
var qualifiersByLast = func() (t [256][]string) {
	for _, w := range keyQualifiers {
		t[w[len(w)-1]] = append(t[w[len(w)-1]], w)
	}
	return t
}()

// secretKeyEnding reports whether k ends with the name of a secret key
// and where that name starts.
func secretKeyEnding(k string) (start int, line, ok bool) {
	if k == "" {
		return 0, false, false
	}
	// A name of eight bytes or more is compared eight bytes at once, which
	// for a word of letters alone is the whole comparison: a letter with
	// 0x20 set is the lower-case letter exactly when it was that letter
	// in either case.
	var x uint64
	if len(k) >= 8 {
		x = load64(k, len(k)-8) | foldBytes
	}
	for _, w := range keysByLast[k[len(k)-1]] {
		if len(k) >= 8 && x&w.tail.mask != w.tail.bits {
			continue
		}
		if len(k) >= 8 && w.letters || hasSuffixFold(k, w.word) {
			if start := len(k) - len(w.word); w.matchesAt(k, start) {
				return start, w.line, true
			}
		}
	}
	if k[len(k)-1]|0x20 == 'y' && hasSuffixFold(k, "key") {
		r := k[:len(k)-3]
		// "secret_key", "Secret-Key", "secret.key" and, in prose and YAML
		// written by hand, "secret key", where a verb does not qualify ("write
		// key=value pairs").
		spaced := strings.HasSuffix(r, " ")
		if strings.HasSuffix(r, "_") || strings.HasSuffix(r, "-") || strings.HasSuffix(r, ".") || spaced {
			r = r[:len(r)-1]
		}
		if r == "" {
			return 0, false, false
		}
		for _, w := range qualifiersByLast[r[len(r)-1]|0x20] {
			if hasSuffixFold(r, w) && !(spaced && verbQualifier(w)) {
				return len(r) - len(w), false, true
			}
		}
	}
	return 0, false, false
}

// verbQualifier reports the qualifiers that are verbs too: "write key",
// "deploy key" name a key glued, and an action spaced.
func verbQualifier(w string) bool { return w == "write" || w == "deploy" }

// proseKeywords name a secret in a sentence, the value quoted after them:
// fmt.Errorf("invalid password %q", pw) is the bug that puts one in an
// error.
var proseKeywords = []string{"password", "passwd", "passphrase", "secret", "token", "api key", "apikey", "credential"}

// quotedAfterKeyword reports whether the quote at s[q] opens the value of
// a secret named just before it in prose ("invalid password 'hunter2'",
// `bad token "..."`): one space between them, the keyword a whole word.
func quotedAfterKeyword(s string, q int) (int, bool, bool) {
	sp := q - 1
	if s[q] == '"' && sp > 0 && s[sp] == '\\' {
		sp-- // an escaped quote, inside a JSON string
	}
	if sp < 1 || s[sp] != ' ' {
		return 0, false, false
	}
	k := s[:sp]
	for _, w := range proseKeywordsByLast[k[len(k)-1]|0x20] {
		if hasSuffixFold(k, w) && (len(k) == len(w) || !isWordByte(k[len(k)-len(w)-1])) {
			return len(k) - len(w), false, true
		}
	}
	return 0, false, false
}

// proseKeywordsByLast holds proseKeywords by last letter: a quote after
// a space is checked against the few that end as the word before it does
// (a byte with 0x20 set is the lower-case letter exactly when it was that
// letter in either case).
var proseKeywordsByLast = func() (t [256][]string) {
	for _, w := range proseKeywords {
		t[w[len(w)-1]] = append(t[w[len(w)-1]], w)
	}
	return t
}()

func isAssignOp(c byte) bool { return c == ':' || c == '?' || c == '.' || c == '+' || c == '!' }

// withoutTypeName steps back over a type between a name and its '='
// ("var token string = ...", "token: str = ..."), returning the end of
// the name, or j when there is no type.
func withoutTypeName(s string, j int) int {
	if j == 0 || s[j-1] != 'g' && s[j-1] != 'r' {
		return j
	}
	for _, typ := range []string{" string", " String", ": str", ": String", ": string"} {
		if strings.HasSuffix(s[:j], typ) {
			k := j - len(typ)
			for k > 0 && s[k-1] == ' ' {
				k--
			}
			return k
		}
	}
	return j
}

// isKeyNameByte reports whether c may stand in a key's name: a word
// byte, '-' or '.'. One lookup: the names are read back byte by byte at
// every separator.
func isKeyNameByte(c byte) bool { return keyNameBytes[c] }

var keyNameBytes = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")

// redactKeyValues replaces the values of secret keys. A separator may be
// followed by spaces ("password: x"), so a value can be the next key
// ("password= client_secret: x"); that pair is skipped so that the later
// secret is not hidden behind the earlier key. Every separator costs work
// bounded by the distance to the next one or by the value it redacts, so
// chains of keys ("token=token=...") stay linear.
//
// It also reports whether its result is settled: whether it would return
// that result unchanged (see settledValue).
func redactKeyValues(s string) (string, bool) { return redactPairs(s, nil) }

// redactPairs is redactKeyValues for a text whose first pair the scan may
// have read already (first, see kvFirst): the search starts at its
// separator, and its key and value are not read again.
func redactPairs(s string, first *kvFirst) (string, bool) {
	e := edit{s: s}
	settled, alone := true, false
	q := 0
	if first.holds(s) {
		// The first pair, read already: nothing before it is redacted.
		q = first.q
		if v := first.value(s); v.ok {
			settled, alone = v.settled, true
			q = e.redactValue(q, v)
		}
		q = nextKVSep(s, q+1)
	} else {
		q = nextKVSep(s, 0)
	}
	for ; q < len(s); q = nextKVSep(s, q+1) {
		ks, line, ok := keyBefore(s, q)
		if !ok {
			continue
		}
		if ks < e.last {
			// The key sits in the tail of a value redacted before it: once
			// that value is gone, a second run may take this pair.
			settled = false
			continue
		}
		if v := kvValueAt(s, q, ks, line); v.ok {
			settled = settled && v.settled
			q = e.redactValue(q, v)
		}
	}
	t := e.result()
	if alone && e.writes == 1 {
		first.out = t
	}
	return t, settled
}

// redactValue replaces the core of the value v after the separator s[q]
// and returns where the search for the next separator resumes: the
// separators inside the value are its own.
func (e *edit) redactValue(q int, v kvValue) int {
	e.replace(v.cs, v.ce, Redacted)
	e.last = v.ve
	return max(q, v.ve-1)
}

// A kvValue is what the key-value rule redacts after a key: the core
// s[cs:ce] of the value s[:ve] (ok says there is one), and whether a second
// run leaves the redaction as it is (see settledValue).
type kvValue struct {
	cs, ce, ve  int
	settled, ok bool
}

// kvValueAt reads the value after the separator s[q] of the key that
// starts at s[ks] (line: the value runs to the end of the line).
func kvValueAt(s string, q, ks int, line bool) kvValue {
	vs := valueStart(s, q)
	if vs >= len(s) {
		return kvValue{}
	}
	var ve int
	nextLine := false
	if n := lineBreakAt(s, vs); n > 0 && s[q] != '>' && s[q] != ',' {
		var ok bool
		nextLine = true
		if vs, ve, ok = nextLineValue(s, vs+n, line); !ok {
			return kvValue{}
		}
	} else {
		if valueIsKey(s, vs) {
			return kvValue{}
		}
		if n := blockIndicator(s, vs); n > 0 && !line && s[q] == ':' {
			var ok bool
			if vs, ve, ok = blockScalarLine(s, vs+n); !ok {
				return kvValue{}
			}
		} else {
			vs, ve = valueAt(s, q, line)
			if !line {
				ve = slashPairEnd(s, vs, dsnValueEnd(s, ks, vs, ve))
			}
		}
	}
	if ve <= vs || !line && (s[q] == ':' || nextLine) && isValidationWord(s[vs:ve]) {
		return kvValue{}
	}
	cs, ce := valueCore(s, vs, ve)
	if placeholderAt(s, cs, ce) {
		return kvValue{}
	}
	return kvValue{cs: cs, ce: ce, ve: ve, settled: !line && !nextLine && settledValue(s, q, vs, cs, ce, ve), ok: true}
}

// kvSeps are the separators keyBefore reads.
var kvSeps = byteSet(":=,>\"'")

// kvPairs holds, for two bytes (the first the index's low byte), how many
// of them come before the first of kvSeps: 2 for a pair that holds none.
// 64 KiB, of which a text reads a few lines.
var kvPairs = func() (t [1 << 16]uint8) {
	for a := range 256 {
		for b := range 256 {
			switch {
			case kvSeps[a]:
			case kvSeps[b]:
				t[a|b<<8] = 1
			default:
				t[a|b<<8] = 2
			}
		}
	}
	return t
}()

// nextKVSep returns the index of the first of kvSeps in s at or after i,
// or len(s): eight bytes a step, two a lookup (kvPairs; TestNextKVSep
// checks it against the byte-by-byte search). Where separators
// are dense (JSON, a DSN) one IndexByte search a separator of each kind,
// as the rule made before, cost more than the bytes it skipped, and a
// table of one byte a lookup cost more on prose.
func nextKVSep(s string, i int) int {
	from := i
	for i+8 <= len(s) {
		t := s[i : i+8]
		if n := kvPairs[uint16(t[0])|uint16(t[1])<<8]; n < 2 {
			i += int(n)
			break
		}
		if n := kvPairs[uint16(t[2])|uint16(t[3])<<8]; n < 2 {
			i += 2 + int(n)
			break
		}
		if n := kvPairs[uint16(t[4])|uint16(t[5])<<8]; n < 2 {
			i += 4 + int(n)
			break
		}
		if n := kvPairs[uint16(t[6])|uint16(t[7])<<8]; n < 2 {
			i += 6 + int(n)
			break
		}
		i += 8
	}
	for i < len(s) && !kvSeps[s[i]] {
		i++
	}
	spend(i - from + 1)
	return i
}

// settledValue reports whether the value s[vs:ve] of the separator at s[q],
// redacted in its core s[cs:ce], is left as it is by a second run, which
// then reads what surrounds it as the first did: the value is one word
// after ':' or '=' (no extension over spaces or lines, which a redaction
// can move), of printable bytes, and it ends where a bare value ends, so
// no key name reaches into it from the byte after it. What valueCore
// leaves around the core are quotes. A settled run lets settle skip the
// pass that would confirm it (TestKeyValuesSettled).
func settledValue(s string, q, vs, cs, ce, ve int) bool {
	if s[q] != ':' && s[q] != '=' || cs >= ce {
		return false
	}
	for i := vs; i < ve; i++ {
		if s[i]-'!' > '~'-'!' {
			return false
		}
	}
	return ve == len(s) || settledEnd[s[ve]]
}

// settledEnd are the bytes that may follow a settled value.
var settledEnd = byteSet(" \t\r\n&,;\"')}")

// validationWords start the messages of validators ("password: field
// required", "token: must not be empty"): after "key:" such a word is the
// start of prose, not a secret.
var validationWords = map[string]bool{
	"required": true, "missing": true, "invalid": true, "empty": true, "must": true, "should": true,
	"cannot": true, "field": true, "is": true, "not": true, "expected": true, "too": true,
	"unknown": true, "unset": true, "none": true, "null": true, "nil": true, "redacted": true,
	// MySQL's "Access denied ... (using password: YES)" says whether one was sent.
	"yes": true, "no": true,
}

// isValidationWord reports whether v is one of validationWords in any
// case, without allocating.
func isValidationWord(v string) bool {
	var buf [8]byte
	if len(v) > len(buf) {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return validationWords[string(buf[:len(v)])]
}

// indexFrom returns the index of the first c in s at or after i, or len(s).
func indexFrom(s string, i int, c byte) int {
	if k := strings.IndexByte(s[i:], c); k >= 0 {
		spend(k + 1)
		return i + k
	}
	spend(len(s) - i)
	return len(s)
}

// valueIsKey reports whether the value starting at s[vs] begins with
// another secret key that has a value of its own: only letters, '_', '.',
// '-', quotes or a backslash may precede that key's keyword, so a value
// like "hunter2 token=x" is redacted whole. It reads no further than the
// next key's separator and the first byte of its value.
func valueIsKey(s string, vs int) bool {
	p := vs
	for p < len(s) && mayLeadKey[s[p]] {
		p++
	}
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	spend(p - vs)
	if p >= len(s) || s[p] != ':' && s[p] != '=' {
		return false
	}
	ks, _, ok := keyBefore(s, p)
	if !ok || ks < vs {
		return false
	}
	nv := valueStart(s, p)
	return nv < len(s) && !endsBareValue[s[nv]] || nv < len(s) && (s[nv] == '"' || s[nv] == '\'')
}

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
