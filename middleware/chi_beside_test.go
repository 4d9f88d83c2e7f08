package middleware

import (
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"

	"github.com/faultline-go/faultline/correlation"
)

// What the package doc says of chi's Recoverer and RequestID beside Stack:
// a panic caught by chi's Recoverer below Stack still reaches the client
// as a problem (Guard replaces the bare 500) and never raw, and under
// Stack alone the request's ID is correlation.ID, not chi's.
func TestBesideChiMiddleware(t *testing.T) {
	k := newKit()
	r := chi.NewRouter()
	r.Use(Stack(WithWriter(k.writer)), chimw.Recoverer)
	r.Get("/panic", func(w http.ResponseWriter, r *http.Request) {
		panic("connect postgres://app:hunter2@db.internal:5432/orders")
	})
	r.Get("/id", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Seen", correlation.ID(r.Context())+"|"+chimw.GetReqID(r.Context()))
		w.WriteHeader(http.StatusNoContent)
	})
	srv := k.serve(t, r)
	resp := get(t, srv.URL+"/panic")
	wantProblem(t, resp, 500, "internal", nil)
	if strings.Contains(string(resp.body), "hunter2") {
		t.Fatalf("panic reached the client: %s", resp.body)
	}
	resp = get(t, srv.URL+"/id")
	seen := resp.Header.Get("X-Seen")
	if seen != resp.Header.Get("X-Request-Id")+"|" || len(seen) < 9 {
		t.Fatalf("IDs seen by the handler %q, response ID %q", seen, resp.Header.Get("X-Request-Id"))
	}
}
