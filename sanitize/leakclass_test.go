package sanitize

import (
	"strings"
	"testing"
)

// A leakCase is a secret in a context real upstream errors produce; gone
// lists what must not survive either tier.
type leakCase struct {
	name string
	in   string
	gone []string
}

func checkLeakCases(t *testing.T, cases []leakCase) {
	t.Helper()
	for _, c := range cases {
		for _, tier := range []struct {
			name string
			f    func(string) string
		}{{"Public", Public}, {"Log", Log}} {
			out := tier.f(c.in)
			for _, g := range c.gone {
				if strings.Contains(out, g) {
					t.Errorf("%s: %s(%q) = %q keeps %q", c.name, tier.name, c.in, out, g)
				}
			}
			if again := tier.f(out); again != out {
				t.Errorf("%s: %s not idempotent: %q then %q", c.name, tier.name, out, again)
			}
		}
	}
}

// checkBenign asserts that the log tier keeps every byte of s (escaping
// its line breaks) and the public tier returns it unchanged.
func checkBenign(t *testing.T, cases []string) {
	t.Helper()
	for _, s := range cases {
		if got := Public(s); got != s {
			t.Errorf("Public(%q) = %q, want it unchanged", s, got)
		}
		if got, want := Log(s), escapeControls(s, MaxLogLen); got != want {
			t.Errorf("Log(%q) = %q, want %q", s, got, want)
		}
	}
}

// A key and its value split by a line break: YAML puts a value on the
// next, indented line; pretty-printed JSON may break after the colon; an
// HTTP/1.1 header may be folded onto a line that starts with a space. The
// same texts arrive with their breaks escaped when an upstream JSON body
// is echoed.
func TestValueOnNextLineRedacted(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"kv newline", "config: password=\nhunter2", []string{"hunter2"}},
		{"kv crlf", "password=\r\nhunter2\r\nnext", []string{"hunter2"}},
		{"yaml indented", "db:\n  password:\n    hunter2\n  host: db", []string{"hunter2"}},
		{"yaml tab", "password:\n\thunter2", []string{"hunter2"}},
		{"yaml quoted", "password:\n  'hunter 2'\n", []string{"hunter 2"}},
		{"json pretty", "{\n  \"password\":\n    \"hunter2\"\n}", []string{"hunter2"}},
		{"json pretty comma", "{\n \"password\":\n \"hunter2\",\n \"user\": \"bob\"\n}", []string{"hunter2"}},
		{"json key secret", "{\"client_secret\":\n \"GOCSPX-abcdef\"}", []string{"GOCSPX-abcdef"}},
		{"folded header", "GET / HTTP/1.1\r\nAuthorization:\r\n Bearer abcdefghijklmnop\r\nHost: x", []string{"abcdefghijklmnop"}},
		{"folded header custom scheme", "Authorization:\r\n\tToken s3cr3tvalue99", []string{"s3cr3tvalue99"}},
		{"folded cookie", "Cookie:\n sid=31d4d96e407aad42; theme=dark", []string{"31d4d96e407aad42"}},
		{"escaped kv", `upstream: {"body":"password=\nhunter2"}`, []string{"hunter2"}},
		{"escaped yaml", `upstream: {"body":"db:\n  password:\n    hunter2\n"}`, []string{"hunter2"}},
		{"escaped yaml crlf tab", `{"msg":"password:\r\n\thunter2"}`, []string{"hunter2"}},
		{"escaped json pretty", `upstream: "{\n  \"password\":\n    \"hunter2\"\n}"`, []string{"hunter2"}},
		{"escaped folded header", `{"raw":"Authorization:\r\n Bearer abcdefghijklmnop\r\n"}`, []string{"abcdefghijklmnop"}},
		{"escaped folded custom", `{"raw":"Authorization:\r\n Token s3cr3tvalue99\r\nHost: x"}`, []string{"s3cr3tvalue99"}},
	})
}

