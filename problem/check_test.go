package problem_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// A developer's misuse is loud where the developer looks (Check's error,
// an error-level record naming it) and quiet and safe for the client.
func TestMisuseIsLoudForTheDeveloperAndSafeForTheClient(t *testing.T) {
	long := strings.Repeat("a", 65)
	longer := "x" + strings.Repeat("_y", 40)
	withField := func(p *problem.Problem, set func(*problem.Problem)) *problem.Problem { set(p); return p }
	cases := []struct {
		name    string
		p       *problem.Problem
		status  int
		code    string
		absent  []string // members the client must not get
		mention string   // what the record and Check name
	}{
		{"extension name of 65 bytes", problem.New(problem.Conflict).WithExtension(long, 1), 409, "conflict", []string{long}, long},
		{"extension name of 81 bytes", problem.New(problem.NotFound).WithExtension(longer, "v"), 404, "not_found", []string{longer}, longer},
		{"reserved extension name", problem.New(problem.Conflict).WithExtension("retryable", "yes"), 409, "conflict", nil, `"retryable"`},
		{"unregistered code", problem.New(problem.Kind{Name: "book_gone", Status: 410, Title: "Gone"}).
			WithExtension("isbn", "978-3").WithErrors(problem.FieldError{Detail: "bad", Pointer: "/isbn"}),
			500, "internal", []string{"isbn", "errors", "book_gone"}, `code "book_gone" is not registered`},
		{"status below 100", &problem.Problem{Code: "conflict", Status: 42}, 409, "conflict", nil, "status 42"},
		{"status above 999", &problem.Problem{Code: "conflict", Status: 1200}, 409, "conflict", nil, "status 1200"},
		{"redirect status without code", &problem.Problem{Status: 302, Title: "Found"}, 500, "", nil, "status 302 is not an error status"},
		{"status the code overrules", withField(problem.New(problem.NotFound), func(p *problem.Problem) { p.Status = 410 }), 404, "not_found", nil, "status 410"},
		{"title the code overrules", withField(problem.New(problem.NotFound), func(p *problem.Problem) { p.Title = "Book withdrawn" }), 404, "not_found", []string{"Book withdrawn"}, `title "Book withdrawn"`},
		{"action outside the set", withField(problem.New(problem.Conflict), func(p *problem.Problem) { p.Action = "retry_later" }), 409, "conflict", []string{"retry_later"}, `action "retry_later"`},
		{"cause outside the set", withField(problem.New(problem.Conflict), func(p *problem.Problem) { p.Cause = "database" }), 409, "conflict", []string{`"database"`}, `cause "database"`},
		{"outcome outside the set", withField(problem.New(problem.Conflict), func(p *problem.Problem) { p.Outcome = "maybe" }), 409, "conflict", []string{"maybe"}, `outcome "maybe"`},
	}
	var logs bytes.Buffer
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	var current *problem.Problem
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _ = wr.Write(w, r, current) }))
	defer srv.Close()
	for _, c := range cases {
		logs.Reset()
		current = c.p
		resp, err := http.Get(srv.URL + "/books/7")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil || resp.StatusCode != c.status || c.code != "" && m["code"] != c.code {
			t.Errorf("%s: client got %d %s (%v)", c.name, resp.StatusCode, body, err)
		}
		for _, a := range c.absent {
			if bytes.Contains(body, []byte(a)) {
				t.Errorf("%s: client got %q: %s", c.name, a, body)
			}
		}
		var rec map[string]any
		if err := json.Unmarshal(logs.Bytes(), &rec); err != nil {
			t.Fatalf("%s: log %q: %v", c.name, logs.String(), err)
		}
		if rec["level"] != "ERROR" || !strings.Contains(rec["build_error"].(string), c.mention) {
			t.Errorf("%s: record does not name the misuse at error level: %s", c.name, logs.String())
		}
		if err := wr.Check(c.p); err == nil || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("%s: Check = %v", c.name, err)
		}
	}

	// A problem used as documented is neither reported nor repaired.
	for _, p := range []*problem.Problem{
		problem.New(problem.NotFound).WithDetail("No book 7.").WithExtension("isbn", "978-3"),
		problem.New(problem.Conflict).WithOutcome(problem.OutcomeNotStarted),
		problem.New(problem.ValidationFailed).WithErrors(problem.FieldError{Detail: "required", Pointer: "/title"}),
		problem.New(problem.RateLimited).WithRetryAfter(1500_000_000),
		{Status: 418},
	} {
		if err := wr.Check(p); err != nil {
			t.Errorf("Check(%s) = %v", p.Code, err)
		}
	}
}
