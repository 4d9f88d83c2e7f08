package sanitize

import (
	"crypto/rand"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLogRedactsSecrets(t *testing.T) {
	for _, tc := range []struct {
		in   string
		gone []string
	}{
		{"auth with Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", []string{"eyJzdWIiOiIxIn0"}},
		{"Authorization: Basic dXNlcjpwYXNz\nnext", []string{"dXNlcjpwYXNz"}},
		{"Cookie: sid=abc123; csrf=def456", []string{"abc123", "def456"}},
		{"dial postgres://app:S3cretPw@10.0.0.5:5432/orders", []string{"S3cretPw"}},
		{"redis://:r3d1spw@cache.internal:6379", []string{"r3d1spw"}},
		{"root:myPa55@tcp(db:3306)/shop", []string{"myPa55"}},
		{"config password=hunter2 loaded", []string{"hunter2"}},
		{`{"client_secret":"GOCSPX-abc"}`, []string{"GOCSPX-abc"}},
		{"key AKIAIOSFODNN7EXAMPLE", []string{"IOSFODNN7EXAMPLE"}},
		{"ghp_16C7e42F292c6912E7710c838347Ae178B4a", []string{"16C7e42F292c6912E7710c838347Ae178B4a"}},
		{"xoxb-123456789012-abcdefghijkl", []string{"abcdefghijkl"}},
		{"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----", []string{"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"}},
	} {
		got := Log(tc.in)
		for _, core := range tc.gone {
			if strings.Contains(got, core) {
				t.Errorf("Log(%q) = %q, still contains %q", tc.in, got, core)
			}
		}
		if again := Log(got); again != got {
			t.Errorf("not idempotent: %q then %q", got, again)
		}
	}
}

// TestLogKeepsOperatorContext lists what operators need and the log tier
// must leave alone.
func TestLogKeepsOperatorContext(t *testing.T) {
	for _, s := range []string{
		"dial tcp 10.0.0.5:5432: connect: connection refused",
		"dial [fe80::1%eth0]:8080 and 2001:db8::1",
		"lookup db-primary.internal on 10.96.0.10:53: no such host",
		`ERROR: duplicate key value violates unique constraint "users_email_key" (SQLSTATE 23505)`,
		"Key (email)=(alice@example.com) already exists.",
		"Error 1062: Duplicate entry 'x' for key 'users.email'",
		"open /home/app/config.yaml: permission denied",
		`C:\Users\svc\app.log`,
		"goroutine 1 [running]: main.main() /app/main.go:12 +0x1d",
		"panic(0x1234)",
		"Ünïcödé ✓ 東京",
	} {
		if got := Log(s); got != s {
			t.Errorf("Log(%q) = %q, want it unchanged", s, got)
		}
	}
}

func TestLogNeutralisesInjection(t *testing.T) {
	for in, want := range map[string]string{
		"a\nb":                            `a\nb`,
		"a\r\nINFO forged line":           `a\r\nINFO forged line`,
		"tab\there":                       `tab\there`,
		"nul\x00bell\x07esc\x1b[31m":      `nul\u0000bell\u0007esc\u001b[31m`,
		"del\x7f":                         `del\u007f`,
		"c1\u0085next":                    `c1\u0085next`,
		"ls\u2028ps\u2029":                `ls\u2028ps\u2029`,
		"user \u202egnp.exe":              `user \u202egnp.exe`,
		"isolate\u2066x\u2069 mark\u200f": `isolate\u2066x\u2069 mark\u200f`,
	} {
		got := Log(in)
		if got != want {
			t.Errorf("Log(%q) = %q, want %q", in, got, want)
		}
		if strings.ContainsAny(got, "\r\n\u2028\u2029\u202e") {
			t.Errorf("Log(%q) still breaks lines: %q", in, got)
		}
		if Log(got) != got {
			t.Errorf("Log(%q) not idempotent", in)
		}
	}
}

// TestLogLineRulesStopAtEscapedBreak checks that a value running "to the end
// of the line" stops where the original line ended, not at the end of the
// whole escaped text.
func TestLogLineRulesStopAtEscapedBreak(t *testing.T) {
	got := Log("Cookie: sid=abc\nuser=bob ip=10.0.0.1")
	want := `Cookie: [redacted]\nuser=bob ip=10.0.0.1`
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestLogLimitsAndUTF8(t *testing.T) {
	got := Log(strings.Repeat("\n", MaxLogLen))
	if len(got) > MaxLogLen || strings.Contains(got, "\n") || Log(got) != got {
		t.Fatalf("escape flood: len %d", len(got))
	}
	got = Log("x\xffy")
	if !utf8.ValidString(got) || Log(got) != got {
		t.Fatalf("got %q", got)
	}
}

func TestLogCleanDoesNotAllocate(t *testing.T) {
	s := "dial tcp 10.0.0.5:5432: connection refused at /srv/app/db.go:88"
	if n := testing.AllocsPerRun(100, func() { _ = Log(s) }); n != 0 {
		t.Fatalf("Log allocated %v times on clean text", n)
	}
}

// Log answers a canonical UUID without a scan; the scan must agree, so the
// shortcut changes only the cost. Shapes close to a UUID take the scan.
func TestUUIDShortcutAgreesWithTheScan(t *testing.T) {
	uuids := []string{
		"00000000-0000-0000-0000-000000000000",
		"ffffffff-ffff-ffff-ffff-ffffffffffff",
		"DEADBEEF-CAFE-BABE-F00D-0123456789AB",
		"01937e4a-8b2c-7d3e-9f10-a1b2c3d4e5f6",
	}
	for range 2000 {
		var u [16]byte
		_, _ = rand.Read(u[:])
		uuids = append(uuids, fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:]))
	}
	for _, u := range uuids {
		if !isUUID(u) {
			t.Fatalf("isUUID(%q) = false", u)
		}
		if got := logText(u); got != u {
			t.Fatalf("the scan changes UUID %q to %q", u, got)
		}
		if got := Log(u); got != u {
			t.Fatalf("Log(%q) = %q", u, got)
		}
	}
	for _, s := range []string{
		"01937e4a-8b2c-7d3e-9f10-a1b2c3d4e5f",   // short
		"01937e4a-8b2c-7d3e-9f10-a1b2c3d4e5f6a", // long
		"01937e4a_8b2c-7d3e-9f10-a1b2c3d4e5f6",  // separator
		"01937e4g-8b2c-7d3e-9f10-a1b2c3d4e5f6",  // not hex
		"01937e4a-8b2c-7d3e-9f10-a1b2c3d4e5\n6", // control
	} {
		if isUUID(s) {
			t.Errorf("isUUID(%q) = true", s)
		}
	}
	// Every digit position is checked: one byte outside the hex digits
	// anywhere, next to either side of the alphabet's ranges, fails it.
	valid := "01937e4a-8b2c-7d3e-9f10-a1b2c3d4e5f6"
	for i := range len(valid) {
		for _, c := range []byte{'-', '/', ':', '@', 'G', '`', 'g', 0, 0x80, 0xff} {
			if valid[i] == '-' && c == '-' {
				continue
			}
			s := valid[:i] + string([]byte{c}) + valid[i+1:]
			if isUUID(s) {
				t.Errorf("isUUID(%q) = true", s)
			}
		}
	}
}

