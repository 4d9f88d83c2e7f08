package sanitize

import (
	"fmt"
	"strings"
	"testing"
)

// plainSound fails t when the flags of s scanned from plainPrefix(s) on
// lack one of the flags of all of s, in either tier's scanner, or when
// plainPrefix vouches for all of s and a tier changes it. It reports
// whether plainPrefix vouched for all of s.
func plainSound(t *testing.T, s string) bool {
	t.Helper()
	k, found := plainPrefix(s)
	// The context and card checks read a run of bytes once, at its first
	// trigger: a scan that starts inside a run (a card number after a
	// number too long for one) may also check a later trigger of it, and
	// raise a flag whose rule then finds nothing. Every other flag is the
	// same.
	const rereads = fContext | fCard
	for _, sc := range []*scanner{publicScanner, logScanner} {
		if got, want := withURL(found|sc.scanRange(s, k, len(s), sc.want&^found)), sc.scan(s); got&want != want || got&^rereads != want&^rereads {
			t.Fatalf("%q scanned from plainPrefix %d: flags %b, all of it: %b", s, k, got, want)
		}
	}
	if k < len(s) {
		return false
	}
	if Public(s) != s || Log(s) != s {
		t.Fatalf("plainPrefix vouches for %q, but a tier changes it: %q, %q", s, Public(s), Log(s))
	}
	return true
}

// plainWords are the pieces TestPlainPrefixSound builds texts of: the words
// and bytes plainPrefix answers itself (capitals, digits, word-starting
// "b" and "d", dots, commas, colons, dashes inside words, parentheses), the
// trigger words of the rules that read them, and credential words before
// values that the context and card rules take.
var plainWords = strings.Fields(`The request body failed validation: field quantity must be
between 1 and 250, and Basic bearer Bearer digest Digest duplicate key Key Duplicate Failing
row SELECT FROM UPDATE SET INSERT INTO ISO TRUNCATE ORA AKIA AKIAIOSFODNN7EXAMPLE eyJhbGci
token: password: secret: api key: auth: Tr0ub4dor3xyz 4111 1111 1111 1111 4111111111111111
hunter2hunter2 line 12, in pq: sql: mssql: Caused by: node: C: 10.1.2.3 v2beta abcDef
Error 1146 (42S02): near "SELEC": syntax error goroutine 12 [running]: main.go:12 ghp_x sk-x
... .... sk.x hvs.CAES pat.x dp.pt.x ..eyJhbGci x...y eu-west-1 2-letter re-run a-p x-us-east
(version (max (Native f(x) panic( Review Version USD GBP`)

// TestPlainPrefixSound checks the fast path against the prefilter: the
// prefilter's flags from plainPrefix on are those of the whole text, and a
// text vouched for whole comes back from both tiers unchanged. The texts are the corpora, every prefix
// and suffix of the benchmark's, and random sequences of plainWords with
// random separators.
func TestPlainPrefixSound(t *testing.T) {
	if !plainSound(t, benchClean) {
		t.Fatal("plainPrefix does not vouch for the benchmark's clean text")
	}
	var texts []string
	for _, c := range loadCorpus(t) {
		texts = append(texts, c.In)
	}
	for _, s := range []string{benchClean, benchSecret, benchDSNError} {
		for i := range s {
			texts = append(texts, s[:i], s[i:])
		}
	}
	seps := []string{" ", " ", " ", ", ", ". ", ": ", "\n", "=", ":", "-", "", "  ", "...", "....."}
	next := xorshiftPicker(0x9e3779b97f4a7c15)
	for range 20000 {
		var b strings.Builder
		for range 1 + next(12) {
			b.WriteString(plainWords[next(len(plainWords))])
			b.WriteString(seps[next(len(seps))])
		}
		texts = append(texts, b.String())
	}
	vouched := 0
	for _, s := range texts {
		if plainSound(t, s) {
			vouched++
		}
	}
	if vouched < len(texts)/20 {
		t.Fatalf("plainPrefix vouched for all of %d of %d texts: the test no longer exercises it", vouched, len(texts))
	}
	// gitleaks' samples in every context of TestGitleaksContexts.
	t.Run("gitleaks", func(t *testing.T) {
		for _, c := range loadGitleaksCases(t) {
			plainSound(t, c.Input)
			plainSound(t, c.Secret)
			for _, ctx := range gitleaksContexts {
				plainSound(t, fmt.Sprintf(ctx.format, c.Secret))
			}
			for _, f := range gitleaksSentences {
				plainSound(t, fmt.Sprintf(f, c.Secret))
			}
		}
	})
}

