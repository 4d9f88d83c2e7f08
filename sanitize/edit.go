package sanitize

import "strings"

// edit builds the result of one rule's replacements over s, in order.
// A replacement that would write what is already there is left out, so a
// rule that runs again over its own output (the check that a pass has
// settled finds a marker where each secret was) returns s without
// allocating. The result is built in one buffer that becomes the string.
type edit struct {
	s string
	// last is the end of the last span replaced, changed or not: the rules
	// use it to keep spans apart.
	last   int
	copied int
	// writes counts the replacements written.
	writes int
	b      strings.Builder
}

func (e *edit) replace(start, end int, with string) {
	if e.s[start:end] != with {
		if e.b.Cap() == 0 {
			e.b.Grow(len(e.s) + len(with))
		}
		e.b.WriteString(e.s[e.copied:start])
		e.b.WriteString(with)
		e.copied = end
		e.writes++
	}
	e.last = end
}

func (e *edit) result() string {
	if e.b.Cap() == 0 {
		return e.s
	}
	e.b.WriteString(e.s[e.copied:])
	return e.b.String()
}
