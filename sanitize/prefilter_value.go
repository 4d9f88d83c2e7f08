package sanitize

// The prefilter's context and card checks, which run once per run of a
// value's or a number's bytes.

// valueSkips hold where the context and card checks may look next: each
// reads a run of bytes after its trigger, and the triggers inside that run
// are answered by the same reading.
type valueSkips struct{ context, card int }

// due reports whether the digit or capital s[i] is a trigger of the
// context check that no earlier reading answered: most are not (a capital
// that starts a word, a digit inside a run already read), and cost no
// call. A digit may still start a card (cardDue).
func (sk *valueSkips) due(s string, i int) bool {
	return i >= sk.context && contextTrigger(s, i)
}

// cardDue reports whether s[i] may start a card no earlier reading
// answered: a digit glued to the letter or digit before it starts none.
func (sk *valueSkips) cardDue(s string, i int) bool {
	return i >= sk.card && cardStart(s, i)
}

// valueScan is scanRange for want holding only fContext and fCard: it
// reads just their triggers, so rescan's windows for them cost a byte
// lookup each.
func valueScan(s string, lo, hi int, want flags) flags {
	var skips valueSkips
	return skips.scan(s, lo, hi, want)
}

// scan is valueScan from the state sk of the checks before s[lo], which
// it leaves as they are at hi.
func (sk *valueSkips) scan(s string, lo, hi int, want flags) flags {
	var f flags
	for i := lo; i < hi; i++ {
		if i = nextContextTrigger(s, i, hi); i == hi {
			break
		}
		if !sk.due(s, i) && !sk.cardDue(s, i) {
			continue
		}
		if f |= valueFlags(s, i, want&^f, sk); want&^f == 0 {
			break
		}
		// Within the run the context check read, only a card may start:
		// the bytes before the next digit from 2 to 6 that no letter,
		// digit, '.' or '_' joins to a word (cardStart) are due to no
		// check.
		for end := min(hi, sk.context); i+1 < end && (!cardDigit[s[i+1]] || cardJoined[s[i]]); i++ {
		}
	}
	return f
}

// cardDigit marks the digits a card may start with (cardStart).
var cardDigit = byteSet("23456")

// valueFlags runs the context and card checks, of those in want, at the
// digit or capital s[i].
func valueFlags(s string, i int, want flags, skip *valueSkips) flags {
	var f flags
	if want&fContext != 0 && i >= skip.context && contextTrigger(s, i) {
		ok, end := contextAt(s, i)
		if ok {
			f |= fContext
		}
		skip.context = end
	}
	if want&fCard != 0 && i >= skip.card && cardStart(s, i) {
		ok, end := cardAt(s, i)
		if ok {
			f |= fCard
		}
		skip.card = end
	}
	return f
}