// FuzzPlainPrefix checks the fast path against the prefilter on any text.
func FuzzPlainPrefix(f *testing.F) {
	for _, w := range append(plainWords, benchClean, benchSecret) {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, s string) { plainSound(t, s) })
}

// TestPlainPairs checks each pair plainPairs passes whole in the contexts
// that decide its second byte: every byte before it of a few classes
// (none, a letter of either case, a digit, a space, punctuation) and after
// it (the same, and the trigger words' next letters), after plain words
// and after the words of a credential, whose value the context rule reads.
func TestPlainPairs(t *testing.T) {
	prevs := []string{"", "x", "X", "1", " ", ".", "L", "G"}
	nexts := []string{"", " ", "x", "X", "1", "-", ".", "e", "a", "R", "K", "I", "3"}
	pairs := 0
	for a := range 256 {
		for b := range 256 {
			if plainPairs[a|b<<8] != 2 {
				continue
			}
			pairs++
			for _, p := range prevs {
				for _, n := range nexts {
					for _, pre := range []string{"eeeee", "the api key is ", "token "} {
						s := pre + p + string([]byte{byte(a), byte(b)}) + n + "eeeeeeee"
						plainSound(t, s)
						plainSound(t, s[len(pre)-1:])
					}
				}
			}
		}
	}
	if pairs < 1000 {
		t.Fatalf("plainPairs passes %d pairs: the test no longer exercises it", pairs)
	}
}

// TestScanPairs checks the pairs scanRange's boring loop passes by
// plainPairs, for both scanners: a pair's first byte is passed whatever
// precedes it, so it must be boring to the scanner; a second byte that is
// not is a stop, and the scanner's own checks at it, in the contexts
// TestPlainPairs uses, must raise nothing. Such a stop changes no state of
// the scan either (its checks ask no rule that records where the next may
// look: valueFlags runs only at a context trigger, which no passed byte
// is), so passing it gives the flags of the one-byte loop.
func TestScanPairs(t *testing.T) {
	prevs := []string{"", "x", "X", "1", " ", ".", "L", "G", "sk", "AK"}
	nexts := []string{"", " ", "x", "X", "1", "-", ".", "e", "a", "R", "K", "I", "3", "_", ":", "=", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}
	for _, sc := range []*scanner{publicScanner, logScanner} {
		stops := 0
		for a := range 256 {
			for b := range 256 {
				n := plainPairs[a|b<<8]
				if n >= 1 && sc.class[a] != clsBoring {
					t.Fatalf("plainPairs passes %q first, which the scanner reads", byte(a))
				}
				if n < 2 || sc.class[b] == clsBoring {
					continue
				}
				stops++
				for _, p := range prevs {
					for _, nx := range nexts {
						for _, pre := range []string{"eeeee", "the api key is ", "token ", "password=", "x"} {
							s := pre + p + string([]byte{byte(a), byte(b)}) + nx + "eeeeeeee"
							j := len(pre) + len(p) + 1
							if f := sc.scanRange(s, j, j+1, sc.want); f != 0 {
								t.Fatalf("plainPairs passes %q in %q, where the scanner raises %b", byte(b), s, f)
							}
						}
					}
				}
			}
		}
		if stops < 100 {
			t.Fatalf("plainPairs passes %d stops of the scanner: the test no longer exercises them", stops)
		}
	}
}
