package sanitize

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// tokenAtEvery is tokenAt trying every trigger of the anchor's lists that
// the index files under the bytes around it, each compared whole as a
// string: no list cut by the byte after the anchor, no byte compared
// before the text, no word compared for its start.
func tokenAtEvery(s string, i int, rc *runs) (int, int) {
	a := triggersByAnchor[s[i]]
	var m tokenMatch
	if a == nil {
		return 0, 0
	}
	var lists [][]trigger
	if i+1 < len(s) && a.next[s[i+1]] != 0 {
		lists = append(lists, a.byNext[a.next[s[i+1]]-1])
	}
	if wordStart(s, i) {
		lists = append(lists, a.first)
	}
	if i > 0 && a.prev[s[i-1]] != 0 {
		lists = append(lists, a.byPrev[a.prev[s[i-1]]-1])
	}
	for _, ts := range lists {
		for k := range ts {
			if t := &ts[k]; i >= t.at && strings.HasPrefix(s[i-t.at:], t.text) {
				m.try(s, i, t, 0, rc)
			}
		}
	}
	return m.start, m.end
}

// triggerAtEvery is triggerAt comparing every trigger anchored on s[i]
// whole.
func triggerAtEvery(s string, i int) bool {
	for r := range tokenFormats {
		for _, text := range tokenFormats[r].triggers {
			at := anchorOf(text)
			p := i - at
			if text[at] != s[i] || p < 0 || !strings.HasPrefix(s[p:], text) {
				continue
			}
			if tokenFormats[r].before != "" {
				// Infix triggers are indexed by the byte after the anchor:
				// their own, or a byte of their body.
				if i+1 < len(s) && (at+1 < len(text) || alphabetSet(tokenFormats[r].body)[s[i+1]]) {
					return true
				}
				continue
			}
			if wordStart(s, p) {
				return true
			}
		}
	}
	return false
}

// tokenTexts are texts dense in triggers: every trigger, its parts, body
// bytes and separators glued at random, and repetitions of each trigger.
func tokenTexts(t *testing.T) []string {
	rng := rand.New(rand.NewPCG(27, 55))
	var parts []string
	for _, r := range tokenFormats {
		for _, tr := range r.triggers {
			parts = append(parts, tr, tr[:len(tr)/2], tr[len(tr)/2:])
		}
	}
	parts = append(parts, " ", "-", "_", ".", "7", "Q", "a1B2c3D4e5F6g7H8", "abcdefghijklmnopqrstuvwxyz0123456789ABCDEF", "=", ":", "/", "|")
	var texts []string
	for n := 0; n < 400; n++ {
		var b strings.Builder
		for b.Len() < 300+rng.IntN(800) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		texts = append(texts, b.String())
	}
	for _, r := range tokenFormats {
		for _, tr := range r.triggers {
			texts = append(texts, strings.Repeat(tr, 20), strings.Repeat(tr+"x", 20), tr+"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0")
		}
	}
	texts = append(texts, corpusTexts(t)...)
	for _, in := range hostile64K {
		texts = append(texts, in.s[:4<<10])
	}
	return texts
}

// TestTokenAtLists compares tokenAt and triggerAt, which try only the
// triggers whose bytes around the anchor match, with the same search
// comparing every trigger whole, at every byte of the texts, and holds
// that tokenMayStart turns away no anchor of a token.
func TestTokenAtLists(t *testing.T) {
	found, turned := 0, 0
	for _, r := range tokenFormats {
		if r.end == nil && r.min < 1 {
			t.Fatalf("%s takes an empty body: tokenNeighbours would turn it away", r.name)
		}
	}
	for _, s := range tokenTexts(t) {
		var rc, rcEvery runs
		for i := 0; i < len(s); i++ {
			if triggersByAnchor[s[i]] == nil {
				continue
			}
			a, b := tokenAt(s, i, 0, &rc)
			x, y := tokenAtEvery(s, i, &rcEvery)
			if a != x || b != y {
				t.Fatalf("tokenAt at %d of %q: %d:%d, trying every trigger %d:%d", i, s, a, b, x, y)
			}
			if !tokenMayStart(s, i) {
				turned++
				if y > x {
					t.Fatalf("tokenMayStart turns away the token %q at %d of %q", s[x:y], i, s)
				}
			}
			if b > a {
				found++
			}
			if got, want := triggerAt(s, i), triggerAtEvery(s, i); got != want {
				t.Fatalf("triggerAt at %d of %q: %v, comparing every trigger %v", i, s, got, want)
			}
		}
	}
	if found < 1000 || turned < 1000 {
		t.Fatalf("only %d tokens found, %d anchors turned away: the texts test too little", found, turned)
	}
}

