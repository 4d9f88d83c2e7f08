package middleware

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/corrstate"
	"github.com/faultline-go/faultline/problem"
)

func TestStackHostileRequestIDs(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		h := rt.build(Stack(WithWriter(k.writer)), map[string]http.HandlerFunc{
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
	srv := k.serve(t, Stack(WithWriter(k.writer), WithRequestTimeout(time.Second))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		// Done made the real deadline context, whose parent is not the
		// state: lookups must still find the ID, through derived contexts
		// too.
		derived, cancel := context.WithCancel(ctx)
		defer cancel()
		if correlation.ID(derived) == "" || correlation.ID(derived) != correlation.ID(ctx) {
			t.Error("correlation ID lost after Done")
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
		{"faultline_stack", build(Stack(WithBodyLimit(1<<20), WithRequestTimeout(5*time.Second)))},
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

// idEcho answers with the ID and trace ID the handler's context carries.
func idEcho(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte(correlation.ID(r.Context()) + " " + corrstate.From(r.Context()).TraceID))
}

const testTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// An ID an outer correlation.Middleware assigned is the request's ID for
// Stack too: one ID in the log, the problem and both response headers, and
// a rejected inbound value reported once.
func TestStackKeepsOuterCorrelationID(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		// A correlation.Middleware on its own reports to slog's default.
		prev := slog.Default()
		t.Cleanup(func() { slog.SetDefault(prev) })
		slog.SetDefault(slog.New(slog.NewJSONHandler(k.logs, nil)))
		stack := Stack(WithWriter(k.writer), WithCorrelation(correlation.WithResponseHeader("X-Correlation-Id")))
		outer := correlation.Middleware()
		h := outer(rt.build(stack, map[string]http.HandlerFunc{
			"GET /id":    idEcho,
			"GET /panic": func(http.ResponseWriter, *http.Request) { panic("boom") },
		}))
		srv := k.serve(t, h)

		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/id", nil)
		req.Header.Set("X-Request-Id", "bad id")
		req.Header.Set("Traceparent", testTraceparent)
		r := do(t, req)
		id := r.Header.Get("X-Request-Id")
		if !correlation.Valid(id) || r.Header.Get("X-Correlation-Id") != id ||
			string(r.body) != id+" 4bf92f3577b34da6a3ce929d0e0e4736" {
			t.Fatalf("headers %v, handler saw %q", r.Header, r.body)
		}
		recs := k.logs.records(t)
		if len(recs) != 1 || recs[0][correlation.AttrKey] != id {
			t.Fatalf("rejection logged as %v", recs)
		}

		req, _ = http.NewRequest(http.MethodGet, srv.URL+"/panic", nil)
		req.Header.Set("X-Request-Id", "outer-12345")
		r = do(t, req)
		wantProblem(t, r, 500, "internal", map[string]any{"correlation_id": "outer-12345"})
		if r.Header.Get("X-Correlation-Id") != "outer-12345" {
			t.Fatalf("X-Correlation-Id %q", r.Header.Get("X-Correlation-Id"))
		}
	})
}

// The other way round, a correlation.Middleware on a route keeps Stack's
// ID, and so does a Stack nested in Stack, which shares the outer one's
// state.
func TestStackIDKeptByInnerLayers(t *testing.T) {
	for name, inner := range map[string]func(http.Handler) http.Handler{
		"correlation.Middleware": correlation.Middleware(correlation.WithResponseHeader("X-Correlation-Id")),
		"Stack":                  Stack(WithCorrelation(correlation.WithResponseHeader("X-Correlation-Id"))),
	} {
		t.Run(name, func(t *testing.T) {
			k := newKit()
			h := Stack(WithWriter(k.writer))(inner(http.HandlerFunc(idEcho)))
			for _, sent := range []string{"", "sent-12345"} {
				req := httptest.NewRequest(http.MethodGet, "/", nil)
				if sent != "" {
					req.Header.Set("X-Request-Id", sent)
				}
				req.Header.Set("Traceparent", testTraceparent)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				id := rec.Header().Get("X-Request-Id")
				if sent != "" && id != sent || !correlation.Valid(id) {
					t.Fatalf("sent %q, X-Request-Id %q", sent, id)
				}
				if rec.Header().Get("X-Correlation-Id") != id || rec.Body.String() != id+" 4bf92f3577b34da6a3ce929d0e0e4736" {
					t.Fatalf("headers %v, handler saw %q", rec.Header(), rec.Body)
				}
				// The two headers must not share a backing array.
				rec.Header()["X-Correlation-Id"][0] = "changed"
				if rec.Header().Get("X-Request-Id") != id {
					t.Fatal("changing one header changed the other")
				}
			}
		})
	}
}

// discardWriter reuses its header map, so allocation counts see only what
// the middleware allocates.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}

// TestStackAllocs pins the success path's cost: the state that holds all
// five layers' per-request data and the request copy that carries it as the
// context (one allocation), and the ID string when the client sent none.
func TestStackAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	plain := []string{"text/plain"}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if correlation.ID(r.Context()) == "" {
			t.Error("no correlation ID")
		}
		// Not Header().Set, which allocates the value slice itself.
		w.Header()["Content-Type"] = plain
		w.Write(okBody)
	})
	inbound := httptest.NewRequest(http.MethodGet, "/", nil)
	inbound.Header.Set("X-Request-Id", "0193b1c2-7d3e-7a1b-8c2d-3e4f5a6b7c8d")
	inbound.Header.Set("Traceparent", testTraceparent)
	for name, mw := range map[string]func(http.Handler) http.Handler{
		"timeout":    Stack(WithBodyLimit(1<<20), WithRequestTimeout(5*time.Second)),
		"no_timeout": Stack(WithBodyLimit(1 << 20)),
		// The layers mounted inside a Stack given a writer share its state.
		"layers_inside_stack": func(h http.Handler) http.Handler {
			return Stack(WithWriter(problem.Default()))(Recover()(Guard()(BodyLimit(1 << 20)(Timeout(5 * time.Second)(h)))))
		},
	} {
		t.Run(name, func(t *testing.T) {
			h := mw(handler)
			w := &discardWriter{h: http.Header{}}
			if n := testing.AllocsPerRun(1000, func() { h.ServeHTTP(w, inbound) }); n != 1 {
				t.Errorf("inbound ID: %v allocs per request, want 1", n)
			}
			generated := httptest.NewRequest(http.MethodGet, "/", nil)
			if n := testing.AllocsPerRun(1000, func() { h.ServeHTTP(w, generated) }); n != 2 {
				t.Errorf("generated ID: %v allocs per request, want 2", n)
			}
		})
	}
}

