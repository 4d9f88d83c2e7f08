package problem_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// A token in the request path is not echoed in instance, and escaping some
// of its characters does not hide it: the escaped form is the same token to
// whoever reads the response. Paths without secrets keep their escapes.
func TestInstanceRedactsPercentEncodedTokens(t *testing.T) {
	srv := httptest.NewServer(problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler))).Handler(func(w http.ResponseWriter, r *http.Request) error {
		return problem.New(problem.NotFound)
	}))
	defer srv.Close()
	cases := []struct{ path, secret, want string }{
		{"/t/ghp%5Fabcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123456789", ""},
		{"/t/%67hp_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123456789", ""},
		{"/api/sk%5Flive%5Fabcdefghijklmnopqrstuvwx/charges", "abcdefghijklmnopqrstuvwx", ""},
		{"/k/AKIA%49OSFODNN7EXAMPLE", "OSFODNN7EXAMPLE", ""},
		{"/t/ghp_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123456789", ""},
		{"/a%00b", "", "/a%00b"},
		{"/v1/orders/%2F..%2Fx", "", "/v1/orders/%2F..%2Fx"},
		{"/no%20where%22%3E", "", "/no%20where%22%3E"},
		{"/u/%E2%80%AEevil", "", "/u/%E2%80%AEevil"},
		{"/50%25/off", "", "/50%25/off"},
		// A path that starts with two slashes would read as a network-path
		// reference (another host) once resolved: a dot segment keeps it a
		// path (RFC 3986 §3.3, §5.2.4).
		{"//evil.example/x", "", "/.//evil.example/x"},
		{"//", "", "/.//"},
		// A segment that reads like SQL or a trace is redacted on its own:
		// the generic sentence the public tier gives such text would be a
		// relative reference to another resource.
		{"/x/SELECT%20*%20FROM%20users%20WHERE%20id=1/y", "FROM%20users", "/x/%5Bredacted%5D/y"},
		{"/goroutine%201%20%5Brunning%5D:", "running", "/%5Bredacted%5D"},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+c.path, nil)
		for _, accept := range []string{"application/problem+json", "application/problem+xml", "text/plain"} {
			req.Header.Set("Accept", accept)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if c.secret != "" && strings.Contains(string(body), c.secret) {
				t.Errorf("%s (%s): token echoed: %s", c.path, accept, body)
			}
			if accept != "application/problem+json" {
				continue
			}
			var doc struct{ Instance string }
			if err := json.Unmarshal(body, &doc); err != nil {
				t.Fatalf("%s: %v", c.path, err)
			}
			if c.want != "" && doc.Instance != c.want {
				t.Errorf("%s: instance %q, want %q", c.path, doc.Instance, c.want)
			}
			if c.secret != "" && !strings.Contains(doc.Instance, "%5Bredacted%5D") {
				t.Errorf("%s: instance %q not redacted", c.path, doc.Instance)
			}
		}
	}
}
