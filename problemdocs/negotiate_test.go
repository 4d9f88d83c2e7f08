package problemdocs_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

func TestContentNegotiation(t *testing.T) {
	srv := serve(t, problem.NewWriter())
	for _, c := range []struct {
		accept, want string // want: "html", "json" or "406"
	}{
		{"", "html"},
		{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "html"},
		{"*/*", "html"},
		{"application/json", "json"},
		{"application/problem+json", "json"},
		{"application/json, text/html", "json"},
		{"text/html, application/json", "html"},
		{"text/html;q=0.5, application/json", "json"},
		{"application/*", "json"},
		{"text/*;q=0.2, application/json;q=0.1", "html"},
		// The most specific range decides: */* does not revive a refused type.
		{"text/html;q=0, */*", "json"},
		{"application/json;q=0, */*;q=0.5", "html"},
		{"image/png", "406"},
		// The refusal itself follows the writer's negotiation (XML here).
		{"text/plain, application/xml", "406"},
		{"text/html;q=0, application/json;q=0", "406"},
		{"*/*;q=0", "406"},
		{"text/html;q=bogus", "406"},
		// application/json is what is served: its own range rates it above
		// the related JSON types, wherever they stand in the list.
		{"application/vnd.api+json;q=0, application/json", "json"},
		{"application/problem+json;q=0, application/json;q=0.7, text/html;q=0.6", "json"},
		{"text/json;q=0.1, application/json, text/html;q=0.5", "json"},
		{"application/json;q=0, application/ld+json", "406"},
		{"application/json;q=0.2, application/problem+json, text/html;q=0.5", "html"},
	} {
		resp, body := get(t, srv.URL+"/problems/rate_limited", c.accept)
		ct := resp.Header.Get("Content-Type")
		var got string
		switch {
		case resp.StatusCode == 406 && (strings.Contains(body, `"code":"not_acceptable"`) || strings.Contains(body, `<code>not_acceptable</code>`)):
			got = "406"
		case resp.StatusCode == 200 && strings.HasPrefix(ct, "text/html"):
			got = "html"
		case resp.StatusCode == 200 && ct == "application/json":
			got = "json"
		default:
			got = resp.Status + " " + ct
		}
		if got != c.want {
			t.Errorf("Accept %q: got %s, want %s", c.accept, got, c.want)
		}
		if resp.Header.Get("Vary") != "Accept" {
			t.Errorf("Accept %q: Vary %q", c.accept, resp.Header.Get("Vary"))
		}
	}
}

// Accept over several field lines is one list (RFC 9110 §5.3): a client
// that accepts JSON on a later line is answered, not refused with 406.
func TestContentNegotiationOverSeveralFieldLines(t *testing.T) {
	srv := serve(t, problem.NewWriter())
	for _, c := range []struct {
		lines []string
		want  string
	}{
		{[]string{"text/html;q=0", "application/json"}, "application/json"},
		{[]string{"image/png", "application/problem+json"}, "application/json"},
		{[]string{"application/json;q=0.2", "text/*;q=0.1", "text/html;q=0.9"}, "text/html"},
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/problems/rate_limited", nil)
		for _, l := range c.lines {
			req.Header.Add("Accept", l)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, c.want) {
			t.Errorf("Accept lines %q: %s %q, want 200 %s", c.lines, resp.Status, ct, c.want)
		}
	}
}
