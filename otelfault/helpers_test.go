package otelfault_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/otelfault"
	"github.com/faultline-go/faultline/problem"
)

// rig is a service as a user would wire it: otelhttp outermost, then
// middleware.Stack with a Writer whose observer is otelfault, then a chi
// router, all on the real SDK with an in-memory span recorder and a manual
// metric reader.
type rig struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tel    *otelfault.Telemetry
	writer *problem.Writer
	srv    *httptest.Server
}

func newRig(t testing.TB, routes func(chi.Router, *rig), stackOpts ...middleware.Option) *rig {
	t.Helper()
	g := &rig{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(g.spans), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(g.reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	var err error
	if g.tel, err = otelfault.New(otelfault.WithMeterProvider(mp)); err != nil {
		t.Fatal(err)
	}
	g.writer = problem.NewWriter(
		problem.WithObserver(g.tel.ObserveProblem),
		problem.WithLogger(slog.New(slog.DiscardHandler)),
	)
	r := chi.NewRouter()
	r.Use(middleware.Stack(append([]middleware.Option{middleware.WithWriter(g.writer)}, stackOpts...)...))
	r.NotFound(middleware.NotFound())
	r.MethodNotAllowed(middleware.MethodNotAllowed())
	routes(r, g)
	g.srv = httptest.NewServer(otelhttp.NewHandler(r, "server",
		otelhttp.WithTracerProvider(tp), otelhttp.WithMeterProvider(mp)))
	t.Cleanup(g.srv.Close)
	return g
}

type reply struct {
	status int
	header http.Header
	body   map[string]any
}

func (g *rig) do(t testing.TB, method, path, body string, header ...string) reply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, g.srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := g.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := reply{status: res.StatusCode, header: res.Header}
	if len(raw) > 0 && res.Header.Get("Content-Type") == "application/problem+json" {
		if err := json.Unmarshal(raw, &out.body); err != nil {
			t.Fatalf("problem body %q: %v", raw, err)
		}
	}
	return out
}

// span waits for the server span to end: the client may have its response
// (a timeout problem is flushed at the deadline) before the handler returns.
func (g *rig) span(t testing.TB, n int) sdktrace.ReadOnlySpan {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ended := g.spans.Ended()
		if len(ended) >= n {
			return ended[n-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d spans ended, want %d", len(ended), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

// faultlineMetrics collects and returns faultline's instruments by name.
func (g *rig) faultlineMetrics(t testing.TB) map[string]metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := g.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != otelfault.ScopeName {
			continue
		}
		for _, m := range sm.Metrics {
			out[m.Name] = m.Data
		}
	}
	return out
}

// sumPoints returns the points of an int64 sum by their attribute set.
func sumPoints(t testing.TB, data metricdata.Aggregation) []metricdata.DataPoint[int64] {
	t.Helper()
	if data == nil {
		return nil
	}
	s, ok := data.(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%T, want an int64 sum", data)
	}
	return s.DataPoints
}

func str(s attribute.Set, k attribute.Key) string {
	v, _ := s.Value(k)
	return v.String()
}
