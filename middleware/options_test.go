package middleware

import (
	"log/slog"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
)

// Only Stack is configured; every other middleware and handler of the
// package writes with the writer the request carries: the one a service
// put on the request's context when it mounts them without Stack, or the
// one of the Stack they are mounted inside, never problem.Default() while
// the request carries another.
func TestLayersWriteWithTheRequestsWriter(t *testing.T) {
	fallback := defaultKit(t)

	layers := layerCases()
	for _, mount := range []struct {
		name, base, codeHeader string
		wrap                   func(wr *problem.Writer, h http.Handler) http.Handler
	}{
		{"alone, the writer on the request's context", "https://errors.example.com/", "X-Acme-Code",
			func(wr *problem.Writer, h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					h.ServeHTTP(w, r.WithContext(problemhook.NewContext(r.Context(), wr)))
				})
			}},
		{"inside Stack(WithWriter)", "https://problems.shop.test/v2/", "Shop-Error",
			func(wr *problem.Writer, h http.Handler) http.Handler { return Stack(WithWriter(wr))(h) }},
	} {
		for _, c := range layers {
			t.Run(mount.name+"/"+c.name, func(t *testing.T) {
				k := newKit()
				wr := problem.NewWriter(problem.WithBaseURI(mount.base), problem.WithCodeHeader(mount.codeHeader),
					problem.WithLogger(slog.New(slog.NewJSONHandler(k.logs, nil))))
				srv := k.serve(t, mount.wrap(wr, c.mw(c.h)))
				req, _ := http.NewRequest(http.MethodPost, srv.URL+"/orders", strings.NewReader("more than four bytes"))
				got := do(t, req)
				if m := members(t, got); got.StatusCode != c.status || got.Header.Get(mount.codeHeader) != c.code || m["type"] != mount.base+c.code {
					t.Errorf("%d %v %s", got.StatusCode, got.Header, got.body)
				}
				if n := len(waitRecords(t, k.logs, 1)); n != 1 {
					t.Errorf("%d records in the request's writer's log, want 1", n)
				}
			})
		}

		t.Run(mount.name+"/NotFound and MethodNotAllowed", func(t *testing.T) {
			k := newKit()
			wr := problem.NewWriter(problem.WithBaseURI(mount.base), problem.WithCodeHeader(mount.codeHeader),
				problem.WithLogger(slog.New(slog.NewJSONHandler(k.logs, nil))))
			r := chi.NewRouter()
			r.NotFound(NotFound())
			r.MethodNotAllowed(MethodNotAllowed())
			r.Get("/orders", func(http.ResponseWriter, *http.Request) {})
			srv := k.serve(t, mount.wrap(wr, r))
			for path, code := range map[string]string{"/nowhere": "not_found", "/orders": "method_not_allowed"} {
				req, _ := http.NewRequest(http.MethodDelete, srv.URL+path, nil)
				got := do(t, req)
				if m := members(t, got); got.Header.Get(mount.codeHeader) != code || m["type"] != mount.base+code {
					t.Errorf("DELETE %s: %d %v %s", path, got.StatusCode, got.Header, got.body)
				}
			}
		})
	}
	if recs := fallback.logs.records(t); len(recs) != 0 {
		t.Errorf("problem.Default() logged %d records although every request carried a writer: %v", len(recs), recs)
	}
}

// A negative limit or deadline (a config value that overflowed, a sign
// slip) is a mistake: it must not quietly mount a Stack with no limit or no
// deadline at all, since BodyLimit and Timeout refuse the same values.
func TestNegativeStackLimitsPanicAtStartup(t *testing.T) {
	for name, build := range map[string]func(){
		"WithBodyLimit(-1)":             func() { WithBodyLimit(-1) },
		"WithBodyLimit(MinInt64)":       func() { WithBodyLimit(math.MinInt64) },
		"WithBodyLimit(1<<63 overflow)": func() { n := int64(1 << 62); WithBodyLimit(n * 2) },
		"WithRequestTimeout(-1ns)":      func() { WithRequestTimeout(-1) },
		"WithRequestTimeout(-5s)":       func() { WithRequestTimeout(-5 * time.Second) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			build()
		}()
	}
	// Zero stays the documented "none".
	Stack(WithBodyLimit(0), WithRequestTimeout(0))
}