// The next line is a value only when it holds exactly one value: a
// quoted string or one bare word. A line of prose after "key:" is what a
// message says about the key, so it stays.
func TestProseOnNextLineKept(t *testing.T) {
	checkBenign(t, []string{
		"password reset failed:\nuser not found",
		"invalid password:\nthe account is locked for 10 minutes",
		"token:\n  expired at 12:00, request a new one",
		"password:\n\n",
		"secret:\n",
		"credentials:\n  user: bob\n  region: eu-west-1",
		`{"error":"password:\nmust be 12 characters"}`,
		"Authorization:\r\nHost: example.com",
		"password:\nrequired",
	})
}

// A URL password with a raw space or other odd byte, and key-value DSN
// passwords quoted because they hold one.
func TestOddPasswordsRedacted(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"url space", "dial postgres://app:hunter 2@db:5432/x: refused", []string{"hunter", "hunter 2"}},
		{"url space at", "redis://:p@ss w0rd@10.0.0.1:6379", []string{"ss w0rd", "w0rd"}},
		{"url quoted space", `parse "postgres://app:hunter 2 x@db:5432/x": invalid character " " in host name`, []string{"hunter", "2 x"}},
		{"url tab", "mysql://root:a\tb@db/x", []string{"a\tb", `a\tb`}},
		{"url two spaces", "amqp://guest:correct horse@mq:5672/", []string{"correct", "horse"}},
		{"dsn single quoted", "host=db password='a b c' dbname=x", []string{"a b c"}},
		{"dsn double quoted", `host=db password="a b c" dbname=x`, []string{"a b c"}},
		{"dsn escaped quote", `host=db password='it\'s s3cret' dbname=x`, []string{"s3cret"}},
		{"dsn space bare", "host=db password=hunter 2 user=app dbname=x", []string{"hunter"}},
		// A word with a colon is a key of its own, not more of the password.
		{"dsn then header", "a=0 pass=0 Cookie: sid=31d4d96e407aad42 0", []string{"31d4d96e407aad42"}},
	})
	checkBenign(t, []string{
		"see http://example.com:8080 for help or mail ops@example.com",
		"GET https://api.example.com:443 failed; contact dba@example.com",
		"postgres://db.example.com:5432 failed, mail dba@example.com",
		"token=[redacted] for user=bob",
	})
}

