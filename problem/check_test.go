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
		{"unregistered code", problem.New("book_gone").
			WithExtension("isbn", "978-3").WithErrors(problem.FieldError{Detail: "bad", Pointer: "/isbn"}),
			500, "internal", []string{"isbn", "errors", "book_gone"}, `code "book_gone" is not registered`},
		{"redirect status without code", peer(`{"status": 302, "title": "Found"}`), 500, "", nil, "status 302 is not an error status"},
		{"a peer's status the code overrules", peer(`{"code": "not_found", "status": 410}`), 404, "not_found", nil, "status 410"},
		{"a peer's title the code overrules", peer(`{"code": "not_found", "title": "Book withdrawn"}`), 404, "not_found", []string{"Book withdrawn"}, `title "Book withdrawn"`},
		{"action outside the set", problem.New(problem.Conflict).WithAction("retry_later"), 409, "conflict", []string{"retry_later"}, `action "retry_later"`},
		{"cause outside the set", problem.New(problem.Conflict).WithCause("database"), 409, "conflict", []string{`"database"`}, `cause "database"`},
		{"outcome outside the set", problem.New(problem.Conflict).WithOutcome("maybe"), 409, "conflict", []string{"maybe"}, `outcome "maybe"`},
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
		peer(`{"status": 418}`),
	} {
		if err := wr.Check(p); err != nil {
			t.Errorf("Check(%s) = %v", p.Code(), err)
		}
	}
}

// peer is a peer's problem document as Parse reads it: the one way a
// Problem gets a status or title its code does not decide.
func peer(doc string) *problem.Problem {
	p, err := problem.Parse([]byte(doc))
	if err != nil {
		panic(err)
	}
	return p
}

// A status no HTTP response can have cannot reach a Problem at all: Parse
// leaves it out, so the writer sends the code's.
func TestPeerStatusOutsideRangeIsNotKept(t *testing.T) {
	for _, doc := range []string{`{"code": "conflict", "status": 42}`, `{"code": "conflict", "status": 1200}`, `{"code": "gone", "status": 404.5}`} {
		if p := peer(doc); p.Status() != 0 {
			t.Errorf("Parse(%s).Status() = %d", doc, p.Status())
		}
	}
}
