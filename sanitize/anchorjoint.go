package sanitize

// The dots and dashes of prose pass anchorNeighbours' test often: some
// trigger may follow the byte before ("request." and "pat."), another may
// precede the byte after ("eu-west" and the body of "sk-"), and the test
// checks the two apart. A joint checks pairs of bytes, per trigger, for the
// two anchors prose holds most, and rejects what triggerAt would spend a
// walk over its groups on.

// byteSet256 is a set of bytes as bits.
type byteSet256 [4]uint64

func (b *byteSet256) has(c byte) bool { return b[c>>6]&(1<<(c&63)) != 0 }

// A joint holds, for the anchor it belongs to, the pairs of bytes that
// the triggers anchored there admit: before over the two bytes before the
// anchor, for the triggers found by the byte before it (whose own bytes
// lie there: "pat.", "sk-"), and around over the byte before it and the
// byte after it, for the others (which start at the anchor: ".ey",
// "-us"). A byte outside s reads as a space.
type joint struct{ before, around [256]byteSet256 }

// punctTriggerAt is triggerAt for a punctuation anchor, which asks the
// anchor's joint first whether some trigger may lie at s[i], as far as the
// bytes s[i-2], s[i-1] and s[i+1] tell: every trigger triggerAt finds
// passes (TestJointNeighbours). Letters and digits, which prose holds many
// more of and which have no joint, go to triggerAt without the load.
func punctTriggerAt(s string, i int) bool {
	// The joint's two tests are written out here: a call of their own
	// cost more than the walk over triggerAt's groups they save.
	if j := triggersByAnchor[s[i]].joint; j != nil {
		p2, p1, nx := byte(' '), byte(' '), byte(' ')
		if i > 1 {
			p2 = s[i-2]
		}
		if i > 0 {
			p1 = s[i-1]
		}
		if i+1 < len(s) {
			nx = s[i+1]
		}
		if !j.before[p2].has(p1) && !j.around[p1].has(nx) {
			return false
		}
	}
	return triggerAt(s, i)
}

// The joints of '.' and '-' are kept with their triggers; other anchors
// have none.
func init() {
	for _, c := range []byte(".-") {
		if a := triggersByAnchor[c]; a != nil {
			a.joint = newJoint(a)
		}
	}
}

// newJoint adds, for each trigger of a, every pair of bytes it may have
// around its anchor under the checks triggerAt makes of it: where
// triggerAt does not check a byte, any byte. A byte that must be the
// trigger's own is that byte, one that must start a word (wordStart) is
// any but a letter or digit, a space included for the start of s.
func newJoint(a *anchored) *joint {
	j := new(joint)
	var all, notAlnum byteSet256
	for c := range 256 {
		all[c>>6] |= 1 << (c & 63)
		if !isAlnum(byte(c)) {
			notAlnum[c>>6] |= 1 << (c & 63)
		}
	}
	only := func(c byte) (b byteSet256) {
		b[c>>6] = 1 << (c & 63)
		return b
	}
	// textAt is the set a byte at offset k of t must be in for triggerIs,
	// or else (out of t) the set given.
	textAt := func(t *trigger, k int, other byteSet256) byteSet256 {
		if k >= 0 && k < len(t.text) {
			return only(t.text[k])
		}
		return other
	}
	add := func(t *[256]byteSet256, first, second byteSet256) {
		for c := range 256 {
			if first.has(byte(c)) {
				for w := range second {
					t[c][w] |= second[w]
				}
			}
		}
	}
	for n := range 256 {
		if a.next[n] == 0 {
			continue
		}
		// Infix triggers, reached by the byte after the anchor alone.
		for _, t := range a.byNext[a.next[n]-1] {
			add(&j.around, textAt(&t, t.at-1, all), only(byte(n)))
		}
	}
	for _, t := range a.first {
		add(&j.around, notAlnum, textAt(&t, t.at+1, all))
	}
	for _, ts := range a.byPrev {
		for _, t := range ts {
			// The trigger must start a word: a byte before a one-byte
			// lead is no letter or digit.
			p2 := textAt(&t, t.at-2, all)
			if t.at == 1 {
				p2 = notAlnum
			}
			add(&j.before, p2, textAt(&t, t.at-1, all))
		}
	}
	return j
}