// Bare credentials of vendors whose prefix announces them.
func TestBareVendorTokensRedacted(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"google oauth access", "googleapi: Error 401: Request had invalid authentication credentials ya29.a0AfB_byC1234567890abcdefghijklmnopqrstuvwxyz-ABCDEFG", []string{"a0AfB_byC1234567890abcdefghijklmnop"}},
		{"google oauth access start", "ya29.c.b0Aaekm1K9abcdefghijklmnopqrstuvwxyz0123456789 rejected", []string{"b0Aaekm1K9abcdefghijklmnop"}},
		{"google refresh", "oauth2: refresh 1//0gLkS2mP9xQbTCgYIARAAGBASNwF-L9IrXyz0123456789abcdefghijklmn failed", []string{"gLkS2mP9xQbTCgYIARAAGBASNwF"}},
		{"google client secret", "invalid_client 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", []string{"1a2B3c4D5e6F7g8H9i0J1k2L3m4N"}},
		{"stripe webhook secret", "signature check with whsec_5f2b1a9c8d7e6f5a4b3c2d1e0f9a8b7c failed", []string{"5f2b1a9c8d7e6f5a4b3c2d1e0f9a8b7c"}},
		{"groq", "groq: 401 invalid api key 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", []string{"aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5"}},
		{"replicate", "replicate: bad token r8_aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5", []string{"aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5"}},
		{"xai", "xai: Incorrect API key provided: xai-aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7sU9wY1aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5o", []string{"aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5"}},
		{"pinecone", "pinecone: unauthorized pcsk_4aB3dE_5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7sU9wY1aB3dE5gH7jK9mN1pQ3sT", []string{"5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5"}},
		{"langsmith", "langsmith: 403 lsv2_pt_0123456789abcdef0123456789abcdef_0123456789", []string{"0123456789abcdef0123456789abcdef"}},
		{"tavily", "tavily: invalid 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", []string{"aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI"}},
		{"figma", "figma 403 figd_aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7s", []string{"aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5"}},
		{"supabase", "supabase: sbp_0123456789abcdef0123456789abcdef01234567 revoked", []string{"0123456789abcdef0123456789abcdef"}},
		{"supabase secret", "supabase: sb_secret_aB3dE5gH7jK9mN1pQ3sT5v_X7zA9cE1g revoked", []string{"aB3dE5gH7jK9mN1pQ3sT5v"}},
		{"atlassian", "jira: 401 ATATT3xFfGF0aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7sU9wY1aB3dE5gH7jK9mN1pQ3sT5vX7zA9=ABCD1234", []string{"aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5"}},
		{"azure ad client secret", "AADSTS7000215: Invalid client secret provided (qHF8Q~PCM5HhMoyTFc5TYEomnzR6Kim9UJhe8a.P)", []string{"PCM5HhMoyTFc5TYEomnzR6Kim9UJhe8a"}},
		{"mailchimp", "mailchimp: API key da32db73b3e7923fc28dc13ea9a6e59b-us20 is invalid", []string{"da32db73b3e7923fc28dc13ea9a6e59b"}},
		{"telegram bot", "telegram: Unauthorized for bot 0404427904727774:Abvm7utmo4kep2h7jqwu0cyhrprvp4n6ynb", []string{"Abvm7utmo4kep2h7jqwu0cyhrprvp4n6ynb"}},
		{"facebook app token", "graph: invalid 1308742762612587|rhoK1cbv0DOU_RTX_87O4MkX7AI", []string{"rhoK1cbv0DOU_RTX_87O4MkX7AI"}},
		{"named key then percent", "invalid key AAAAAAAAAAAAAAAAAAAAAALyH8f%VNhI568fRNuJgKC83nOiw9c1PjU7j9m97NN for account 42", []string{"VNhI568fRNuJgKC83nOiw9c1PjU7j9m97NN"}},
	})
	checkBenign(t, []string{
		"ya29. is the prefix of a Google access token",
		"the pattern Q~ is fine",
		"pat.pending state for pat.",
		"sbp_ and gsk_ and r8_ are prefixes",
		"user 123456:Abc logged in",
		"a|b|c pipe",
	})
}

// Escapes applied twice, or of different kinds nested, still spell the
// secret once decoded.
func TestMultiplyEscapedSecretsRedacted(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"double percent token", "redirect /cb?t=%2567hp_abcdefghijklmnopqrstuvwxyz0123456789", []string{"abcdefghijklmnopqrstuvwxyz0123456789"}},
		{"double percent key", "GET /login?next=%252F%26password%253Dhunter2secret", []string{"hunter2secret"}},
		{"triple percent", "q=password%25253Dhunter2secret", []string{"hunter2secret"}},
		{"unicode of percent", `{"u":"\u002567hp_abcdefghijklmnopqrstuvwxyz0123456789"}`, []string{"abcdefghijklmnopqrstuvwxyz0123456789"}},
		{"percent of unicode", "q=%5Cu0067hp_abcdefghijklmnopqrstuvwxyz0123456789", []string{"abcdefghijklmnopqrstuvwxyz0123456789"}},
		{"hex of percent", `s=\x2567hp_abcdefghijklmnopqrstuvwxyz0123456789`, []string{"abcdefghijklmnopqrstuvwxyz0123456789"}},
		{"html entities json", "<pre>{&quot;password&quot;:&quot;hunter2secret&quot;}</pre>", []string{"hunter2secret"}},
		{"html numeric", "<p>password&#61;hunter2secret</p>", []string{"hunter2secret"}},
		{"html hex token", "<p>&#x67;hp_abcdefghijklmnopqrstuvwxyz0123456789</p>", []string{"abcdefghijklmnopqrstuvwxyz0123456789"}},
	})
	checkBenign(t, []string{
		"progress 100%2525 done",
		"a &amp; b &lt; c",
		"Tom &amp; Jerry",
	})
}

