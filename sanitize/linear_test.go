package sanitize

import (
	"strings"
	"testing"
)

// hostileUnits are the pieces of text whose repetition once made a tier
// read the same bytes again for every repetition: key chains, header
// names, unterminated quotes and brackets, token prefixes inside one long
// run of token bytes, SQL markers on one line, address fragments.
var hostileUnits = []string{
	"token=a]", "x password=a]]]]]]]]", "[token=a]]",
	"token=", "password=", "password= ", "pwd=", "passwd:", "api_key=", "client_secret=",
	"Cookie: ", "Set-Cookie:", "Authorization: ", "token:", "token = token = ", "token=a ",
	`"password":"`, "password='", `password="\`, `\"password\":\"`, "password=\\", `token\"`,
	"<token>", "<token>a", `,"token",`, `"token", "`, "token .= ", "token ?= ", "=>", "=", ":", ",", ">",
	"://", "://a@", "a@", "@", "a@tcp(", "user:pw@tcp(",
	"-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", "-----BEGIN",
	"Bearer ", "Basic ", "Digest a=", "bearer a1",
	"eyJ", "eyJa.", "eyJab.eyJab.", "eyJ-", "a.ey", "ey", "ghp_", "sk-", "sk-ant-", "xoxb-", "test_", "s.", "key-",
	"EAA", "AKIA", "A3-", "aa.atlasv1.", "x.webhook.office.com/", "hooks.slack.com/", "_", "-", ".", "~",
	"Key (", "Key (a)=(", "Key (x)=(", "Failing row contains (", "Duplicate entry '", "near '", "' at line ",
	"1.2.3.4.", "1:", "::", "[::", "[", "a:", "a.internal.", "/etc/", "/home/a", `C:\`, `\\a`,
	"goroutine 1 [", ".go:1", "panic(", "\n", `\n`, "\u202e", "a", " ", "'", `"`, "%",
	"SELECT ", "INSERT INTO t VALUES ('", "Traceback (most recent call last):\n", "  File \"", "\tat ",
	"Caused by: ", "    at ", "thread 'main' panicked at ",
	`\u0073k_live_`, `\x67hp_`, "%67hp_", "%4", `\u00`, `\ud83d`, `\ud83d\u`, `\nghp_`, `\"`,
	"password:\n", "password:\n  ", "password=\r\n", `password:\n`, `password:\r\n\t`, "Authorization:\r\n ", "token:\nx\n",
	"a:b ", "://a:b ", "://a:b c", "://:p@s ", "://a:b@ ", "a@b ", "x=y password=a b ", "password=a b c=",
	"aQ~", "0Q~", "1234567890123456|", "0123456789abcdef0123456789abcdef-us1", "-us", "12345:A", ":A",
	"eyJab . eyJab . ", "eyJab. ", " . ", "%25", "%2525", `\u0025`, "&#", "&#61;", "&#x", "&quot;", "&amp;",
	"--password ", "--token '", " --api-key x1234567 ", "Authorization: a\n ", "Cookie:\r\n\t", "ya29.", "1//0", "GOCSPX-", "password: |\n  ", "password: >\n", ";Password=a ", ";Password=a b", "LS0tLS1CRUdJTiBQUklWQVRF", "4/0A", " -u a:'", " --user a:\"x",
	"key a1b2c3d4 ", "token:a1:b2=c3", "Key1", "aB", "a1", "api key \"", "is a1b2c3d4e5f6 ", "=a1b2c3d4e5f6g7h8:", "4111 ", "4111-", "2 ", "mysql -pa ", "-pa", `-pa\n`, `mysql -p\n`, "mysql\u00a0", "sshpass -p ", "unzip -P a ", "login -a ", "://a:b", "://a:b\"", "Error 1146 (42S02)", `near "x": syntax error `,
	": YWRtaW46cGFzc3dvcmQ=", ":YWJjZGVmZ2hpams6", ": 'QUJDREVGR0hJSktMTU5PUA", "BUNDLE_", "BUNDLE_A__B=", `"u":"{p`, "kevin:'", "=${", "%FE",
	"password set to ", "set password to a1b2c3d4e5f6 ", "token for tenant 42: ", "key for a b c = a1b2c3d4e5f6 ",
	"got a1b2c3d4e5f6 ", "expected token a1b2c3d4 but got ", "want a1b2c3d4e5f6, ", "signature mismatch: got ",
	"does not match expected a1b2c3d4e5f6 ", "<key name=\"x\">", "<key a=\"1\">a1b2c3d4e5f6</key>", "[key=",
	"| token | ", "token -> ", "token - ", "was set to ", "token: [redacted] ", "(a): ",
	"a1b2c3d4e5f6, ", "a1b2c3d4e5f6 and ", "got: a1b2c3d4e5f6, ", `<a name="token" b="c">`, `<a b="1" `,
	"the token, a1b2c3d4e5f6, ", "new=a1b2c3d4e5f6 ", "old=a ", ",v1=a1b2c3d4e5f6", "t=1,", "token: t=1,v1=", "new value ",
	"rotated, new value ", `"expected":"a1b2c3d4e5f6",`, `{"error":"token","got":"`, "HMAC-SHA256 ", "key-256: ", "one-time code ",
	"select ", "select a from ", "SELECT (", "select a, ", "(select ", ": select a, ", "'select '", `"select a from `,
	"select f(", "select a.", "GRANT ", "GRANT a, ", "REVOKE a ON ", "WITH a AS ", "with a(", "explain ", "EXPLAIN ",
	"create user ", "CREATE OR ", "insert into a ", "update a set ", "delete from a ", "truncate ", "copy a(",
	": call a", "'", "IDENTIFIED BY '", " BY '", "PASSWORD 'a''", `PASSWORD \"a`, "_password by '",
	"<Expected>a1b2c3d4e5f6", "Signature<Got>", "old: a new: ", "previous value a, ", "-> new value ", "[a=b ", "(got sha256=",
	"**a**: `", "**Token:** ", "**", "__API key:__ ", "*secret*: `a1b2c3d4e5f6` ", "token:** ",
	"<Password><![CDATA[", "<![CDATA[", "<token><![CDATA[a]]>", "]]>", "<token><![CDATA[a1b2]]",
	`\\"`, `\\`, `{\\\"password\\\":\\\"`, `\\\\\\\"`, `"{\\"token\\":\\"a1b2c3d4e5f6`,
	"-storepass ", " -storepass a1b2c3d4 ", " -keypass '", " -srcstorepass", "keytool -storepass -keypass ",
	"'a1b2c3d4e5f6' is not a valid ", "a1b2c3d4e5f6 is not a valid API key ", " is a ", "a1b2c3d4e5f6 is a a a a a a a ",
	"key = a1b2c3d4e5f6 ", "key = ", `{"expected":"a1b2c3d4e5f6","error":"x"}`, `"expected":"a1b2c3d4e5f6",`,
	"</Expected><Code>", "<Expected>a1b2c3d4e5f6</Expected>", "credentials: a / ", "a / ", " / a1b2c3d4e5f6",
	"creds: a / a1b2c3d4e5f6 ", "passphrase for key '/a/b': ", "for key '", "password, a1b2c3d4e5f6", "var.a",
	// INSERT rows and namespaced elements.
	") VALUES (", "(password) VALUES ('", "(a, token) VALUES ('x', '", "(token) VALUES (", "), (",
	"VALUES ((((", "(token) VALUES ('a'), ('", "<a:", "<wsse:Password>", "<a:Token x=\"", "adminpassword ",
	"echo a | x --password-stdin ", " --with-token", "echo echo | ", "|--password-stdin ", "echo 'a | --with-token ",
	"credentials for a:a1b2c3d4e5f6 ", "for a:", "token for for for a:b:c:",
	"<b>", "</td><td>", "token: <b>", "<td>token</td><td>", "<code>a1b2c3d4e5f6</code>", "< >",
}

