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

// secretKeyEndingSlow is secretKeyEnding as first written, comparing each
// name byte by byte: the reference the word-at-a-time one is checked
// against.
func secretKeyEndingSlow(k string) (start int, line, ok bool) {
	if k == "" {
		return 0, false, false
	}
	for _, w := range keysByLast[k[len(k)-1]] {
		if hasSuffixFold(k, w.word) && w.matchesAt(k, len(k)-len(w.word)) {
			return len(k) - len(w.word), w.line, true
		}
	}
	if k[len(k)-1]|0x20 == 'y' && hasSuffixFold(k, "key") {
		r := k[:len(k)-3]
		spaced := strings.HasSuffix(r, " ")
		if strings.HasSuffix(r, "_") || strings.HasSuffix(r, "-") || strings.HasSuffix(r, ".") || spaced {
			r = r[:len(r)-1]
		}
		if r == "" {
			return 0, false, false
		}
		for _, w := range qualifiersByLast[r[len(r)-1]|0x20] {
			if hasSuffixFold(r, w) && !(spaced && verbQualifier(w)) {
				return len(r) - len(w), false, true
			}
		}
	}
	return 0, false, false
}

// TestSecretKeyEnding compares secretKeyEnding with secretKeyEndingSlow on
// every key name in three cases, after random bytes, with the bytes that
// fold onto a name's '_' and '-' (DEL, CR) put in their place or with its
// first byte changed, and cut at every length.
func TestSecretKeyEnding(t *testing.T) {
	var names []string
	for _, w := range append(append(append([]string{}, secretKeys...), lineKeys...), "key", "api_key", "x-api-key") {
		names = append(names, w, strings.ToUpper(w), strings.ToUpper(w[:1])+w[1:],
			strings.ReplaceAll(w, "_", "\x7f"), strings.ReplaceAll(w, "-", "\r"), strings.ReplaceAll(w, "s", "S"),
			// A name whose last eight bytes match and whose start does not.
			"q"+w[1:])
	}
	next := xorshiftPicker(0x6a09e667f3bcc909)
	found := 0
	for _, n := range names {
		for range 20 {
			pre := make([]byte, next(12))
			for i := range pre {
				pre[i] = "ab_-.X9 \x7f\r@`"[next(12)]
			}
			s := string(pre) + n
			for i := 0; i <= len(s); i++ {
				k := s[:i]
				gs, gl, gok := secretKeyEnding(k)
				ws, wl, wok := secretKeyEndingSlow(k)
				if gs != ws || gl != wl || gok != wok {
					t.Fatalf("secretKeyEnding(%q) = %d %v %v, want %d %v %v", k, gs, gl, gok, ws, wl, wok)
				}
				if gok {
					found++
				}
			}
		}
	}
	if found < len(names)*10 {
		t.Fatalf("%d keys found: the test no longer exercises secretKeyEnding", found)
	}
}

// TestByteTables compares the byte tables isKeyNameByte and isAlnum read
// with the ranges they stand for, at every byte.
func TestByteTables(t *testing.T) {
	for c := range 256 {
		b := byte(c)
		if got, want := isKeyNameByte(b), isWordByte(b) || b == '-' || b == '.'; got != want {
			t.Fatalf("isKeyNameByte(%q) = %v", b, got)
		}
		if got, want := isAlnum(b), isDigit(b) || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'; got != want {
			t.Fatalf("isAlnum(%q) = %v", b, got)
		}
	}
}

// TestQuotedAfterKeyword compares quotedAfterKeyword, which compares only
// the keywords that end as the word before the quote does, with every
// keyword compared, at every quote of random texts of the keywords in
// every case.
func TestQuotedAfterKeyword(t *testing.T) {
	slow := func(s string, q int) (int, bool, bool) {
		sp := q - 1
		if s[q] == '"' && sp > 0 && s[sp] == '\\' {
			sp--
		}
		if sp < 1 || s[sp] != ' ' {
			return 0, false, false
		}
		k := s[:sp]
		for _, w := range proseKeywords {
			if hasSuffixFold(k, w) && (len(k) == len(w) || !isWordByte(k[len(k)-len(w)-1])) {
				return len(k) - len(w), false, true
			}
		}
		return 0, false, false
	}
	var parts []string
	for _, w := range proseKeywords {
		parts = append(parts, w, strings.ToUpper(w), "x"+w)
	}
	parts = append(parts, " ", " '", ` "`, ` \"`, "'", "_", "D", "e\x7f", "@")
	next := xorshiftPicker(0x510e527fade682d1)
	found := 0
	for range 20000 {
		var b strings.Builder
		for range 1 + next(6) {
			b.WriteString(parts[next(len(parts))])
		}
		s := b.String()
		for q := 0; q < len(s); q++ {
			if s[q] != '"' && s[q] != '\'' {
				continue
			}
			gs, gl, gok := quotedAfterKeyword(s, q)
			ws, wl, wok := slow(s, q)
			if gs != ws || gl != wl || gok != wok {
				t.Fatalf("quotedAfterKeyword(%q, %d) = %d %v %v, want %d %v %v", s, q, gs, gl, gok, ws, wl, wok)
			}
			if gok {
				found++
			}
		}
	}
	if found < 1000 {
		t.Fatalf("%d keywords found: the test no longer exercises quotedAfterKeyword", found)
	}
}
