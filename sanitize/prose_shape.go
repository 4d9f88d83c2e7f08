package sanitize

import "strings"

// The shape of a value the context rule takes for a credential: how much
// evidence of entropy it must carry, by how its name announces it.

// holds reports whether v carries the evidence of entropy a credential
// has: letters and digits mixed back and forth (an identifier such as
// "v8_elimination" or "cmp2-qat-12" switches once) or at length, capitals
// mixed into lower case several times, or a long run of digits; and no
// placeholder run ("XXXXXX", "000000").
func (sh *valueShape) holds(v string) bool {
	if len(v) < sh.min || len(v) > sh.max {
		return false
	}
	var digits, letters, upper, rises, switches int
	same := 1 // the run of one byte repeated that ends at v[i]
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case isDigit(c):
			digits++
		case isLetter(c):
			letters++
			if c <= 'Z' {
				upper++
			}
		}
		if i == 0 {
			continue
		}
		p := v[i-1]
		if 'A' <= c && c <= 'Z' && 'a' <= p && p <= 'z' {
			rises++
		}
		if isDigit(p) && isLetter(c) || isLetter(p) && isDigit(c) {
			switches++
		}
		if same = runOn(same, c == p); same >= maxPlaceholderRun {
			return false
		}
	}
	switch {
	case digits > 0 && letters > 0:
		return switches >= 2 || rises >= 3 || len(v) >= minLongValue && digits >= 4 && letters >= 4
	case digits == len(v):
		return len(v) >= sh.digitsOnly
	}
	return rises >= 3 && 4*upper >= letters
}

// holdsQuoted is holds for a value quoted whole right after its name
// (`key "thisIsDog11"`, `password 'Summer2024'`): the quotes say where it
// ends, so letters and digits together are evidence enough, as people
// choose passwords. A name's separators ('_', '.', '-') mark the key of
// a setting ("max_retries_3"), which the quotes name as often.
func (sh *valueShape) holdsQuoted(v string) bool {
	if len(v) < sh.min || len(v) > sh.max || strings.ContainsAny(v, "_.-") {
		return false
	}
	var digits, letters int
	same := 1
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case isDigit(c):
			digits++
		case isLetter(c):
			letters++
		}
		if i > 0 {
			if same = runOn(same, v[i] == v[i-1]); same >= maxPlaceholderRun {
				return false
			}
		}
	}
	return digits > 0 && letters > 0
}

// linkedValue reports whether the value at s[vs] follows its name through
// a linking word ("password is ...", "the secret was ...", "is: ...").
func linkedValue(s string, vs int) bool {
	if vs < 2 || s[vs-1] != ' ' {
		return false
	}
	p := vs - 1
	if s[p-1] == ':' {
		p-- // "Password is: ..."
	}
	return linkingWordBefore(s, p, max(0, p-len(" equals"))) > 0
}

// holdsLinked is holds for a value a linking word announces ("password is
// hunter2"): the sentence says what the value is, so letters and digits
// together are evidence enough, as for a quoted value, from six bytes on.
// A version, a path, a time or a name with separators ("v1.2", "10:30",
// "db-01") is something else the sentence describes.
func (sh *valueShape) holdsLinked(v string) bool {
	if len(v) < minLinkedValue || len(v) > sh.max || strings.ContainsAny(v, "_.-/:") {
		return false
	}
	short := *sh
	short.min = minLinkedValue
	return short.holdsQuoted(v) || short.holds(v)
}

// minLinkedValue is the shortest value a linking word announces that
// holdsLinked takes: the shortest password services accept.
const minLinkedValue = 6

// quotedWhole reports whether the value s[vs:ve] stands between two
// equal quotes.
func quotedWhole(s string, vs, ve int) bool {
	return vs > 0 && ve < len(s) && (s[vs-1] == '"' || s[vs-1] == '\'' || s[vs-1] == '`') && s[ve] == s[vs-1]
}

func runOn(n int, on bool) int {
	if on {
		return n + 1
	}
	return 1
}