// maxWorkPerByte bounds the work a tier may spend per byte of input. The
// passes read each byte a few times (scan, a rule or two, the edit, the
// check that the pass settled); a rule that went back over the rest of the
// text for each trigger would spend thousands.
const maxWorkPerByte = 64

// linearTiers are the tiers the work bounds hold, each with its limit.
var linearTiers = []struct {
	name  string
	f     func(string) string
	limit int
}{{"Public", Public, MaxPublicLen}, {"Log", Log, MaxLogLen}}

func measuredWork(f func(string) string, s string) int {
	metering, work = true, 0
	defer func() { metering = false }()
	f(s)
	return work
}

func TestLinearWork(t *testing.T) {
	for _, u := range hostileUnits {
		for _, tier := range linearTiers {
			s := strings.Repeat(u, tier.limit/len(u))
			if w := measuredWork(tier.f, s); w > maxWorkPerByte*len(s) {
				t.Errorf("%s(%q x %d): work %d, %.0f per byte", tier.name, u, len(s)/len(u), w, float64(w)/float64(len(s)))
			}
		}
	}
}

// FuzzLinear repeats a fuzzed unit to fill each tier's limit and bounds
// the work spent per byte, so a new rule that rescans cannot slip in.
func FuzzLinear(f *testing.F) {
	for _, u := range hostileUnits {
		f.Add(u)
	}
	f.Fuzz(func(t *testing.T, u string) {
		if u == "" || len(u) > 64 {
			return
		}
		for _, tier := range linearTiers {
			s := strings.Repeat(u, tier.limit/len(u))
			if w := measuredWork(tier.f, s); w > maxWorkPerByte*len(s) {
				t.Fatalf("%s(%q x %d): work %d, %.0f per byte", tier.name, u, len(s)/len(u), w, float64(w)/float64(len(s)))
			}
		}
	})
}
