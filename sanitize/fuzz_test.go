package sanitize

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/faultline-go/faultline/internal/textclass"
)

// A secret and its core. Fuzz inputs become the text around the secret,
// separated by spaces: a letter glued to a secret can legitimately change
// how it tokenises (a longer key name, a longer token), a space cannot.
type seeded struct{ secret, core string }

var credentialSeeds = []seeded{
	{"AKIAIOSFODNN7EXAMPLE", "IOSFODNN7EXAMPLE"},
	{"ghp_16C7e42F292c6912E7710c838347Ae178B4a", "16C7e42F292c6912E7710c838347Ae178B4a"},
	{"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"},
	{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "eyJzdWIiOiIxMjM0NTY3ODkwIn0"},
	{"xoxb-123456789012-AbCdEfGhIjKlMnOpQrStUvWx", "AbCdEfGhIjKlMnOpQrStUvWx"},
	{"https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "XXXXXXXXXXXXXXXXXXXXXXXX"},
	{"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn\n-----END RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn"},
	{"Bearer mF_9.B5f-4.1JqMzz", "mF_9.B5f-4.1JqMzz"},
	{"Basic dXNlcjpzM2NyM3Q=", "dXNlcjpzM2NyM3Q"},
	{`Digest username="bob", response="6629fae49393a05397450978507c4ef1"`, "6629fae49393a05397450978507c4ef1"},
	{"Cookie: sid=31d4d96e407aad42", "31d4d96e407aad42"},
	{"Authorization: token s3cr3tCustomScheme", "s3cr3tCustomScheme"},
	{"password=hunter2hunter2", "hunter2hunter2"},
	{"client_secret: GOCSPX1234abcd", "GOCSPX1234abcd"},
	{`"api_key": "sk4eC39HqLyjWDarjtT1zdp7dc"`, "sk4eC39HqLyjWDarjtT1zdp7dc"},
	{"postgres://app:S3cretPw0rd@db:5432/x", "S3cretPw0rd"},
	{"postgres://a@u:sec:ret0rd@h/db", "sec:ret0rd"},
	{"root:myPa55w0rd@tcp(db:3306)/shop", "myPa55w0rd"},
}

// publicSeeds adds what only the public tier removes.
var publicSeeds = append([]seeded{
	{"Key (email)=(alice@example.com) already exists", "alice@example.com"},
	{"Failing row contains (17, carol@example.org, -5).", "carol@example.org"},
	{"Duplicate entry 'dave@example.com' for key 'users.email'", "dave@example.com"},
	{"near 'OR 1=1 --' at line 1", "OR 1=1 --"},
	{"10.20.30.40:5432", "10.20.30.40"},
	{"[fe80::1%eth0]:8080", "fe80::1"},
	{"2001:db8:85a3::8a2e:370:7334", "8a2e:370:7334"},
	{"db-primary.internal", "db-primary"},
	{"payments.prod.svc.cluster.local", "payments.prod"},
	{"/home/alice/.ssh/id_rsa", "alice/.ssh"},
	{`C:\Users\carol\key.pem`, `carol\key`},
	{"goroutine 1 [running]:\nmain.main()", "main.main"},
}, credentialSeeds...)

func FuzzPublic(f *testing.F) {
	f.Add("request failed:", "try again")
	f.Fuzz(func(t *testing.T, prefix, suffix string) {
		checkRulesClosed(t, prefix+suffix)
		checkEmbedded(t, prefix, suffix, publicSeeds, checkPublic)
	})
}

// checkEmbedded runs a tier's checks on the fuzzed text alone, then with
// each seeded secret between spaces inside it, and fails if the secret's
// core survives. Seeds whose core the fuzzed text already holds are skipped:
// the core would then be the client's own text, not the secret.
func checkEmbedded(t *testing.T, prefix, suffix string, seeds []seeded, check func(*testing.T, string) string) {
	t.Helper()
	check(t, prefix+suffix)
	// What the prefix and the suffix become on their own: an escape can
	// glue one of their bytes to their text and spell a seed's core
	// ("\x03" + "1d4d..." is logged as "\u0003" + "1d4d..."), which is
	// then no secret of the seed's.
	before, after := check(t, prefix), check(t, suffix)
	for _, sd := range seeds {
		if strings.Contains(prefix, sd.core) || strings.Contains(suffix, sd.core) ||
			strings.Contains(before, sd.core) || strings.Contains(after, sd.core) {
			continue
		}
		if out := check(t, prefix+" "+sd.secret+" "+suffix); strings.Contains(out, sd.core) {
			t.Fatalf("core %q survived in %q", sd.core, out)
		}
	}
}

func checkPublic(t *testing.T, in string) string {
	t.Helper()
	out := Public(in)
	if !utf8.ValidString(out) {
		t.Fatalf("Public(%q) invalid UTF-8: %q", in, out)
	}
	if len(out) > MaxPublicLen {
		t.Fatalf("Public(%q) too long: %d bytes", in, len(out))
	}
	if again := Public(out); again != out {
		t.Fatalf("Public not idempotent on %q:\n first %q\nsecond %q", in, out, again)
	}
	return out
}

func FuzzLog(f *testing.F) {
	f.Add("login\n", "\u202e done")
	f.Fuzz(func(t *testing.T, prefix, suffix string) {
		checkRulesClosed(t, prefix+suffix)
		checkEmbedded(t, prefix, suffix, credentialSeeds, checkLog)
	})
}

func checkLog(t *testing.T, in string) string {
	t.Helper()
	out := Log(in)
	if !utf8.ValidString(out) {
		t.Fatalf("Log(%q) invalid UTF-8: %q", in, out)
	}
	if len(out) > MaxLogLen {
		t.Fatalf("Log(%q) too long: %d bytes", in, len(out))
	}
	for _, r := range out {
		if textclass.IsEscaped(r) {
			t.Fatalf("Log(%q) = %q keeps control %U", in, out, r)
		}
	}
	if again := Log(out); again != out {
		t.Fatalf("Log not idempotent on %q:\n first %q\nsecond %q", in, out, again)
	}
	return out
}
