// Package ratelimit limits request rates and answers a refused request
// with a rate_limited problem (429) that tells the client exactly when to
// come back: retry_after_ms, Retry-After and the X-RateLimit-* headers.
//
// LimitBy is the one-policy middleware; New takes several policies. Both
// work on chi, http.ServeMux or any router:
//
//	mux.Handle("GET /v1/orders", ratelimit.LimitBy(100, time.Minute, ratelimit.ByIP)(orders))
//
// # Counting
//
// Counts follow httprate's sliding window: the previous window counts in
// proportion to how much of it the sliding window still covers. One
// instance counts in process, in memory bounded by WithMaxKeys. Several
// instances share limits through Redis (WithRedis, a single server or a
// Redis Cluster) with one atomic script step per request; instances that
// use the same policy name and Redis share one bucket per key, and admit
// exactly the limit between them. Requests checked at the same moment share
// round trips: checks that arrive while one is under way go out together in
// the next, one script run for the batch (per hashtag, pipelined, on a
// Cluster, with a queue per master), so throughput is bounded by Redis
// rather than by round trips; each check still waits at most
// WithRedisTimeout.
//
// While Redis is unreachable (each call is bounded by WithRedisTimeout),
// instances either count in process (the default, fail-open) or refuse
// with 503 unavailable (WithFailClosed), and return to Redis by themselves
// when it answers again. Fail-open, the switch does not hand out a fresh limit:
// the in-process count of each key starts from what Redis last returned to
// this instance, and on the way back Redis takes over what was admitted
// locally. The bound: in any window, an instance admits at most the limit
// for a key, counting what Redis admitted before the switch; N instances
// that all lost Redis admit at most N times the limit together, since none
// sees what the others admit meanwhile. On a Cluster the same holds while a
// replica takes over a failed master (a few seconds with a short
// cluster-node-timeout), and what the failed master had not yet replicated
// can be admitted again once. Health is tracked per Limiter, so while one
// master is down every key of the Limiter is counted in process.
//
// # Keys
//
// Keys are httprate.KeyFunc values: ByIP (the connection's address, or the
// one chi's ClientIPFrom* resolved), ByIPBehindProxies (the client a
// trusted reverse proxy names in X-Forwarded-For), ByRoutePattern, ByHeader
// and Join build them, and any httprate key function works too. A key the
// client could have supplied but did not (ByHeader) is its own 400; a key
// the server cannot compute is a configuration error: 500 internal with
// action none and retryable false, the reason in the log, never a shared
// bucket for every client.
//
// # Logs and metrics
//
// Refusals are written, and Redis outages and recoveries logged once per
// transition, by the problem writer the request's context carries
// (middleware.Stack's WithWriter), else by problem.Default(): the writer
// and its logger are configured once, for every layer. WithObserver reports
// every decision and every transition, for metrics and traces.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-chi/httprate"
	"github.com/redis/go-redis/v9"

	"github.com/faultline-go/faultline/problem"
)

// Policy is one limit: at most Limit requests per Window for each key.
type Policy struct {
	// Name identifies the policy in the RateLimit-Policy header, in logs and
	// in Redis keys: instances share counts exactly when their policies have
	// the same name (and prefix). It defaults to "<limit>-per-<window>", so
	// two limiters with equal numbers on one Redis share buckets unless
	// named apart. Letters, digits and "-_.:" only.
	Name   string
	Limit  int
	Window time.Duration
	Key    httprate.KeyFunc
}

// Option configures a Limiter.
type Option func(*config)

type config struct {
	observer     Observer
	draftHeaders bool
	redis        redis.UniversalClient
	prefix       string
	redisTimeout time.Duration
	// probeInterval is how often, while Redis is down, one request tries it
	// again; the others go straight to the failure mode. Tests shorten it.
	probeInterval time.Duration
	failClosed    bool
	maxKeys       int
}

// WithDraftHeaders adds the RateLimit and RateLimit-Policy fields of
// draft-ietf-httpapi-ratelimit-headers. They are opt-in because the draft
// may still change.
func WithDraftHeaders() Option { return func(c *config) { c.draftHeaders = true } }

// WithRedis counts in Redis so that every instance using the same client
// configuration shares the limits. The client must have
// ContextTimeoutEnabled set (New fails otherwise), or WithRedisTimeout could
// not bound a call. The Limiter never closes it.
func WithRedis(client redis.UniversalClient) Option {
	return func(c *config) { c.redis = client }
}

// WithPrefix sets the prefix of every Redis key (default "faultline:rl:").
// It may not hold '{' or '}' (New fails): each key's names carry a Redis
// Cluster hashtag of the limiter's own, which a brace before it would
// replace, putting every key in one slot or a key's two windows in two.
func WithPrefix(prefix string) Option { return func(c *config) { c.prefix = prefix } }

// WithRedisTimeout bounds each Redis call (default 100ms): a stalled Redis
// delays a request by at most this much before the failure mode applies. It
// is not a request deadline (that is middleware's timeout).
func WithRedisTimeout(d time.Duration) Option { return func(c *config) { c.redisTimeout = d } }

