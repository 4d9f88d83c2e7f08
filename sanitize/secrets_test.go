package sanitize

import (
	"strings"
	"testing"
)

// redactEveryByte is spanRule.redact with at asked at every byte, the
// obvious path the rule's search (next) is checked against.
func redactEveryByte(r *spanRule, s string) string {
	e := edit{s: s}
	for i := 0; i < len(s); i++ {
		start, end := r.at(s, i)
		start = max(start, e.last)
		if end <= start {
			continue
		}
		e.replace(start, end, Redacted)
		i = end - 1
	}
	return e.result()
}

// TestSchemeRuleSearch checks that the scheme rule, which asks at only
// where a start byte starts a word, redacts what asking at every byte
// does: on random texts of scheme words in every case, glued to words and
// apart, with credentials after them.
func TestSchemeRuleSearch(t *testing.T) {
	parts := []string{"Bearer ", "bearer\t", "BASIC ", "Basic ", "Digest ", "digest", "xbearer ", "abBearer ", "dbasic ",
		"7dF3kq9PzL2mW8xR5tY1vB6n", "dXNlcjpwYXNz", "username=\"a\", realm=\"b\"", "bd", "Db", " ", "\r\n", "_", "-", "and", "bob"}
	next := xorshiftPicker(0x3c6ef372fe94f82b)
	changed := 0
	for range 20000 {
		var b strings.Builder
		for range 1 + next(8) {
			b.WriteString(parts[next(len(parts))])
		}
		s := b.String()
		got, want := schemeRule.redact(s), redactEveryByte(schemeRule, s)
		if got != want {
			t.Fatalf("scheme rule on %q: %q, asked at every byte: %q", s, got, want)
		}
		if got != s {
			changed++
		}
	}
	if changed < 1000 {
		t.Fatalf("the scheme rule redacted %d texts: the test no longer exercises it", changed)
	}
}
