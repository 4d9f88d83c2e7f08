package main

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"

	"github.com/faultline-go/faultline/bind"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/ratelimit"
)

// The apps the probe is pointed at: the same three routes wired with the
// kit, on bare chi and on a bare ServeMux.

type item struct {
	Name  string `json:"name" validate:"required,max=32"`
	Count int    `json:"count" validate:"required,min=1"`
}

func serveApp(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func writeItem(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

const appBodyLimit = 2048

func kitChiApp(t *testing.T, opts ...problem.Option) string {
	wr := problem.NewWriter(append([]problem.Option{problem.WithLogger(slog.New(slog.DiscardHandler))}, opts...)...)
	lim, err := ratelimit.New([]ratelimit.Policy{{Name: "probe-test", Limit: 2, Window: time.Minute, Key: ratelimit.ByIP}})
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.Use(middleware.Stack(middleware.WithWriter(wr), middleware.WithBodyLimit(appBodyLimit), middleware.WithRequestTimeout(2*time.Second)))
	r.Use(chimw.ClientIPFromRemoteAddr)
	r.NotFound(middleware.NotFound())
	r.MethodNotAllowed(middleware.MethodNotAllowed())
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeItem(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Method(http.MethodPost, "/v1/items", wr.Handler(func(w http.ResponseWriter, r *http.Request) error {
		it, err := bind.Decode[item](r)
		if err != nil {
			return err
		}
		writeItem(w, http.StatusCreated, it)
		return nil
	}))
	r.Method(http.MethodGet, "/v1/items/{id}", wr.Handler(func(http.ResponseWriter, *http.Request) error {
		return problem.New(problem.NotFound).WithDetail("No item exists with this id.")
	}))
	r.With(lim.Handler).Get("/v1/limited", func(w http.ResponseWriter, _ *http.Request) {
		writeItem(w, http.StatusOK, map[string]string{"status": "within the limit"})
	})
	return serveApp(t, r)
}

// bareCreate is what a handler written without the kit does: encoding/json
// (lenient about names), its error text sent as is.
func bareCreate(w http.ResponseWriter, r *http.Request) {
	var it item
	if err := json.NewDecoder(r.Body).Decode(&it); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if it.Name == "" {
		http.Error(w, "name is required", http.StatusUnprocessableEntity)
		return
	}
	writeItem(w, http.StatusCreated, it)
}

func bareChiApp(t *testing.T) string {
	r := chi.NewRouter()
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeItem(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Post("/v1/items", bareCreate)
	r.Get("/v1/items/{id}", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "item not found", http.StatusNotFound) })
	return serveApp(t, r)
}

func bareMuxApp(t *testing.T) string {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeItem(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("POST /v1/items", bareCreate)
	mux.HandleFunc("GET /v1/items/{id}", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "item not found", http.StatusNotFound) })
	return serveApp(t, mux)
}

// appArgs is the command line the app tests share: the routes, writes, the
// body limit, and a rate that keeps the run short.
var appArgs = []string{"-route", "/healthz", "-route", "/v1/items", "-route", "/v1/items/{id}",
	"-allow-writes", "-max-body", "2048", "-rate", "500", "-request-timeout", "3s", "-timeout", "20s"}
