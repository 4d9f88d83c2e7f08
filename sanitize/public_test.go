package sanitize

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// publicCorpus holds hostile strings for the public tier. gone lists the
// cores that must not survive: the part of each secret that would still be
// useful to an attacker if the rest were removed.
var publicCorpus = []struct {
	name string
	in   string
	gone []string
}{
	// Cloud and SaaS tokens.
	{"aws key id", "invalid key AKIAIOSFODNN7EXAMPLE for bucket", []string{"IOSFODNN7EXAMPLE"}},
	{"aws session key id", "creds ASIAY34FZKBOKMUTVV7A expired", []string{"Y34FZKBOKMUTVV7A"}},
	{"aws key glued", "key=AKIAIOSFODNN7EXAMPLE,", []string{"IOSFODNN7EXAMPLE"}},
	{"github classic", "push failed with ghp_16C7e42F292c6912E7710c838347Ae178B4a", []string{"16C7e42F292c6912E7710c838347Ae178B4a"}},
	{"github oauth", "gho_abcdefghijklmnopqrstuvwxyz0123456789 rejected", []string{"abcdefghijklmnopqrstuvwxyz0123456789"}},
	{"github user to server", "token ghu_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij", []string{"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij"}},
	{"github server", "ghs_0123456789abcdefghij0123456789ABCDEF", []string{"0123456789abcdefghij0123456789ABCDEF"}},
	{"github refresh", "(ghr_zyxwvutsrqponmlkjihgfedcba9876543210)", []string{"zyxwvutsrqponmlkjihgfedcba9876543210"}},
	{"github fine grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", []string{"11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"}},
	{"jwt signed", "bad token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", []string{"eyJzdWIiOiIxMjM0NTY3ODkwIn0", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"}},
	{"jwt unsigned", "eyJhbGciOiJub25lIn0.eyJhZG1pbiI6dHJ1ZX0.", []string{"eyJhZG1pbiI6dHJ1ZX0"}},
	{"jwt no signature part", "got eyJhbGciOiJub25lIn0.eyJ1c2VyIjoiYm9iIn0 here", []string{"eyJ1c2VyIjoiYm9iIn0"}},
	{"slack bot", "slack: xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", []string{"AbCdEfGhIjKlMnOpQrStUvWx"}},
	{"slack user", "xoxp-111111111111-222222222222-333333333333-abcdef0123456789abcdef0123456789", []string{"abcdef0123456789abcdef0123456789"}},
	{"slack app", "xoxa-2-abcdefghijklmnop", []string{"abcdefghijklmnop"}},
	{"slack refresh", "xoxr-9876543210-zyxwvu", []string{"9876543210-zyxwvu"}},
	{"slack legacy", "xoxs-1234567890-abcdefgh", []string{"1234567890-abcdefgh"}},
	{"slack webhook", "post to https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX failed", []string{"XXXXXXXXXXXXXXXXXXXXXXXX", "T00000000"}},
	{"slack webhook bare", "hooks.slack.com/services/TABC/BDEF/secretpart123", []string{"secretpart123"}},
	// Private keys.
	{"pem rsa", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn\n-----END RSA PRIVATE KEY-----\nafter", []string{"MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn"}},
	{"pem pkcs8", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----", []string{"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"}},
	{"pem openssh", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----", []string{"b3BlbnNzaC1rZXktdjEAAAAABG5vbmU"}},
	{"pem cut off", "config dump -----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBn", []string{"MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBn"}},
	// HTTP credentials.
	{"bearer", "request sent with Bearer mF_9.B5f-4.1JqM", []string{"mF_9.B5f-4.1JqM"}},
	{"bearer lowercase", "authorization bearer 8a3f1c9e2b7d4a60", []string{"8a3f1c9e2b7d4a60"}},
	{"basic", "Basic dXNlcjpzM2NyM3Q= was refused", []string{"dXNlcjpzM2NyM3Q"}},
	{"basic short", "header Basic dTpw.", []string{"dTpw"}},
	{"digest", `Digest username="bob", realm="api", nonce="dcd98b7102dd2f0e", response="6629fae49393a05397450978507c4ef1"`, []string{"6629fae49393a05397450978507c4ef1", "dcd98b7102dd2f0e"}},
	{"authorization header", "Authorization: token s3cr3t-custom-scheme", []string{"s3cr3t-custom-scheme"}},
	{"authorization json", `{"Authorization": "Bearer abcdef123456", "x": 1}`, []string{"abcdef123456"}},
	{"cookie", "Cookie: session=9f8e7d6c5b4a; theme=dark", []string{"9f8e7d6c5b4a"}},
	{"set cookie", "Set-Cookie: sid=31d4d96e407aad42; Path=/; HttpOnly\nnext", []string{"31d4d96e407aad42"}},
	// Assignments.
	{"password kv", "login failed password=hunter2 for bob", []string{"hunter2"}},
	{"passwd kv", "passwd: Tr0ub4dor&3", []string{"Tr0ub4dor"}},
	{"pwd kv", "PWD=correcthorse", []string{"correcthorse"}},
	{"secret colon", "secret: shhh-dont-tell", []string{"shhh-dont-tell"}},
	{"api_key", "api_key=sk_live_4eC39HqLyjWDarjtT1zdp7dc", []string{"4eC39HqLyjWDarjtT1zdp7dc"}},
	{"apikey", "apikey = 0123456789abcdef", []string{"0123456789abcdef"}},
	{"x-api-key", "X-Api-Key: qwertyuiop1234", []string{"qwertyuiop1234"}},
	{"token kv", "token=abc123xyz", []string{"abc123xyz"}},
	{"access_token", "access_token: ya29.a0AfH6SMBx", []string{"ya29.a0AfH6SMBx"}},
	{"client_secret", "client_secret=GOCSPX-1234abcd", []string{"GOCSPX-1234abcd"}},
	{"json password", `{"user":"bob","password": "p@ss w0rd!"}`, []string{"p@ss w0rd!"}},
	{"escaped json", `body={\"password\":\"n3st3d\"}`, []string{"n3st3d"}},
	{"single quoted", "password='it is secret'", []string{"it is secret"}},
	{"query string", "GET /v1/cb?code=1&token=abcDEF123&x=1", []string{"abcDEF123"}},
	{"query string password", "redirect to /login?user=bob&password=letmein&next=/", []string{"letmein"}},
	{"yaml secret key", "aws_secret_access_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", []string{"wJalrXUtnFEMI"}},
	// Connection strings.
	{"postgres dsn", "dial postgres://app:S3cretPw@db.example.com:5432/orders", []string{"S3cretPw", "app:"}},
	{"redis empty user", "redis://:r3d1spw@cache:6379/0", []string{"r3d1spw"}},
	{"amqp", "amqp://guest:guest@mq:5672/", []string{"guest:guest"}},
	{"malformed dsn", "postgres://a@u:sec:ret@h/db", []string{"sec:ret", "a@u"}},
	{"mongodb srv", "mongodb+srv://admin:m0ng0pw@cluster0.example.net/test", []string{"m0ng0pw"}},
	{"mysql dsn", "open root:myPa55@tcp(127.0.0.1:3306)/shop", []string{"myPa55", "127.0.0.1"}},
	{"mysql dsn unix", "user:pw0rd@unix(/var/run/mysqld.sock)/db", []string{"pw0rd", "mysqld"}},
	// SQL literals.
	{"pg unique", `ERROR: duplicate key value violates unique constraint "users_email_key" (SQLSTATE 23505) DETAIL: Key (email)=(alice@example.com) already exists.`, []string{"alice@example.com"}},
	{"pg composite", "Key (tenant, email)=(42, bob (work)@x.io) already exists", []string{"bob (work)@x.io"}},
	{"pg fk", "Key (customer_id)=(9876) is not present in table \"customers\".", []string{"9876"}},
	{"pg failing row", "new row violates check constraint \"positive\"\nDETAIL: Failing row contains (17, carol@example.org, -5).", []string{"carol@example.org"}},
	{"mysql duplicate", "Error 1062: Duplicate entry 'dave@example.com' for key 'users.email'", []string{"dave@example.com"}},
	{"mysql near", "Error 1064: You have an error in your SQL syntax; check the manual near 'WHERE pw = 'x' OR 1=1' at line 1", []string{"OR 1=1", "WHERE pw"}},
	// IP addresses.
	{"ipv4", "dial tcp 10.12.34.56: connection refused", []string{"10.12.34.56", "12.34.56"}},
	{"ipv4 port", "upstream 192.168.1.20:8080 timed out", []string{"192.168.1.20", "8080"}},
	{"ipv4 leading zero", "host 010.001.002.003", []string{"010.001.002.003"}},
	{"ipv6", "from 2001:db8:85a3::8a2e:370:7334", []string{"2001:db8:85a3", "8a2e:370:7334"}},
	{"ipv6 loopback", "listen on ::1 failed", []string{"::1"}},
	{"ipv6 bracketed zone port", "dial [fe80::1%eth0]:8080 refused", []string{"fe80::1", "eth0", "8080"}},
	{"ipv6 zone", "link fe80::abcd%en0 down", []string{"fe80::abcd", "en0"}},
	{"ipv4 mapped", "peer ::ffff:10.0.0.7 reset", []string{"10.0.0.7", "ffff"}},
	{"ipv6 trailing colon", "fe80::2:1: no route", []string{"fe80::2:1"}},
	// Internal host names.
	{"internal host", "lookup db-primary.internal: no such host", []string{"db-primary"}},
	{"k8s service", "payments.prod.svc.cluster.local:443 unavailable", []string{"payments.prod"}},
	{"consul", "vault.service.consul refused", []string{"vault.service"}},
	{"corp", "ldap.hq.corp timed out", []string{"ldap.hq"}},
	{"lan and local", "printer.lan and nas.local", []string{"printer", "nas"}},
	// Paths.
	{"home path", "open /home/alice/.ssh/id_rsa: permission denied", []string{"alice", "id_rsa"}},
	{"etc path", "cannot read /etc/app/secrets.yaml.", []string{"secrets.yaml"}},
	{"var path", "log at /var/log/app/error.log", []string{"error.log"}},
	{"go module path", "/go/pkg/mod/github.com/x/y@v1.2.3/z.txt missing", []string{"pkg/mod"}},
	{"macos path", "(/Users/bob/Projects/app/config.json)", []string{"bob", "config.json"}},
	{"file url", "file:///etc/passwd", []string{"passwd"}},
	{"windows drive", `cannot open C:\Users\carol\AppData\key.pem`, []string{"carol", "AppData"}},
	{"windows forward", "D:/builds/agent/work/app.exe not found", []string{"agent/work"}},
	{"unc", `\\fileserver\share\hr\salaries.xlsx`, []string{"fileserver", "salaries"}},
	{"home dir path", "read ~/.aws/credentials: permission denied", []string{".aws", "credentials"}},
	{"home dir path quoted", "stat '~/projects/acme/.env': not found", []string{"acme/.env"}},
	// Stack traces.
	{"goroutine", "panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:12 +0x1d", []string{"main.main", "boom"}},
	{"go line", "at handler.go:42 nil map", []string{"handler.go"}},
	{"panic call", "recovered panic(0x1234) in worker", []string{"worker"}},
	{"signal", "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a]", []string{"SIGSEGV"}},
}

func TestPublicCorpus(t *testing.T) {
	if len(publicCorpus) < 60 {
		t.Fatalf("corpus has %d cases, want at least 60", len(publicCorpus))
	}
	for _, tc := range publicCorpus {
		t.Run(tc.name, func(t *testing.T) {
			got := Public(tc.in)
			for _, core := range tc.gone {
				if strings.Contains(got, core) {
					t.Errorf("Public(%q) = %q, still contains %q", tc.in, got, core)
				}
			}
			if got == tc.in {
				t.Errorf("Public(%q) changed nothing", tc.in)
			}
			if again := Public(got); again != got {
				t.Errorf("not idempotent: %q then %q", got, again)
			}
			if !utf8.ValidString(got) {
				t.Errorf("invalid UTF-8: %q", got)
			}
		})
	}
}

func TestPublicKeepsContext(t *testing.T) {
	for in, want := range map[string]string{
		"login failed password=hunter2 for bob":                      "login failed password=[redacted] for bob",
		`{"password": "x", "user": "bob"}`:                           `{"password": "[redacted]", "user": "bob"}`,
		"dial postgres://app:pw@db.example.com:5432/orders":          "dial postgres://[redacted]@db.example.com:5432/orders",
		"Key (email)=(a@b.c) already exists":                         GenericDetail,
		"Duplicate entry 'x' for key 'users.email'":                  GenericDetail,
		"dial tcp 10.0.0.1:5432: connection refused":                 "dial tcp [redacted]: connection refused",
		"goroutine 7 [chan receive]:":                                GenericDetail,
		"Cookie: a=1\nX-Other: kept":                                 "Cookie: [redacted]\nX-Other: kept",
		"basic validation failed; Bearer authentication is required": "basic validation failed; Bearer authentication is required",
	} {
		if got := Public(in); got != want {
			t.Errorf("Public(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPublicNegative lists text that must pass the public tier unchanged.
func TestPublicNegative(t *testing.T) {
	for _, s := range []string{
		"",
		"The limit of 100 requests per minute was reached.",
		"The order could not be found. Check the identifier and try again.",
		"must be at least 3 characters",
		"must be between 1 and 250 items, got 312",
		"upgrade to v1.2.3 or 1.2.3 first",
		"version 10.4 and 2.0.1-rc.1",
		"GET /v1/orders/42 returned nothing",
		"/api/home/3 and https://example.com/etc/about",
		"see https://example.com/./docs and ~/ alone", `<img src="./assets/logo.png">`, "e.g./i.e. are abbreviations", "a ~/~ b", "ratio 3/4 and 1./2",
		"user.email is required",
		"timeout after 1.5s (budget 250ms)",
		"opens at 12:30 and closes at 18:45:00",
		`value "blue moon" is not one of "red", "green"`,
		`field 'name' got 'Zoë'`,
		"Ünïcödé prose, ça va — 東京 ✓",
		"3 of 7 items failed; retry in 2 minutes",
		"std::string and Foo::Bar are types",
		"the key was rotated",
		"token expired",
		"password must contain a digit",
		"basic validation failed",
		"Bearer authentication is required",
		"digest mismatch",
		"see RFC 9457 section 3.1",
		"email user@example.com is taken",
		"ratio 3:2 at 60 fps",
		"price 1,234.56 EUR",
	} {
		if got := Public(s); got != s {
			t.Errorf("Public(%q) = %q, want it unchanged", s, got)
		}
	}
}

func TestPublicCleanDoesNotAllocate(t *testing.T) {
	s := strings.Repeat("The order could not be found. ", 6)
	if n := testing.AllocsPerRun(100, func() { _ = Public(s) }); n != 0 {
		t.Fatalf("Public allocated %v times on clean text", n)
	}
}

func TestPublicLimits(t *testing.T) {
	long := strings.Repeat("word ", 3000)
	got := Public(long)
	if len(got) > MaxPublicLen || !strings.HasSuffix(got, Truncated) {
		t.Fatalf("len %d, suffix %q", len(got), got[max(0, len(got)-20):])
	}
	if Public(got) != got {
		t.Fatal("truncated text not idempotent")
	}

	// Redaction lengthens short IPs; the result must still fit and settle.
	ips := strings.Repeat("1.1.1.1 ", 2000)
	got = Public(ips)
	if len(got) > MaxPublicLen || strings.Contains(got, "1.1.1.1") || Public(got) != got {
		t.Fatalf("IP flood: len %d", len(got))
	}

	// A DSN cut in half by the limit loses its '@' and would not match; it
	// must be dropped with the cut.
	cut := strings.Repeat("x ", (MaxPublicLen-40)/2) + "postgres://admin:S3cretPw@db/x"
	if got := Public(cut); strings.Contains(got, "S3cretPw") {
		t.Fatalf("cut DSN leaked: %q", got[len(got)-60:])
	}

	multi := strings.Repeat("é", MaxPublicLen)
	if got := Public(multi); !utf8.ValidString(got) || len(got) > MaxPublicLen {
		t.Fatal("cut inside a rune")
	}
}

func TestPublicInvalidUTF8(t *testing.T) {
	got := Public("bad \xff\xfe bytes")
	if !utf8.ValidString(got) || !strings.Contains(got, "\uFFFD") {
		t.Fatalf("got %q", got)
	}
	if Public(got) != got {
		t.Fatal("not idempotent")
	}
}

// A key in a path segment assigns a value when '=' follows it, or ':' with
// the value right after: echoed request paths ("/reset/token=...") carry
// secrets that way. A file path that ends at ": " names a file, and the log
// tier keeps it for the operator.
func TestKeysInPathSegments(t *testing.T) {
	for in, want := range map[string]string{
		"/password=hunter2":                                "/password=[redacted]",
		"/v1/reset/token=abcdef123456":                     "/v1/reset/token=[redacted]",
		"/api_key:abc123def456":                            "/api_key:[redacted]",
		"/x/session=9f8e7d6c5b4a":                          "/x/session=[redacted]",
		"/login;JSESSIONID=0A1B2C3D4E5F":                   "/login;JSESSIONID=[redacted]",
		"/nowhere/password%3Dhunter2":                      "/nowhere/password=[redacted]",
		"open /run/secrets/db_password: permission denied": "open /run/secrets/db_password: permission denied",
		"read /etc/app/token:: bad format":                 "read /etc/app/token:: bad format",
	} {
		if got := Log(in); got != want {
			t.Errorf("Log(%q) = %q, want %q", in, got, want)
		}
		if got := Public(in); strings.Contains(want, Redacted) && got != want {
			t.Errorf("Public(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHasDatabaseMarker compares the one-pass marker search with a search
// of the text for each marker, on the corpora, every cut of the benchmark's
// texts and random texts of markers, their pieces and bytes.
func TestHasDatabaseMarker(t *testing.T) {
	slow := func(s string) bool {
		for _, m := range databaseMarkers {
			if strings.Contains(s, m) {
				return true
			}
		}
		return false
	}
	var texts []string
	for _, tc := range publicCorpus {
		texts = append(texts, tc.in)
	}
	for _, in := range append(append([]struct{ name, s string }{}, benchSecrets...), benchCleanMore...) {
		for i := range in.s {
			texts = append(texts, in.s[i:], in.s[:i])
		}
	}
	next := xorshiftPicker(0xbb67ae8584caa73b)
	for range 20000 {
		var b strings.Builder
		for range 1 + next(6) {
			m := databaseMarkers[next(len(databaseMarkers))]
			switch next(4) {
			case 0:
				b.WriteString(m)
			case 1:
				b.WriteString(m[:next(len(m))])
			case 2:
				b.WriteString(m[next(len(m)):])
			default:
				b.WriteByte(byte(next(256)))
			}
		}
		texts = append(texts, b.String())
	}
	found := 0
	for _, s := range texts {
		got, want := hasDatabaseMarker(s), slow(s)
		if got != want {
			t.Fatalf("hasDatabaseMarker(%q) = %v, want %v", s, got, want)
		}
		if got {
			found++
		}
	}
	if found < len(texts)/10 || found > len(texts)*9/10 {
		t.Fatalf("%d of %d texts hold a marker: the test no longer exercises the search", found, len(texts))
	}
}