// TestLogEscapeStartsWord checks that a capital after an escape the log
// tier writes is read as a word's start, as it is after the break or the
// rune the escape stands for: read as inside a word ("nA0"), it answered
// for its run before the run's other triggers were read, and the tier
// found on its own output what it had not found on the text.
func TestLogEscapeStartsWord(t *testing.T) {
	for _, line := range []string{
		"0 Cookie: sid=31d4d96e407aad42 ",
		"Set-Cookie: session=Zk81mQ2xPw7Lr4aT",
		"token: [redacted]",
		"note: nothing secret here",
		"0 password=hunter2hunter2 ",
		"api_key: Zk81mQ2xPw7Lr4aT,",
	} {
		for _, brk := range []string{"\n", "\r\n", "\t", " \t", "\t\t", "\u2028", "\x01", "\u202e"} {
			for _, item := range []string{"A0=0000A000", "Key9=Xy7zQ2m8Lp", "B12=deadBEEF1234", "Ab=0000A000Cd", "0000000000=000A0000", "sha256=9f86d081884c7d65", "v1=Zk81mQ2xPw7L"} {
				checkLog(t, line+brk+item)
			}
		}
	}
}

// A list item glued to an escape the log tier writes starts after it, as
// it does after the break the escape stands for: the items before it are
// read back across the escape to the name that announces the list. Read
// as part of the item ("n0="), the escape's letter hid the list from a
// second call, which decoded the escape and found it ("Cookie: [redacted]
// \n0= 0=000001A0").
func TestLogItemsAfterEscapeSettle(t *testing.T) {
	for _, line := range []string{"0 Cookie: sid=31d4d96e407aad42 ", "token: [redacted]", "api_key: Zk81mQ2xPw7Lr4aT,", "note: nothing secret"} {
		// The breaks as they come and as the log tier writes them.
		for _, brk := range []string{"\n", "\r\n", "\t", "\v", " \n", `\n`, `\r\n`, `\t`, `\u000b`} {
			for _, lead := range []string{"0= ", "a= ", "x=1, ", "k=v; ", "n=, ", "0=0 "} {
				for _, item := range []string{"0=000001A0", "Key9=Xy7zQ2m8Lp", "v1=Zk81mQ2xPw7L", "sha256=9f86d081884c7d65"} {
					for _, in := range []string{line + brk + lead + item, line + brk + item} {
						checkLog(t, in)
						checkPublic(t, in)
					}
				}
			}
		}
	}
}

