// Package otelfault makes faultline's problems speak OpenTelemetry: the
// span of a failed request says which problem it was, metrics count
// problems by failure class instead of by status, and the correlation ID a
// client reports finds the trace.
//
// It is its own Go module, so the kit's go.mod does not gain OpenTelemetry.
// It uses the OpenTelemetry API only; the SDK, exporters and the tracing
// middleware (typically otelhttp) are the service's choice.
//
// # Wiring
//
// New creates the instruments; its ObserveProblem is the problem writer's
// observer, and its RateLimitObserver the rate limiter's. otelhttp (or any
// instrumentation that puts a span into the request's context) goes
// outside middleware.Stack, so that problems written by Stack's own layers
// (a recovered panic, a timeout) land on the server span too:
//
//	tel, err := otelfault.New() // instruments from otel.GetMeterProvider()
//	wr := problem.NewWriter(problem.WithObserver(tel.ObserveProblem))
//	r := chi.NewRouter()
//	r.Use(middleware.Stack(middleware.WithWriter(wr)), otelfault.RecordCorrelationID)
//	limited := ratelimit.LimitBy(100, time.Minute, ratelimit.ByIP, ratelimit.WithObserver(tel.RateLimitObserver()))
//	...
//	http.ListenAndServe(addr, otelhttp.NewHandler(r, "api"))
//
// # Spans
//
// When a problem is written inside a recording span, the span gets:
//
//	error.type                the problem's code (semantic conventions' key)
//	faultline.action          retry, fix_request, reauthenticate, ...
//	faultline.cause           request, auth, policy, config, internal, upstream, environment
//	faultline.retryable       bool
//	faultline.retry_after_ms  int, when the problem carries a retry time
//	faultline.outcome         not_started, not_committed, committed, unknown, when set
//	faultline.correlation_id  the request's correlation ID
//
// Its status follows the HTTP semantic conventions for server spans: Error
// (with no description: error.type says which) for a 5xx, and left as it
// is for a 4xx, which is the client's failure, not the server's. A 5xx
// built from a Go error (a recovered panic, a failed dependency) also gets
// an exception event; its exception.message is the error's text after the
// log tier of package sanitize (credentials redacted), exactly what the
// problem's log record holds, and its exception.type names the error's Go
// type. Nothing else of the error reaches the span. Action, cause and
// outcome are recorded only when they are members of the contract's closed
// sets, and error.type only when a registry declares the code (see
// WithRegistry); anything else, however well-formed ("retry_later" on a
// hand-built Problem), is recorded as "_OTHER", on the span and in every
// metric attribute alike.
//
// # Correlation
//
// The correlation ID is recorded on the span, not derived from the trace:
// it keeps coming from the client's X-Request-Id or from faultline's
// generator, as without this package, so a client that sends its own ID
// still finds it on the span, and the ID means the same on hops that are
// not traced. Every span where a problem is written carries it; mounting
// RecordCorrelationID below the layer that assigns the ID records it on
// every request, so one search by the ID a client reports finds the trace
// and the server's log records, whatever the outcome.
//
// # Metrics
//
// From the meter named ScopeName:
//
//	faultline.problems                     counter {problem}: error.type, http.response.status_code, faultline.cause, http.route
//	faultline.problem.retry_after          histogram ms: retry_after_ms of retryable problems: error.type, http.route
//	faultline.ratelimit.decisions          counter {decision}: faultline.ratelimit.policy, faultline.ratelimit.decision, faultline.ratelimit.fallback
//	faultline.ratelimit.redis.transitions  counter {transition}: faultline.ratelimit.redis.state (up, down)
//
// A rate-limit decision is allowed, limited or unavailable (a fail-closed
// refusal while Redis is down); fallback is true when it was taken without
// the shared counter, so the fallback decisions are those with
// faultline.ratelimit.fallback=true.
//
// http.route is the route pattern, never the request's path: chi's pattern,
// looked up in the router (so a problem written by a middleware in r.Use,
// before chi routes, still gets its route; a HEAD without a HEAD route gets
// the GET route Stack serves it on), or http.ServeMux's (see
// WithServeMux). It is RouteUnmatched when the request matches no route (a
// 404 or 405), so the number of series is bounded by the routes and codes
// a service declares. With
// Prometheus, the OpenTelemetry Prometheus exporter serves them as
// faultline_problems_total and so on; see the example directory.
//
// The counters are asynchronous instruments (Int64ObservableCounter):
// faultline counts in an atomic per series and the meter reads the counts
// when it collects, so counting costs one atomic add, not a synchronous
// measurement's check and hash of its attribute set. They are cumulative
// monotonic sums like any counter's; they carry no exemplars. The
// histogram is synchronous, so a sampled trace can be its exemplar. A
// counter holds at most 2048 series; past that, counts go to one series
// marked otel.metric.overflow=true.
//
// # Cost
//
// A request that writes no problem costs nothing here (RecordCorrelationID,
// when mounted, sets one attribute). A problem costs a few attribute writes
// on the span, a route lookup, an atomic add, and one histogram
// measurement when it carries a retry time. A rate-limit decision costs a
// map lookup and an atomic add.
package otelfault
