package sanitize

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// logUncut is the log tier as it was before logCut: the whole text made
// valid and scanned, then cut to the limit.
func logUncut(s string) string {
	if isUUID(s) {
		return s
	}
	f := fEscape | fNonASCII
	if len(s) <= MaxLogLen {
		if k, found := plainPrefix(s); k == len(s) {
			return s
		} else if utf8.ValidString(s[k:]) {
			f = withURL(found | logScanner.scanRange(s, k, len(s), logScanner.want&^found))
		}
	}
	return unhideEscaped(s, settle(s, f, MaxLogLen, logScanner, logPass), logText, logScanner)
}

// noisyText returns n bytes from seed: each byte a control with odds
// ctrl in 256, else non-ASCII (valid runes and invalid bytes) with odds
// high in 256, else printable ASCII.
func noisyText(n int, seed uint64, ctrl, high int) string {
	b := make([]byte, 0, n+4)
	x := seed | 1
	for len(b) < n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		switch r := int(x & 0xff); {
		case r < ctrl:
			b = append(b, byte(x>>8)&0x1f)
		case r < ctrl+high:
			if x>>8&1 == 0 {
				b = append(b, 0x80|byte(x>>16))
			} else {
				b = utf8.AppendRune(b, rune(0x80+x>>20%0x2ff80))
			}
		default:
			b = append(b, ' '+byte(x>>8%95))
		}
	}
	return string(b[:n])
}

// noisy64K are texts whose escapes carry them past the limit: random
// bytes of several mixtures and lengths, NUL bytes, line breaks, runs of
// invalid bytes, controls between CJK runes.
func noisy64K() []struct{ name, s string } {
	var out []struct{ name, s string }
	for i, m := range []struct{ ctrl, high, n int }{
		{32, 128, 64 << 10}, {8, 200, 64 << 10}, {128, 0, 48 << 10}, {64, 64, 100 << 10}, {16, 16, 70 << 10}, {200, 40, 64 << 10},
	} {
		out = append(out, struct{ name, s string }{fmt.Sprintf("noise_%d_%d_%d", m.ctrl, m.high, m.n), noisyText(m.n, uint64(i+1)*0x9e3779b97f4a7c15, m.ctrl, m.high)})
	}
	return append(out,
		struct{ name, s string }{"nul", strings.Repeat("\x00", 64<<10)},
		struct{ name, s string }{"lines", strings.Repeat("a\n", 32<<10)},
		struct{ name, s string }{"invalid_runs", strings.Repeat("\xff\xfe\xfd a", 16<<10)},
		struct{ name, s string }{"cjk_controls", strings.Repeat("日本語\x01テキスト\x1b", 4<<10)},
	)
}

// Where no rule redacts, the cut moves nothing: the output is the one of
// the tier that made the whole text valid and scanned it.
func TestLogCutKeepsTheOutput(t *testing.T) {
	compared := 0
	for _, in := range noisy64K() {
		want := logUncut(in.s)
		if strings.Contains(want, Redacted) {
			continue
		}
		compared++
		if got := Log(in.s); got != want {
			t.Errorf("%s: Log differs from the uncut tier at %d of %d bytes", in.name, commonPrefix(got, want, min(len(got), len(want))), len(want))
		}
	}
	if compared < 6 {
		t.Fatalf("only %d texts without a redaction", compared)
	}
}

// Where redactions give back more room than the cut's margin, the output
// is the uncut tier's too: a long value redacted before escape-heavy text,
// with a secret where the cut would fall.
func TestLogCutFallsBackWhenRedactionsShrink(t *testing.T) {
	for _, n := range []int{5 << 10, 9 << 10, 30 << 10} {
		for _, bg := range []string{strings.Repeat("\x00", 64<<10), noisyText(64<<10, uint64(n), 64, 64)} {
			head := "token=" + strings.Repeat("a1", n/2) + " "
			s := head + bg[:len(bg)-len(head)]
			k, cut := escapedCutAt(s)
			if !cut {
				t.Fatalf("%d: not cut", n)
			}
			for _, sd := range []seeded{credentialSeeds[15], credentialSeeds[2]} {
				at := k - len(sd.secret)/2
				s := s[:at] + " " + sd.secret + " " + s[at+len(sd.secret)+2:]
				got := checkLog(t, s)
				if want := logUncut(s); got != want {
					t.Fatalf("%d: Log differs from the uncut tier at %d of %d bytes", n, commonPrefix(got, want, min(len(got), len(want))), len(want))
				}
				if strings.Contains(got, sd.core[:6]) {
					t.Fatalf("%d: %q kept", n, sd.core[:6])
				}
			}
		}
	}
}

