package sanitize

import (
	"strings"
	"unicode/utf8"
	"unsafe"
)

const (
	// Redacted replaces every span a tier removes.
	Redacted = "[redacted]"
	// GenericDetail replaces the whole public text when it looks like a
	// stack trace, a database statement or a database driver message: a
	// partial trace would still map the program's insides, and what is left
	// of a driver message once its values are gone still names its tables,
	// columns and constraints.
	GenericDetail = "An internal error occurred."
	// Truncated ends a text that was cut to its tier's limit.
	Truncated = "…[truncated]"
	// MaxPublicLen bounds the bytes Public returns (and reads), so a hostile
	// input cannot make a problem body or the scan arbitrarily large.
	MaxPublicLen = 8 << 10
	// MaxLogLen bounds the bytes Log returns. It is larger than the public
	// limit because operators need whole stack traces.
	MaxLogLen = 64 << 10
)

// settle runs a tier's pass over s until nothing changes. One pass is not
// always enough: a marker ends in ']', which can give a neighbouring literal
// the boundary it lacked, and a pass may lengthen the text beyond the limit
// (a marker is longer than a short IP), which calls for another cut. The
// result is a fixed point of the pass within the limit, so sanitizing it
// again returns it unchanged.
//
// f is scan(s), or when s was too long to scan flags that say it may hold
// anything, unless clip changes s: the tiers scan first to return clean
// text untouched, and the first pass reuses that scan. Later passes get
// flags that may include more than their text's own (see rescan). A pass
// returns its text unchanged only when every rule it ran left it alone, so
// under the text's own flags, which run some of those rules, it would too.
//
// A pass that proves its result a fixed point (see passRun) is not
// confirmed by another: when rescan finds no trigger the result lacks,
// the result is returned as it is.
func settle(s string, f flags, limit int, sc *scanner, pass func(string, flags) (string, bool)) string {
	return settleRead(s, f, limit, sc, pass, nil)
}

// settleRead is settle for a text whose first key-value pair the scan read
// into first (see kvFirst).
func settleRead(s string, f flags, limit int, sc *scanner, pass func(string, flags) (string, bool), first *kvFirst) string {
	// Text without non-ASCII bytes is valid UTF-8, and so is a pass's
	// result of it: the passes write only ASCII.
	if c := clip(s, limit, f&fNonASCII == 0); c != s {
		s, f = c, sc.scan(c)
	}
	return settleFrom(s, f, limit, sc, pass, false, first)
}

// settleValid is settle for s valid UTF-8 and within limit. keepsValid
// says that pass returns valid UTF-8 for any text with flags that include
// its own (logPass), so that its results are not read again to be
// validated: for random bytes that was two reads of the whole text.
func settleValid(s string, f flags, limit int, sc *scanner, pass func(string, flags) (string, bool), keepsValid bool) string {
	return settleFrom(s, f, limit, sc, pass, keepsValid, nil)
}

// settleFrom is settleValid given first, which may know what the first
// pass changed (see kvFirst.rescan).
func settleFrom(s string, f flags, limit int, sc *scanner, pass func(string, flags) (string, bool), keepsValid bool, first *kvFirst) string {
	for range 8 {
		spend(len(s))
		t, closed := pass(s, f)
		if t == s {
			return s
		}
		if c := clip(t, limit, keepsValid || f&fNonASCII == 0); c == t {
			nf := first.rescan(sc, s, f, t)
			if closed && nf == f {
				return t
			}
			s, f = t, nf
		} else {
			s, f = c, sc.scan(c)
		}
	}
	return Redacted
}

// clip makes s valid UTF-8 and at most limit bytes. The cut falls on the last
// whitespace before the limit when there is one nearby, so a secret cut in
// half (a DSN without its '@') is dropped whole instead of leaking its start.
func clip(s string, limit int, ascii bool) string {
	if !ascii && !utf8.ValidString(s) {
		if len(s) > 4*limit {
			s = s[:4*limit]
		}
		// Made valid only as far as the cut can reach, in the buffer the
		// cut text is then written to: one allocation, not the two of
		// strings.ToValidUTF8 and a concatenation.
		b, whole := appendValid(make([]byte, 0, min(len(string(utf8.RuneError))*len(s), limit+utf8.UTFMax)), s, limit)
		if whole {
			return unsafe.String(unsafe.SliceData(b), len(b))
		}
		b = append(b[:clipAt(unsafe.String(unsafe.SliceData(b), len(b)), limit)], Truncated...)
		return unsafe.String(unsafe.SliceData(b), len(b))
	}
	if len(s) <= limit {
		return s
	}
	return s[:clipAt(s, limit)] + Truncated
}

// clipAt returns where clip cuts s, which is longer than limit.
func clipAt(s string, limit int) int {
	cut := limit - len(Truncated)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	from := max(0, cut-256)
	if ws := strings.LastIndexAny(s[from:cut], " \t\r\n"); ws >= 0 {
		cut = from + ws
	}
	return cut
}