// Credentials in the other places upstream errors and request dumps put
// them.
func TestAttackerContextsRedacted(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"basic header", "Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l", []string{"YWxhZGRpbjpvcGVuc2VzYW1l"}},
		{"basic in sentence", "upstream rejected Basic YWxhZGRpbjpvcGVuc2VzYW1l credentials", []string{"YWxhZGRpbjpvcGVuc2VzYW1l"}},
		{"cookie many", "Cookie: a=1; sid=31d4d96e407aad42; csrftoken=Xy9zAbCdEf123; _ga=GA1.2.3", []string{"31d4d96e407aad42", "Xy9zAbCdEf123"}},
		{"set-cookie many", "Set-Cookie: sid=31d4d96e407aad42; Path=/; HttpOnly, refresh=Xy9zAbCdEf123; Secure", []string{"31d4d96e407aad42", "Xy9zAbCdEf123"}},
		{"go header map", "headers: map[Authorization:[Bearer abcdefghij0123456789] Cookie:[sid=31d4d96e407aad42]]", []string{"abcdefghij0123456789", "31d4d96e407aad42"}},
		{"go header map api key", "map[X-Api-Key:[qwertyuiop1234567] Accept:[*/*]]", []string{"qwertyuiop1234567"}},
		{"jwt spaces", "token: eyJhbGciOiJIUzI1NiJ9 . eyJzdWIiOiIxMjM0NTY3ODkwIn0 . dozjgNryP4J3jVmNHl0w5N", []string{"eyJzdWIiOiIxMjM0NTY3ODkwIn0", "dozjgNryP4J3jVmNHl0w5N"}},
		{"jwt bare spaces", "bad jwt eyJhbGciOiJIUzI1NiJ9. eyJzdWIiOiIxMjM0NTY3ODkwIn0. dozjgNryP4J3jVmNHl0w5N", []string{"eyJzdWIiOiIxMjM0NTY3ODkwIn0", "dozjgNryP4J3jVmNHl0w5N"}},
		{"aws secret ini", "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", []string{"wJalrXUtnFEMI", "IOSFODNN7EXAMPLE"}},
		{"aws secret env", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", []string{"wJalrXUtnFEMI"}},
		{"aws secret json", `{"SecretAccessKey":"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}`, []string{"wJalrXUtnFEMI"}},
		{"pem escaped", `{"private_key":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n"}`, []string{"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "BKcwggSjAgEAAoIBAQC7"}},
		{"pem escaped bare", `key -----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn\n-----END RSA PRIVATE KEY-----`, []string{"MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn"}},
		{"query access_token", "GET /v1/me?access_token=EAABwzLixnjYBAabc123&fields=id", []string{"EAABwzLixnjYBAabc123"}},
		{"query client_secret", "POST /oauth/token?client_id=abc&client_secret=s3cr3tValue99&grant_type=x", []string{"s3cr3tValue99"}},
		{"scheme word before a header", "Bearer Authorization: token s3cr3tCustomScheme", []string{"s3cr3tCustomScheme"}},
		{"scheme word before a key", "basic client_secret: GOCSPX1234abcdQwerty", []string{"GOCSPX1234abcdQwerty"}},
		{"env name-value json", `{"name":"DB_PASSWORD","value":"hunter2-pw"}`, []string{"hunter2-pw"}},
		{"env name-value list", `"environment":[{"Name":"API_TOKEN", "Value": "abcd1234efgh5678"},{"Name":"MODE","Value":"prod"}]`, []string{"abcd1234efgh5678"}},
		{"query key", "GET https://maps.example.com/api/geocode?key=Zx81kP0qLm3vN7Tq&address=x", []string{"Zx81kP0qLm3vN7Tq"}},
		{"query key later", "GET /v3/search?q=shoes&KEY=Zx81kP0qLm3vN7Tq", []string{"Zx81kP0qLm3vN7Tq"}},
		{"sas sig", "https://acct.blob.core.windows.net/c/b?sv=2021-08-06&se=2026-01-01&sr=b&sp=r&sig=AbCdEf%2BgHiJkLmN%3D", []string{"AbCdEf", "gHiJkLmN"}},
		{"azure conn string", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;EndpointSuffix=core.windows.net", []string{"Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA"}},
		{"x-api-key", "X-Api-Key: qwertyuiop1234567", []string{"qwertyuiop1234567"}},
		{"x-api-key lower", "x-api-key=qwertyuiop1234567", []string{"qwertyuiop1234567"}},
		{"proxy-authorization", "Proxy-Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l", []string{"YWxhZGRpbjpvcGVuc2VzYW1l"}},
		{"x-auth-token", "X-Auth-Token: 0a1b2c3d4e5f6a7b8c9d", []string{"0a1b2c3d4e5f6a7b8c9d"}},
		{"private-token", "PRIVATE-TOKEN: abcdefghij0123456789", []string{"abcdefghij0123456789"}},
		{"curl -H", `curl -H "Authorization: Bearer abcdefghij0123456789" https://x`, []string{"abcdefghij0123456789"}},
	})
}

// "key" names a credential only as a URL's query parameter; elsewhere it
// names too many ordinary things to be redacted. A name-value pair is
// redacted only when the name is a secret's.
// A secret's value named by a separate member, in the shapes configuration
// dumps take beyond JSON: YAML lists of environment variables, XML
// settings and properties, logfmt; and the text of an XML element named
// after a secret, spaces included.
func TestNamedValuesRedacted(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"k8s env yaml", "env:\n  - name: DB_PASSWORD\n    value: hunter2-pw\n  - name: REGION\n    value: eu-west-1", []string{"hunter2-pw"}},
		{"k8s env yaml qualified key", "- name: AWS_SECRET_ACCESS_KEY\n  value: wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY", []string{"wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY"}},
		{"yaml crlf", "- name: DB_PASSWORD\r\n  value: 'hunter2 pw'", []string{"hunter2"}},
		{"yaml escaped line break", `- name: API_TOKEN\n  value: tok0123456789abcdef`, []string{"tok0123456789abcdef"}},
		{"dotnet appSettings", `<add key="ApiToken" value="tok_8f7d6c5b4a39"/>`, []string{"tok_8f7d6c5b4a39"}},
		{"spring property", `<property name="password" value="s3cr3tPassw0rd"/>`, []string{"s3cr3tPassw0rd"}},
		{"ant env", `<env name='DB_PASSWORD' value='hunter2-pw'/>`, []string{"hunter2-pw"}},
		{"logfmt", "name=DB_PASSWORD value=hunter2-pw", []string{"hunter2-pw"}},
		{"hibernate property text", `<property name="connection.password">my secret phrase</property>`, []string{"my secret", "secret phrase"}},
		{"entry key text", `<entry key="api_key">AKIAxyz12345678</entry>`, []string{"AKIAxyz12345678"}},
		{"element text with spaces", `<password>my secret phrase</password>`, []string{"my secret", "secret phrase"}},
		{"yaml flow env", "env: [{name: API_TOKEN, value: tok0123456789abcdef}]", []string{"tok0123456789abcdef"}},
		{"plist", "<dict>\n\t<key>Password</key>\n\t<string>Hunt3r Secr3t</string>\n</dict>", []string{"Hunt3r", "Secr3t"}},
		{"key value elements", `<entry><key>api_token</key><value>tok0123456789abcdef</value></entry>`, []string{"tok0123456789abcdef"}},
		{"vendor key", "export STRIPE_KEY=rk_test_0123456789abcdef", []string{"rk_test_0123456789abcdef"}},
		{"vendor key json", `{"OPENAI_API_KEY":"0123456789abcdef0123"}`, []string{"0123456789abcdef0123"}},
		{"vendor key lower", "sendgrid_key: SG0123456789abcdef", []string{"SG0123456789abcdef"}},
	})
	checkBenign(t, []string{
		"- name: REGION\n  value: eu-west-1",
		`<property name="timeout" value="30"/>`,
		`<property name="timeout">30</property>`,
		`<input type="password">Enter it</input>`,
		"default_value: 3, max_value=9",
		"the password value changed",
		"sort_key=created_at, partition_key: tenant",
		"{name: REGION, value: eu-west-1}",
		"<key>Region</key><string>eu-west-1</string>",
		"<value>eu-west-1</value>",
	})
}

