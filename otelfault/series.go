package otelfault

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// seriesKey is one series of the problem counter. Every part is bounded:
// codes and causes by the registry's shape, statuses by 400..599, routes by
// the patterns a service declares.
type seriesKey struct {
	code   string
	status int
	cause  string
	route  string
}

// series is one attribute set of a counter and its count. The counters are
// asynchronous: a problem or a decision adds one to count, an atomic add,
// and the meter reads the counts when it collects. A synchronous counter
// would check and hash its attribute set on every measurement, which costs
// more than everything else a problem does here.
type series struct {
	count   atomic.Int64
	observe []metric.ObserveOption
	// record is the retry-after histogram's attribute set (code and route),
	// for problem series only.
	record []metric.RecordOption
}

func newSeries(attrs ...attribute.KeyValue) *series {
	return &series{observe: []metric.ObserveOption{metric.WithAttributeSet(attribute.NewSet(attrs...))}}
}

// maxSeries bounds a counter's series. Past it, counts go to one series
// marked otel.metric.overflow, as the SDK's own cardinality limit does.
const maxSeries = 2048

// seriesCache maps a key to its series, building each one once.
type seriesCache[K comparable] struct {
	build    func(K) *series
	overflow *series
	mu       sync.RWMutex
	m        map[K]*series
}

func newSeriesCache[K comparable](build func(K) *series) *seriesCache[K] {
	return &seriesCache[K]{
		build:    build,
		overflow: newSeries(attribute.Bool("otel.metric.overflow", true)),
		m:        make(map[K]*series),
	}
}

func (c *seriesCache[K]) get(k K) *series {
	c.mu.RLock()
	s := c.m[k]
	c.mu.RUnlock()
	if s != nil {
		return s
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.m[k]; s != nil {
		return s
	}
	if len(c.m) >= maxSeries {
		return c.overflow
	}
	s = c.build(k)
	c.m[k] = s
	return s
}

// observeAll reports every series' count; it is the counter's callback.
func (c *seriesCache[K]) observeAll(_ context.Context, o metric.Int64Observer) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, s := range c.m {
		if n := s.count.Load(); n > 0 {
			o.Observe(n, s.observe...)
		}
	}
	if n := c.overflow.count.Load(); n > 0 {
		o.Observe(n, c.overflow.observe...)
	}
	return nil
}

func problemSeries(k seriesKey) *series {
	s := newSeries(
		semconv.ErrorTypeKey.String(k.code),
		semconv.HTTPResponseStatusCode(k.status),
		AttrCause.String(k.cause),
		semconv.HTTPRoute(k.route),
	)
	s.record = []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(
		semconv.ErrorTypeKey.String(k.code),
		semconv.HTTPRoute(k.route),
	))}
	return s
}

// route is the route the request matches, never its path: the pattern
// chi's router holds for it, else (with WithServeMux) the pattern the mux
// holds, else the pattern http.ServeMux recorded on the request, else
// RouteUnmatched. http.route has no method or host, so a ServeMux pattern
// loses them.
//
// chi's pattern and WithServeMux's are looked up, not read from what the
// router recorded: a lookup reads only the router and the request's method
// and path, so it is right for a problem written before routing (a rate
// limiter in r.Use) and safe on the goroutine of Stack's timeout, which
// writes while the handler's goroutine may still be routing.
// r.Pattern is written by the mux on the handler's goroutine, so it is read
// only while the request's context is live: a timeout layer writes from its
// timer only once the context's deadline has passed.
func (t *Telemetry) route(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil && rc.Routes != nil {
		path := r.URL.RawPath
		if path == "" {
			path = r.URL.Path
		}
		p := findRoute(rc.Routes, r.Method, path)
		if p == "" && r.Method == http.MethodHead {
			// middleware.Stack routes a HEAD without a HEAD route to the
			// GET route of its path (RFC 9110 §9.1), so that is the route
			// it matched: a failure there is not an unmatched request.
			p = findRoute(rc.Routes, http.MethodGet, path)
		}
		if p != "" {
			return p
		}
		return RouteUnmatched
	}
	var p string
	if t.mux != nil {
		_, p = t.mux.Handler(r)
	} else if r.Context().Err() == nil {
		p = r.Pattern
	}
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[i:]
	}
	return RouteUnmatched
}

func findRoute(routes chi.Routes, method, path string) string {
	lookup := routeContexts.Get().(*chi.Context)
	lookup.Reset()
	p := routes.Find(lookup, method, path)
	routeContexts.Put(lookup)
	return p
}

// routeContexts are scratch space for chi's lookup, which records what it
// matched in one; pooled, as chi pools its own.
var routeContexts = sync.Pool{New: func() any { return chi.NewRouteContext() }}
