package sanitize

// A long scan (random text, a dump) meets its stops in an order no branch
// predictor learns, and a mispredicted branch costs more than the checks
// it leads to. So it reads its bytes otherwise than prose's scan does:
// the digits and capitals that only the context and card checks read are
// read in a pass of their own, a run of value bytes at a time (see
// valueSkips.scan), and the other stops by the scanner's marks, through a
// quieter once flags are found. The flags are those of the one pass: only
// the order of the checks differs, and the value checks read the triggers
// before where the scan stops, as they did. On 64 KiB of random printable
// text the scan's stops fell from 38,000 to 8,000, and the value checks
// stop once a run, not once a trigger.

// scanLong is scanUntil for a long scan.
func (sc *scanner) scanLong(s string, lo, hi int, want, need, f flags, skips *valueSkips) (flags, int) {
	values := want & (fContext | fCard)
	f, end := sc.scanMarks(s, lo, hi, want&^values, need, f)
	if w := values &^ f; w != 0 {
		f |= skips.scan(s, lo, end, w)
	}
	return f, end
}

// scanMarks is scanUntil's loop, by the scanner's marks (no context or
// card check) through a quieter.
func (sc *scanner) scanMarks(s string, lo, hi int, want, need, f flags) (flags, int) {
	var q quieter
	byteClass, seen := &sc.marks, ^flags(0)
	for i := lo; i < hi; i++ {
		if byteClass[s[i]] == clsBoring {
			if i = boringRun(byteClass, s, plainRun(s, i, hi), hi); i == hi {
				break
			}
		}
		w := want &^ f
		if w != seen {
			if w == 0 {
				return f, hi
			}
			seen, byteClass = w, q.quiet(sc, w)
		}
		switch byteClass[s[i]] {
		case clsWord:
			c := s[i]
			if c < 'a' || c > 'z' || wordStart(s, i) {
				if sc.wordFirst[c] && w&(fScheme|fSQL) != 0 && mayStartWord(s, i) {
					f |= scanWord(s, i, w)
				}
				if w&fToken != 0 && mayTrigger(s, i) && triggerAt(s, i) {
					f |= fToken
				}
			}
		case clsPunct:
			if w&fToken != 0 && sc.anchorPunct[s[i]] && mayTrigger(s, i) && punctTriggerAt(s, i) {
				f |= fToken
			}
			if punctFlags[s[i]]&w != 0 {
				if !proseDot(s, i) {
					g := scanPunct(s, i, w)
					if f |= g; g&need != 0 {
						return f, i + 1
					}
				} else {
					i = quietDots(s, i, hi, w)
				}
			}
		case clsCtrl, clsHigh:
			// The quieter made the rest of them boring.
			f |= classFlag[byteClass[s[i]]]
		}
	}
	return f, hi
}

// longScan is the shortest scan read so: the quieter costs a pass over
// the scanner's 256 classes, and the two passes cost prose more than the
// one.
const longScan = 4 << 10

// marksOf returns class with its triggers of the context and card checks
// made boring.
func marksOf(class *[256]uint8) (t [256]uint8) {
	for c, cls := range class {
		if cls != clsTrigger {
			t[c] = cls
		}
	}
	return t
}

// A quieter is a long scan's table of classes for the flags it still
// wants: the bytes whose checks would raise only flags it found are
// boring (the punctuation and the letters that anchor tokens, once a
// token is found, the control bytes once one is found). On random text
// that was one stop in six.
type quieter struct {
	class [256]uint8
}

// quiet makes q's table from sc's marks for a scan that still wants w,
// and returns it.
func (q *quieter) quiet(sc *scanner, w flags) *[256]uint8 {
	for c, cls := range sc.marks {
		switch cls {
		case clsPunct:
			if punctFlags[c]&w == 0 && (w&fToken == 0 || !sc.anchorPunct[c]) {
				cls = clsBoring
			}
		case clsWord:
			if w&fToken == 0 && (!sc.wordFirst[c] || w&(fScheme|fSQL) == 0) {
				cls = clsBoring
			}
		case clsCtrl, clsHigh:
			// A control or non-ASCII byte raises only its own flag.
			if classFlag[cls]&w == 0 {
				cls = clsBoring
			}
		}
		q.class[c] = cls
	}
	return &q.class
}