// TestDashFlagsSpace holds dashFlags' shortcut: a dash after a byte that
// is no space starts none of the options it asks for.
func TestDashFlagsSpace(t *testing.T) {
	texts := append(tokenTexts(t), "a -u user:pw", "x--token abc", "-p secret", "\t-pHunter2", "--user=x", "curl -u a:b --proxy-user c:d")
	for _, s := range texts {
		for i := 1; i < len(s); i++ {
			if s[i] == '-' && !isSpace(s[i-1]) && (userOptionAt(s, i) > 0 || secretOptionAt(s, i) > 0 || passwordFlagAt(s, i)) {
				t.Fatalf("an option starts at the dash at %d of %q, after %q", i, s, s[i-1])
			}
		}
	}
}

// TestValueFlagsDue holds the scan's guard before valueFlags: at a digit
// or capital that neither due nor cardDue admits, under any skips and any
// want, valueFlags raises nothing and moves no skip, so the call it spares
// would have changed nothing.
func TestValueFlagsDue(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 77))
	wants := []flags{fContext | fCard, fContext, fCard, logScanner.want}
	spared := 0
	for _, s := range append(tokenTexts(t), wordTexts()...) {
		for i := 0; i < len(s); i++ {
			if !contextTriggerByte[s[i]] {
				continue
			}
			for range 4 {
				sk := valueSkips{context: i - 4 + rng.IntN(40), card: i - 4 + rng.IntN(40)}
				if sk.due(s, i) || sk.cardDue(s, i) {
					continue
				}
				spared++
				after := sk
				if f := valueFlags(s, i, wants[rng.IntN(len(wants))], &after); f != 0 || after != sk {
					t.Fatalf("valueFlags at %d of %q under %+v: %#x, skips %+v", i, s, sk, f, after)
				}
			}
		}
	}
	if spared < 10000 {
		t.Fatalf("only %d calls spared: the texts test too little", spared)
	}
}

// wordTexts are digits and capitals glued to words, numbers and values.
func wordTexts() []string {
	return []string{"card 4111111111111111 ok", "a4111-1111-1111-1111", "token=Ab12Cd34Ef56 x", "id 2345678901234567",
		"x 5500 0000 0000 0004 y", "ORDER123 Ref45 aBcD", "password: Tr0ub4dor3xyz", "v1.2.3 build 20261201",
		`{"token":"tk_4f9a2c7e1b8d3f6a0c5e9b2d7a4f1c8e"}`, "api key a1B2c3D4e5F6", "3 4 5 6 2", "A1 B2 C3 _4 .5"}
}

// A token glued to the end of one whose format ends it (an AWS key ID is
// "AKIA" and 16 bytes: "AKIA...EXAMPLEghp_...") starts a word where the
// first one's redaction ends, as it does in the output, where the
// marker's ']' stands before it: the first call redacts both cores, and a
// second call finds nothing more.
func TestGluedTokensRedactedInOneCall(t *testing.T) {
	var tokens []seeded
	for _, c := range credentialSeeds {
		if strings.Trim(c.secret, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.") == "" {
			tokens = append(tokens, c)
		}
	}
	for _, a := range []seeded{{"AKIAIOSFODNN7EXAMPLE", "IOSFODNN7EXAMPLE"}, {"ASIAY34FZKBOKMUTVV7A", "Y34FZKBOKMUTVV7A"}} {
		for _, b := range tokens {
			for _, around := range [][2]string{{"", ""}, {"key=", " tail"}, {"(", ")"}, {"x ", "\n"}} {
				in := around[0] + a.secret + b.secret + around[1]
				for _, out := range []string{checkLog(t, in), checkPublic(t, in)} {
					if strings.Contains(out, a.core) || strings.Contains(out, b.core) {
						t.Errorf("%q keeps a core: %q", in, out)
					}
				}
			}
		}
	}
}

// Two tokens of one format glued together (a log that concatenates what
// it printed, a copy that lost its separator): the body's alphabet takes
// the second trigger's letters, so the second token's body stood outside
// both redactions. Each token goes, whichever format and case.
func TestGluedTokensOfOneFormatRedacted(t *testing.T) {
	bodies := []string{"aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "Zq8Kw2Lm9Rt4Vx7Pb3NcQ1We5Rt7Yu9Io0Pa"}
	for _, prefix := range []string{"ghp_", "gho_", "ghs_", "npm_"} {
		for _, b1 := range bodies {
			for _, b2 := range bodies {
				in := "token " + prefix + b1 + prefix + b2 + " rejected"
				for name, tier := range map[string]func(string) string{"Public": Public, "Log": Log} {
					if out := tier(in); strings.Contains(out, b1[8:]) || strings.Contains(out, b2[8:]) {
						t.Errorf("%s(%q) = %q keeps a body", name, in, out)
					}
				}
			}
		}
	}
}
