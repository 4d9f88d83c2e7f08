package sanitize

import (
	"strings"
	"testing"
)

// A traceback prints the line of source that failed, and the credentials
// a call to an authenticating function was given in it: every argument
// after the first (the user or the identity) is redacted, in any
// language's quotes, spacing and naming.
func TestAuthCallArgumentsRedacted(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"python requests", `  File "sync.py", line 41, in push` + "\n" + `    r = requests.get(url, auth=HTTPBasicAuth('deploy', 'Hunt3rSecr3tXq'))`, []string{"Hunt3rSecr3tXq"}},
		{"python digest", `auth = HTTPDigestAuth("ops", "Zq8wLm3nXp2Kd9")`, []string{"Zq8wLm3nXp2Kd9"}},
		{"python smtp", `    server.login("alerts@example.com", "Tr0ub4dor3xq")`, []string{"Tr0ub4dor3xq"}},
		{"go basic auth", `req.SetBasicAuth("admin", "s3cr3t-Passw0rd")`, []string{"s3cr3t-Passw0rd"}},
		{"go plain auth", `auth := smtp.PlainAuth("", "bob@example.com", "Tr0ub4dor3xq", "smtp.example.com")`, []string{"Tr0ub4dor3xq"}},
		{"csharp", `var c = new NetworkCredential("svc_backup", "P@55w0rdSvc!");`, []string{"P@55w0rdSvc!"}},
		{"java", `new UsernamePasswordCredentials( "svc" , "Qx7mLp9sR4tVw8" )`, []string{"Qx7mLp9sR4tVw8"}},
		{"js", "await client.signIn('ops', 'h7Gf2kLq9Zx');", []string{"h7Gf2kLq9Zx"}},
		{"oauth1 four", `OAuth1('client-key', 'Cs3cr3tValue', 'owner-key', 'Os3cr3tValue')`, []string{"Cs3cr3tValue", "Os3cr3tValue"}},
		{"snake case", `db.authenticate('reporting', 'R3p0rtPassw0rd')`, []string{"R3p0rtPassw0rd"}},
		{"keyword first", `ldap_login(user='cn=admin', secret_value="Zq8wLm3nXp2Kd9")`, []string{"Zq8wLm3nXp2Kd9"}},
	})
	checkBenign(t, []string{
		`login("bob") failed: account locked`,
		`author("Jane", "Doe2")`,
		`authorize("orders", "Read2")`,
		`format("%s-%d", "Order7")`,
		`fmt.Errorf("login %s: %w", user, err)`,
	})
}

// A session's identifier holds the session open: named in prose ("invalid
// session ID: ...") it goes as "session_id=" does, while "id" after any
// other word, and a session's short number, stay.
func TestSessionIDInProseRedacted(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"colon", "invalid session ID: 8f2b9c1d7e6a4f30", []string{"8f2b9c1d7e6a4f30"}},
		{"spaced", "no cart for session id 8f2b9c1d7e6a4f30 (user 42)", []string{"8f2b9c1d7e6a4f30"}},
		{"equals", "Session Id=Zq8wLm3nXp2Kd9Vb; expired", []string{"Zq8wLm3nXp2Kd9Vb"}},
		{"quoted", `session id "k8s7d6f5g4h3j2k1" not found`, []string{"k8s7d6f5g4h3j2k1"}},
		{"is", "the SESSION ID is 0a1b2c3d4e5f6a7b8c9d", []string{"0a1b2c3d4e5f6a7b8c9d"}},
	})
	checkBenign(t, []string{
		"session id 42 closed",
		"the cart of session 90417 was left as it was",
		"request id 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203 failed",
		"order id A1B2C3D4E5F6 not found",
		"possession id card 8f2b9c1d",
	})
}

// "tok" and "tkn" abbreviate a token as a key of their own ("tok: ...",
// "X-Tok: ...", "tkn=..."); in prose, and before an ordinary word, they
// name nothing.
func TestTokenAbbreviationKeysRedacted(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"colon", "refresh failed, tok: Tr0ub4dor3xq", []string{"Tr0ub4dor3xq"}},
		{"equals", "GET /cb?tkn=Zq8wLm3nXp2Kd9&x=1", []string{"Zq8wLm3nXp2Kd9"}},
		{"header", "X-Tok: Zq8wLm3nXp2Kd9", []string{"Zq8wLm3nXp2Kd9"}},
		{"snake", "auth_tok=k8s7d6f5g4h3j2k1;", []string{"k8s7d6f5g4h3j2k1"}},
	})
	checkBenign(t, []string{"tok: the", "TikTok: 2024 Trends", "the tok Zq8wLm3nXp2Kd9 here", "stock: 42 units"})
}

// SMTP, POP3 and IMAP transcripts (a client's debug output, a mail
// relay's log) write the credential after the command and the SASL
// mechanism's name: "AUTH PLAIN <base64 of \0user\0password>".
func TestSASLCredentialsRedacted(t *testing.T) {
	values := []string{"AGJvYgBodW50ZXIyMDI0", "AHVzZXJAZXhhbXBsZS5jb20Ac2VjcmV0UGFzcw==",
		"dXNlcj1ib2JAZXhhbXBsZS5jb20BYXV0aD1CZWFyZXIgeWEyOS52Rm9vMTIzAQE="}
	for _, f := range []string{"AUTH PLAIN %s", "smtp: AUTH PLAIN %s\r\n", "C: auth plain %s", "send: 'AUTH PLAIN %s\\r\\n'",
		"A1 AUTHENTICATE XOAUTH2 %s", "a002 authenticate OAUTHBEARER %s", "AUTH LOGIN %s", "AUTH CRAM-MD5 %s",
		"> AUTH SCRAM-SHA-256 %s", "AUTH DIGEST-MD5 %s"} {
		for _, v := range values {
			in := strings.ReplaceAll(f, "%s", v)
			for _, tier := range []func(string) string{Public, Log} {
				if out := tier(in); strings.Contains(out, v) {
					t.Errorf("%q -> %q keeps the credential", in, out)
				}
			}
		}
	}
	checkBenign(t, []string{"250-AUTH PLAIN LOGIN CRAM-MD5", "250 AUTH LOGIN PLAIN XOAUTH2", "AUTH PLAIN",
		"the plain text AGJvYgBodW50ZXIyMDI0", "login AGJvYgBodW50ZXIyMDI0 was slow"})
}
