package benchmarks

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"

	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
)

var okBody = []byte(`{"status":"ok"}`)

func okHandler(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(okBody)
}

// successRouters are the contenders for the success path: the same route,
// with nothing, with faultline's recommended stack, and with the chi
// middlewares a service would otherwise use for the same jobs.
func successRouters() []struct {
	name string
	h    http.Handler
} {
	bare := chi.NewRouter()
	bare.Get("/v1/orders/{id}", okHandler)

	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))
	fl := chi.NewRouter()
	fl.Use(middleware.Stack(
		middleware.WithWriter(wr),
		middleware.WithBodyLimit(1<<20),
		middleware.WithRequestTimeout(5*time.Second),
	))
	fl.Get("/v1/orders/{id}", okHandler)

	// The same without the deadline: what the timeout costs is the
	// difference.
	noTimeout := chi.NewRouter()
	noTimeout.Use(middleware.Stack(middleware.WithWriter(wr), middleware.WithBodyLimit(1<<20)))
	noTimeout.Get("/v1/orders/{id}", okHandler)

	trio := chi.NewRouter()
	trio.Use(chimw.RequestID, chimw.Recoverer, chimw.RequestSize(1<<20))
	trio.Get("/v1/orders/{id}", okHandler)

	return []struct {
		name string
		h    http.Handler
	}{
		{"bare_chi", bare},
		{"faultline_stack", fl},
		{"faultline_stack_without_timeout", noTimeout},
		{"chi_requestid_recoverer_requestsize", trio},
	}
}

func BenchmarkSuccess(b *testing.B) {
	for _, c := range successRouters() {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/v1/orders/ord_1", nil)
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				c.h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d", rec.Code)
				}
			}
		})
	}
}

// TestSuccessRoutersServe keeps the benchmark honest: every contender
// answers the route with the same body.
func TestSuccessRoutersServe(t *testing.T) {
	for _, c := range successRouters() {
		rec := httptest.NewRecorder()
		c.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/orders/ord_1", nil))
		body, _ := io.ReadAll(rec.Body)
		if rec.Code != http.StatusOK || string(body) != string(okBody) {
			t.Errorf("%s: %d %s", c.name, rec.Code, body)
		}
	}
}