// Secrets before the cut, across it and after it, in texts the cut reads
// only the start of: each is redacted or cut off, and the output is valid,
// within the limit, escaped and a fixed point.
func TestLogCutKeepsTheContract(t *testing.T) {
	for i, in := range noisy64K() {
		k, cut := escapedCutAt(in.s)
		if !cut {
			continue
		}
		for j, sd := range credentialSeeds {
			if (i+j)%4 != 0 {
				// Every seed still meets a few texts: a quarter of the
				// pairs keeps the test to seconds.
				continue
			}
			for _, at := range []int{0, k / 3, k - 300, k - len(sd.secret)/2, k + 10, len(in.s) - len(sd.secret) - 2} {
				at = max(0, min(at+j, len(in.s)-len(sd.secret)-2))
				s := in.s[:at] + " " + sd.secret + " " + in.s[at+len(sd.secret)+2:]
				if out := checkLog(t, s); strings.Contains(out, sd.core) {
					t.Fatalf("%s: core %q at %d of %d survived", in.name, sd.core, at, k)
				}
			}
		}
	}
}

// escapedCutAt returns where logCut stops reading s.
func escapedCutAt(s string) (int, bool) {
	_, k := appendValidPrefix(nil, s, logReach)
	return k, k < len(s)
}

// A text that grows a little past the limit, or a long one of printable
// ASCII, is cut by clip alone, as before.
func TestLogCutLeavesLongPlainText(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("request failed; retrying the upstream call\n", (64<<10)/43),
		strings.Repeat("plain words ", 12<<10),
		strings.Repeat("x", 60<<10) + strings.Repeat("\x01", 800),
	} {
		if _, cut := logCut(s); cut {
			t.Errorf("cut %d bytes of %q...", len(s), s[:20])
		}
	}
}

// validLen agrees with the decoder on every sequence of up to four bytes
// a lead byte starts, over the bytes that matter at each place.
func TestValidLen(t *testing.T) {
	probe := []byte{0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xe0, 0xed, 0xf0, 0xf4, 0xff}
	for lead := 0x80; lead <= 0xff; lead++ {
		for _, b1 := range probe {
			for _, b2 := range probe {
				for _, b3 := range probe {
					for n := 1; n <= 4; n++ {
						s := string([]byte{byte(lead), b1, b2, b3}[:n])
						want := 0
						if r, size := utf8.DecodeRuneInString(s); r != utf8.RuneError || size > 1 {
							want = size
						}
						if got := validLen(s, 0); got != want {
							t.Fatalf("validLen(%q) = %d, want %d", s, got, want)
						}
					}
				}
			}
		}
	}
}

// FuzzLogCut fills 64 KiB or more with a fuzzed unit, which escapes may
// grow past the limit, and puts a secret at a fuzzed place: the output
// keeps the contract, loses the secret, and is the uncut tier's wherever
// that redacts nothing.
func FuzzLogCut(f *testing.F) {
	for _, u := range []string{"\x00", "a\n", "\xff\xfe", "日\x01", "\x1b[31m", "k=v\x00 ", "\xe2\x80\xae", "\u2028x"} {
		f.Add(u, uint16(0), uint8(0))
		f.Add(u, uint16(30000), uint8(7))
	}
	f.Fuzz(func(t *testing.T, unit string, at uint16, way uint8) {
		if unit == "" || len(unit) > 64 {
			return
		}
		bg := strings.Repeat(unit, (80<<10)/len(unit))
		if want := logUncut(bg); !strings.Contains(want, Redacted) {
			if got := checkLog(t, bg); got != want {
				t.Fatalf("%q: differs from the uncut tier at %d", unit, commonPrefix(got, want, min(len(got), len(want))))
			}
		}
		sd := credentialSeeds[int(way)%len(credentialSeeds)]
		if strings.Contains(bg, sd.core) {
			return
		}
		p := int(at) % (len(bg) - len(sd.secret) - 2)
		if out := checkLog(t, bg[:p]+" "+sd.secret+" "+bg[p+len(sd.secret)+2:]); strings.Contains(out, sd.core) {
			t.Fatalf("%q: core %q at %d kept", unit, sd.core, p)
		}
	})
}

// clip makes invalid text valid as strings.ToValidUTF8 does and cuts it
// as it cuts valid text, for texts shorter and longer than the limit,
// with invalid runs and whitespace at and around the cut.
func TestClipAgreesWithToValidUTF8(t *testing.T) {
	want := func(s string, limit int) string {
		if len(s) > 4*limit {
			s = s[:4*limit]
		}
		s = strings.ToValidUTF8(s, "\uFFFD")
		if len(s) <= limit {
			return s
		}
		return s[:clipAt(s, limit)] + Truncated
	}
	for i, limit := range []int{64, 300, MaxPublicLen, MaxLogLen} {
		for j := range 60 {
			n := []int{1, limit / 3, limit - 2, limit, limit + 1, 2 * limit, 5 * limit}[j%7] + j
			s := noisyText(n, uint64(i*100+j+1), 8+j*3, 20+j*3)
			if j%5 == 0 {
				s = strings.Repeat("\xff", n)
			}
			if got, w := clip(s, limit, false), want(s, limit); got != w {
				t.Fatalf("limit %d, %d bytes: clip differs at %d", limit, n, commonPrefix(got, w, min(len(got), len(w))))
			}
		}
	}
}