// A secret quoted after its name in a sentence: fmt.Errorf("invalid
// password %q", pw) is the bug that puts one in an error.
func TestSecretQuotedInProseRedacted(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"password single", "invalid password 'Hunt3rSecr3tXq' for bob", []string{"Hunt3rSecr3tXq"}},
		{"token double", `bad token "tok0123456789abcdef": expired`, []string{"tok0123456789abcdef"}},
		{"api key", "unknown api key 'k_0123456789abcdef'", []string{"k_0123456789abcdef"}},
		{"secret with spaces", `secret "correct horse battery staple" rejected`, []string{"correct horse", "battery staple"}},
		{"passphrase unterminated", "wrong passphrase 'Hunt3rSecr3tXq", []string{"Hunt3rSecr3tXq"}},
		{"escaped in json", `{"error":"invalid password \"Hunt3rSecr3tXq\""}`, []string{"Hunt3rSecr3tXq"}},
	})
	checkBenign(t, []string{
		`the "password" field is required`,
		`field 'token' must be a string`,
		`the 'secret' label is deprecated`,
		"bypassword 'x' is not a keyword",
	})
}

// A secret key whose value is a structure: the secret is inside it, so the
// structure goes whole, in JSON, escaped JSON and YAML's flow style.
func TestStructuredSecretValuesRedacted(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"json object", `{"password": {"value": "hunter2pw", "rotated": false}}`, []string{"hunter2pw"}},
		{"json array", `{"api_keys": ["k_live_0123456789", "k_live_9876543210"]}`, []string{"k_live_0123456789", "k_live_9876543210"}},
		{"escaped json", `{\"secret\": {\"v\": \"hunter2pw\"}}`, []string{"hunter2pw"}},
		{"yaml flow", "password: {value: hunter2pw}", []string{"hunter2pw"}},
		{"pretty json", "{\n  \"token\": [\n    \"tok0123456789abcdef\"\n  ]\n}", []string{"tok0123456789abcdef"}},
		{"unterminated", "token: [tok0123456789abcdef, more", []string{"tok0123456789abcdef"}},
		{"yaml tag", "password: !!str Hunt3rSecr3tXq", []string{"Hunt3rSecr3tXq"}},
		{"python tuple", "token=('Hunt3rSecr3tXq', 'refresh')", []string{"Hunt3rSecr3tXq", "refresh"}},
		{"tuple double quoted", `api_key = ("k_live_0123456789",)`, []string{"k_live_0123456789"}},
		{"tuple spaced", "password: ( 'Hunt3rSecr3tXq' ) rejected", []string{"Hunt3rSecr3tXq"}},
		{"tuple second member", `secret=("bob", "Hunt3rSecr3tXq")`, []string{"Hunt3rSecr3tXq"}},
		{"nested call", "credentials=(Secret(\"Hunt3rSecr3tXq\"), 'x')", []string{"Hunt3rSecr3tXq"}},
	})
	checkBenign(t, []string{
		`{"order": {"id": "ord_9", "total": 12}}`,
		"retry (attempt 3 of 5) failed",
		`"items": ["a", "b"]`,
	})
}

