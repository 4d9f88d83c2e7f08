package sanitize

import "testing"

// rescanTexts hold triggers near the limits of the prefilter's reach.
var rescanTexts = []string{
	"load order: dial postgres://app:hunter2-pw@10.1.2.3:5432/orders: refused",
	`encryption_key\"=v`,
	`the "encryption_key"   = v`,
	`\"authorization\"	: x`,
	"pwd                                    : x",
	"pwd\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t: x",
	"goroutine 1234567890123456789012345678901234567890 [running]",
	"DETAIL: Failing row contains (17, x)",
	"near 'y'",
	"Duplicate entry 'z'",
	"post hooks.slack.com/services/x",
	"github_pat_abc",
	"gh__x eyJx",
	"db.localdomain:5432",
	"/Applications/x",
	"C:\\x \\\\srv\\x file:///etc/x",
	"-----BEGIN RSA PRIVATE KEY-----",
	"panic(x) [signal SIGSEGV x.go:12",
	"Bearer x basic y Digest z",
	"AKIAx xoxb-1",
	"user:pw@tcp(h) ::1 [fe80::1]",
	`violates unique constraint "users_email_key" (SQLSTATE 23505) Caused by: x`,
	"Traceback (most recent call last):\n  File \"app.py\", line 142, in create_order",
	"mssql: x sql: Scan error near 'y' driver.Value",
	"secret data LS0tLS1CRUdJTiBQUklWQVRF ya29.x 1//0 4/0A 12345:Abc 1234567890123456|x",
	"da32db73b3e7923fc28dc13ea9a6e59b-us20 qHF8Q~x whsec_x",
	"db:\n  password:\n    hunter2 -u a:b --user=x Digest a=b",
	"redis://:p@ss w0rd@10.0.0.1 file:///etc/x //srv",
	"%2567 \\x41 &#61; &quot;",
	"AWS_SECRET_ACCESS_KEY=x Ocp-Apim-Subscription-Key: y",
	// Triggers whose anchor lies far into them: a change before the
	// trigger decides whether it starts a word.
	"xrubygems_0123456789abcdef0123456789abcdef01234567 xFLWPUBK_TEST-abcdefghijkl9",
	`xconstraint "k"`,
	"x--password hunter2secret x--client-secret-value s",
}

// TestRescanCoversScan checks the bound rescan relies on: after an edit
// anywhere, rescan's flags include every flag a full scan of the edited
// text finds.
func TestRescanCoversScan(t *testing.T) {
	var texts []string
	texts = append(texts, rescanTexts...)
	for _, tc := range publicCorpus {
		texts = append(texts, tc.in)
	}
	for _, sc := range []*scanner{publicScanner, logScanner} {
		for _, s := range texts {
			f := sc.scan(s)
			for i := 0; i <= len(s); i++ {
				for j := i; j <= len(s) && j <= i+12; j++ {
					for _, with := range []string{"", Redacted, "x", " ", ":"} {
						// Both ways: an edit can remove a trigger or complete one.
						edited := s[:i] + with + s[j:]
						if miss := sc.scan(edited) &^ sc.rescan(s, f, edited); miss != 0 {
							t.Fatalf("rescan(%q -> %q) misses %b", s, edited, miss)
						}
						if miss := f &^ sc.rescan(edited, sc.scan(edited), s); miss != 0 {
							t.Fatalf("rescan(%q -> %q) misses %b", edited, s, miss)
						}
					}
				}
			}
		}
	}
}

// TestLogScanSubset checks that the log tier's scan finds every flag its
// passes read that the public tier's full scan finds.
func TestLogScanSubset(t *testing.T) {
	texts := append([]string{}, rescanTexts...)
	for _, tc := range publicCorpus {
		texts = append(texts, tc.in)
	}
	for _, s := range texts {
		for i := 0; i < len(s); i++ {
			for _, cut := range []string{s[i:], s[:i]} {
				if miss := scan(cut) & logFlags &^ logScanner.scan(cut); miss != 0 {
					t.Fatalf("log scan of %q misses %b", cut, miss)
				}
			}
		}
	}
}

