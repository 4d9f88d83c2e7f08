package otelfault

import (
	"net/http"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// seriesKey is one series of the problem instruments. Every part is
// bounded: codes and causes by the registry's shape, statuses by 400..599,
// routes by the patterns a service declares.
type seriesKey struct {
	code   string
	status int
	cause  string
	route  string
}

// series holds the measurement options of one series, built once: making an
// attribute set sorts and copies it, which would cost several allocations
// on every problem.
type series struct {
	add    []metric.AddOption
	record []metric.RecordOption
}

// maxCachedSeries bounds the cache's memory. Past it, a series is built
// per problem (slower, still correct); the SDK's own cardinality limit
// decides what is exported.
const maxCachedSeries = 2048

// seriesCache maps a key to its series, building each one once.
type seriesCache[K comparable] struct {
	build func(K) *series
	mu    sync.RWMutex
	m     map[K]*series
}

func (c *seriesCache[K]) get(k K) *series {
	c.mu.RLock()
	s := c.m[k]
	c.mu.RUnlock()
	if s != nil {
		return s
	}
	s = c.build(k)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.m[k]; old != nil {
		return old
	}
	if c.m == nil {
		c.m = make(map[K]*series)
	}
	if len(c.m) < maxCachedSeries {
		c.m[k] = s
	}
	return s
}

func newSeriesOf(attrs ...attribute.KeyValue) *series {
	opt := metric.WithAttributeSet(attribute.NewSet(attrs...))
	return &series{add: []metric.AddOption{opt}, record: []metric.RecordOption{opt}}
}

func problemSeries(k seriesKey) *series {
	return newSeriesOf(
		semconv.ErrorTypeKey.String(k.code),
		semconv.HTTPResponseStatusCode(k.status),
		AttrCause.String(k.cause),
		semconv.HTTPRoute(k.route),
	)
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
		lookup := routeContexts.Get().(*chi.Context)
		lookup.Reset()
		p := rc.Routes.Find(lookup, r.Method, path)
		routeContexts.Put(lookup)
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

// routeContexts are scratch space for chi's lookup, which records what it
// matched in one; pooled, as chi pools its own.
var routeContexts = sync.Pool{New: func() any { return chi.NewRouteContext() }}
