package middleware

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"

	"github.com/faultline-go/faultline/correlation"
)

func TestStackHostileRequestIDs(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		rejected := slog.New(slog.NewJSONHandler(k.logs, nil))
		h := rt.build(Stack(WithWriter(k.writer), WithCorrelation(correlation.WithLogger(rejected))), map[string]http.HandlerFunc{
			"GET /id": func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(correlation.ID(r.Context()))) },
		})
		srv := k.serve(t, h)

		huge := strings.Repeat("a", 10<<10)
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/id", nil)
		req.Header.Set("X-Request-Id", huge)
		r := do(t, req)
		if r.StatusCode != 200 || string(r.body) == huge || !correlation.Valid(string(r.body)) ||
			r.Header.Get("X-Request-Id") != string(r.body) {
			t.Fatalf("10 KiB ID: %d %q", r.StatusCode, r.Header.Get("X-Request-Id"))
		}

		// A bare CR inside the value: the client library refuses to send it.
		raw, _, _ := rawRequest(t, srv, "GET /id HTTP/1.1\r\nHost: x\r\nX-Request-Id: abcdefgh\rX-Evil: 1\r\nConnection: close\r\n\r\n")
		if raw.StatusCode == 200 {
			id := raw.Header.Get("X-Request-Id")
			if strings.ContainsAny(id, "\r\n") || strings.Contains(id, "Evil") || !correlation.Valid(id) || string(raw.body) != id {
				t.Fatalf("CR ID echoed as %q, body %q", id, raw.body)
			}
		} else if raw.StatusCode != 400 {
			t.Fatalf("CR ID: status %d", raw.StatusCode)
		}
		if raw.Header.Get("X-Evil") != "" {
			t.Fatal("header injected")
		}
	})
}

func TestStackDeadlineContext(t *testing.T) {
	k := newKit()
	srv := k.serve(t, Stack(WithWriter(k.writer), WithTimeout(time.Second))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		d, ok := ctx.Deadline()
		if !ok || time.Until(d) > time.Second || ctx.Err() != nil {
			t.Errorf("deadline %v %v err %v", d, ok, ctx.Err())
		}
		if correlation.ID(ctx) == "" {
			t.Error("correlation ID lost")
		}
		select {
		case <-ctx.Done():
			t.Error("done early")
		default:
		}
	})))
	if r := get(t, srv.URL); r.StatusCode != 200 {
		t.Fatal(r.StatusCode)
	}
}

var okBody = []byte("ok")

func tiny(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	w.Write(okBody)
}

// BenchmarkSuccess measures the cost of the success path, which doctrine
// says must be close to free, against chi's own comparable middlewares.
func BenchmarkSuccess(b *testing.B) {
	build := func(mws ...func(http.Handler) http.Handler) http.Handler {
		r := chi.NewRouter()
		r.Use(mws...)
		r.Get("/", tiny)
		return r
	}
	cases := []struct {
		name string
		h    http.Handler
	}{
		{"bare", build()},
		{"faultline_stack", build(Stack(WithBodyLimit(1<<20), WithTimeout(5*time.Second)))},
		{"faultline_stack_no_timeout", build(Stack(WithBodyLimit(1 << 20)))},
		{"chi_requestid_recoverer_requestsize", build(chimw.RequestID, chimw.Recoverer, chimw.RequestSize(1<<20))},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			b.ReportAllocs()
			for b.Loop() {
				c.h.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}
