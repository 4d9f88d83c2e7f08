package sanitize

import "unsafe"

// A kvFirst is the public scan's reading of the first pair of a text the
// key-value rule reads: the scan asks keyBefore at every separator until
// one raises fAssign, which is the first separator at which the rule finds
// a key. The pass over that same text then starts there, with the key and
// the value already read, instead of searching the text for the separator
// and reading both again (and the scan's context check, which asks
// keyBefore too when a value follows a separator, is not asked of the
// value the pass redacts: see skipTo).
type kvFirst struct {
	s    string // the text read: the reading holds for it alone
	q    int    // the separator
	ks   int    // where the key's keyword starts
	line bool   // the value runs to the end of the line
	// read says v holds the value's reading, which the scan makes only
	// for a value that may be settled: a line's the pass reads itself.
	read bool
	v    kvValue
	// out is the key-value rule's result of s when its only change was
	// the redaction of v.
	out string
	// skipped says the scan left the context checks of v's core out,
	// which were due from skip on.
	skipped bool
	skip    int
	found   bool
}

// scanFirst is a tier's scan of s[lo:], where s[:lo] holds no trigger,
// that reads the first pair of the key-value rule into k: the scan stops
// after the separator whose key raises fAssign, the first at which the rule
// finds a key, and resumes after the pair is read, with the context checks
// of its value left out as skipTo allows.
func (sc *scanner) scanFirst(s string, lo int, want flags, k *kvFirst) flags {
	var skips valueSkips
	// Not one call that picks: its arguments cost prose's scan more than
	// the choice.
	long := len(s)-lo >= longScan
	var f flags
	var i int
	if long {
		f, i = sc.scanLong(s, lo, len(s), want, fAssign, startFlags(s, lo, want), &skips)
	} else {
		f, i = sc.scanUntil(s, lo, len(s), want, fAssign, startFlags(s, lo, want), &skips)
	}
	if f&fAssign == 0 || i == len(s) && want&^f == 0 {
		return f
	}
	if q := i - 1; k.keyAt(s, q) {
		skips.context = k.skipTo(s, q, skips.context)
	}
	if long {
		f, _ = sc.scanLong(s, i, len(s), want, 0, f, &skips)
	} else {
		f, _ = sc.scanUntil(s, i, len(s), want, 0, f, &skips)
	}
	return f
}

// keyAt records the pair at the separator s[q], whose key raised fAssign
// in the scan: keyBefore is asked again, as the scan's check asked it, for
// where the key starts, which that check does not return. It reports
// whether there is a key, which the scan found.
func (k *kvFirst) keyAt(s string, q int) bool {
	if s[q] == ':' && !mayKeyBefore(s, q) {
		return false
	}
	ks, line, ok := keyBefore(s, q)
	if !ok {
		return false
	}
	*k = kvFirst{s: s, q: q, ks: ks, line: line, found: true}
	if !line {
		k.v, k.read = kvValueAt(s, q, ks, line), true
	}
	return true
}

// skipTo returns where the scan's context checks resume after the first
// pair's separator s[q], given skip, where they would: after the core of a
// settled value, which the pass redacts first when the key-value rule is
// the only one it runs (see settle), so a context trigger inside the core is
// gone from the text the context rule would read, and the result is
// rescanned around the change (rescan), which finds any trigger the change
// made. A settled value ends where the run of value bytes its triggers
// start ends (settledEnd holds no credentialValueByte), so the checks after
// it are made as they were.
func (k *kvFirst) skipTo(s string, q, skip int) int {
	if !k.read || !k.v.ok || !k.v.settled {
		return skip
	}
	for i := q; i < k.v.cs; i++ {
		if contextTriggerByte[s[i]] {
			return skip
		}
	}
	k.skipped, k.skip = true, skip
	return max(skip, k.v.ce)
}

// otherRules are the flags of the rules a pass may run besides the
// key-value rule and the context rule.
const otherRules = publicFlags &^ (fAssign | fContext)

// settle returns the flags f of the scanned text as the full scan finds
// them, unless the pass runs the key-value rule alone: then the checks
// skipTo left out are made now, where they were due.
func (k *kvFirst) settle(f flags) flags {
	if !k.skipped || f&fContext != 0 || f&otherRules == 0 {
		return f
	}
	for i, skip := k.q, k.skip; i < k.v.ce; i++ {
		if i = nextContextTrigger(k.s, i, k.v.ce); i == k.v.ce {
			break
		}
		if i >= skip && contextTrigger(k.s, i) {
			ok, end := contextAt(k.s, i)
			if ok {
				return f | fContext
			}
			skip = end
		}
	}
	return f
}

// holds reports whether the reading is of s itself, the very string: the
// rules before the key-value rule return their text unchanged when they
// find nothing.
func (k *kvFirst) holds(s string) bool {
	return k != nil && k.found && len(k.s) == len(s) && unsafe.StringData(k.s) == unsafe.StringData(s)
}

// value returns the value of the pair k read in s.
func (k *kvFirst) value(s string) kvValue {
	if !k.read {
		k.v, k.read = kvValueAt(s, k.q, k.ks, k.line), true
	}
	return k.v
}

// rescan is sc.rescan(s, f, t), told where t differs from s when t is the
// result of a pass whose only change was the redaction of k's value:
// s[:cs] and s[ce:] are then the start and the end t shares with s, unless
// the value and the marker share a first or a last byte, and need not be
// found by comparing the two texts. (An empty value is no span of s.)
func (k *kvFirst) rescan(sc *scanner, s string, f flags, t string) flags {
	if k.holds(s) && len(k.out) == len(t) && unsafe.StringData(k.out) == unsafe.StringData(t) && k.v.cs < k.v.ce &&
		s[k.v.cs] != Redacted[0] && s[k.v.ce-1] != Redacted[len(Redacted)-1] {
		return sc.rescanSpan(s, f, t, k.v.cs, len(s)-k.v.ce)
	}
	return sc.rescan(s, f, t)
}
