// Command example serves a small chi API instrumented with otelhttp and
// otelfault, and its metrics in the Prometheus text format through the
// OpenTelemetry Prometheus exporter.
//
//	go run ./otelfault/example
//	curl -i 127.0.0.1:8080/orders/7      # 200, then 429 once the limit of 3 per minute is used up
//	curl -i 127.0.0.1:8080/orders/panic  # 500 internal: a recovered panic
//	curl -s 127.0.0.1:8080/metrics | grep faultline_
package main

import (
	"context"
	"flag"
	"log"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/otelfault"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/ratelimit"
	"github.com/faultline-go/faultline/sanitize"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	flag.Parse()
	logger := slog.New(sanitize.NewLogHandler(slog.NewJSONHandler(os.Stderr, nil)))
	h, shutdown, err := newServer(logger)
	if err != nil {
		log.Fatal(err)
	}
	defer shutdown()
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	logger.Info("listening", slog.String("addr", *addr))
	log.Fatal(srv.ListenAndServe())
}

// newServer wires the API and /metrics. Each server has its own Prometheus
// registry and providers, so tests can run several.
func newServer(logger *slog.Logger) (http.Handler, func(), error) {
	reg := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, nil, err
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	// A real service exports spans too (an OTLP exporter in a batcher);
	// recording them is what lets otelfault annotate them.
	tp := sdktrace.NewTracerProvider()
	shutdown := func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	}

	tel, err := otelfault.New(otelfault.WithMeterProvider(mp))
	if err != nil {
		return nil, nil, err
	}
	wr := problem.NewWriter(problem.WithLogger(logger), problem.WithObserver(tel.ObserveProblem))
	limited := ratelimit.LimitBy(3, time.Minute, ratelimit.ByIP, ratelimit.WithObserver(tel.RateLimitObserver()))

	api := chi.NewRouter()
	api.Use(middleware.Stack(middleware.WithWriter(wr), middleware.WithRequestTimeout(5*time.Second)),
		otelfault.RecordCorrelationID)
	api.Use(chimw.ClientIPFromRemoteAddr) // behind a proxy: ClientIPFromXFFHeader with its addresses
	api.NotFound(middleware.NotFound())
	api.MethodNotAllowed(middleware.MethodNotAllowed())
	api.With(limited).Get("/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		if chi.URLParam(r, "id") == "panic" {
			panic("orders: cache of order panic is corrupt")
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"` + chi.URLParam(r, "id") + `"}` + "\n"))
	})

	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.Handle("/", otelhttp.NewHandler(api, "api", otelhttp.WithTracerProvider(tp), otelhttp.WithMeterProvider(mp)))
	return mux, shutdown, nil
}
