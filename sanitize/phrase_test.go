package sanitize

import (
	"strings"
	"testing"
)

// A credential named in a sentence is redacted whatever words people put
// between the name and the value: a verb phrase, a qualifier before the
// separator, a comparison, an arrow or a table's column, an abbreviated
// name, a bracketed pair, an XML element with attributes.
func TestPhraseRedacts(t *testing.T) {
	values := []string{"Zq8Kw2Lm9Rt4Vx7Pb3Nc", "a3f9c2e1b7d54a60c2e1b7d5", "hunter2hunter2"}
	for _, f := range []string{
		// verb phrases and adverbs
		"password set to %s", "api key changed to %s", "token updated to %s", "set password to %s",
		"rotated key to %s", "changed the secret to %s", "secret now %s", "PASSWORD SET TO %s",
		"Passwords changed to %s", "api_key updated to %s", "apiKey changed to %s", "api-key reset to %s",
		`token set to "%s"`, "password set to\n%s", "token is now %s", "token is still %s", "token became %s",
		"password will be %s", "password configured as %s", "password has been changed to %s",
		"set the api key to %s", "Password Set To %s", "X-Api-Key set to %s", "DB_PASSWORD set to %s",
		"password updated successfully to %s", "Setting password to %s", "updating the api key to %s",
		"secret is now: %s", "secretKey now %s", "password set to: %s",
		// a value the name "has"
		"token has value %s", "the api key has the value %s", "Password value %s", "client secret had the value %s",
		"refresh token now has value %s", "API_KEY has its value %s",
		// qualifiers before a strong separator
		"password for user alice is %s", "token for tenant 42: %s", "key for bucket logs = %s",
		"the password used was %s", "token provided was %s", "token was set: %s", "password of user bob was %s",
		"password for 'alice' is %s", `password for user "alice": %s`, "key (tenant 42): %s",
		"token (expires 2026-01-01): %s", "the access token for https://api.example.com is %s",
		"invalid X-Api-Key header: %s", "token not accepted: %s", "tokens are: %s", "new password set: %s",
		// comparisons
		"signature mismatch: got %s want x", "key mismatch: expected %s", "expected token abc but got %s",
		"token mismatch: received %s", "token: provided %s", "token: given %s", "token sent %s",
		"token: got %s", "token: expected %s", "signature: want %s, got x", "signature: want x, got %s",
		"HMAC mismatch for hook 7: expected '%s' but got 'x'", "signature does not match: expected %s",
		"computed signature 9f8e7d6c5b4a39281706f5e4 does not match expected %s", "signature abc vs expected %s",
		"password mismatch for user bob: got %s", "signature mismatch (expected: 9f8e7d6c5b4a39281706f5e4, got: %s)",
		"signature mismatch (expected: %s, got: x)", "token:\n  expected %s", "the key you provided (%s) is invalid",
		"password you entered %s is wrong",
		// a change from one value to another
		"PASSWORD changed from abc to %s", "rotating key from %s to x", "password changed from %s to x",
		// a generic word that a qualifier makes a credential's name
		"verification code %s", "recovery codes: %s", "MFA code = %s",
		// separators
		"token -> %s", "token → %s", "| token | %s |", "token - %s", "password — %s", "api key – %s",
		// names
		"pw=%s", "PW: %s", "otp=%s", "passcode: %s", "[key=%s]", "{key=%s}", "(key=%s)",
		// a bare key= outside a tag, as logfmt and env files write it
		"key=%s", "KEY=%s", `key="%s"`, "level=error key=%s msg=denied", "Key='%s'",
		`<key name="x">%s</key>`, `<param name="token" type="x">%s</param>`, `<entry key="secret" id="1">%s</entry>`,
		// the next values of a list after a name
		"keys: 9f8e7d6c5b4a39281706f5e4, %s", "the tokens provided were 9f8e7d6c5b4a39281706f5e4 and %s", `<token id="1">%s</token>`, `<Password type="text">%s</Password>`,
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
	if out := Public("expected token a3f9c2e1b7d54a60c2e1b7d5 but got Zq8Kw2Lm9Rt4Vx7Pb3Nc"); out != "expected token [redacted] but got [redacted]" {
		t.Errorf("both sides of a comparison: %q", out)
	}
}

// Ordinary words after a credential's name stay, as do identifiers and
// commit hashes that no credential word names.
func TestPhraseKeepsProse(t *testing.T) {
	checkBenign(t, []string{
		"**Note**: `make build` first", "'abc' is not a valid option", "key = value", "the key = 42",
		"passphrase for key 'deploy': incorrect passphrase",
		"password changed to meet the policy", "token set to expire in 5m", "key for user 42 not found",
		"key set to default", "token updated to v2 format", "token mismatch: expected 3 got 4",
		"key for user 42 is missing", "password for user alice is required", "token for tenant 42: expired",
		"secret now rotated", "token -> expired", "| token | valid | 2026-01-01 |",
		"pin to a3f9c2e1b7d54a60c2e1b7d5", "reset to a3f9c2e1b7d54a60c2e1b7d5",
		"rolled back to a3f9c2e1b7d54a60c2e1b7d5", "git reset to a3f9c2e1b7d54a60c2e1b7d5",
		"deploy key rotated; reset to a3f9c2e1b7d54a60c2e1b7d5",
		"idempotency key set to 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203",
		"request id for tenant 42: 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203",
		"trace id is now 4bf92f3577b34da6a3ce929d0e0e4736", "key = entry_v2_name",
		"<key>CFBundleShortVersionString</key>", `<entry key="region">eu-west-1</entry>`,
		"cache key for user 42: a3f9c2e1b7d54a60c2e1b7d5", "key does not exist: 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203",
		"commit a3f9c2e1b7d54a60c2e1b7d5 does not match expected b4f9c2e1b7d54a60c2e1b7d5",
		"checksum a3f9c2e1b7d54a60c2e1b7d5 does not match expected b4f9c2e1b7d54a60c2e1b7d5",
		"sorted by key, 4bf92f3577b34da6a3ce929d0e0e4736", "expired token; 4bf92f3577b34da6a3ce929d0e0e4736",
		"idempotency key - 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203", "key / value store v2.3.4-beta1x",
		"error code 0x8004a3f9c2e1b7d5", "status code 503 from upstream a3f9c2e1b7d54a60c2e1b7d5",
		"exit code: a3f9c2e1b7d54a60c2e1b7d5", "rolled back from a3f9c2e1b7d54a60c2e1b7d5 to b4f9c2e1b7d54a60c2e1b7d5",
		"migrated from v1 to a3f9c2e1b7d54a60c2e1b7d5", "we received 2026-01-02T10:00:00Z",
		"the client sent a3f9c2e1b7d54a60c2e1b7d5", "invalid token type, 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203",
		"key not found, 2026-01-02T10:00:00Z", `<param name="region" type="x">a3f9c2e1b7d54a60c2e1b7d5</param>`,
		"keys: region, 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203", "cache key set to user:42:profile",
		"token endpoint set to https://auth.example.com/oauth2/token", "token TTL set to 3600s",
		"password policy changed to require 12 characters", "API key last used: 2026-01-02T10:00:00Z",
		"key ID changed to 7f3e2a1b-0c4d-4e5f-8a9b-0c1d2e3f4a5b", "partition key changed to 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203",
		"key=user:42:profile", "key=uploads/2026/inv-8812.pdf", `<add key="Region_EU2" value="eu"/>`,
		`<entry key="Region_EU2" type="x">`, "Idempotency-Key set to 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203", "request id you provided: 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203",
		"cache key has the value user:42:profile", "primary key has value 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203",
		"the header has the value a3f9c2e1b7d54a60c2e1b7d5", "token count has value 12345678",
		"key has the value 42", "password has the value required",
	})
}

// A marker set off by a tab is read as the log tier writes the tab back
// ("\t"), so that a second run of either tier changes nothing.
func TestMarkerAfterTabSettles(t *testing.T) {
	for _, in := range []string{
		"0 client_secret: GOCSPX1234abcd \t000001A0", "client_secret:\tGOCSPX1234abcd 000001A0",
		"token: got\tZq8Kw2Lm9Rt4Vx7Pb3Nc", "api_key = abc123XYZ789 \t\tQ9v2pL8x7Rt4",
		"\nApiKeY: AKIAIOSFODNN7EXAMPLE 00A00000", "\tpassword: hunter2hunter2 Q9v2pL8x7Rt4", "\r\napi_key=abc123XYZ789 00A00000",
	} {
		for _, tier := range []func(string) string{Public, Log} {
			once := tier(in)
			if twice := tier(once); twice != once {
				t.Errorf("%q: %q, then %q", in, once, twice)
			}
		}
	}
}
