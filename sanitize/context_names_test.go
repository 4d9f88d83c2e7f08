package sanitize

import (
	"strings"
	"testing"
)

// Names of a credential that the word list reaches only through their
// form: an XML namespace before the element's name, a lower-case
// qualifier glued to the word, a header or a setting whose name is the
// credential's kind (JWT, Bearer, Authentication, Redis' requirepass).
func TestCredentialNamesInEveryForm(t *testing.T) {
	values := []string{"Zq8Kw2Lm9Rt4Vx7Pb3Nc", "a3f9c2e1b7d54a60c2e1b7d5", "hQ-7rT_2xWp9LmZk4Vb8Nc3D"}
	for _, f := range []string{
		"<wsse:Password>%s</wsse:Password>", "<ns2:apiKey>%s</ns2:apiKey>", "<xs:Token>%s</xs:Token>",
		`<wsse:Password Type="PasswordText">%s</wsse:Password>`, `<a:ClientSecret xmlns:a="urn:x">%s</a:ClientSecret>`,
		"adminpassword %s", "set userpassword %s", "apitoken %s", "githubtoken: %s", "mastersecret=%s",
		"rootpassword '%s'", "Authentication: %s", "authentication=%s", "JWT: %s", "jwt=%s", "invalid jwt %s",
		"Bearer: %s", "CONFIG SET requirepass %s", "requirepass %s", "masterauth %s", "config set masterauth \"%s\"",
		"token[0]=%s", "api_keys[]=%s&x=1", "secret[12]: %s", "token2: %s", "password1=%s", "apiKey01 %s",
		"credentials for bob:%s", "password from svc:%s", "auth for svc_orders:%s", "token rejected for deploy@example.com:%s",
		"auth failed for bob:%s", "auth failed for user bob:%s", "login failed for user bob:%s", "token refused for client web:%s",
		"authentication denied for client svc-api:%s", "password rejected for user alice:%s", "credentials for user bob:%s",
		"requests.get(url, auth=('bob', '%s'))", `auth = ("bob", "%s")`, "session.auth = ('svc', '%s')", "auth=('bob','%s')",
		"credentials: ['deploy', '%s']",
		"passwordValue=%s", "GET /v1/verify?otp=%s HTTP/1.1", "https://api.example.com/v2/x?passcode=%s",
		"/api/V2/hooks/hmac=%s", "apiKey:\n%s", "X-Auth-Token:\n  %s user=42", "client_secret =\n\t%s", "token.value = %s", "secret_value: \"%s\"", "passwordValue: %s", "{\"client-secret-value\":\"%s\"}",
	} {
		for _, v := range values {
			in := strings.ReplaceAll(f, "%s", v)
			for _, tier := range []func(string) string{Public, Log} {
				if out := tier(in); strings.Contains(out, v) {
					t.Errorf("%q -> %q keeps the value", in, out)
				}
			}
		}
	}
}

func TestCredentialNamesKeepProse(t *testing.T) {
	checkBenign(t, []string{
		"curl -u <user:password> https://test.com/endpoint", "<ns:Status>Active</ns:Status>",
		"turkey Zq8Kw2Lm9Rt4Vx7Pb3Nc", "bypass Zq8Kw2Lm9Rt4Vx7Pb3Nc", "compass heading N45E12",
		"hotkey Ctrl2Shift9Alt", "the jwt expired", "Authentication: required", "Bearer: missing",
		"requirepass is not set", "masterauth yes", "adminpassword reset for user 42",
		"token2 expired", "password1 policy applies", "items[0]=Zq8Kw2Lm9Rt4Vx7Pb3Nc", "tokens[] is empty",
		"token.value = null", "secret_value: none", "tokenValue: 42", "value: Zq8Kw2Lm9Rt4Vx7Pb3Nc",
		"retry2: Zq8Kw2Lm9Rt4Vx7Pb3Nc", "orders[3]=Zq8Kw2Lm9Rt4Vx7Pb3Nc",
		"timeout for db:5432", "token for host:5432", "credentials for bob:required", "report for db:Zq8Kw2Lm9Rt4Vx7Pb3Nc",
		"auth failed for user bob: invalid password", "auth failed for host db-primary:5432", "login failed for user bob:locked",
		"report failed for user bob:Zq8Kw2Lm9Rt4Vx7Pb3Nc", "upload failed for client web:retry-after-30s",
		"auth failed for user 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203", "foo=('bob', 'Zq8Kw2Lm9Rt4Vx7Pb3Nc')",
		"auth=('bob', 'required')", "key=('region', 'eu-west-1')", "connection refused for user bob: server closed the connection",
		"<soap:Body><m:GetPrice><m:Item>Apples</m:Item></m:GetPrice></soap:Body>",
	})
}

// An INSERT gives its values in the order of its columns: the literal of
// a column that names a secret is redacted in the log tier (the public
// tier turns the whole statement into the generic detail), the others
// stay.
func TestInsertedSecretColumns(t *testing.T) {
	const v = "Zq8Kw2Lm9Rt4Vx7Pb3Nc"
	for _, in := range []string{
		"INSERT INTO creds (token) VALUES ('" + v + "')",
		"INSERT INTO users (name, password) VALUES ('bob', '" + v + "')",
		"insert into users (id, created_at, api_key, name) values (42, NOW(), '" + v + "', 'bob')",
		"INSERT INTO `users` (`name`,`password`) VALUES (\"bob\",\"" + v + "\")",
		"pq: duplicate key value violates unique constraint: INSERT INTO sessions (user_id, token) VALUES (7, '" + v + "')",
		"Error 1062: INSERT INTO [dbo].[Accounts] ([Login], [ClientSecret]) VALUES ('svc', '" + v + "'): duplicate",
	} {
		for _, tier := range []func(string) string{Public, Log} {
			if out := tier(in); strings.Contains(out, v) {
				t.Errorf("%q -> %q keeps the value", in, out)
			}
		}
	}
	for _, in := range []string{
		"INSERT INTO users (name, email) VALUES ('bob', 'bob@example.com')",
		"INSERT INTO tokens_audit (id, note) VALUES (1, 'rotated by ops')",
		"INSERT INTO t (password_set, name) VALUES ('true', 'Zq8Kw2Lm9Rt4Vx7Pb3Nc')",
		`{"values":["a","b"],"token_count":3}`,
	} {
		if out := Log(in); out != in {
			t.Errorf("Log(%q) = %q, want it unchanged", in, out)
		}
	}
}

// A passcode is a password: its key takes any value, as "password" does,
// in text and as a log attribute's key.
func TestPasscodeIsAPassword(t *testing.T) {
	for _, in := range []string{"passcode=hunter2", `{"passcode":"1234abcd"}`, "vault_passcode: letmein"} {
		for _, tier := range []func(string) string{Public, Log} {
			if out := tier(in); !strings.Contains(out, Redacted) {
				t.Errorf("%q -> %q keeps the passcode", in, out)
			}
		}
	}
	if got := LogAttr("passcode", "hunter2").Value.Resolve().String(); got != Redacted {
		t.Errorf("LogAttr(passcode=hunter2) = %q", got)
	}
}
