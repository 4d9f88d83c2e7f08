package sanitize

import (
	"strings"
	"testing"
)

// The markup and the encodings that services wrap a named credential in:
// Markdown's emphasis and code spans, XML's CDATA sections. The value is
// redacted whatever word names it and however the markup is written.
func TestMarkupRedacts(t *testing.T) {
	values := []string{"Zq8Kw2Lm9Rt4Vx7Pb3Nc", "a3f9c2e1b7d54a60c2e1b7d5"}
	for _, f := range []string{
		"**API key**: `%s`", "*secret*: `%s`", "**Client Secret:** `%s`", "__API key:__ %s", "**Password:** %s",
		"- **access_key**: %s", "*Token:* '%s'", "| **signature** | `%s` |", "__password__ = %s", "`token`: %s",
		"**apiKey** = `%s`", "_client-secret_: %s",
		"<Password><![CDATA[%s]]></Password>", "<api_key><![CDATA[%s]]></api_key>", "<secretKey><![CDATA[%s]]></secretKey>",
		`"{\\"password\\":\\"%s\\"}"`, `{"log":"{\\\"msg\\\":\\\"x\\\",\\\"apiKey\\\":\\\"%s\\\"}"}`,
		`{"a":"{\\\"b\\\":\\\"{\\\\\\\"accessToken\\\\\\\":\\\\\\\"%s\\\\\\\"}\\\"}"}`,
		"<AccessToken>\n  <![CDATA[%s]]>\n</AccessToken>", "<DB_PASSWORD><![CDATA[%s]]></DB_PASSWORD>",
		"<td>password</td><td>%s</td>", "<li>API key: <code>%s</code></li>", "API key: <b>%s</b>",
		"<dt>Client secret</dt>\n<dd>%s</dd>", "<tr><th>Token</th> <td>%s</td></tr>", "secret = <kbd>%s</kbd>",
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

func TestMarkupKeepsProse(t *testing.T) {
	checkBenign(t, []string{
		"**Note**: `make build` first", "**Status:** `ok`", "*key*: see the docs", "**Token:** required",
		"<![CDATA[Hello world]]>", "<Message><![CDATA[user not found]]></Message>",
		`{"log":"{\\\"level\\\":\\\"info\\\",\\\"msg\\\":\\\"token refreshed\\\"}"}`, `"{\\"msg\\":\\"ok\\"}"`,
		"<Description><![CDATA[Rotate the key every 90 days]]></Description>",
		"<b>Note</b>: <code>make build</code>", "<td>order</td><td>Xk9vQ2mPz7LwR4tY8bN3</td>",
		"<p>token</p><p>expired</p>", "<h2>Password</h2><p>Reset it from the settings page.</p>",
	})
}
