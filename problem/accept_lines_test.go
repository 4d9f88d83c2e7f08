package problem_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// Accept may come as several field lines, which mean one comma-separated
// list (RFC 9110 §5.3): a preference on a later line counts like one on
// the first.
func TestAcceptOverSeveralFieldLines(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = problem.Write(w, r, problem.New(problem.NotFound))
	}))
	defer srv.Close()
	for _, c := range []struct {
		lines []string
		want  string
	}{
		{[]string{"text/html", "application/problem+xml"}, "application/problem+xml"},
		{[]string{"image/png", "text/plain;q=0.4", "application/xml;q=0.3"}, "text/plain"},
		{[]string{"application/json;q=0.1", "text/xml"}, "application/problem+xml"},
		{[]string{"text/plain;q=0.5, application/xml;q=0.2", "application/problem+json"}, "application/problem+json"},
		{[]string{"application/problem+json;q=0", "text/plain"}, "text/plain"},
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/x", nil)
		for _, l := range c.lines {
			req.Header.Add("Accept", l)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, c.want) {
			t.Errorf("Accept lines %q: Content-Type %q, want %s", c.lines, ct, c.want)
		}
	}
}