func TestBareKeyOutsideAQueryKept(t *testing.T) {
	checkBenign(t, []string{
		`{"name":"region","value":"eu-west-1"}`,
		"the key=orders index is missing",
		"sort by key=created_at",
		"/v1/items?monkey=banana",
		"map key: order_id",
	})
}

func TestCurlQuotedPasswordRedacted(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"curl user single", "curl --user kevin:'pRf7vG2h1L8nQkW9' -iX PATCH https://x", []string{"pRf7vG2h1L8nQkW9"}},
		{"curl -u double", `exec: curl -u admin:"s3cr3t pass" https://x`, []string{"s3cr3t pass"}},
	})
}

// More places upstream errors and configuration dumps put credentials.
func TestConfigAndHeaderDumpsRedacted(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"apim subscription key", "Ocp-Apim-Subscription-Key: 0123456789abcdef0123456789abcdef", []string{"0123456789abcdef0123456789abcdef"}},
		{"datadog app key", "DD-APPLICATION-KEY: 0123456789abcdef0123456789abcdef01234567", []string{"0123456789abcdef0123456789abcdef01234567"}},
		{"datadog app key env", "DD_APP_KEY=0123456789abcdef0123456789abcdef01234567", []string{"0123456789abcdef0123456789abcdef01234567"}},
		{"license key", "license_key: NRAL0123456789abcdef", []string{"NRAL0123456789abcdef"}},
		{"rails secret_key_base", "SECRET_KEY_BASE=9f3b1c2d4e5f60718293a4b5c6d7e8f90a1b2c3d", []string{"9f3b1c2d4e5f60718293a4b5c6d7e8f90a1b2c3d"}},
		{"yaml block scalar", "db:\n  password: |\n    hunter2\n  host: db", []string{"hunter2"}},
		{"yaml folded scalar", "password: >-\n  hunter2", []string{"hunter2"}},
		{"ado connection string", "Server=tcp:db,1433;User ID=sa;Password=My Pass word;Encrypt=True", []string{"My Pass", "Pass word"}},
		{"odbc pwd", "DRIVER={ODBC Driver 18};SERVER=db;UID=sa;PWD=a b c;", []string{"a b c"}},
		{"base64 pem", "client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBdGVzdA==", []string{"LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NB"}},
		{"base64 pem bare", "secret data LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2UUlCQURBTkJna3Foa2lHOXcwQkFRRUZBQVND", []string{"LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2UUlCQURB"}},
		{"google auth code", "oauth2: cannot fetch token: code 4/0AX4XfWjabcdefghijklmnopqrstuvwxyz0123456789 invalid_grant", []string{"AX4XfWjabcdefghijklmnopqrstuvwxyz"}},
		{"telegram bot url", "Post \"https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage\": timeout", []string{"AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw", "HdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"}},
		{"presigned s3", "GET https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=0a1b2c3d4e5f60718293a4b5c6d7e8f9&X-Amz-Security-Token=FwoGZXIvYXdzEBYaDabc123", []string{"IOSFODNN7EXAMPLE", "0a1b2c3d4e5f60718293a4b5c6d7e8f9", "FwoGZXIvYXdzEBYaDabc123"}},
		{"go struct dump", "config: {User:bob Password:hunter2 Host:db}", []string{"hunter2"}},
		{"go struct dump quoted", `config: &Config{User:"bob", Password:"hunter 2", Host:"db"}`, []string{"hunter 2"}},
		{"python dict", "kwargs={'user': 'bob', 'password': 'hunter 2'}", []string{"hunter 2"}},
		{"git credential url", "fatal: unable to access 'https://x-access-token:ghs_16C7e42F292c6912E7710c838347Ae178B4a@github.com/o/r.git/'", []string{"16C7e42F292c6912E7710c838347Ae178B4a"}},
	})
	checkBenign(t, []string{
		"Server=tcp:db,1433;Database=orders;Encrypt=True",
		"password=[redacted]; try again",
		"the key pair was not found",
	})
}