// WithFailClosed refuses requests with 503 unavailable (action retry,
// outcome not_started, Retry-After when Redis is tried again, once a
// second) while Redis is unreachable. Without it the limiter fails open: requests are counted by
// an in-process counter of the same policy, so each instance still
// enforces the limit on its own.
func WithFailClosed() Option { return func(c *config) { c.failClosed = true } }

// Limiter enforces one or more policies on every request it handles.
type Limiter struct {
	policies     []*policy
	draftHeaders bool
	policyField  []string
	// unavailableRetry is what a fail-closed refusal advises: the next probe
	// is due by then.
	unavailableRetry time.Duration
	observe          func(context.Context, Decision)
}

type policy struct {
	Policy
	counter    counter
	detail     string
	limitValue []string
	reset      atomic.Pointer[resetValue]
}

// counter admits or refuses one request for a key, counting it if admitted.
type counter interface {
	take(ctx context.Context, key string) (result, error)
}

// result is one admission decision and what the response reports about it.
type result struct {
	admitted   bool
	remaining  int
	retryAfter time.Duration
	reset      time.Time
	// fallback: the in-process counter decided because Redis was down.
	fallback bool
}

func newResult(admitted bool, limit int, curr, prev int64, window time.Duration, start, now time.Time) result {
	elapsed := now.Sub(start)
	res := result{admitted: admitted, reset: start.Add(window)}
	if admitted {
		res.remaining = remaining(limit, curr, prev, window, elapsed)
	} else {
		res.retryAfter = retryAfter(limit, curr, prev, window, elapsed)
	}
	return res
}

// New returns a Limiter for several policies on one router, or an error
// saying which policy or option cannot work. A request passes
// only if every policy admits it; they are checked in order and the first
// refusal answers, so policies before it have counted the request (as when
// chaining several httprate limiters).
func New(policies []Policy, opts ...Option) (*Limiter, error) {
	cfg := config{
		prefix:        "faultline:rl:",
		redisTimeout:  100 * time.Millisecond,
		probeInterval: time.Second,
		maxKeys:       DefaultMaxKeys,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if len(policies) == 0 {
		return nil, errors.New("ratelimit: no policy")
	}
	if cfg.redisTimeout <= 0 || cfg.probeInterval <= 0 {
		return nil, errors.New("ratelimit: the Redis timeout and probe interval must be positive")
	}
	if strings.ContainsAny(cfg.prefix, "{}") {
		return nil, fmt.Errorf("ratelimit: the Redis key prefix %q may not hold '{' or '}': the limiter sets each key's Cluster hashtag itself", cfg.prefix)
	}
	if cfg.maxKeys < memoryShards {
		return nil, fmt.Errorf("ratelimit: WithMaxKeys needs at least %d keys", memoryShards)
	}
	var h *health
	var b *batcher
	if cfg.redis != nil {
		if ignoresDeadlines(cfg.redis) {
			return nil, fmt.Errorf("ratelimit: the Redis client ignores context deadlines, so a stalled Redis would stall requests past the %v Redis timeout; set ContextTimeoutEnabled: true in its options", cfg.redisTimeout)
		}
		h = &health{observe: cfg.observer.OnRedisHealth, every: cfg.probeInterval, failClosed: cfg.failClosed}
		b = newBatcher(cfg.redis)
	}
	l := &Limiter{
		draftHeaders:     cfg.draftHeaders,
		unavailableRetry: cfg.probeInterval, observe: cfg.observer.OnDecision,
	}
	seen := map[string]bool{}
	for _, p := range policies {
		if p.Limit < 1 || p.Window < time.Millisecond || p.Key == nil {
			return nil, fmt.Errorf("ratelimit: policy %q needs a limit of at least 1, a window of at least 1ms and a key function", p.Name)
		}
		if p.Name == "" {
			p.Name = strconv.Itoa(p.Limit) + "-per-" + p.Window.String()
		}
		if !validName(p.Name) {
			return nil, fmt.Errorf("ratelimit: policy name %q may only hold letters, digits, '-', '_', '.' and ':'", p.Name)
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("ratelimit: policy name %q used twice", p.Name)
		}
		seen[p.Name] = true
		pp := &policy{
			Policy:     p,
			detail:     detail(p.Limit, p.Window),
			limitValue: []string{strconv.Itoa(p.Limit)},
		}
		if h != nil {
			pp.counter = newRedisCounter(cfg, b, h, p)
		} else {
			pp.counter = newMemoryCounter(p.Limit, p.Window, cfg.maxKeys)
		}
		l.policies = append(l.policies, pp)
	}
	if l.draftHeaders {
		l.policyField = []string{policyField(l.policies)}
	}
	return l, nil
}

// LimitBy is New with a single policy, shaped like httprate.LimitBy. It
// panics on an invalid policy, since that is a programming error found at
// startup.
func LimitBy(limit int, window time.Duration, key httprate.KeyFunc, opts ...Option) func(http.Handler) http.Handler {
	l, err := New([]Policy{{Limit: limit, Window: window, Key: key}}, opts...)
	if err != nil {
		panic(err)
	}
	return l.Handler
}

// Handler is the middleware.
func (l *Limiter) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var tightest *policy
		var tight result
		for _, p := range l.policies {
			key, err := p.Key(r)
			if err == nil && key == "" {
				err = errEmptyKey
			}
			if err != nil {
				l.keyFailed(w, r, p, err)
				return
			}
			res, err := p.counter.take(r.Context(), key)
			if err != nil {
				l.decided(r, p, Unavailable, true)
				l.unavailable(w, r, p, err)
				return
			}
			if !res.admitted {
				l.decided(r, p, Limited, res.fallback)
				l.setHeaders(w.Header(), p, res)
				l.refuse(w, r, p, res)
				return
			}
			l.decided(r, p, Allowed, res.fallback)
			if tightest == nil || res.remaining < tight.remaining {
				tightest, tight = p, res
			}
		}
		l.setHeaders(w.Header(), tightest, tight)
		next.ServeHTTP(w, r)
	})
}

