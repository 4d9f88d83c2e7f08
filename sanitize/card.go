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

// cardFrom returns the end of the longest card number that starts a
// word at s[p], or 0, and the end of its first group of digits. A number
// counts when it is written as a card is: 13 to 19 digits, together or in
// groups joined by single spaces, dashes or dots, as printed cards group
// them (4-4-4-4, 4-6-5, 4-4-4-4-2, 4-4-4-4-3), and, when luhnCheck is set,
// passing the Luhn check. It ends where the digits and their separators
// end, unless that is inside a longer word or dashed token (a UUID's
// 8-4-4-4-12); or at a space before more groups: cards listed one after
// another ("4111 1111 1111 1111 5500 0000 0000 0004") are each a card, and
// were once read as one number too long to be any. A dash or a dot before
// more digits goes on with the same number.
//
// It reads no more than maxCardChain bytes from p.
func cardFrom(s string, p int, luhnCheck bool) (card, first int) {
	// Every number it takes starts with four digits: thirteen or more
	// together, or a first group of four. Most numbers of prose are
	// shorter, and cost no more than this.
	if p+3 >= len(s) || !isDigit(s[p+1]) || !isDigit(s[p+2]) || !isDigit(s[p+3]) {
		return 0, p + 1
	}
	e := p
	digits, group, groups, shaped := 0, 0, 0, true
	var sep byte
	for e < len(s) && e-p < maxCardChain {
		c := s[e]
		if isDigit(c) {
			digits++
			group++
			e++
			continue
		}
		if c != ' ' && c != '-' && c != '.' || e+1 >= len(s) || !isDigit(s[e+1]) {
			break
		}
		if first == 0 {
			first = e
		}
		if c == ' ' && cardNumber(s[p:e], digits, shaped && (groups == 0 || cardGroup(groups, group)), luhnCheck) {
			card = e
		}
		// Dots join a card's groups only when they join all of them:
		// "4111.1111.1111.1111", not a date or a version beside a number.
		if groups > 0 && (c == '.') != (sep == '.') {
			shaped = false
		}
		shaped = shaped && cardGroup(groups, group)
		sep = c
		groups++
		group = 0
		if digits > maxCardDigits {
			break
		}
		e++
	}
	spend(e - p)
	if first == 0 {
		first = e
	}
	if digits > maxCardDigits {
		return card, first
	}
	if lastCard(s, p, e, digits, shaped && (groups == 0 || cardGroup(groups, group)), luhnCheck) {
		card = e
	}
	return card, first
}

// lastCard reports whether s[p:e], a number read to where its digits and
// separators end, is a card number: not cut inside a group at
// maxCardChain (the number goes on, longer than a card), ending there
// (cardEnds), and made as a card is (cardNumber).
func lastCard(s string, p, e, digits int, shaped, luhnCheck bool) bool {
	if e-p >= maxCardChain && e < len(s) && isDigit(s[e]) {
		return false
	}
	return cardEnds(s, e) && cardNumber(s[p:e], digits, shaped, luhnCheck)
}

// cardNumber reports whether the digits of n make a card number: as many
// as a card has, in groups shaped as a card's, passing the Luhn check when
// luhnCheck is set.
func cardNumber(n string, digits int, shaped, luhnCheck bool) bool {
	return shaped && minCardDigits <= digits && digits <= maxCardDigits && (!luhnCheck || luhn(n))
}

// cardGroup reports whether the n-th group (from 0) of a separated number
// may have this many digits.
func cardGroup(n, digits int) bool {
	if n == 0 {
		return digits == 4
	}
	return 2 <= digits && digits <= 6
}

// cardEnds reports whether a number that ends at s[e] ends there: not
// inside a longer word, nor a dashed token going on after it (an
// identifier, not a card).
func cardEnds(s string, e int) bool {
	if e < len(s) && (isAlnum(s[e]) || s[e] == '_') {
		return false
	}
	return e+1 >= len(s) || s[e] != '-' || !isAlnum(s[e+1])
}

// cardStart reports whether s[i] may start a card number: not after a
// byte that joins it to a word or a number, nor after a dash between
// digits, which goes on with the number before it as cardFrom reads it
// ("4111 1111 1111 1111-4111 ..." is one dashed number, and neither half a
// card: read as a card, the second half's redaction would make the first
// end before a dash and a marker, a card to a second call).
func cardStart(s string, i int) bool {
	return '2' <= s[i] && s[i] <= '6' && (i == 0 || !cardJoined[s[i-1]] && (s[i-1] != '-' || i < 2 || !isDigit(s[i-2])))
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

// cardAt is the prefilter's check at s[i], as redactCards reads it
// without the Luhn check; it returns the end of what the next check need
// not read again: the card, or the first group of digits, after which
// another card may start.
func cardAt(s string, i int) (bool, int) {
	card, first := cardFrom(s, i, false)
	if card > 0 {
		return true, card
	}
	return false, first
}

// redactCards replaces every card number but its last four digits.
//
// The four digits it keeps follow the marker in its output, where they
// may start a card with the groups after them, so they are read as a
// start here too ("5555-5555-5555-4444 2411 1111 1111 1111": 4444 and
// the next three groups may pass the Luhn check); otherwise a second call
// found a card the first had passed over.
func redactCards(s string) string {
	e := edit{s: s}
	kept := -1
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) || !cardStart(s, i) && (i != kept || s[i] < '2' || s[i] > '6') {
			continue
		}
		end, first := cardFrom(s, i, true)
		if end == 0 {
			i = first - 1
			continue
		}
		keep, n := end, 0
		for n < 4 {
			if keep--; isDigit(s[keep]) {
				n++
			}
		}
		e.replace(i, keep, Redacted)
		kept, i = keep, keep-1
	}
	return e.result()
}
