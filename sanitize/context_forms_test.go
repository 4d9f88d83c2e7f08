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
