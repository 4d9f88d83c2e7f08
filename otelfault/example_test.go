package otelfault_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"

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

// A chi service traced by otelhttp: the problem a handler writes shows on
// the server span and in the problem counter, under the route pattern.
func Example() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))

	tel, err := otelfault.New(otelfault.WithMeterProvider(mp))
	if err != nil {
		panic(err)
	}
	wr := problem.NewWriter(
		problem.WithObserver(tel.ObserveProblem),
		problem.WithLogger(slog.New(slog.DiscardHandler)),
	)
	r := chi.NewRouter()
	r.Use(middleware.Stack(middleware.WithWriter(wr)), otelfault.RecordCorrelationID)
	r.Get("/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		_ = problem.Write(w, r, problem.New(problem.Locked).WithDetail("The order is being edited."))
	})
	srv := httptest.NewServer(otelhttp.NewHandler(r, "api",
		otelhttp.WithTracerProvider(tp), otelhttp.WithMeterProvider(mp)))
	defer srv.Close()

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/orders/42", nil)
	req.Header.Set("X-Request-Id", "order-req-42")
	res, err := srv.Client().Do(req)
	if err != nil {
		panic(err)
	}
	res.Body.Close()

	span := spans.Ended()[0]
	fmt.Println(res.StatusCode, "span status:", span.Status().Code)
	var lines []string
	for _, kv := range span.Attributes() {
		if kv.Key == "error.type" || strings.HasPrefix(string(kv.Key), "faultline.") {
			lines = append(lines, fmt.Sprintf("  %s=%s", kv.Key, kv.Value.String()))
		}
	}
	slices.Sort(lines)
	fmt.Println(strings.Join(lines, "\n"))

	var rm metricdata.ResourceMetrics
	_ = reader.Collect(context.Background(), &rm)
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != otelfault.MetricProblems {
				continue
			}
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				fmt.Println(m.Name, dp.Attributes.Encoded(attribute.DefaultEncoder()), dp.Value)
			}
		}
	}
	// Output:
	// 423 span status: Unset
	//   error.type=locked
	//   faultline.action=unlock
	//   faultline.cause=policy
	//   faultline.correlation_id=order-req-42
	//   faultline.retryable=false
	// faultline.problems error.type=locked,faultline.cause=policy,http.response.status_code=423,http.route=/orders/{id} 1
}