// A writer configured to echo the ID under another header is the one
// place the header is named: Stack accepts and echoes the ID under it, and
// no response carries the ID twice under two names.
func TestStackFollowsTheWritersCorrelationHeader(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		k.writer = problem.NewWriter(problem.WithLogger(slog.New(slog.NewJSONHandler(k.logs, nil))),
			problem.WithCorrelationHeader("X-Correlation-Id"))
		h := rt.build(Stack(WithWriter(k.writer)), map[string]http.HandlerFunc{
			"GET /ok":   func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(correlation.ID(r.Context()))) },
			"GET /fail": func(w http.ResponseWriter, r *http.Request) { panic("boom") },
		})
		srv := k.serve(t, h)
		for _, path := range []string{"/ok", "/fail", "/nowhere"} {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
			req.Header.Set("X-Correlation-Id", "client-given-id-42")
			r := do(t, req)
			if got := r.Header.Values("X-Correlation-Id"); len(got) != 1 || got[0] != "client-given-id-42" {
				t.Errorf("%s: X-Correlation-Id %q", path, got)
			}
			if got := r.Header.Values("X-Request-Id"); len(got) != 0 {
				t.Errorf("%s: the ID is echoed twice, also as X-Request-Id %q", path, got)
			}
			if path != "/ok" && !strings.Contains(string(r.body), `"correlation_id":"client-given-id-42"`) {
				t.Errorf("%s: body %s", path, r.body)
			}
		}
	})
}