// A list of unset keys is not a key and its value.
func TestEmptyKeysOnNextLinesKept(t *testing.T) {
	checkBenign(t, []string{
		"GITHUB_API_KEY=\nDYNATRACE_API_KEY=",
		"snowflake.password=\njdbc.snowflake.url=",
		"password:\nurl:",
	})
	checkLeakCases(t, []leakCase{
		{"base64 padded", "password=\ndXNlcjpwYXNzd29yZA=", []string{"dXNlcjpwYXNzd29yZA"}},
	})
}

// A header value folded onto the next line, and command-line options that
// take a secret as their next word.
func TestFoldedValuesAndOptionsRedacted(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"folded bearer", "Authorization: Bearer\r\n abcdefghij0123456789\r\nHost: x", []string{"abcdefghij0123456789"}},
		{"folded cookie", "Cookie: a=1;\r\n\tsid=31d4d96e407aad42", []string{"31d4d96e407aad42"}},
		{"escaped folded", `{"raw":"Authorization: Bearer\r\n abcdefghij0123456789"}`, []string{"abcdefghij0123456789"}},
		{"cli password", "exec: psql --password hunter2secret --host db", []string{"hunter2secret"}},
		{"cli token", "run: gh auth login --token ghx_notaprefix99 failed", []string{"ghx_notaprefix99"}},
		{"cli api key quoted", `cmd: tool --api-key "abc def 123" --verbose`, []string{"abc def 123"}},
		{"cli client secret", "az login --service-principal --client-secret s3cr3tValue99 --tenant t", []string{"s3cr3tValue99"}},
		// An option whose next word is a key with a value of its own: the
		// key's value goes, whichever rule takes it.
		{"cli option before key", "--passwd client_secret: GOCSPX1234abcd --verbose", []string{"GOCSPX1234abcd"}},
		{"cli option before quoted key", `--token "api_key": "sk4eC39HqLyjWDarjtT1zdp7dc"`, []string{"sk4eC39HqLyjWDarjtT1zdp7dc"}},
		{"cli option before key=", "sshpass --password db_password=Zx81kd92jfQw -- ssh host", []string{"Zx81kd92jfQw"}},
		{"cli password before colon", "exec: mysqladmin --password S3cr3tPw0rd: exit status 1", []string{"S3cr3tPw0rd"}},
	})
	checkBenign(t, []string{
		"Authorization: [redacted]\nHost: example.com",
		"flags: --password-file cfg.txt --token-ttl 5m",
		"use --password to set it",
		"usage: --token <value>",
		"Error 1045 (28000): Access denied for user 'root'@'db' (using password: YES)",
		"Access denied for user 'app'@'db' (using password: NO)",
	})
}

