package ratelimit

import "context"

// Observer receives what a Limiter decides and how its Redis fares, for
// metrics and traces (otelfault builds one). Either field may be nil. Both
// are called synchronously on the request's goroutine with the request's
// context, so they must be fast and safe for concurrent use. They never see
// the rate-limit key itself: a key may be an API key or an address, which
// has no place in a metric label or a span attribute.
type Observer struct {
	// OnDecision is called once per policy a request is checked against,
	// after the decision and before the response.
	OnDecision func(context.Context, Decision)
	// OnRedisHealth is called once per transition of the shared counter,
	// by the request that noticed it, never once per request.
	OnRedisHealth func(context.Context, RedisHealth)
}

// Decision is one policy's verdict on one request.
type Decision struct {
	// Policy is the policy's Name.
	Policy string
	// Outcome is what the policy did with the request.
	Outcome Outcome
	// Fallback reports that the in-process counter decided because Redis
	// was unreachable (FailOpen), or that the request was refused for that
	// reason (FailClosed, Outcome Unavailable).
	Fallback bool
}

// Outcome is what a policy did with a request.
type Outcome uint8

const (
	// Allowed: the request was counted and passed on.
	Allowed Outcome = iota
	// Limited: the request was refused with 429 rate_limited.
	Limited
	// Unavailable: the shared counter was unreachable in FailClosed mode,
	// and the request was refused with 503 unavailable.
	Unavailable
)

// String returns "allowed", "limited" or "unavailable", suitable as a metric
// label.
func (o Outcome) String() string {
	switch o {
	case Allowed:
		return "allowed"
	case Limited:
		return "limited"
	case Unavailable:
		return "unavailable"
	}
	return "unknown"
}

// RedisHealth is a transition of the shared counter.
type RedisHealth struct {
	// Healthy is true when Redis answers again, false when it stopped.
	Healthy bool
	// Err is the failure that marked Redis down (nil when Healthy). Its
	// text may hold addresses: keep it out of anything a client sees.
	Err error
}

// WithObserver reports every decision and every Redis health transition to
// o. Without it (or with both fields nil) the hot path pays one nil check.
func WithObserver(o Observer) Option { return func(c *config) { c.observer = o } }
