package sanitize

// The forms a credential's name takes around its word: a qualifier glued
// to it or joined by case or punctuation ("adminpassword", "db_password",
// "accessToken"), an array index ("token[0]"), a count ("token2") and a
// last part naming its value ("token.value").

// minGluedWord is the shortest credential word that names a credential
// glued to a lower-case qualifier ("adminpassword", "apitoken",
// "mastersecret"): no ordinary word ends in one of them, where shorter
// ones end many ("turkey", "bypass").
const minGluedWord = 5

// partBoundary reports whether k[n:] is a part of the compound name k of
// its own: after a separator, a capital after a lower-case letter or a
// digit, or anywhere in a name written in capitals.
func partBoundary(k string, n int) bool {
	switch c := k[n-1]; {
	case c == '_' || c == '-' || c == '.':
		return true
	case 'A' <= k[n] && k[n] <= 'Z' && ('a' <= c && c <= 'z' || isDigit(c)):
		return true
	}
	for i := 0; i < len(k); i++ {
		if 'a' <= k[i] && k[i] <= 'z' {
			return false
		}
	}
	return true
}

// indexBefore steps back from s[p] over an array index that ends a name
// ("token[0]=", "api_keys[]="), as forms and query strings write a list.
func indexBefore(s string, p, lo int) int {
	if p-2 < lo || s[p-1] != ']' {
		return p
	}
	i := p - 1
	for i > lo && p-1-i < 4 && isDigit(s[i-1]) {
		i--
	}
	if i > lo+1 && s[i-1] == '[' && isKeyNameByte(s[i-2]) {
		return i - 1
	}
	return p
}

// countSuffix returns the length of the one or two digits that number a
// credential glued to its name ("token2", "password1"), or 0.
func countSuffix(k string) int {
	n := 0
	for n < len(k) && n < 3 && isDigit(k[len(k)-1-n]) {
		n++
	}
	if n == 0 || n > 2 || n == len(k) || !isLetter(k[len(k)-1-n]) {
		return 0
	}
	return n
}

// valuePartSuffix returns the length of a last part "value" that names
// the credential's value rather than another thing ("token.value",
// "secret_value", "passwordValue"), or 0.
func valuePartSuffix(k string) int {
	const part = "value"
	if len(k) <= len(part)+1 || !hasSuffixFold(k, part) {
		return 0
	}
	switch c := k[len(k)-len(part)-1]; {
	case c == '.' || c == '_' || c == '-':
		return len(part) + 1
	case k[len(k)-len(part)] == 'V' && 'a' <= c && c <= 'z':
		return len(part)
	}
	return 0
}
