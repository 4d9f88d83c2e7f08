package otelfault

import (
	"fmt"
	"net/http"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"

	"github.com/faultline-go/faultline/problem"
)

// Telemetry records faultline's problems and rate-limit events in
// OpenTelemetry: on the span active in the request's context, and in the
// instruments of one meter. It is safe for concurrent use.
type Telemetry struct {
	retryAfter metric.Int64Histogram
	problems   *seriesCache[seriesKey]
	decisions  *seriesCache[decisionKey]
	redis      *seriesCache[bool]
	mux        *http.ServeMux
	registry   *problem.Registry
}

// Option configures New.
type Option func(*config)

type config struct {
	meters   metric.MeterProvider
	mux      *http.ServeMux
	registry *problem.Registry
}

// WithMeterProvider sets where the instruments come from (default
// otel.GetMeterProvider() when New is called).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.meters = mp }
}

// WithServeMux names the http.ServeMux that routes the service's requests,
// so that the route of a problem is looked up in it. Without it the route
// is the pattern the mux recorded on the request, read only while the
// request's context is live: a timeout problem is written by Stack's timer
// while the handler's goroutine may still be routing, so it then counts
// under RouteUnmatched. chi routers need nothing: their route is always
// looked up.
func WithServeMux(mux *http.ServeMux) Option {
	return func(c *config) { c.mux = mux }
}

// WithRegistry names the registry whose codes are recorded as they are;
// any other code is recorded as "_OTHER". Without it, a code counts as
// declared when the registry of the Writer serving the request (the one
// middleware.Stack puts in the request's context) or the default registry
// holds it.
func WithRegistry(r *problem.Registry) Option {
	return func(c *config) { c.registry = r }
}

// retryAfterBuckets are in milliseconds: rate-limit windows and probe
// intervals from a fraction of a second to an hour, where the SDK's default
// boundaries (made for latencies) would put almost every value in the last
// bucket.
var retryAfterBuckets = []float64{100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000, 3600000}

// New creates the instruments. It fails only when the meter provider
// refuses one of them.
func New(opts ...Option) (*Telemetry, error) {
	cfg := config{}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.meters == nil {
		cfg.meters = otel.GetMeterProvider()
	}
	m := cfg.meters.Meter(ScopeName)
	t := &Telemetry{
		mux:       cfg.mux,
		registry:  cfg.registry,
		problems:  newSeriesCache(problemSeries),
		decisions: newSeriesCache(decisionSeries),
		redis:     newSeriesCache(redisSeries),
	}
	counters := []struct {
		name, unit, description string
		callback                metric.Int64Callback
	}{
		{MetricProblems, "{problem}", "Problems written, by code, status, cause and route pattern.", t.problems.observeAll},
		{MetricRateLimit, "{decision}", "Rate-limit decisions by policy: allowed, limited or unavailable, and whether taken without the shared counter (fallback).", t.decisions.observeAll},
		{MetricRedisTransitions, "{transition}", "Transitions of the rate limiter's Redis between up and down, by the state entered.", t.redis.observeAll},
	}
	for _, c := range counters {
		if _, err := m.Int64ObservableCounter(c.name, metric.WithUnit(c.unit), metric.WithDescription(c.description),
			metric.WithInt64Callback(c.callback)); err != nil {
			return nil, fmt.Errorf("otelfault: %s: %w", c.name, err)
		}
	}
	var err error
	if t.retryAfter, err = m.Int64Histogram(MetricRetryAfter,
		metric.WithUnit("ms"),
		metric.WithDescription("retry_after_ms of retryable problems, by code and route pattern: how long clients were told to wait."),
		metric.WithExplicitBucketBoundaries(retryAfterBuckets...)); err != nil {
		return nil, fmt.Errorf("otelfault: %s: %w", MetricRetryAfter, err)
	}
	return t, nil
}

// ObserveProblem records one written problem: on the active span (see the
// package documentation for what) and in the problem counter, and, when
// the problem is retryable with a retry time, in the retry-after histogram.
// Its signature is the problem writer's observer's, so it is installed with
// problem.WithObserver(t.ObserveProblem).
func (t *Telemetry) ObserveProblem(r *http.Request, p *problem.Problem) {
	if r == nil || p == nil {
		return
	}
	ctx := r.Context()
	code := t.codeValue(r, string(p.Code()))
	recordOnSpan(ctx, p, code)
	s := t.problems.get(seriesKey{code: code, status: p.Status(), cause: inSet(causes, p.Cause()), route: t.route(r)})
	s.count.Add(1)
	if ms := p.RetryAfter().Milliseconds(); p.Retryable() && ms > 0 {
		// Synchronous, so that with a sampled span the SDK can keep the
		// trace as an exemplar of the value.
		t.retryAfter.Record(ctx, ms, s.record...)
	}
}
