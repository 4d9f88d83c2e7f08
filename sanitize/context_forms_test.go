package sanitize

import (
	"strings"
	"testing"
)

// checkRedacts checks that each format, with each value in place of %s,
// loses the value in both tiers.
func checkRedacts(t *testing.T, values, formats []string) {
	t.Helper()
	for _, f := range formats {
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

// The JDK's tools take a keystore's and a key's password after an option
// of one dash whose name ends in "pass"; the value is a password whatever
// it looks like.
func TestKeystorePassOptions(t *testing.T) {
	checkRedacts(t, []string{"Zq8Kw2Lm9Rt4Vx7Pb3Nc", "changeit", "hunter22"}, []string{
		"keytool -list -storepass %s", "keytool -keypass %s -alias x", "keytool -importkeystore -srcstorepass %s -deststorepass x1y2z3",
		"keytool -importkeystore -srcstorepass x1y2z3 -deststorepass %s", "jarsigner -storepass '%s' app.jar a",
		`keytool -genkey -keyPass "%s"`, "keytool -genkey --keypass %s", "keytool -list -srckeypass %s", "-destkeypass %s",
	})
	checkBenign(t, []string{
		"keytool -list -storepass $STORE_PASS -v", "keytool -list -storepass -v",
		"use -storepass to set it", "bypass the cache with -bypass flag", "the -keypass option is optional", "pass the -storepass argument",
	})
}

// A qualifier between a name and its colon may hold a quoted path or URL,
// and a credential word of its own after a preposition ("passphrase for
// key '...'").
func TestQualifierWithPath(t *testing.T) {
	checkRedacts(t, []string{"Zq8Kw2Lm9Rt4Vx7Pb3Nc", "a3f9c2e1b7d54a60c2e1b7d5"}, []string{
		"Enter passphrase for key '/home/u/.ssh/id_rsa': %s", `Enter passphrase for key "C:\Users\u\.ssh\id_ed25519": %s`,
		"Password for 'https://bob@github.com': %s",
		"secret for key 'payments/stripe': %s", "API key for project 'shop-prod': %s", "token for key abc: %s",
	})
	checkBenign(t, []string{
		"Enter passphrase for key 'deploy': ", "Enter passphrase for key 'deploy': incorrect passphrase",
		"cache for key 'user:42': miss", "lock for key 'orders': acquired after 3 tries", "token for tenant 'acme': expired",
	})
}

// A name after its value: the value-first phrasing of Python's and
// JavaScript's libraries, and a comparison member whose sibling after it
// names what was compared.
func TestNameAfterValue(t *testing.T) {
	checkRedacts(t, []string{"Zq8Kw2Lm9Rt4Vx7Pb3Nc", "a3f9c2e1b7d54a60c2e1b7d5"}, []string{
		"'%s' is not a valid API key", `"%s" is not a valid token`, "%s is an invalid key", "`%s` isn't a valid access key",
		"ValueError: '%s' is not a valid client_secret.", "error: %s is not a recognized apiKey", "'%s' was rejected: not a valid signature",
		"%s does not look like a valid Access-Token", "error: '%s' does not appear to be a valid API key", "the value %s is not a valid password", "'%s' is an expired refresh token",
		`{"expected":"%s","error":"signature mismatch"}`, `{"received": "%s", "message": "invalid HMAC"}`,
		`{\"expected\":\"%s\",\"error\":\"bad token\"}`, "<Expected>%s</Expected><Code>SignatureDoesNotMatch</Code>",
		"<Received>%s</Received><Message>The API key is invalid</Message>",
	})
	checkBenign(t, []string{
		"'abc' is not a valid option", "'a3f9c2e1b7d54a60c2e1b7d5' is not a valid idempotency key",
		"0193b1c2-7d1e-7a3b-9c4d-5e6f70819203 is not a valid request id", "v2 is not a valid token version",
		"'eu-west-1a' is not a valid region", "a3f9c2e1b7d54a60c2e1b7d5 is the commit that broke the build",
		`{"expected":"a3f9c2e1b7d54a60c2e1b7d5","error":"user not found"}`,
		"<Expected>a3f9c2e1b7d54a60c2e1b7d5</Expected><Code>NoSuchBucket</Code>",
	})
}

// "key = <value>" with spaces around '=' is a key when the value is
// shaped like a credential; the key of a map entry or a loop in code is
// not.
func TestSpacedKeyAssignment(t *testing.T) {
	checkRedacts(t, []string{"Zq8Kw2Lm9Rt4Vx7Pb3Nc", "a3f9c2e1b7d54a60c2e1b7d5"}, []string{
		"key = %s", "KEY = %s", "Key = '%s'", "signing key = %s", "key  =  %s", "key := %s",
		"login rejected for the client secret, %s", "the new password, %s", "token, %s\nnext line",
	})
	checkBenign(t, []string{
		"cache key = user:42:profile", "key = value", "key = 42", `key = "orders"`, "the key = 42", "for key = range m2 {",
		"key = cacheKeyFor(u2)", `key = fmt.Sprintf("user:%d", id)`, "key = strings.ToLower(k2)", "idempotency key = 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203",
		"sorted by key, a3f9c2e1b7d54a60", "the token expired, v2", "administrator_login_password = var.db_password",
	})
}

// A user and a password written "user / password" after a credential
// word: the password goes (the user too when a key of the key-value rule
// names the pair).
func TestUserSlashPassword(t *testing.T) {
	checkRedacts(t, []string{"Zq8Kw2Lm9Rt4Vx7Pb3Nc", "a3f9c2e1b7d54a60c2e1b7d5", "hunter2hunter2"}, []string{
		"credentials: svc / %s", "Credentials = svc / '%s'", "creds: deploy / %s (expired)", "login: admin / %s",
		"user/password: admin / %s", "auth: bob@example.com / %s", "DB_CREDENTIALS: app / %s",
		"credentials: 'svc' / '%s'", `creds: "deploy" / "%s"`, "login: admin / '%s'",
	})
	checkBenign(t, []string{
		"password: required / optional", "tokens: 42 / 100", "login: admin / guest accounts only", "auth: ok / 3 retries",
		"pages: 1 / 12", "size: 10 / 100 MiB",
	})
}

// SQL names a user's password with "IDENTIFIED BY".
func TestIdentifiedBy(t *testing.T) {
	checkRedacts(t, []string{"Zq8Kw2Lm9Rt4Vx7Pb3Nc", "a3f9c2e1b7d54a60c2e1b7d5", "hunter2hunter2"}, []string{
		"CREATE USER 'app'@'localhost' IDENTIFIED BY '%s'", "alter user app identified by \"%s\";", "ALTER USER app IDENTIFIED BY %s",
	})
	checkBenign(t, []string{"the caller is identified by its API key", "rows identified by id 42"})
}
