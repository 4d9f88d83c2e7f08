package problem_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// DefaultBaseURI documents the built-in codes only: a service's own code
// without a base URI of its own is about:blank, never a page under a
// domain the service does not control; with one, every code is under it.
func TestDefaultBaseIsForBuiltinCodesOnly(t *testing.T) {
	reg := problem.NewRegistry()
	own := []problem.Definition{
		{Code: "book_withdrawn", Status: 410, Title: "Book withdrawn", Action: problem.ActionNone, Cause: problem.CauseRequest},
		{Code: "shelf_full", Status: 507, Title: "Shelf full", Action: problem.ActionNone, Cause: problem.CauseInternal},
		{Code: "loan_overdue", Status: 402, Title: "Loan overdue", Action: problem.ActionNone, Cause: problem.CauseRequest},
	}
	for _, d := range own {
		register(t, reg, d)
	}
	var builtin []problem.Definition
	for _, k := range []problem.Kind{problem.NotFound, problem.Conflict, problem.RateLimited, problem.Internal} {
		builtin = append(builtin, definition(k))
	}
	for _, base := range []string{"", "https://api.example.com/problems/", "https://docs.example.org/errors#"} {
		opts := []problem.Option{problem.WithRegistry(reg), problem.WithLogger(slog.New(slog.DiscardHandler))}
		if base != "" {
			opts = append(opts, problem.WithBaseURI(base))
		}
		wr := problem.NewWriter(opts...)
		var current problem.Kind
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_ = wr.Write(w, r, problem.New(current))
		}))
		for _, k := range append(own, builtin...) {
			want := base + string(k.Code)
			switch {
			case base == "" && isBuiltin(k, builtin):
				want = problem.DefaultBaseURI + string(k.Code)
			case base == "":
				want = "about:blank"
			}
			current = k.Code
			resp, err := http.Get(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatal(err)
			}
			if m["type"] != want || m["code"] != string(k.Code) || m["title"] != k.Title || resp.StatusCode != k.Status {
				t.Errorf("base %q, %s: %d %s, want type %s", base, k.Code, resp.StatusCode, body, want)
			}
		}
		srv.Close()
	}
}

func isBuiltin(k problem.Definition, builtin []problem.Definition) bool {
	for _, b := range builtin {
		if b.Code == k.Code {
			return true
		}
	}
	return false
}
