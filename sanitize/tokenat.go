package sanitize

import (
	"slices"
	"strings"
)

// cutByNext derives prevNext and prevLists from byPrev.
func (a *anchored) cutByNext() {
	a.prevNext = make([][256]uint8, len(a.byPrev))
	for g, ts := range a.byPrev {
		first := len(a.prevLists)
		for n := range 256 {
			var sub []trigger
			for _, t := range ts {
				if t.at+1 == len(t.text) || t.text[t.at+1] == byte(n) {
					sub = append(sub, t)
				}
			}
			if len(sub) == 0 {
				continue
			}
			k := slices.IndexFunc(a.prevLists[first:], func(l []trigger) bool {
				return slices.EqualFunc(l, sub, func(x, y trigger) bool { return x.text == y.text && x.rule == y.rule })
			})
			if k < 0 {
				if len(a.prevLists) == 255 {
					panic("sanitize: too many trigger lists for one anchor")
				}
				a.prevLists = append(a.prevLists, sub)
				k = len(a.prevLists) - 1 - first
			}
			a.prevNext[g][n] = uint8(first + k + 1)
		}
	}
}

// prevList returns the triggers anchored at s[i] that the bytes before and
// after it allow: byPrev's list for the byte before, cut to those whose
// next byte is s[i+1] (prevNext), or at the end of s to those whose text
// ends at the anchor.
func (a *anchored) prevList(s string, i int) []trigger {
	b := a.prev[s[i-1]]
	if b == 0 {
		return nil
	}
	if i+1 < len(s) {
		if l := a.prevNext[b-1][s[i+1]]; l != 0 {
			return a.prevLists[l-1]
		}
		return nil
	}
	return a.byPrev[b-1]
}

// tokenAt returns the longest token whose trigger is anchored at s[i]. It
// tries the triggers that could match there, given the bytes around the
// anchor: on a repetition of one ("sk-sk-sk-...") the anchor's list of
// triggers with the same byte before it is long, and its bytes after the
// anchor and two before it turn most away without a comparison of the
// whole text.
//
// from is where the text after the rule's last redaction starts: a token
// starts a word there whatever byte stood before it, as it does in the
// rule's output, where the marker's ']' stands before it. Otherwise a
// token glued to the end of another ("AKIA...EXAMPLEghp_...") was left
// whole until a second call found it after the marker.
func tokenAt(s string, i, from int, rc *runs) (int, int) {
	a := triggersByAnchor[s[i]]
	var m tokenMatch
	if a == nil {
		return 0, 0
	}
	if i+1 < len(s) {
		if b := a.next[s[i+1]]; b != 0 {
			for k := range a.byNext[b-1] {
				m.try(s, i, &a.byNext[b-1][k], from, rc)
			}
		}
	}
	if i == from || wordStart(s, i) {
		for k := range a.first {
			m.try(s, i, &a.first[k], from, rc)
		}
	}
	if i > 0 {
		ts := a.prevList(s, i)
		for k := range ts {
			if t := &ts[k]; nextMatches(s, i, t) && secondBeforeMatches(s, i, t) {
				m.try(s, i, t, from, rc)
			}
		}
	}
	return m.start, m.end
}

// A tokenMatch is the longest token tokenAt found so far.
type tokenMatch struct{ start, end int }

// try takes the token of t anchored at s[i], if there is one and it ends
// after the longest so far.
func (m *tokenMatch) try(s string, i int, t *trigger, from int, rc *runs) {
	if !triggerIs(s, i, t) {
		return
	}
	p := i - t.at
	ts := p
	if t.before != nil {
		for ts > from && t.before[s[ts-1]] {
			ts--
		}
		if t.rule.lead != "" && (!strings.HasPrefix(s[ts:p], t.rule.lead) || ts != from && !wordStart(s, ts)) ||
			p-ts < t.rule.beforeMin {
			return
		}
	} else if p != from && !wordStart(s, p) {
		return
	}
	if e := t.bodyEnd(s, p+len(t.text), rc); e > m.end {
		m.start, m.end = ts, e
	}
}

// tokenNeighbours are anchorNeighbours as tokenAt reads them: a trigger
// that follows a run of its own alphabet which may be empty (no shortest
// run, no lead) takes any byte before it.
var tokenNeighbours = func() neighbours {
	n := anchorNeighbours
	for c, a := range triggersByAnchor {
		if a == nil {
			continue
		}
		for _, ts := range a.byNext {
			for _, t := range ts {
				if t.at == 0 && t.before != nil && t.rule.beforeMin == 0 && t.rule.lead == "" {
					n.prev[c] = [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
				}
			}
		}
	}
	return n
}()

// tokenMayStart reports whether tokenAt may find a token at the anchor
// byte s[i], by the bytes just before and after it: most anchors of text
// that is not a token ("_" in an identifier, "-" in a word, a capital) are
// turned away by two bit tests, not a walk of the anchor's lists.
func tokenMayStart(s string, i int) bool {
	if i == 0 || i+1 >= len(s) {
		return true
	}
	c, p, nx := s[i], s[i-1], s[i+1]
	return tokenNeighbours.prev[c][p>>6]&(1<<(p&63)) != 0 && tokenNeighbours.next[c][nx>>6]&(1<<(nx&63)) != 0
}

// beforeGluedTrigger ends a body at e where the next token of the same
// format begins glued to it ("ghp_<body>ghp_<body>"): the body's alphabet
// takes the second trigger's letters and stops at its '_', so the second
// token's body would stand outside both redactions. The token rule then
// finds the second token after the first's redaction.
func beforeGluedTrigger(s string, p, e int, r *tokenFormat) int {
	if e >= len(s) {
		return e
	}
	for _, tr := range r.triggers {
		if k := len(tr) - 1; k > 0 && e-k-r.min >= p && s[e] == tr[k] && s[e-k:e] == tr[:k] {
			return e - k
		}
	}
	return e
}
