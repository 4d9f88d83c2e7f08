package otelfault

import "go.opentelemetry.io/otel/attribute"

// The attribute keys faultline adds. Where OpenTelemetry's semantic
// conventions have a key for the same thing (error.type, http.route,
// http.response.status_code, exception.*), that key is used instead; these
// carry what only the problem contract knows.
const (
	AttrAction        attribute.Key = "faultline.action"
	AttrCause         attribute.Key = "faultline.cause"
	AttrRetryable     attribute.Key = "faultline.retryable"
	AttrRetryAfterMS  attribute.Key = "faultline.retry_after_ms"
	AttrOutcome       attribute.Key = "faultline.outcome"
	AttrCorrelationID attribute.Key = "faultline.correlation_id"
	// AttrPolicy is the rate-limit policy's name.
	AttrPolicy attribute.Key = "faultline.ratelimit.policy"
	// AttrDecision is allowed, limited or unavailable on the rate-limit
	// decision counter.
	AttrDecision attribute.Key = "faultline.ratelimit.decision"
	// AttrFallback is true on a decision taken without the shared counter
	// (Redis down): by the in-process counter, or a fail-closed refusal.
	AttrFallback attribute.Key = "faultline.ratelimit.fallback"
	// AttrRedisState is up or down on the Redis transition counter: the
	// state Redis entered.
	AttrRedisState attribute.Key = "faultline.ratelimit.redis.state"
)

// The instruments faultline records, all from the meter named ScopeName.
const (
	MetricProblems         = "faultline.problems"
	MetricRetryAfter       = "faultline.problem.retry_after"
	MetricRateLimit        = "faultline.ratelimit.decisions"
	MetricRedisTransitions = "faultline.ratelimit.redis.transitions"
)

// ScopeName is the instrumentation scope of faultline's meter.
const ScopeName = "github.com/faultline-go/faultline/otelfault"

// RouteUnmatched is the route of a problem written before or without a
// route match: a 404, or a refusal by a middleware that runs before the
// router picks a route. The raw path is never used, so the number of series
// stays bounded by the routes a service declares.
const RouteUnmatched = "unmatched"

// other stands for a value outside a closed set, as semantic conventions'
// error.type does, so that a hand-built problem cannot put arbitrary text
// into a span or a metric series.
const other = "_OTHER"
