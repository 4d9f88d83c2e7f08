package sanitize

// plainPrefix returns the length of the longest start of s on which no
// check of the prefilter's can raise a flag, found by a pass much cheaper
// than the prefilter's: most pairs of bytes of clean prose cost one table
// lookup, and each of the few bytes that the prefilter stops at is
// answered by the prefilter's own check for that byte, or by a shorter
// test that implies it gives nothing. The pass ends at the first byte it
// has no case for (quotes, '=', '/', a dash or a parenthesis outside
// prose, escapes, controls, non-ASCII, an inner capital),
// and the prefilter scans from there: scanning s[plainPrefix(s):] in the
// context of s gives the flags of all of s, in either tier's scanner, or
// a context or card flag more whose rule finds nothing
// (TestPlainPrefixSound), so clean prose costs this pass alone and other
// text pays for no byte twice. When the pass ends at a digit because the
// context or the card rule finds a value there, it returns that rule's
// flag too, so that the prefilter, which starts at that digit, need not
// ask the rule again.
func plainPrefix(s string) (int, flags) {
	class := &publicScanner.class
	// contextEnd is where the run of value bytes around the last digit
	// checked ends: the other digits of that run share its answer.
	contextEnd := 0
	// A statement that leads the text is the public scanner's, which
	// checks the start whatever byte stands there.
	if mayLead(s, 0) && hasLeadVerb(s, 0) {
		return 0, 0
	}
	for i := 0; i < len(s); i++ {
		// Eight bytes a step, two a lookup (plainPairs), each lookup its
		// own exit: the step's bounds check and count are shared, and a
		// stop ends it at the byte the pair's entry names. (A call per
		// stop would cost more than the loop saves; the prefilter's loop
		// stays one byte a step, as its texts stop it more often.)
		for i+8 <= len(s) {
			t := s[i : i+8]
			if n := plainPairs[uint16(t[0])|uint16(t[1])<<8]; n < 2 {
				i += int(n)
				break
			}
			if n := plainPairs[uint16(t[2])|uint16(t[3])<<8]; n < 2 {
				i += 2 + int(n)
				break
			}
			if n := plainPairs[uint16(t[4])|uint16(t[5])<<8]; n < 2 {
				i += 4 + int(n)
				break
			}
			if n := plainPairs[uint16(t[6])|uint16(t[7])<<8]; n < 2 {
				i += 6 + int(n)
				break
			}
			i += 8
		}
		if i+8 > len(s) {
			// The last few bytes, fewer than a step's, one by one.
			for i < len(s) && class[s[i]] == clsBoring {
				i++
			}
			if i == len(s) {
				break
			}
		}
		// Word-starting lower-case letters and dots are the commonest
		// stops of prose, so they are checked here, not in a call.
		switch c := s[i]; {
		case 'a' <= c && c <= 'z':
			if wordStart(s, i) && (mayStartWord(s, i) && scanWord(s, i, publicFlags) != 0 || mayTrigger(s, i) && triggerAt(s, i)) {
				return i, 0
			}
		case c == '.':
			next, plain := plainDots(s, i)
			if !plain {
				return i, 0
			}
			i = next
		case 'A' <= c && c <= 'Z':
			if !plainCapital(s, i) {
				return i, 0
			}
		case isDigit(c):
			next, found := plainDigits(s, i, &contextEnd)
			if found != 0 {
				return i, found
			}
			i = next
		default:
			if !plainPunct(s, i) {
				return i, 0
			}
		}
	}
	return len(s), 0
}

// plainRun returns where the pairs plainPairs passes, read from s[i] on
// four bytes a step, end before hi: at the first byte of a pair not
// passed, or within the last three bytes. scanRange's boring loop steps
// so: every byte plainPairs passes is boring to either scanner, or a stop
// whose checks raise nothing (TestScanPairs). Four bytes, not the eight
// of plainPrefix's step, keep it small enough to be inlined: a call per
// run cost more than the step saved.
func plainRun(s string, i, hi int) int {
	for ; i+4 <= hi; i += 4 {
		t := s[i : i+4]
		if n := plainPairs[uint16(t[0])|uint16(t[1])<<8]; n < 2 {
			return i + int(n)
		}
		if n := plainPairs[uint16(t[2])|uint16(t[3])<<8]; n < 2 {
			return i + 2 + int(n)
		}
	}
	return i
}

// boringRun returns the end of the run of bytes class finds boring from
// s[i], before hi.
func boringRun(class *[256]uint8, s string, i, hi int) int {
	for i < hi && class[s[i]] == clsBoring {
		i++
	}
	return i
}

// plainPairs holds, for two bytes (the first the index's low byte), how
// many of them plainPrefix passes without a stop, from the first: the
// first if the public scanner finds it boring, and then the second if it
// is boring too, a lower-case letter after a letter or digit, inside a
// word, where no check reads it ('b' and 'd', the only lower-case letters
// the scanners read, count only where a word starts), or a capital that
// plainCapital passes whatever follows it. 64 KiB, of which prose reads a
// few lines.
var plainPairs = func() (t [1 << 16]uint8) {
	class := &publicScanner.class
	for a := range 256 {
		if class[a] != clsBoring {
			continue
		}
		for b := range 256 {
			t[a|b<<8] = 1
			if class[b] == clsBoring || 'a' <= b && b <= 'z' && isAlnum(byte(a)) || quietCapital(byte(a), byte(b)) {
				t[a|b<<8] = 2
			}
		}
	}
	return t
}()

