package otelfault

import (
	"context"

	"github.com/faultline-go/faultline/ratelimit"
)

// RateLimitObserver returns the observer to install with
// ratelimit.WithObserver: it counts every decision by policy, decision and
// fallback, and every transition of the shared counter's Redis by the state
// it entered. A rate-limit refusal is also a problem, which ObserveProblem
// records on the span and in the problem counter.
func (t *Telemetry) RateLimitObserver() ratelimit.Observer {
	return ratelimit.Observer{OnDecision: t.decision, OnRedisHealth: t.redisHealth}
}

type decisionKey struct {
	policy   string
	outcome  ratelimit.Outcome
	fallback bool
}

func decisionSeries(k decisionKey) *series {
	return newSeries(
		AttrPolicy.String(k.policy),
		AttrDecision.String(string(k.outcome)),
		AttrFallback.Bool(k.fallback),
	)
}

// decision runs for every request a limiter checks, the allowed ones
// included, so it is one cached series lookup and one atomic add. Policy
// names are the service's configuration, validated by ratelimit.New, so
// they bound the series.
func (t *Telemetry) decision(_ context.Context, d ratelimit.Decision) {
	t.decisions.get(decisionKey{d.Policy, d.Outcome, d.Fallback}).count.Add(1)
}

func redisSeries(healthy bool) *series {
	state := "down"
	if healthy {
		state = "up"
	}
	return newSeries(AttrRedisState.String(state))
}

// redisHealth counts a transition. Its error is not recorded: the limiter
// logs it, and its text (addresses) does not belong in a metric label.
func (t *Telemetry) redisHealth(_ context.Context, err error) {
	t.redis.get(err == nil).count.Add(1)
}
