package sanitize

import "math/bits"

// The prefilter decides on a trigger at s[i] from the bytes
// s[i-scanBehind-r : i+scanAhead], where r is the length of the run of
// spaces, tabs and digits just before s[i]: a key may stand before spaces,
// a goroutine number before its bracket. rescan relies on these bounds, so
// a new trigger must stay within them (TestRescanCoversScan).
const (
	scanAhead  = 24
	scanBehind = 32
)

func isRunByte(c byte) bool { return c == ' ' || c == '\t' || isDigit(c) }

// rescan returns flags that include scan(t), given flags that include
// scan(s). A trigger whose bytes all lie in the start or the end that t
// shares with s is in f already, so only the bytes within reach of what
// changed are scanned: after a pass that redacted one secret, a few dozen
// bytes instead of the whole text. Extra flags cost only a rule that finds
// nothing (TestPrefilterSound), or for fStack the GenericDetail the previous
// pass already gave.
//
// Only the flags f lacks are looked for: a flag already set costs no check.
func (sc *scanner) rescan(s string, f flags, t string) flags {
	n := min(len(s), len(t))
	p := commonPrefix(s, t, n)
	return sc.rescanSpan(s, f, t, p, commonSuffix(s, t, n-p))
}

// rescanSpan is rescan given the lengths p and q of the start and the end
// that t shares with s, as commonPrefix and commonSuffix find them.
func (sc *scanner) rescanSpan(s string, f flags, t string, p, q int) flags {
	lo := max(0, p-scanAhead)
	end := len(t) - q
	hi := min(len(t), end+scanBehind)
	for hi < len(t) && isRunByte(t[hi-1]) {
		hi++
	}
	// Before the change only the checks that read ahead can differ, and
	// more than nearChange bytes after it only those that read far back.
	want := sc.want &^ f
	// The context and card checks are made once per run of a value's or
	// a number's bytes, at its first trigger, and read a bounded region
	// around its start: only the runs that start near the change can
	// differ, and a window that begins before any of them sees their first
	// trigger as the full scan does.
	var g flags
	if w := want & (fContext | fCard); w != 0 {
		g = valueScan(t, max(0, p-2*max(maxValueLead, maxCardChain+1)), min(len(t), end+contextReach+maxPairLead+maxValueLead), w)
	}
	want &^= fContext | fCard
	near := min(hi, end+nearChange)
	g |= sc.scanRange(t, lo, p, want&^readsBackOnly)
	g |= sc.scanRange(t, p, near, want)
	g |= sc.scanRange(t, near, hi, want&readsFarBack)
	return withURL(f | g)
}

// commonPrefix returns the length of the start s and t share, up to n
// bytes. Eight bytes are compared per step, as one word each, and the
// first that differs is found in the word that differs.
func commonPrefix(s, t string, n int) int {
	// Cut to n, so that the compiler sees every word within both.
	s, t = s[:n], t[:n]
	p := 0
	for ; p+8 <= len(s) && p+8 <= len(t); p += 8 {
		if x := load64(s, p) ^ load64(t, p); x != 0 {
			return p + bits.TrailingZeros64(x)>>3
		}
	}
	for p < n && s[p] == t[p] {
		p++
	}
	return p
}

// commonSuffix returns the length of the end s and t share, up to n bytes.
func commonSuffix(s, t string, n int) int {
	s, t = s[len(s)-n:], t[len(t)-n:]
	q := 0
	for i, j := len(s)-8, len(t)-8; i >= 0 && j >= 0; i, j = i-8, j-8 {
		if x := load64(s, i) ^ load64(t, j); x != 0 {
			return q + bits.LeadingZeros64(x)>>3
		}
		q += 8
	}
	for q < n && s[len(s)-1-q] == t[len(t)-1-q] {
		q++
	}
	return q
}

// load64 reads the eight bytes at s[i] as one little-endian word, which
// the compiler makes one load.
func load64(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// How far each flag's checks read from the byte they start at, for
// rescan: readsBackOnly are the flags whose checks read nothing after it
// (they look at one byte; keyBefore is not one of them: it reads back from
// its separator, but also the byte after a colon, for "/api_key:value"),
// readsFarBack those whose checks may read more than nearChange bytes
// before it (key names, token triggers, "goroutine 12 [", "constraint \"").
// Every other check reads at most four bytes back (":///" before a path).
const (
	readsBackOnly = fAt | fCtrl | fNonASCII | fEscape
	readsFarBack  = fAssign | fToken | fStack | fSQL | fDSN | fSQLSecret
	nearChange    = 8
)