func FuzzRescan(f *testing.F) {
	for _, s := range rescanTexts {
		f.Add(s, uint16(0), uint16(1), Redacted)
	}
	f.Fuzz(func(t *testing.T, s string, a, b uint16, with string) {
		if len(s) > 4096 {
			return
		}
		i, j := int(a)%(len(s)+1), int(b)%(len(s)+1)
		if i > j {
			i, j = j, i
		}
		edited := s[:i] + with + s[j:]
		for _, sc := range []*scanner{publicScanner, logScanner} {
			if miss := sc.scan(edited) &^ sc.rescan(s, sc.scan(s), edited); miss != 0 {
				t.Fatalf("rescan(%q -> %q) misses %b", s, edited, miss)
			}
			if scan(edited)&sc.want&^sc.scan(edited) != 0 {
				t.Fatalf("scanner %b misses flags of %q", sc.want, edited)
			}
		}
	})
}

// TestPrefilterSound checks that a rule whose flag scan leaves unset finds
// nothing: the passes after the first run under rescan's flags, which can
// keep a flag whose trigger a redaction removed.
func TestPrefilterSound(t *testing.T) {
	rules := []struct {
		name string
		flag flags
		run  func(string) string
	}{
		{"pem", fPEM, pemRule.redact},
		{"userinfo", fURL, func(s string) string {
			out, _ := redactUserinfo(s)
			return out
		}},
		{"dsn", fDSN, redactDSNUserinfo},
		{"token", fToken, redactTokens},
		{"scheme", fScheme, schemeRule.redact},
		{"key-value", fAssign, func(s string) string {
			out, _ := redactKeyValues(s)
			return out
		}},
		{"sql", fSQL, func(s string) string {
			if databaseMessage(s) {
				return GenericDetail
			}
			return s
		}},
		{"ip", fIP, redactIPs},
		{"host", fHost, redactHosts},
		{"path", fPath, redactPaths},
	}
	texts := append([]string{"x#::", "x :: y", "gnear 'x' at line 1", "[::]"}, rescanTexts...)
	for _, tc := range publicCorpus {
		texts = append(texts, tc.in)
	}
	for _, s := range texts {
		// Cutting the text anywhere exposes triggers at its ends.
		for i := 0; i < len(s); i++ {
			for _, cut := range []string{s[i:], s[:i]} {
				f := scan(cut)
				for _, r := range rules {
					if f&r.flag == 0 && r.run(cut) != cut {
						t.Fatalf("%s rule changes %q, which scan does not flag", r.name, cut)
					}
				}
			}
		}
	}
}

// TestCommonEnds compares rescan's word-at-a-time reading of the start and
// the end two texts share with a byte-by-byte one, at every length and
// every place of a difference.
func TestCommonEnds(t *testing.T) {
	base := "password=Tr0ub4dor3xyz with the login call, and then some more text."
	for n := 0; n <= len(base); n++ {
		s := base[:n]
		for d := 0; d < n; d++ {
			u := s[:d] + "#" + s[d+1:]
			for _, other := range []string{u, u + "tail", "head" + u} {
				m := min(len(s), len(other))
				wantP := 0
				for wantP < m && s[wantP] == other[wantP] {
					wantP++
				}
				wantQ := 0
				for wantQ < m-wantP && s[len(s)-1-wantQ] == other[len(other)-1-wantQ] {
					wantQ++
				}
				p := commonPrefix(s, other, m)
				if q := commonSuffix(s, other, m-p); p != wantP || q != wantQ {
					t.Fatalf("%q, %q: prefix %d suffix %d, want %d and %d", s, other, p, q, wantP, wantQ)
				}
			}
		}
	}
}
