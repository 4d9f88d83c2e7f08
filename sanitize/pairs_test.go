package sanitize

import (
	"strings"
	"testing"
)

// A credential's value that its name announces from one step further away
// than a separator or a phrase is redacted: set off by commas, the new side
// of a change, a code a qualifier names, a name with an algorithm's suffix,
// an item of a scheme list, a comparison member of a JSON object whose
// sibling names the credential.
func TestPairsRedact(t *testing.T) {
	values := []string{"Zq8Kw2Lm9Rt4Vx7Pb3Nc", "a3f9c2e1b7d54a60c2e1b7d5", "hunter2hunter2"}
	for _, f := range []string{
		// appositives
		"The new password, %s, was saved", "the token, %s, expired", "THE API KEY, %s, WAS ROTATED",
		"Your client_secret, %s, is stored", "the secret,\n%s, leaked", `The new password, "%s", was saved`,
		"The password, '%s', was saved", "the API token, `%s`, expired", "The new password,\n%s,\nwas saved",
		"the api_key, %s; was set",
		// the sides of a change
		"Token rotated: old=abc new=%s", "credential rotated, new value %s", "secret; new value %s",
		"api key rotated; previous=abc current=%s", "credential rotated, new value: %s", "secret; New Value %s",
		"password changed, old value %s", "Token rotated: old=abc\nnew=%s", "token updated: new=%s old=abc",
		`Token rotated: old="abc" new="%s"`, "Token rotated: old='abc' new='%s'", "key rotated (old=abc, new=%s)",
		"Token rotated. New value: %s", `{"event":"token rotated","old":"abc","new":"%s"}`,
		"token rotated: old: abc new: %s", "secret rotated -> new value %s",
		"password updated: previous value abc, new value %s",
		// codes a qualifier names
		"Your one-time code: %s", "Your One-Time Code: %s", "your 2FA code %s", "2FA code: %s", "TOTP code: %s",
		"Your one-time code is %s", "OTP code: %s", "backup code %s", "recovery codes: %s",
		// a name with an algorithm's or a version's suffix, a value with a scheme
		"HMAC-SHA256 mismatch: received %s", "HMAC_SHA256 mismatch: expected %s", "x-hub-signature-256 mismatch: sha256=%s",
		"X-Hub-Signature-256: sha256=%s", "signature: sha1=%s", "signature-v2 mismatch: got %s",
		"X-Signature: t=1712345678,v1=%s", "Stripe-Signature: t=1712345678,v1=%s", "signature: t=1712345678, v1=%s",
		"Stripe-Signature: t=1712345678,v1=%s,v0=abc", "Stripe-Signature: t=1712345678, v1=%s, v0=abc",
		"hmac_sha256=%s", "webhook: hmac_sha256=%s", "X-Slack-Signature: v0=%s",
		"X-Hub-Signature-256 mismatch (got sha256=%s)", "2-step code %s", "Your Backup Code: %s",
		// JSON siblings
		`{"error":"signature mismatch","expected":"%s","got":"x"}`, `{"error":"invalid token","received":"%s"}`,
		`{"error": "signature mismatch", "expected": "%s", "got": "x"}`, `{"message":"invalid api key","provided":"%s"}`,
		`{"error":"token expired","actual":"%s"}`, `{\"error\":\"signature mismatch\",\"expected\":\"%s\"}`,
		"<Error><Code>SignatureDoesNotMatch</Code><Expected>%s</Expected></Error>",
		"<Error><Code>InvalidToken</Code><Received>%s</Received></Error>", `{"code":401,"error":"Invalid Password","given":"%s"}`,
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

// The words around those forms stay when no credential stands in them:
// lists, changes of other things, codes of other kinds, digests of files.
func TestPairsKeepProse(t *testing.T) {
	checkBenign(t, []string{
		"<![CDATA[Hello world]]>", `{"expected":"a3f9c2e1b7d54a60c2e1b7d5","error":"user not found"}`,
		"password: required / optional", "a3f9c2e1b7d54a60 is the commit that broke the build",
		"the token expired", "password reset failed", "key not found", "new token issued", "old password was wrong",
		"exit code 137", "status code 503", "zip code 94107", "error code: 0x8004a3f9c2e1b7d5",
		"checksum sha256=9f8e7d6c5b4a39281706f5e4a3f9c2e1b7d54a60c2e1b7d59f8e7d6c5b4a3928",
		"hash: sha256=9f8e7d6c5b4a39281706f5e4a3f9c2e1b7d54a60c2e1b7d59f8e7d6c5b4a3928",
		"sorted by key, 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203, then by name",
		"version 2, build a3f9c2e1b7d54a60, released", "user updated: old=alice new=bob2024xyz99",
		"config changed: old=v1.2.3 new=v1.2.4a9b8c7d6", "region changed, new value eu-west-1a9b8c7",
		`{"error":"user not found","expected":"a3f9c2e1b7d54a60c2e1b7d5"}`,
		`{"error":"conflict","expected":"0193b1c2-7d1e-7a3b-9c4d-5e6f70819203","got":"x"}`,
		"idempotency key, 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203, was already used",
		"the token expired, retrying", "key-256 entries, a3f9c2e1b7d54a60c2e1b7d5",
		`{"event":"user renamed","old":"abc","new":"a3f9c2e1b7d54a60c2e1b7d5"}`,
		"idempotency key rotated: old=abc new=0193b1c2-7d1e-7a3b-9c4d-5e6f70819203",
		"the request, 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203, failed",
		"the idempotency key, 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203, was used",
		"[id=0193b1c2-7d1e-7a3b-9c4d-5e6f70819203]", "[trace_id=4bf92f3577b34da6a3ce929d0e0e4736]",
		"region changed: old: eu-west-1 new: a3f9c2e1b7d54a60c2e1b7d5", "plan updated -> new value a3f9c2e1b7d54a60c2e1b7d5",
		`{\"error\":\"user not found\",\"expected\":\"a3f9c2e1b7d54a60c2e1b7d5\"}`,
		"<Error><Code>NoSuchBucket</Code><Expected>a3f9c2e1b7d54a60c2e1b7d5</Expected></Error>",
		"<result><status>conflict</status><expected>0193b1c2-7d1e-7a3b-9c4d-5e6f70819203</expected></result>",
		"image pushed: sha256=9f8e7d6c5b4a39281706f5e4a3f9c2e1b7d54a60c2e1b7d59f8e7d6c5b4a3928",
		"digest mismatch (got sha256=9f8e7d6c5b4a39281706f5e4a3f9c2e1b7d54a60c2e1b7d59f8e7d6c5b4a3928)",
		"the file digest, sha256=9f8e7d6c5b4a39281706f5e4a3f9c2e1b7d54a60c2e1b7d59f8e7d6c5b4a3928, matched",
	})
}

// A bracket that closes a pair stays in the output.
func TestPairsKeepBrackets(t *testing.T) {
	for in, want := range map[string]string{
		"[token=Zq8Kw2Lm9Rt4Vx7Pb3Nc]":         "[token=" + Redacted + "]",
		"(password=Zq8Kw2Lm9Rt4Vx7Pb3Nc)":      "(password=" + Redacted + ")",
		"auth failed [key=hunter2hunter2]":     "auth failed [key=" + Redacted + "]",
		"{token=a3f9c2e1b7d54a60c2e1b7d5}":     "{token=" + Redacted + "}",
		"[password=Zq8Kw2Lm9Rt4Vx7Pb3Nc] done": "[password=" + Redacted + "] done",
		"[token=hunter2hunter2][user=bob]":     "[token=" + Redacted + "][user=bob]",
		"[a=b token=Zq8Kw2Lm9Rt4Vx7Pb3Nc]":     "[a=b token=" + Redacted + "]",
	} {
		for _, tier := range []func(string) string{Public, Log} {
			if out := tier(in); out != want {
				t.Errorf("%q -> %q, want %q", in, out, want)
			}
		}
	}
}

// A value that holds brackets of its own is redacted whole.
func TestPairsBracketedValues(t *testing.T) {
	for _, in := range []string{
		"[password=Zq8Kw2]Lm9Rt4Vx7Pb3Nc]", "password=Zq8Kw2]Lm9Rt4Vx7Pb3Nc", "[token=Zq8K[w2]Lm9Rt4Vx7Pb3Nc]",
		"token=a3f9c2e1[b7d54a60]c2e1b7d5 next", "[secret=hunter2]hunter2]",
	} {
		for _, tier := range []func(string) string{Public, Log} {
			out := tier(in)
			for _, part := range []string{"Lm9Rt4Vx7Pb3Nc", "b7d54a60", "c2e1b7d5", "]hunter2"} {
				if strings.Contains(out, part) {
					t.Errorf("%q -> %q keeps %q", in, out, part)
				}
			}
		}
	}
}