func (l *Limiter) decided(r *http.Request, p *policy, o Outcome, fallback bool) {
	if l.observe != nil {
		l.observe(r.Context(), Decision{Policy: p.Name, Outcome: o, Fallback: fallback})
	}
}

// write answers through the request's writer: the one middleware.Stack put
// in its context, else the default.
func (l *Limiter) write(w http.ResponseWriter, r *http.Request, p *problem.Problem) {
	// The writer logs every problem, including one it could not write.
	_ = problem.FromContext(r.Context()).Write(w, r, p)
}

func (l *Limiter) refuse(w http.ResponseWriter, r *http.Request, p *policy, res result) {
	l.write(w, r, problem.New(problem.RateLimited).
		WithDetail(p.detail).
		WithRetryAfter(res.retryAfter).
		WithLogAttrs(slog.String("ratelimit_policy", p.Name)))
}

// keyFailed answers a request the limiter cannot key. A key function may
// return a *problem.Problem to say it was the client's fault (ByHeader does:
// 400 bad_request); anything else, an empty key included, is the server's
// configuration: 500 internal with the reason in the log, and not
// retryable, since retrying cannot fix a configuration.
func (l *Limiter) keyFailed(w http.ResponseWriter, r *http.Request, p *policy, err error) {
	var pr *problem.Problem
	if errors.As(err, &pr) {
		l.write(w, r, pr)
		return
	}
	misconfigured := problem.New(problem.Internal).Wrap(err).
		WithLogAttrs(slog.String("ratelimit_policy", p.Name)).
		WithAction(problem.ActionNone).WithCause(problem.CauseConfig).WithRetryable(false)
	l.write(w, r, misconfigured)
}

// unavailable refuses a request before its handler ran. It says so
// (not_started): a 503 that names no outcome leaves a write's fate unknown,
// and a contract client would verify a POST that never ran instead of
// sending it again.
func (l *Limiter) unavailable(w http.ResponseWriter, r *http.Request, p *policy, err error) {
	l.write(w, r, problem.New(problem.Unavailable).
		WithDetail("The rate limiter cannot reach its shared counter; try again shortly.").
		WithOutcome(problem.OutcomeNotStarted).
		WithRetryAfter(l.unavailableRetry).
		Wrap(err).
		WithLogAttrs(slog.String("ratelimit_policy", p.Name)))
}

func detail(limit int, window time.Duration) string {
	unit := "requests"
	if limit == 1 {
		unit = "request"
	}
	return fmt.Sprintf("The limit of %d %s per %s was reached.", limit, unit, humanWindow(window))
}

// windowUnits are the units a window is told in, largest first.
var windowUnits = [...]struct {
	d    time.Duration
	name string
}{
	{24 * time.Hour, "day"}, {time.Hour, "hour"}, {time.Minute, "minute"},
	{time.Second, "second"}, {time.Millisecond, "millisecond"},
	{time.Microsecond, "microsecond"}, {time.Nanosecond, "nanosecond"},
}

// humanWindow tells a window as a person would: "minute", "30 seconds",
// "1.5 seconds", rather than Duration.String's "1m0s", which is for
// programs. It takes the largest unit the window reaches in which it has
// at most three decimals, so no rounding ever misstates the limit.
func humanWindow(d time.Duration) string {
	for _, u := range windowUnits {
		step := max(u.d/1000, 1)
		if d < u.d || d%step != 0 {
			continue
		}
		if d == u.d {
			return u.name
		}
		n := strconv.FormatInt(int64(d/u.d), 10)
		if frac := d % u.d; frac != 0 {
			// Three digits of thousandths, trailing zeros dropped.
			n += "." + strings.TrimRight(strconv.FormatInt(int64(1000+frac/step), 10)[1:], "0")
		}
		return n + " " + u.name + "s"
	}
	return d.String()
}

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}
