package sanitize

import (
	"strings"
	"testing"
)

// Upstream bodies reach error text still escaped. An escape must neither
// glue a token to the word before it nor spell a token's characters so
// that no rule sees it, in either tier.
func TestEscapedSecretsRedacted(t *testing.T) {
	cases := []struct{ in, secret string }{
		{`upstream: {"msg":"bad\nghp_abcdefghijklmnopqrstuvwxyz0123456789 x"}`, "abcdefghijklmnopqrstuvwxyz0123456789"},
		{`upstream: {"msg":"bad\tsk_live_51HabcdefghijklmnopqrstuvwxYZ x"}`, "51HabcdefghijklmnopqrstuvwxYZ"},
		{`{"msg":"a\u0000xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx"}`, "abcdefghijklmnopqrstuvwx"},
		{`{"msg":"line\r\neyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"}`, "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
		{`upstream: {"error":"invalid key \u0073k_live_51HabcdefghijklmnopqrstuvwxYZ"}`, "51HabcdefghijklmnopqrstuvwxYZ"},
		{`error: \x67hp_abcdefghijklmnopqrstuvwxyz0123456789`, "abcdefghijklmnopqrstuvwxyz0123456789"},
		{`redirect to /cb?t=%67hp_abcdefghijklmnopqrstuvwxyz0123456789`, "abcdefghijklmnopqrstuvwxyz0123456789"},
		{`GET /login?next=%2F&password%3Dhunter2secret`, "hunter2secret"},
		{`header Authorization%3A%20Bearer%20abcdefghijklmnop123456`, "abcdefghijklmnop123456"},
		{`body {"k":"\u0073\u006b\u005f\u006c\u0069\u0076\u0065_51HabcdefghijklmnopqrstuvwxYZ"}`, "51HabcdefghijklmnopqrstuvwxYZ"},
		{`{"token":"abc\"def-ghi","k":"\u0073k_live_51HabcdefghijklmnopqrstuvwxYZ"}`, "def-ghi"},
	}
	for _, c := range cases {
		for _, tier := range []struct {
			name string
			f    func(string) string
		}{{"Public", Public}, {"Log", Log}} {
			out := tier.f(c.in)
			if strings.Contains(out, c.secret) {
				t.Errorf("%s(%q) = %q: secret kept", tier.name, c.in, out)
			}
			if !strings.Contains(out, Redacted) && out != GenericDetail {
				t.Errorf("%s(%q) = %q: nothing redacted", tier.name, c.in, out)
			}
		}
	}
}

// Escapes in text without a secret stay as they were written.
func TestEscapedBenignTextIntact(t *testing.T) {
	for _, s := range []string{
		`50% of requests failed with code %d`,
		`progress 100%25 done`,
		`search for caf%C3%A9 returned no results`,
		`use \n to separate lines and \t for columns`,
		`the pattern \d+\.\d+ did not match "v1.2"`,
		`{"message":"Order 42 was not found.\nTry another id."}`,
		`emoji \ud83d\ude00 is not allowed in a name`,
		`field "name" must not contain \u0000`,
	} {
		if got := Public(s); got != s {
			t.Errorf("Public(%q) = %q", s, got)
		}
		if got := Log(s); got != s {
			t.Errorf("Log(%q) = %q", s, got)
		}
	}
}
