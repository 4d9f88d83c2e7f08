package otelfault_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"

	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/otelfault"
	"github.com/faultline-go/faultline/problem"
)

func TestRouteIsThePatternNeverThePath(t *testing.T) {
	gone := func(w http.ResponseWriter, r *http.Request) { _ = problem.Write(w, r, problem.New(problem.Gone)) }
	g := newRig(t, func(r chi.Router, g *rig) {
		// A middleware in r.Use writes before chi has routed.
		r.Use(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-Refuse") != "" {
					_ = problem.Write(w, r, problem.New(problem.Forbidden))
					return
				}
				next.ServeHTTP(w, r)
			})
		})
		r.Get("/items/{id}", gone)
		r.Route("/v2", func(r chi.Router) {
			r.Get("/items/{id}/parts/*", gone)
		})
	})
	cases := []struct {
		method, path, refuse, code, route string
	}{
		{"GET", "/items/1", "", "gone", "/items/{id}"},
		{"GET", "/items/2", "", "gone", "/items/{id}"},
		{"GET", "/items/3", "yes", "forbidden", "/items/{id}"},
		{"GET", "/v2/items/9/parts/a/b", "", "gone", "/v2/items/{id}/parts/*"},
		{"DELETE", "/items/4", "", "method_not_allowed", otelfault.RouteUnmatched},
		{"GET", "/../etc/passwd", "", "not_found", otelfault.RouteUnmatched},
		{"GET", "/items/%0d%0aX:1/extra", "", "not_found", otelfault.RouteUnmatched},
		// Stack serves HEAD on GET routes: the route matched is GET's.
		{"HEAD", "/items/5", "", "gone", "/items/{id}"},
		{"HEAD", "/items/6", "yes", "forbidden", "/items/{id}"},
		{"HEAD", "/v2/items/8/parts/c", "", "gone", "/v2/items/{id}/parts/*"},
		{"HEAD", "/nothing/here", "", "not_found", otelfault.RouteUnmatched},
	}
	for _, c := range cases {
		var h []string
		if c.refuse != "" {
			h = []string{"X-Refuse", c.refuse}
		}
		res := g.do(t, c.method, c.path, "", h...)
		if c.method == http.MethodHead {
			// No body: the code header names the problem.
			res.body = map[string]any{"code": res.header.Get(problem.DefaultCodeHeader)}
		}
		if res.body["code"] != c.code {
			t.Fatalf("%s %s: %d %v, want %s", c.method, c.path, res.status, res.body, c.code)
		}
	}
	got := map[string]int64{}
	for _, p := range sumPoints(t, g.faultlineMetrics(t)[otelfault.MetricProblems]) {
		got[str(p.Attributes, "error.type")+" "+str(p.Attributes, "http.route")] += p.Value
	}
	want := map[string]int64{}
	for _, c := range cases {
		want[c.code+" "+c.route]++
	}
	if len(got) != len(want) {
		t.Errorf("series %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %d, want %d (all: %v)", k, got[k], v, got)
		}
	}
}

// With http.ServeMux the route is the pattern the mux matched, without its
// method. The handler here ignores its context, so the timeout problem is
// written from Stack's timer while the handler still runs: the race
// detector checks that the route is then found without reading what the
// handler's goroutine writes.
func TestServeMuxRoute(t *testing.T) {
	t.Run("WithServeMux", func(t *testing.T) { testServeMuxRoute(t, true, "/sleepy") })
	t.Run("r.Pattern", func(t *testing.T) { testServeMuxRoute(t, false, otelfault.RouteUnmatched) })
}

func testServeMuxRoute(t *testing.T, named bool, timeoutRoute string) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	mux := http.NewServeMux()
	opts := []otelfault.Option{otelfault.WithMeterProvider(mp)}
	if named {
		opts = append(opts, otelfault.WithServeMux(mux))
	}
	tel, err := otelfault.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	wr := problem.NewWriter(problem.WithObserver(tel.ObserveProblem), problem.WithLogger(slog.New(slog.DiscardHandler)))
	mux.HandleFunc("GET /files/{name}", func(w http.ResponseWriter, r *http.Request) {
		_ = problem.Write(w, r, problem.New(problem.NotFound).WithDetail("No such file."))
	})
	mux.HandleFunc("GET /sleepy", func(w http.ResponseWriter, r *http.Request) { time.Sleep(80 * time.Millisecond) })
	h := middleware.Stack(middleware.WithWriter(wr), middleware.WithRequestTimeout(20*time.Millisecond))(mux)
	srv := httptest.NewServer(otelhttp.NewHandler(h, "api", otelhttp.WithTracerProvider(tp), otelhttp.WithMeterProvider(mp)))
	defer srv.Close()
	g := &rig{spans: spans, reader: reader, srv: srv}
	if res := g.do(t, "GET", "/files/a.txt", ""); res.status != 404 {
		t.Fatalf("status %d", res.status)
	}
	if res := g.do(t, "GET", "/sleepy", ""); res.status != 503 {
		t.Fatalf("status %d", res.status)
	}
	g.span(t, 2)
	got := map[string]string{}
	for _, p := range sumPoints(t, g.faultlineMetrics(t)[otelfault.MetricProblems]) {
		got[str(p.Attributes, "error.type")] = str(p.Attributes, "http.route")
	}
	if got["not_found"] != "/files/{name}" || got["timeout"] != timeoutRoute {
		t.Errorf("routes %v", got)
	}
}