// A scheme word before a key and '=' announces no token: the key-value
// rule redacts the value, and the scheme rule must not then read the key
// and its '=' before the marker as a token (a second run of either tier
// changed "Bearer password=[redacted]" to "Bearer [redacted][redacted]").
func TestSchemeWordBeforeKeyValueSettles(t *testing.T) {
	const v = "hunter2hunter2"
	for _, scheme := range []string{"Bearer", "BeArer", "basic", "BEARER"} {
		for _, key := range []string{"password", "api_key", "token", "client_secret", "X-Api-Key"} {
			for _, sep := range []string{"=", ": ", ":"} {
				for _, lead := range []string{"", "\x01", "\n", "auth: ", "\t"} {
					in := lead + scheme + " " + key + sep + v + " 0"
					for name, check := range map[string]func(*testing.T, string) string{"Public": checkPublic, "Log": checkLog} {
						if out := check(t, in); strings.Contains(out, v) {
							t.Errorf("%s(%q) = %q keeps the value", name, in, out)
						}
					}
				}
			}
		}
	}
}

// A key=value pair whose value ends in '=' (base64's padding) counts as a
// pair before a connection string's next key, as it does once its value
// is redacted: the value after it is then read over the same words before
// and after (a second run read "password=[redacted] 0" as one value).
func TestPairWithPaddedValueSettles(t *testing.T) {
	for _, first := range []string{"pAss=0=", "secret=c2VjcmV0==", "token=YWJj=", "key=a=b=", "user=app"} {
		for _, words := range []string{" 0 0=", " 2 user=app", " and more user=app", " x"} {
			in := first + " password=hunter2hunter2" + words
			for name, check := range map[string]func(*testing.T, string) string{"Public": checkPublic, "Log": checkLog} {
				if out := check(t, in); strings.Contains(out, "hunter2hunter2") {
					t.Errorf("%s(%q) = %q keeps the password", name, in, out)
				}
			}
		}
	}
}
