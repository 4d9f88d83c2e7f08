package sanitize

import (
	"strings"
	"unicode/utf8"
)

// Public returns s made safe to show a client: secrets, SQL row values,
// IP addresses, internal host names and file system paths are replaced with
// Redacted, and anything resembling a Go stack trace becomes GenericDetail.
// It is applied to every string that leaves in a problem, so the common case,
// clean text, returns s itself without allocating.
func Public(s string) string {
	var f flags
	if len(s) <= MaxPublicLen {
		f = scan(s)
		if f&publicFlags == 0 && (f&fNonASCII == 0 || utf8.ValidString(s)) {
			return s
		}
	}
	return settle(s, f, MaxPublicLen, publicPass)
}

func publicPass(s string, f flags) string {
	if f&fStack != 0 {
		return GenericDetail
	}
	// Row values go before the other secrets, since a secret rule could take
	// a marker such as "Key" for the value of a preceding "password=". Only
	// a private key spans lines, so it must go even earlier.
	if f&fPEM != 0 {
		s = pemRule.redact(s)
	}
	if f&fSQL != 0 {
		s = redactSQL(s)
	}
	s = redactSecrets(s, f&^fPEM)
	if f&locatorFlags != 0 {
		s = redactIPs(redactHosts(redactPaths(s)))
	}
	return s
}

// redactSQL removes the row values that database drivers quote in their
// messages; the surrounding words (constraint, key, line) stay.
func redactSQL(s string) string {
	s = redactAfter(s, "Key (", sqlKeyValue)
	s = redactAfter(s, "Failing row contains (", failingRowValue)
	s = redactAfter(s, "Duplicate entry '", duplicateEntryValue)
	return redactAfter(s, "near '", nearValue)
}

var (
	failingRowValue     = lastOnLine(")")
	duplicateEntryValue = lastOnLine("' for key")
	nearTail            = lastOnLine("' at line ")
)

// nearValue requires "near" to start a word, as the prefilter does: there is
// no MySQL message in "linear 'x'".
func nearValue(s string, start int) (int, int) {
	if !wordStart(s, start-len("near '")) {
		return 0, 0
	}
	return nearTail(s, start)
}

// redactAfter replaces, for every occurrence of marker, the value span that
// span finds after it (span returns an empty span to skip).
func redactAfter(s, marker string, span func(s string, start int) (int, int)) string {
	e := edit{s: s}
	for i := 0; ; {
		j := strings.Index(s[i:], marker)
		if j < 0 {
			break
		}
		i += j + len(marker)
		vs, ve := span(s, i)
		if ve <= vs {
			continue
		}
		e.replace(vs, ve, Redacted)
		i = ve
	}
	return e.result()
}

// sqlKeyValue finds the value in PostgreSQL's "Key (col)=(value) already
// exists". The value may itself contain parentheses, so its end is the last
// known message tail on the line, else the balancing parenthesis, else the
// end of the line.
func sqlKeyValue(s string, start int) (int, int) {
	eol := lineEnd(s, start)
	cols := strings.Index(s[start:eol], ")=(")
	if cols < 0 {
		return 0, 0
	}
	v := start + cols + len(")=(")
	line := s[v:eol]
	for _, tail := range []string{") already exists", ") is not present", ") is still referenced", ") conflicts with"} {
		if k := strings.LastIndex(line, tail); k >= 0 {
			return v, v + k
		}
	}
	depth := 1
	for k := 0; k < len(line); k++ {
		switch line[k] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return v, v + k
			}
		}
	}
	return v, eol
}

// lastOnLine ends a quoted value at the last occurrence of tail on its line,
// because the value may contain the quote character itself.
func lastOnLine(tail string) func(s string, start int) (int, int) {
	return func(s string, start int) (int, int) {
		eol := lineEnd(s, start)
		if k := strings.LastIndex(s[start:eol], tail); k >= 0 {
			return start, start + k
		}
		return start, eol
	}
}