// A key glued to an escape the log tier writes ("\\u000cCookie:",
// "\\tpassword:") is read as it is after the control or the tab the
// escape stands for, not as a path's segment after a backslash: otherwise
// the list after its value was found only by a second call, whose escape
// re-check decoded the escape ("\fCookie: 0\n0=0000A000").
func TestLogKeyAfterEscapeSettles(t *testing.T) {
	for _, ctrl := range []string{"\f", "\x01", "\t", "\v", "\x1b", "\u2028", " \t"} {
		for _, key := range []string{"Cookie:", "password:", "Authorization:", "api_key:", "token="} {
			for _, value := range []string{"0", "hunter2hunter2", "[redacted]"} {
				for _, tail := range []string{"\n0=0000A000", "\n0= 0=000001A0", " x=1, v1=Zk81mQ2xPw7L", "\r\nsha256=9f86d081884c7d65"} {
					checkLog(t, ctrl+key+" "+value+tail)
				}
			}
		}
	}
}

// A name read ahead of a value within a reach ("SignatureDoesNotMatch"
// after a comparison member) is read as far in the log tier's output as
// in its text: an escape counts as the byte it stands for. Otherwise a
// redaction that shortened the text brought the name within reach only
// once the escape re-check of a second call decoded the tier's escapes.
func TestLogReachCountsEscapes(t *testing.T) {
	for _, ctrl := range []string{"\v", "\x01", "\n", "\t", "\u2028", "\u202e"} {
		for _, between := range []string{" root:myPa55w0rd@tcp(db:3306)/shop ", " password=hunter2hunter2 ", " "} {
			for pad := 0; pad < 120; pad += 3 {
				checkLog(t, `{"expected":"0000A000`+strings.Repeat("0", pad%7)+`",`+between+strings.Repeat("x", pad)+ctrl+`0000 "SignatureDoesNotMatch"}`)
			}
		}
	}
}

// The same read back from a value: a redaction before the value that
// brings its name within reach ("signature" before a webhook URL and a run
// of controls) must do so in the first call, whose rules settle on the
// text before its escapes, not only in a second call whose escape
// re-check decodes the tier's own "\u0003".
func TestLogReachBackCountsEscapes(t *testing.T) {
	shorteners := []string{
		"https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
		"postgres://report:Zq8wLm3nXp2Kd9Vb@db-7.internal:5432/ledger",
		"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"ghp_0123456789abcdefABCDEF0123456789abcd",
	}
	for _, name := range []string{"signAtureA", "password", "API key", "secret_token"} {
		for _, short := range shorteners {
			for _, ctrl := range []string{"\x03", "\t", "\x7f", "\u2028", "\u202e", "\r"} {
				for n := 4; n <= 28; n += 4 {
					for _, value := range []string{"<EXpeCt>0000A000", " 3fa9c2e1b7d54a60", ": Zq8wLm3nXp2"} {
						checkLog(t, name+" "+short+" 0000"+strings.Repeat(ctrl, n)+value)
					}
				}
			}
		}
	}
}