// quietCapital reports whether plainCapital passes the capital c after a
// whatever bytes follow: a is no lower-case letter (the context rule's),
// no word scanWord looks for starts with c, and no token trigger is
// anchored at c after a. Most capitals that start a sentence or a name
// ("Review", "Version") pass so.
func quietCapital(a, c byte) bool {
	return 'A' <= c && c <= 'Z' && !('a' <= a && a <= 'z') && scanWordBytes[c][0] == [4]uint64{} &&
		anchorNeighbours.prev[c][a>>6]&(1<<(a&63)) == 0
}

// plainDots reports whether the dot at i is plain, and the last byte
// plainPrefix has then vouched for. The dots inside a run ("...", padding)
// have a dot on either side: one is a prose dot, and mayTrigger answers all
// of them as it answers the first. The last one is checked as usual.
func plainDots(s string, i int) (int, bool) {
	if !proseDot(s, i) || mayTrigger(s, i) && punctTriggerAt(s, i) {
		return i, false
	}
	if j := i + 1; j+1 < len(s) && s[j] == '.' && s[j+1] == '.' && !mayTrigger(s, j) {
		for j+1 < len(s) && s[j+1] == '.' {
			j++
		}
		return j - 1, true
	}
	return i, true
}

// plainCapital runs scanRange's checks for the capital at s[i], and
// reports whether they find nothing.
func plainCapital(s string, i int) bool {
	// A capital after a lower-case letter is the context rule's.
	if i > 0 && 'a' <= s[i-1] && s[i-1] <= 'z' {
		return false
	}
	if mayStartWord(s, i) && scanWord(s, i, publicFlags) != 0 {
		return false
	}
	return !(mayTrigger(s, i) && triggerAt(s, i))
}

// plainDigits answers the context and card checks for the digit at s[i],
// and returns the last byte plainPrefix has then vouched for, or the flag
// of the rule that finds a value at s[i]: the context
// rule reads no run of value bytes shorter than its shortest value, and is
// asked of a longer one (the other digits of the run share its answer:
// *contextEnd, and plainPrefix skips them); the card check is the
// prefilter's own, and a digit after a digit starts no card.
func plainDigits(s string, i int, contextEnd *int) (int, flags) {
	if i >= *contextEnd {
		// The run is read back and then ahead, no further than the
		// shortest value in all; each loop's bound is computed once.
		n := minContextValue
		p, e := i, i
		for lo := max(0, i-n); p > lo && credentialValueByte[s[p-1]]; {
			p--
		}
		for hi := min(len(s), p+n); e < hi && credentialValueByte[s[e]]; {
			e++
		}
		if e-p >= n {
			// A run long enough to be a value ("eu-west-1") is asked of
			// the rule itself, as the prefilter asks it, once a run.
			ok, end := contextAt(s, i)
			if ok {
				return i, fContext
			}
			e = end
		}
		*contextEnd = e
	}
	// cardChain wants four digits first: most numbers of prose are
	// shorter, and are turned away here without the call.
	if cardStart(s, i) && i+3 < len(s) && isDigit(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) {
		if ok, _ := cardAt(s, i); ok {
			return i, fCard
		}
	}
	for i+1 < *contextEnd && isDigit(s[i+1]) {
		i++
	}
	return i, 0
}

// plainPunct answers the prefilter's checks for the punctuation at s[i],
// of the few it knows: others, and controls and non-ASCII bytes, are left
// to the prefilter.
func plainPunct(s string, i int) bool {
	switch s[i] {
	case ',':
		// keyBefore reads a comma only after a quote; the other check is a
		// Python frame's ", in ".
		return i > 0 && s[i-1] != '"' && s[i-1] != '\'' && !(i+4 < len(s) && s[i+1:i+5] == " in ")
	case ':':
		// Only a colon before a space, as prose writes one, is worth the
		// check here: any other ("://", "host:5432", "key:value") most
		// likely raises a flag, and the prefilter would check it again.
		// Before a space only colonFlags' checks of a key, of an encoded
		// pair and of the word of a driver or a trace can raise one: the
		// others want a byte after the colon that a space is not.
		if i+1 >= len(s) || s[i+1] != ' ' {
			return false
		}
		if mayKeyBefore(s, i) {
			if _, _, ok := keyBefore(s, i); ok {
				return false
			}
		}
		return !base64PairAhead(s, i) && (i == 0 || colonAfterWord(s, i) == 0) && !(mayLead(s, i+1) && hasLeadVerb(s, i+1))
	case '-', '(':
		// Prose joins words with dashes ("eu-west-1", "2-letter") and
		// opens asides with parentheses after a space, and the
		// prefilter's own checks of both bytes read only a few bytes
		// around them: they are run here, with every flag either tier
		// wants, and the token triggers a dash anchors. Other dashes and
		// parentheses ("----", "f((x))", "-p") are the prefilter's, whose
		// log scanner does not read a parenthesis at all.
		if i == 0 || i+1 == len(s) || (s[i] == '-' && !(isAlnum(s[i-1]) && isAlnum(s[i+1])) || s[i] == '(' && s[i-1] != ' ') {
			return false
		}
		sc := publicScanner
		return scanPunct(s, i, sc.want) == 0 && !(sc.anchorPunct[s[i]] && mayTrigger(s, i) && punctTriggerAt(s, i))
	}
	return false
}
