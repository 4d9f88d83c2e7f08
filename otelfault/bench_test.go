package otelfault_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/faultline-go/faultline/internal/testlog"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/otelfault"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/ratelimit"
)

// benchProviders are the real SDK, recording every span and every
// measurement, exporting nothing: what is measured is faultline's work and
// the SDK's, not an exporter's.
func benchProviders(b *testing.B) (*sdktrace.TracerProvider, *sdkmetric.MeterProvider, *otelfault.Telemetry) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	tel, err := otelfault.New(otelfault.WithMeterProvider(mp))
	if err != nil {
		b.Fatal(err)
	}
	return tp, mp, tel
}

// BenchmarkSuccess serves a 200 through otelhttp, Stack and chi. "otelhttp"
// is the baseline; "otelfault" adds the problem observer, which a success
// never calls; "otelfault+correlation" also mounts RecordCorrelationID.
func BenchmarkSuccess(b *testing.B) {
	tp, mp, tel := benchProviders(b)
	quiet := problem.WithLogger(slog.New(slog.DiscardHandler))
	plain := problem.NewWriter(quiet)
	observed := problem.NewWriter(quiet, problem.WithObserver(tel.ObserveProblem))
	ok := func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }
	build := func(wr *problem.Writer, correlate bool) http.Handler {
		r := chi.NewRouter()
		r.Use(middleware.Stack(middleware.WithWriter(wr)))
		if correlate {
			r.Use(otelfault.RecordCorrelationID)
		}
		r.Get("/orders/{id}", ok)
		return otelhttp.NewHandler(r, "api", otelhttp.WithTracerProvider(tp), otelhttp.WithMeterProvider(mp))
	}
	for _, c := range []struct {
		name string
		h    http.Handler
	}{
		{"otelhttp", build(plain, false)},
		{"otelfault", build(observed, false)},
		{"otelfault+correlation", build(observed, true)},
	} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/orders/42", nil)
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				w := httptest.NewRecorder()
				c.h.ServeHTTP(w, req)
				if w.Code != http.StatusNoContent {
					b.Fatal(w.Code)
				}
			}
		})
	}
}

// BenchmarkProblem writes a problem inside a fresh recording span per
// iteration (a span collects attributes, so reusing one would measure a
// span over its attribute limit): a 429 with a retry time (span, counter
// and histogram) and a 422 (span and counter). "write" is the baseline;
// "write+observe" adds otelfault as the writer's observer: the difference
// is the span and metric work per problem, plus the hook's own copy of the
// problem.
func BenchmarkProblem(b *testing.B) {
	tp, _, tel := benchProviders(b)
	tracer := tp.Tracer("bench")
	quiet := problem.WithLogger(slog.New(slog.DiscardHandler))
	router := chi.NewRouter()
	router.Get("/orders/{id}", func(http.ResponseWriter, *http.Request) {})
	rctx := chi.NewRouteContext()
	rctx.Routes = router
	base := context.WithValue(context.Background(), chi.RouteCtxKey, rctx)
	problems := []struct {
		name string
		p    *problem.Problem
	}{
		{"429", problem.New(problem.RateLimited).WithDetail("The limit of 100 requests per minute was reached.").WithRetryAfter(2400e6)},
		{"422", problem.New(problem.ValidationFailed).WithErrors(problem.FieldError{Detail: "must be at least 1", Pointer: "/quantity", Code: "gte"})},
	}
	writers := []struct {
		name string
		wr   *problem.Writer
	}{
		{"write", problem.NewWriter(quiet)},
		{"write+observe", problem.NewWriter(quiet, problem.WithObserver(tel.ObserveProblem))},
	}
	for _, pc := range problems {
		for _, c := range writers {
			b.Run(pc.name+"/"+c.name, func(b *testing.B) {
				req := httptest.NewRequest(http.MethodGet, "/orders/42", nil)
				w := &discardWriter{h: http.Header{}}
				b.ReportAllocs()
				defer reportCPU(b)()
				for b.Loop() {
					ctx, span := tracer.Start(base, "req")
					clear(w.h)
					_ = c.wr.Write(w, req.WithContext(ctx), pc.p)
					span.End()
				}
			})
		}
	}
}

// BenchmarkRateLimitAllowed serves an allowed request through an in-process
// limiter with and without otelfault's decision counter: the cost a
// success pays when its route is rate limited.
func BenchmarkRateLimitAllowed(b *testing.B) {
	_, _, tel := benchProviders(b)
	key := func(*http.Request) (string, error) { return "everyone", nil }
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	for _, c := range []struct {
		name string
		opts []ratelimit.Option
	}{
		{"limiter", nil},
		{"limiter+observer", []ratelimit.Option{ratelimit.WithObserver(tel.RateLimitObserver())}},
	} {
		b.Run(c.name, func(b *testing.B) {
			l, err := ratelimit.New([]ratelimit.Policy{{Name: "bench", Limit: 1 << 30, Window: time.Hour, Key: key}}, c.opts...)
			if err != nil {
				b.Fatal(err)
			}
			h := l.Handler(ok)
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				h.ServeHTTP(w, req)
			}
		})
	}
}

// reportCPU adds CPU ns/op to a benchmark's figures: call it right before
// the loop and defer what it returns.
func reportCPU(b *testing.B) func() {
	start := testlog.CPUTime()
	return func() {
		b.ReportMetric(float64(testlog.CPUTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}
