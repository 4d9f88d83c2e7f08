package middleware

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/problem"
)

// Stack with no options at all must still answer with problems: the
// zero-configuration path is the first one a newcomer tries.
func TestStackWithoutWriter(t *testing.T) {
	k := defaultKit(t)
	forEachRouter(t, func(t *testing.T, rt router) {
		h := rt.build(Stack(), map[string]http.HandlerFunc{
			"GET /panic": func(http.ResponseWriter, *http.Request) { panic("boom") },
			"GET /bare":  func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusConflict) },
		})
		srv := k.serve(t, h)
		wantProblem(t, get(t, srv.URL+"/panic"), 500, "internal", nil)
		wantProblem(t, get(t, srv.URL+"/bare"), 409, "conflict", nil)
	})
}

// The writer given to Stack reaches everything below it: chi's NotFound and
// MethodNotAllowed handlers and problem.Write in handlers, none of them told
// again.
func TestStackHandsItsWriterDown(t *testing.T) {
	k := newKit()
	wr := problem.NewWriter(problem.WithBaseURI("https://errors.example.com/"), problem.WithCodeHeader("X-Acme-Code"),
		problem.WithLogger(slog.New(slog.NewJSONHandler(k.logs, nil))))
	r := chi.NewRouter()
	r.Use(Stack(WithWriter(wr)))
	r.NotFound(NotFound())
	r.MethodNotAllowed(MethodNotAllowed())
	r.Get("/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		problem.Write(w, r, problem.New(problem.NotFound).WithDetail("No such order."))
	})
	srv := k.serve(t, r)
	for _, c := range []struct {
		method, path string
		status       int
		code         string
	}{
		{http.MethodGet, "/orders/7", 404, "not_found"},
		{http.MethodGet, "/nowhere", 404, "not_found"},
		{http.MethodPost, "/orders/7", 405, "method_not_allowed"},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, nil)
		got := do(t, req)
		m := members(t, got)
		if got.StatusCode != c.status || got.Header.Get("X-Acme-Code") != c.code ||
			m["type"] != "https://errors.example.com/"+c.code {
			t.Errorf("%s %s: %d %v %s", c.method, c.path, got.StatusCode, got.Header, got.body)
		}
	}
	if n := len(k.logs.records(t)); n != 3 {
		t.Errorf("%d records in the Stack writer's log, want 3", n)
	}
}

// Every middleware mounted alone, with no options, answers with problems.
func TestEachMiddlewareWithoutOptions(t *testing.T) {
	k := defaultKit(t)
	cases := layerCases()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := k.serve(t, correlation.Middleware()(c.mw(c.h)))
			req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("more than four bytes"))
			wantProblem(t, do(t, req), c.status, c.code, nil)
		})
	}
}
