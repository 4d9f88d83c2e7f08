package middleware

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/problem"
)

func TestNotFoundAndMethodNotAllowedChi(t *testing.T) {
	k := newKit()
	r := chi.NewRouter()
	r.Use(Stack(WithWriter(k.writer)))
	r.NotFound(NotFound())
	r.MethodNotAllowed(MethodNotAllowed())
	ok := func(w http.ResponseWriter, r *http.Request) {}
	r.Get("/items", ok)
	r.Post("/items", ok)
	r.Route("/v1", func(r chi.Router) {
		r.Put("/orders/{id}", ok)
		r.Delete("/orders/{id}", ok)
	})
	srv := k.serve(t, r)

	wantProblem(t, get(t, srv.URL+"/nowhere"), 404, "not_found", nil)
	for path, allow := range map[string]string{"/items": "GET, HEAD, POST", "/v1/orders/7": "PUT, DELETE"} {
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

// HEAD on a GET route answers like GET without a body (RFC 9110 §9.1) in
// the recommended wiring, on chi (routes, groups and mounted subrouters)
// and on ServeMux; a path without GET still refuses HEAD, and Allow lists
// HEAD wherever GET is.
func TestHeadAnswersLikeGet(t *testing.T) {
	item := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Etag", `"v7"`)
		w.Write([]byte(`{"id":"7"}`))
	}
	k := newKit()
	r := chi.NewRouter()
	r.Use(Stack(WithWriter(k.writer)))
	r.NotFound(NotFound())
	r.MethodNotAllowed(MethodNotAllowed())
	r.Get("/items/{id}", item)
	r.Post("/orders", item)
	r.Route("/v1", func(r chi.Router) {
		r.Get("/items/{id}", item)
	})
	sub := chi.NewRouter()
	sub.Get("/items/{id}", item)
	r.Mount("/v2", sub)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items/{id}", item)
	mux.HandleFunc("POST /orders", item)

	for name, h := range map[string]http.Handler{"chi": r, "servemux": Stack(WithWriter(k.writer))(mux)} {
		t.Run(name, func(t *testing.T) {
			srv := k.serve(t, h)
			paths := []string{"/items/7"}
			if name == "chi" {
				paths = append(paths, "/v1/items/7", "/v2/items/7")
			}
			for _, path := range paths {
				g := get(t, srv.URL+path)
				req, _ := http.NewRequest(http.MethodHead, srv.URL+path, nil)
				head := do(t, req)
				if head.StatusCode != 200 || len(head.body) != 0 {
					t.Fatalf("HEAD %s: %d %q", path, head.StatusCode, head.body)
				}
				for _, name := range []string{"Content-Type", "Content-Length", "Etag"} {
					if head.Header.Get(name) != g.Header.Get(name) || g.Header.Get(name) == "" {
						t.Errorf("HEAD %s: %s %q, GET sent %q", path, name, head.Header.Get(name), g.Header.Get(name))
					}
				}
			}
			req, _ := http.NewRequest(http.MethodHead, srv.URL+"/orders", nil)
			if got := do(t, req); got.StatusCode != 405 || got.Header.Get("Allow") != "POST" || got.Header.Get(problem.DefaultCodeHeader) != "method_not_allowed" {
				t.Fatalf("HEAD /orders: %d Allow %q %v", got.StatusCode, got.Header.Get("Allow"), got.Header)
			}
			req, _ = http.NewRequest(http.MethodDelete, srv.URL+"/items/7", nil)
			got := do(t, req)
			wantProblem(t, got, 405, "method_not_allowed", nil)
			if got.Header.Get("Allow") != "GET, HEAD" {
				t.Fatalf("Allow %q", got.Header.Get("Allow"))
			}
		})
	}
}
