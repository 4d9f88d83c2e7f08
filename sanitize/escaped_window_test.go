package sanitize

import (
	"fmt"
	"strings"
	"testing"
)

// logWhole is the log tier as it was before the windows: the whole result
// decoded and run again whenever the input holds an escape start.
func logWhole(s string) string {
	if isUUID(s) {
		return s
	}
	out, f := logScan(s)
	if f&fEscape == 0 || strings.IndexByte(s, '\\') < 0 && strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '&') < 0 {
		return out
	}
	decoded, ok := decodeLayers(out)
	if !ok {
		return out
	}
	if again := logText(decoded); foundMore(again, out) {
		return again
	}
	return out
}

// hideWays spell a secret so that no rule sees it before decoding: its
// first byte escaped (JSON, C, percent, HTML, percent twice), or glued
// to the word before by an escaped line break or tab.
var hideWays = []struct {
	name string
	hide func(secret string) string
}{
	{"json_u", func(s string) string { return fmt.Sprintf(`\u%04x`, s[0]) + s[1:] }},
	{"c_x", func(s string) string { return fmt.Sprintf(`\x%02x`, s[0]) + s[1:] }},
	{"percent", func(s string) string { return fmt.Sprintf(`%%%02X`, s[0]) + s[1:] }},
	{"percent_twice", func(s string) string { return fmt.Sprintf(`%%25%02x`, s[0]) + s[1:] }},
	{"html", func(s string) string { return fmt.Sprintf(`&#%d;`, s[0]) + s[1:] }},
	{"glued_n", func(s string) string { return `word\n` + s }},
	{"glued_t", func(s string) string { return `x\t` + s }},
	{"last_byte", func(s string) string { return s[:len(s)-1] + fmt.Sprintf(`\u%04x`, s[len(s)-1]) }},
}

// hiddenSecrets are secrets in their contexts that the log tier redacts
// only after decoding, hidden each way: every one must still go in a
// long text, wherever it sits.
func hiddenSecrets(t *testing.T, stride int) []struct{ text, secret string } {
	var inputs []struct{ in, secret string }
	for _, c := range credentialSeeds {
		inputs = append(inputs, struct{ in, secret string }{c.secret, c.core})
	}
	for i, c := range loadGitleaksCases(t) {
		if c.Kind == "tp" && i%stride == 0 && len(c.Secret) >= 8 && !strings.ContainsAny(c.Input, "\\%&") {
			inputs = append(inputs, struct{ in, secret string }{c.Input, c.Secret})
		}
	}
	var out []struct{ text, secret string }
	for _, in := range inputs {
		at := strings.Index(in.in, in.secret)
		if at < 0 || Log(in.in) == in.in {
			continue
		}
		for _, h := range hideWays {
			text := in.in[:at] + h.hide(in.secret) + in.in[at+len(in.secret):]
			if got := Log(text); strings.Contains(got, in.secret) || got == logScanOnly(text) {
				// Not hidden (the first pass alone redacts it), or not
				// found even after decoding: nothing for the windows to do.
				continue
			}
			out = append(out, struct{ text, secret string }{text, in.secret})
		}
	}
	if len(out) < 50 {
		t.Fatalf("only %d hidden secrets", len(out))
	}
	return out
}

func logScanOnly(s string) string {
	out, _ := logScan(s)
	return out
}

// Short texts take the exact path of before: the same output for random
// mixtures of escapes, secrets and noise.
func TestLogShortRecheckUnchanged(t *testing.T) {
	hidden := hiddenSecrets(t, 13)
	noise := []string{randomText(3000, true), randomText(3000, false), strings.Repeat(`{\"a\":\"\\u0070ass\\\"`, 100)}
	for i, h := range hidden {
		for j, bg := range noise {
			at := (i * 977) % len(bg)
			for _, s := range []string{h.text, bg[:at] + " " + h.text + " " + bg[at:], `{"msg":"` + h.text + `\n"}`} {
				if got, want := Log(s), logWhole(s); got != want {
					t.Fatalf("noise %d: Log(%q) = %q, before %q", j, s, got, want)
				}
			}
		}
	}
}

// Long texts: a hidden secret anywhere in 64 KiB of hostile text (at its
// start, in its middle, at its end, next to other escapes at the border
// of a window) is redacted exactly as the whole run redacts it.
func TestLogLongRecheckWindows(t *testing.T) {
	hidden := hiddenSecrets(t, 151)
	backgrounds := []struct{ name, s string }{
		{"random_ascii", randomText(64<<10, true)},
		{"random_bytes", randomText(64<<10, false)},
		{"prose", strings.Repeat("request failed; retrying the upstream call\n", (64<<10)/43)},
		{"json_lines", strings.Repeat(`{\"level\":\"info\",\"msg\":\"ok\\n\"}\n`, (64<<10)/36)},
	}
	for i, h := range hidden {
		if i%3 != 0 {
			// Every hiding way and background still comes round: a
			// third of the pairs keeps the test to seconds.
			continue
		}
		bg := backgrounds[(i/3)%len(backgrounds)]
		n := len(h.text)
		// Places: start, middle, end, and after a decoy escape at the
		// edges of the windows around it.
		var places []string
		places = append(places, h.text+" "+bg.s[:len(bg.s)-n-1], bg.s[:32<<10]+" "+h.text+" "+bg.s[32<<10+n+2:], bg.s[:len(bg.s)-n-1]+" "+h.text)
		for _, gap := range []int{windowAfter - 4, windowAfter + windowBefore - 2, windowAfter + windowBefore + 2, 2 * (windowAfter + windowBefore)} {
			at := (16 << 10) + i*101
			places = append(places, bg.s[:at]+` \t `+strings.Repeat("a", gap)+" "+h.text+" "+bg.s[at+gap+n+5:])
		}
		for k, s := range places {
			got := Log(s)
			if strings.Contains(got, h.secret[1:len(h.secret)-1]) {
				t.Fatalf("%s place %d: secret %q of %q kept", bg.name, k, h.secret, h.text)
			}
			// Where the whole run found the secret, the windows agree with
			// it. It may not: its own escapes, written out again, can push
			// the secret past the limit, and it then kept the first pass's
			// text (with the secret, unless that was cut too).
			if want := logWhole(s); got != want && want != logScanOnly(s) {
				t.Fatalf("%s place %d: %q differs from the whole run", bg.name, k, h.text)
			}
		}
	}
}

