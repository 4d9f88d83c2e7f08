package blackbox

import (
	"fmt"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/correlation"
)

// hostileIDs are X-Request-Id header lines (name included, so a duplicate
// header can be sent) that must never come back raw.
var hostileIDs = map[string]string{
	"CRLF injection":   "X-Request-Id: abc\r\nSet-Cookie: evil=1\r\n",
	"bare CR":          "X-Request-Id: abc\rdef\r\n",
	"NUL":              "X-Request-Id: abc\x00def\r\n",
	"10 KiB":           "X-Request-Id: " + strings.Repeat("a", 10<<10) + "\r\n",
	"129 chars":        "X-Request-Id: " + strings.Repeat("b", 129) + "\r\n",
	"unicode":          "X-Request-Id: caf\xc3\xa9-\xe2\x80\xae-id\r\n",
	"invalid UTF-8":    "X-Request-Id: ab\xff\xfecd\r\n",
	"quotes":           "X-Request-Id: \"quoted\"'id'\r\n",
	"script":           "X-Request-Id: <script>alert(1)</script>\r\n",
	"empty":            "X-Request-Id: \r\n",
	"blank":            "X-Request-Id:    \r\n",
	"duplicate":        "X-Request-Id: first-id-0001\r\nX-Request-Id: second-id-0002\r\n",
	"duplicate cased":  "X-Request-Id: first-id-0001\r\nx-request-id: second-id-0002\r\n",
	"comma list":       "X-Request-Id: first-id-0001, second-id-0002\r\n",
	"tab":              "X-Request-Id: abc\tdef\r\n",
	"obs-fold":         "X-Request-Id: abc\r\n def\r\n",
	"json breaker":     "X-Request-Id: a\",\"code\":\"x\r\n",
	"percent encoding": "X-Request-Id: %0d%0aSet-Cookie:%20x\r\n",
	"backslash":        "X-Request-Id: a\\u0000b\r\n",
	"control DEL":      "X-Request-Id: abc\x7fdef\r\n",
}

func TestHostileRequestIDsAreReplaced(t *testing.T) {
	for name, newApp := range apps(t, false) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := newApp(t)
			for what, line := range hostileIDs {
				for _, path := range []string{"/nowhere", "/ok", "/panic"} {
					req := "GET " + path + " HTTP/1.1\r\nHost: x\r\n" + line + "Connection: close\r\n\r\n"
					ans := a.raw(req)
					if ans.status == 400 && ans.doc == nil {
						// net/http refused the request line or header itself (CRLF, NUL, obs-fold): nothing of it echoed.
						if strings.Contains(string(ans.body), "evil") {
							t.Errorf("%s: net/http echoed the header: %s", what, ans.body)
						}
						continue
					}
					ids := ans.header.Values("X-Request-Id")
					if len(ids) != 1 || !correlation.Valid(ids[0]) {
						t.Errorf("%s %s: X-Request-Id %q", what, path, ids)
						continue
					}
					if ans.header.Get("Set-Cookie") != "" {
						t.Errorf("%s %s: a header was injected: %v", what, path, ans.header)
					}
					inbound := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(line, "\r\n", 2)[0], "X-Request-Id:"))
					if ids[0] == inbound && what != "unicode" {
						t.Errorf("%s %s: the hostile ID was echoed: %q", what, path, ids[0])
					}
					if path == "/ok" {
						continue
					}
					a.checkContract(fmt.Sprintf("%s %s", what, path), ans, map[string]int{"/nowhere": 404, "/panic": 500}[path], map[string]string{"/nowhere": "not_found", "/panic": "internal"}[path])
				}
			}
		})
	}
}

// A valid inbound ID is kept, once, in the header, the body and the log.
func TestValidRequestIDIsEchoedOnce(t *testing.T) {
	for name, newApp := range apps(t, false) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := newApp(t)
			for _, id := range []string{"req-0001", "0193b1c2-7f3a-7cc1-9a4e-1b2c3d4e5f60", strings.Repeat("c", 128)} {
				ans := a.request("GET", "/nowhere", "", "X-Request-Id", id)
				if got := a.checkContract("valid ID "+id, ans, 404, "not_found"); got != id && correlation.Valid(id) {
					t.Errorf("valid ID %q came back as %q", id, got)
				}
			}
		})
	}
}
