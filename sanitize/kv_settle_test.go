package sanitize

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// settleTexts are key/value texts built from parts that stress what the
// key-value rule reads around a value it redacts: quoted and bare keys,
// every separator, values with quotes, colons, spaces and separators of
// their own, and what may follow one (another pair, a quote, prose, a line
// break).
func settleTexts() []string {
	prefixes := []string{"", "login failed: ", "password=", "token: ", `{"auth":`, "set "}
	keys := []string{"password", "token", "api_key", "client_secret", "X-Api-Key", `"password"`, `'secret'`, `\"auth_token\"`, "session"}
	seps := []string{"=", ": ", ":", "=\"", ":'", " = ", "=>", ":="}
	values := []string{"Tr0ub4dor3xyz", "abc:def", `"q1w2e3r4"`, "hunter 2", "a=b", "x'y", "tok,en", "${X}", "[redacted]", `\"zz\"`, "pw@host"}
	followers := []string{"", " with the login call.", "&token=abc123", ";user=app", `,"secret":"zz9"`, " password=second1",
		`"token":"t2"`, "'key'=v", ")", "}", "\n  token: z", "token=x", ":tail", " is wrong", " 0 0=", " a b=c"}
	var texts []string
	for _, p := range prefixes {
		for _, k := range keys {
			for _, sep := range seps {
				for _, v := range values {
					for _, f := range followers {
						texts = append(texts, p+k+sep+v+f)
					}
				}
			}
		}
	}
	return texts
}

// openPass runs pass but never claims its result settled, so settle
// confirms every change with another pass: the result without the skip.
func openPass(pass func(string, flags) (string, bool)) func(string, flags) (string, bool) {
	return func(s string, f flags) (string, bool) {
		t, _ := pass(s, f)
		return t, false
	}
}

// checkSettled fails if the key-value rule calls a result of s settled
// that it changes again, or if either tier's text for s differs from the
// one settle gives when no pass may skip its confirmation.
func checkSettled(t *testing.T, s string) {
	t.Helper()
	if out, settled := redactKeyValues(s); settled && out != s {
		if again, _ := redactKeyValues(out); again != out {
			t.Fatalf("key-value rule called its result of %q settled:\n once %q\ntwice %q", s, out, again)
		}
	}
	tiers := []struct {
		name  string
		limit int
		sc    *scanner
		pass  func(string, flags) (string, bool)
		fast  func(string) (string, flags)
	}{
		{"public", MaxPublicLen, publicScanner, publicPass, publicScan},
		{"log", MaxLogLen, logScanner, logPass, logScan},
	}
	for _, tier := range tiers {
		fast, _ := tier.fast(s)
		slow := settle(s, fEscape|fNonASCII|tier.sc.scan(s), tier.limit, tier.sc, openPass(tier.pass))
		if fast != slow {
			t.Fatalf("%s tier of %q:\n with the skip %q\nwithout it    %q", tier.name, s, fast, slow)
		}
	}
}

// TestKeyValuesSettled proves the skip settle makes when the key-value
// rule calls its result settled: over the corpora, the gitleaks samples in
// every context and generated key/value texts, both tiers give what they
// give when every change is confirmed by another pass.
func TestKeyValuesSettled(t *testing.T) {
	texts := append(settleTexts(), corpusTexts(t)...)
	for _, sd := range publicSeeds {
		texts = append(texts, "password="+sd.secret+" b", "token: "+sd.secret+"&key="+sd.secret)
	}
	for _, args := range fuzzCorpus(t) {
		joined := strings.Join(args, "")
		texts = append(texts, joined)
		if len(args) == 2 {
			for _, sd := range publicSeeds {
				texts = append(texts, args[0]+" "+sd.secret+" "+args[1])
			}
		}
	}
	for _, s := range texts {
		checkSettled(t, s)
		checkSettled(t, s+" "+s)
	}
	t.Run("gitleaks", func(t *testing.T) {
		for _, c := range loadGitleaksCases(t) {
			checkSettled(t, c.Input)
			for _, ctx := range gitleaksContexts {
				checkSettled(t, fmt.Sprintf(ctx.format, c.Secret))
			}
			checkSettled(t, strings.ReplaceAll(c.Input, "\n", " "))
		}
	})
}

// fuzzCorpus returns the string arguments of every stored fuzz input: the
// texts fuzzing found to break a guarantee once.
func fuzzCorpus(t *testing.T) [][]string {
	t.Helper()
	files, err := filepath.Glob("testdata/fuzz/*/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fuzz corpus: %v", err)
	}
	var inputs [][]string
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var args []string
		for _, line := range strings.Split(string(data), "\n") {
			if q, ok := strings.CutPrefix(line, "string("); ok {
				v, err := strconv.Unquote(strings.TrimSuffix(q, ")"))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				args = append(args, v)
			}
		}
		inputs = append(inputs, args)
	}
	return inputs
}

// TestNextKVSep checks nextKVSep against the obvious search, byte by byte,
// on random texts of TestPlainPrefixSound's words, separators and random
// bytes.
func TestNextKVSep(t *testing.T) {
	naive := func(s string, i int) int {
		for i < len(s) && !kvSeps[s[i]] {
			i++
		}
		return i
	}
	next := xorshiftPicker(0x2545f4914f6cdd1d)
	seps := []string{" ", ": ", "=", "\"", "'", ",", ">", "", "\n", "..."}
	for range 5000 {
		var b strings.Builder
		for range 1 + next(20) {
			if next(4) == 0 {
				b.WriteByte(byte(next(256)))
			}
			b.WriteString(plainWords[next(len(plainWords))])
			b.WriteString(seps[next(len(seps))])
		}
		s := b.String()
		for i := 0; i <= len(s); i++ {
			if got, want := nextKVSep(s, i), naive(s, i); got != want {
				t.Fatalf("nextKVSep(%q, %d) = %d, want %d", s, i, got, want)
			}
		}
	}
}
