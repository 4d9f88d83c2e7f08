package sanitize

import "strings"

// The pairs a run of value bytes may hold beside its own start: a
// user:password pair that qualifies a credential's name after a
// preposition, the first pair ahead of a run's trigger, and the user part
// of a quoted pair or of a (user, password) tuple, whose password the
// context rule redacts with it.

// qualifiedPairAt reads the run at s[p] as a user:password pair that
// qualifies a credential's name after a preposition ("credentials for
// bob:<value>", "auth failed for user svc:<value>"), and returns where its
// password starts, with the name's rule.
func qualifiedPairAt(s string, p, i int) (int, *contextRule) {
	// A preposition stands before the pair, as qualifiedName reads one,
	// or before a word for the pair's user ("for user bob:<value>").
	if p < 2 || s[p-1] != ' ' {
		return 0, nil
	}
	w := letterWordBefore(s, p-1)
	if cls := classOf(s, w, p-1); cls&pcPrep == 0 &&
		(cls&pcWho == 0 || w < 2 || s[w-1] != ' ' || classOf(s, letterWordBefore(s, w-1), w-1)&pcPrep == 0) {
		return 0, nil
	}
	c := strings.IndexByte(s[p:i], ':')
	if c <= 0 || pairUserBefore(s, p+c) != p {
		return 0, nil
	}
	if r := qualifiedName(s, p+c, ':', false); r != nil {
		return p + c + 1, r
	}
	return 0, nil
}

// pairAhead returns the value of the pair whose separator s[sep] is the
// first ':' or '=' after a trigger in its run, when a credential word
// names it: a run's trigger may stand before the pair it holds
// ("/v1/verify?otp=...": "v1" names nothing, "otp" does). Otherwise it
// returns no value and the run's end, where the next triggers are read.
func pairAhead(s string, sep, runEnd int) (vs, end int, r *contextRule) {
	// A name ends as a credential word does, or in a digit that counts it
	// ("token2"): an address's or a port's separator ("10.1.2.3:5432")
	// is no pair's, and most words' last letters end no credential word.
	if sep > 1 && runEnd-(sep+1) >= minContextValue &&
		(len(contextWordsByLast[s[sep-1]]) > 0 || s[sep-1]|0x20 == 's' || isDigit(s[sep-1]) && isLetter(s[sep-2])) {
		if r = credentialBefore(s, sep+1); r != nil {
			return sep + 1, runEnd, r
		}
	}
	return 0, runEnd, nil
}

// maxPairUser bounds the user part of a pair, and maxPairLead how far
// before its password the pair starts.
const (
	maxPairUser = 64
	maxPairLead = maxPairUser + 5
)

// pairUserStart returns the start of the user part of a pair whose
// password starts at s[p] after a quote or a brace: the user, up to two
// quotes or braces around it, a colon, the password's quotes; or the
// bracket that opens a (user, password) tuple (see tupleUserStart). It
// returns -1 when there is none.
func pairUserStart(s string, p int) int {
	q := p
	for n := 0; n < 2 && q > 0 && pairOpeners[s[q-1]]; n++ {
		q--
	}
	if q == p || q == 0 {
		return -1
	}
	if s[q-1] == ',' || s[q-1] == ' ' {
		return tupleUserStart(s, q)
	}
	if s[q-1] != ':' {
		return -1
	}
	q--
	for n := 0; n < 2 && q > 0 && pairClosers[s[q-1]]; n++ {
		q--
	}
	spend(p - q)
	return pairUserBefore(s, q)
}

// tupleUserStart returns where a tuple of a quoted user and a quoted
// password opens, given the password's quote at s[q]: "('bob', '<value>'"
// as Python's requests takes basic auth ("auth=('bob', '...')",
// "HTTPBasicAuth('bob', '...')"), or "['bob', '<value>'". It returns -1
// when there is none.
func tupleUserStart(s string, q int) int {
	q = blanksBefore(s, q, 0)
	if q == 0 || s[q-1] != ',' {
		return -1
	}
	q = blanksBefore(s, q-1, 0)
	if q < 3 || s[q-1] != '\'' && s[q-1] != '"' {
		return -1
	}
	u := pairUserBefore(s, q-1)
	if u < 2 || s[u-1] != s[q-1] || s[u-2] != '(' && s[u-2] != '[' {
		return -1
	}
	return u - 2
}

// pairUserBefore returns the start of the user part of a pair that ends
// at s[q], at most maxPairUser bytes of pairUserByte, or -1 when there is
// none or it runs on past that bound.
func pairUserBefore(s string, q int) int {
	u := q
	for u > 0 && q-u < maxPairUser && pairUserByte[s[u-1]] {
		u--
	}
	spend(q - u)
	if u == q || u > 0 && pairUserByte[s[u-1]] {
		return -1
	}
	return u
}

// pairUserByte holds the bytes of the user part of a pair: a name, an
// address, an identifier in braces.
var pairUserByte = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.@+")
