package middleware

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

func TestNotFoundAndMethodNotAllowedChi(t *testing.T) {
	k := newKit()
	r := chi.NewRouter()
	r.Use(Stack(WithWriter(k.writer)))
	r.NotFound(NotFound(WithWriter(k.writer)))
	r.MethodNotAllowed(MethodNotAllowed(WithWriter(k.writer)))
	ok := func(w http.ResponseWriter, r *http.Request) {}
	r.Get("/items", ok)
	r.Post("/items", ok)
	r.Route("/v1", func(r chi.Router) {
		r.Put("/orders/{id}", ok)
		r.Delete("/orders/{id}", ok)
	})
	srv := k.serve(t, r)

	wantProblem(t, get(t, srv.URL+"/nowhere"), 404, "not_found", nil)
	for path, allow := range map[string]string{"/items": "GET, POST", "/v1/orders/7": "PUT, DELETE"} {
		req, _ := http.NewRequest(http.MethodPatch, srv.URL+path, nil)
		got := do(t, req)
		wantProblem(t, got, 405, "method_not_allowed", map[string]any{"action": "fix_request"})
		if got.Header.Get("Allow") != allow {
			t.Errorf("%s: Allow %q, want %q", path, got.Header.Get("Allow"), allow)
		}
	}
}

// Without faultline's handlers, Guard still turns chi's defaults into
// problems and keeps the Allow header chi sets.
func TestGuardCoversChiDefaults(t *testing.T) {
	k := newKit()
	r := chi.NewRouter()
	r.Use(Stack(WithWriter(k.writer)))
	r.Get("/items", func(w http.ResponseWriter, r *http.Request) {})
	r.Post("/items", func(w http.ResponseWriter, r *http.Request) {})
	srv := k.serve(t, r)
	wantProblem(t, get(t, srv.URL+"/nowhere"), 404, "not_found", nil)
	req, _ := http.NewRequest(http.MethodDelete, srv.URL+"/items", nil)
	got := do(t, req)
	wantProblem(t, got, 405, "method_not_allowed", nil)
	allowed := got.Header.Values("Allow")
	slices.Sort(allowed)
	if allow := strings.Join(allowed, ", "); allow != "GET, POST" {
		t.Fatalf("Allow %q", allow)
	}
}

func TestNotFoundAndMethodNotAllowedServeMux(t *testing.T) {
	k := newKit()
	m := http.NewServeMux()
	m.HandleFunc("GET /items", func(w http.ResponseWriter, r *http.Request) {})
	m.HandleFunc("POST /items", func(w http.ResponseWriter, r *http.Request) {})
	srv := k.serve(t, Stack(WithWriter(k.writer))(m))
	r := get(t, srv.URL+"/nowhere")
	wantProblem(t, r, 404, "not_found", nil)
	if contains(r.body, "404 page not found") {
		t.Fatalf("ServeMux text leaked: %s", r.body)
	}
	req, _ := http.NewRequest(http.MethodDelete, srv.URL+"/items", nil)
	got := do(t, req)
	wantProblem(t, got, 405, "method_not_allowed", nil)
	// ServeMux computes Allow itself (GET patterns also serve HEAD).
	if allow := got.Header.Get("Allow"); allow != "GET, HEAD, POST" {
		t.Fatalf("Allow %q", allow)
	}
}
