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
	// by the request that noticed it, never once per request: with the
	// failure that marked Redis down, or with nil when it answers again.
	// The error's text may hold addresses: keep it out of anything a
	// client sees.
	OnRedisHealth func(ctx context.Context, err error)
}

// Decision is one policy's verdict on one request.
type Decision struct {
	// Policy is the policy's Name.
	Policy string
	// Outcome is what the policy did with the request.
	Outcome Outcome
	// Fallback reports that the in-process counter decided because Redis
	// was unreachable (failing open), or that the request was refused for
	// that reason (WithFailClosed, Outcome Unavailable).
	Fallback bool
}

// Outcome is what a policy did with a request. Its value is the one word a
// metric label or a span attribute takes.
type Outcome string

const (
	// Allowed: the request was counted and passed on.
	Allowed Outcome = "allowed"
	// Limited: the request was refused with 429 rate_limited.
	Limited Outcome = "limited"
	// Unavailable: the shared counter was unreachable under WithFailClosed,
	// and the request was refused with 503 unavailable.
	Unavailable Outcome = "unavailable"
)

// WithObserver reports every decision and every Redis health transition to
// o. Without it (or with both fields nil) the hot path pays one nil check.
func WithObserver(o Observer) Option { return func(c *config) { c.observer = o } }
