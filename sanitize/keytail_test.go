package sanitize

import (
	"strings"
	"testing"
)

// TestMayKeyBefore walks every key name keyBefore knows, in each case,
// after a few prefixes, before the quotes and spaces a key may have and
// each separator mayKeyBefore is asked of, and checks that it lets through
// every separator keyBefore finds a key before; and that it rejects the
// colon of the benchmark's prose.
func TestMayKeyBefore(t *testing.T) {
	var names []string
	names = append(names, secretKeys...)
	names = append(names, lineKeys...)
	names = append(names, "value", "key")
	for _, q := range keyQualifiers {
		for _, sep := range []string{"", "_", "-"} {
			names = append(names, q+sep+"key")
		}
	}
	for _, n := range names[:len(names):len(names)] {
		names = append(names, n+"s", n+" string", n+": str", n+" String")
	}
	title := func(w string) string { return strings.ToUpper(w[:1]) + w[1:] }
	var texts []string
	for _, n := range names {
		for _, w := range []string{n, strings.ToUpper(n), title(n)} {
			for _, pre := range []string{"", "x", "?", "db_", `{"name":"`} {
				for _, post := range []string{"", " ", `"`, `']`, `\"`} {
					for _, sep := range []string{":", "=", ":=", "=>"} {
						for _, v := range []string{" hunter2abc", ` ["a", "b"]`} {
							texts = append(texts, pre+w+post+sep+v)
						}
					}
				}
			}
		}
	}
	found := 0
	for _, s := range texts {
		for q := range len(s) {
			if s[q] != ':' && s[q] != '=' {
				continue
			}
			if _, _, ok := keyBefore(s, q); ok {
				found++
				if !mayKeyBefore(s, q) {
					t.Fatalf("keyBefore finds a key before %q's %q at %d, mayKeyBefore rejects it", s, s[q], q)
				}
			}
		}
	}
	if found < len(texts)/2 {
		t.Fatalf("keyBefore found %d keys in %d texts: the test no longer exercises mayKeyBefore", found, len(texts))
	}
	if q := strings.IndexByte(benchClean, ':'); mayKeyBefore(benchClean, q) {
		t.Fatalf("mayKeyBefore lets through the colon of %q", benchClean[:q+1])
	}
}