// FuzzLogLongRecheck fills 64 KiB with a fuzzed unit and hides a secret
// at a fuzzed place in it: the log tier must redact it, and agree with
// the whole re-check wherever that found it.
func FuzzLogLongRecheck(f *testing.F) {
	for _, u := range []string{`\n`, "a=b ", `%2F`, `\u0041`, "&amp;", randomText(40, true), `{\"a\":1}`} {
		f.Add(u, uint16(0), uint8(0))
		f.Add(u, uint16(40000), uint8(3))
	}
	f.Fuzz(func(t *testing.T, unit string, at uint16, way uint8) {
		if unit == "" || len(unit) > 64 {
			return
		}
		secret := credentialSeeds[int(way)%len(credentialSeeds)]
		if strings.Contains(unit, secret.core[:8]) {
			return
		}
		h := hideWays[int(way)%len(hideWays)]
		text := h.hide(secret.secret)
		bg := strings.Repeat(unit, (64<<10)/len(unit))
		if len(bg) < len(text)+2 {
			return
		}
		p := int(at) % (len(bg) - len(text) - 1)
		s := bg[:p] + " " + text + " " + bg[p+len(text)+2:]
		got, want := Log(s), logWhole(s)
		if want != logScanOnly(s) && got != want {
			t.Fatalf("differs from the whole re-check at %d (%q, %q)", p, unit, text)
		}
		if !strings.Contains(want, secret.core) && strings.Contains(got, secret.core) {
			t.Fatalf("core %q kept at %d (%q, %q)", secret.core, p, unit, text)
		}
	})
}

// The windows reach a key well before its escape and a value well after
// it, in long texts: the key's own bytes, quotes and spaces before an
// escaped separator, a JSON-escaped PEM block whose line breaks are its
// only escapes, a token glued on by one escape and as long as a JWT.
func TestLogLongRecheckReach(t *testing.T) {
	pem := "-----BEGIN RSA PRIVATE KEY-----"
	for range 12 {
		pem += `\n` + strings.Repeat("MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn", 2)
	}
	pem += `\n-----END RSA PRIVATE KEY-----`
	cases := []struct{ text, secret string }{
		{`{"AZURE_STORAGE_ACCOUNT_ACCESS_KEY"        \u003a   "Zm9vYmFyYmF6cXV4MTIzNDU2"}`, "Zm9vYmFyYmF6cXV4MTIzNDU2"},
		{`client_secret` + strings.Repeat(" ", 30) + `%3D` + strings.Repeat(" ", 20) + `s3cr3tV4lue0123456789`, "s3cr3tV4lue0123456789"},
		{pem, "MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn"},
		{`upstream said:\neyJhbGciOiJIUzI1NiJ9.` + strings.Repeat("eyJzdWIiOiIxMjM0NTY3ODkwIn0", 8) + `.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U`, "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
	}
	bg := randomText(64<<10, true)
	for _, c := range cases {
		if got := Log(c.text); strings.Contains(got, c.secret) {
			t.Fatalf("short: %q kept in %q", c.secret, got)
		}
		for _, at := range []int{0, 20 << 10, len(bg) - len(c.text) - 300} {
			s := bg[:at] + " " + c.text + " " + bg[at+len(c.text)+2:]
			got, want := Log(s), logWhole(s)
			if strings.Contains(got, c.secret) {
				t.Fatalf("at %d: %q kept", at, c.secret)
			}
			if want != logScanOnly(s) && got != want {
				t.Fatalf("at %d: %q differs from the whole re-check", at, c.text)
			}
		}
	}
}

// A window whose decoded escape spells only a token's prefix ("7%7C", the
// '|' of a Facebook app token after a digit) is cleared by the token rule itself, not by a run of the
// tier; one whose decoding completes a token is still redacted, in random
// text and in prose, as the whole re-check redacts it.
func TestLogLongRecheckDecodedPrefix(t *testing.T) {
	const body = "Zk81mQ2xPw7Lr4aTq9Vb3Nc6Hd0Jf5Gs2Ke8Yt"
	for _, bg := range []string{randomText(64<<10, true), strings.Repeat("the upstream said no and we retried. ", 1800)} {
		for _, hidden := range []string{
			`\u0067hp_` + body[:36],
			"%67hp_" + body[:36],
			`sk\u005flive_` + body[:24],
			"123456789012345%7C" + body[:30],
		} {
			for _, at := range []int{100, 30000, 60000} {
				s := bg[:at] + " 7%7Cx 3%7CAb " + hidden + " " + bg[at+len(hidden)+16:]
				got := Log(s)
				if strings.Contains(got, body[:24]) {
					t.Errorf("%q at %d kept in %q", hidden, at, got[at-20:at+80])
				}
				if want := logWhole(s); got != want {
					t.Errorf("%q at %d: differs from the whole re-check", hidden, at)
				}
			}
		}
	}
}
