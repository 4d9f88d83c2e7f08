package sanitize

// Card numbers: PCI DSS forbids storing or logging a primary account
// number, so both tiers redact one wherever it appears, keeping its last
// four digits. A number counts when it has 13 to 19 digits, written
// together or in groups joined by single spaces, dashes or dots, starts with
// 2 to 6 (the issuers' ranges; epoch milliseconds start with 1) and passes
// the Luhn check.

const (
	minCardDigits = 13
	maxCardDigits = 19
	// maxCardChain bounds the bytes of one number with its separators.
	maxCardChain = 2 * maxCardDigits
)

// cardChain reads the chain of digits that starts a word at s[i], with
// single spaces, dashes or dots between groups, and returns its end and the
// number of digits, or 0 digits when it is not written as a card is: part
// of a longer word or dashed token (a UUID's 8-4-4-4-12), more digits than
// a card, or groups unlike a card's (printed cards group by four first,
// then two to six: 4-4-4-4, 4-6-5, 4-4-4-4-2, 4-4-4-4-3).
func cardChain(s string, i int) (end, digits int) {
	// Every chain it takes starts with four digits: thirteen or more
	// together, or a first group of four. Most numbers of prose are
	// shorter, and cost no more than this.
	if i+3 >= len(s) || !isDigit(s[i+1]) || !isDigit(s[i+2]) || !isDigit(s[i+3]) {
		return i + 1, 0
	}
	e := i
	group, groups, shaped := 0, 0, true
	var sep byte
	for e < len(s) && e-i < maxCardChain {
		switch c := s[e]; {
		case isDigit(c):
			digits++
			group++
		case (c == ' ' || c == '-' || c == '.') && e+1 < len(s) && isDigit(s[e+1]) && isDigit(s[e-1]):
			// Dots join a card's groups only when they join all of them:
			// "4111.1111.1111.1111", not a date or a version beside a
			// number.
			if groups > 0 && (c == '.') != (sep == '.') {
				shaped = false
			}
			sep = c
			shaped = shaped && cardGroup(groups, group)
			groups++
			group = 0
		default:
			return cardEnd(s, e, digits, shaped && (groups == 0 || cardGroup(groups, group)))
		}
		e++
	}
	spend(e - i)
	return cardEnd(s, e, digits, shaped && (groups == 0 || cardGroup(groups, group)))
}

// cardGroup reports whether the n-th group (from 0) of a separated number
// may have this many digits.
func cardGroup(n, digits int) bool {
	if n == 0 {
		return digits == 4
	}
	return 2 <= digits && digits <= 6
}

func cardEnd(s string, e, digits int, shaped bool) (int, int) {
	if !shaped || digits > maxCardDigits {
		return e, 0
	}
	if e < len(s) && (isAlnum(s[e]) || s[e] == '_') {
		return e, 0
	}
	if e+1 < len(s) && s[e] == '-' && isAlnum(s[e+1]) {
		// The chain goes on as a dashed token: an identifier, not a card.
		return e, 0
	}
	return e, digits
}

// cardStart reports whether s[i] may start a card number.
func cardStart(s string, i int) bool {
	return '2' <= s[i] && s[i] <= '6' && (i == 0 || !cardJoined[s[i-1]])
}

// cardJoined holds the bytes that join a digit after them to a word or a
// number (a decimal, an identifier), so that it starts no card.
var cardJoined = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isAlnum(byte(c)) || c == '.' || c == '_'
	}
	return t
}()

// luhn reports whether the digits of s (other bytes skipped) pass the
// Luhn check.
func luhn(s string) bool {
	sum, double := 0, false
	for i := len(s) - 1; i >= 0; i-- {
		if !isDigit(s[i]) {
			continue
		}
		d := int(s[i] - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// cardAt is the prefilter's check at s[i], as redactCards reads it; it
// returns the end of what it read.
func cardAt(s string, i int) (bool, int) {
	end, digits := cardChain(s, i)
	return digits >= minCardDigits, end
}

// redactCards replaces every card number but its last four digits.
func redactCards(s string) string {
	e := edit{s: s}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) || !cardStart(s, i) {
			continue
		}
		end, digits := cardChain(s, i)
		if digits >= minCardDigits && luhn(s[i:end]) {
			keep, n := end, 0
			for n < 4 {
				if keep--; isDigit(s[keep]) {
					n++
				}
			}
			e.replace(i, keep, Redacted)
		}
		i = end - 1
	}
	return e.result()
}
