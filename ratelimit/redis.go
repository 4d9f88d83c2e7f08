package ratelimit

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisCounter counts one policy in Redis, one script run per request,
// sent in the batches of the Limiter's batcher. httprate's RateLimiter would
// hold a process-wide mutex across two round trips (Get, then IncrementBy);
// the script makes read-decide-increment one atomic server-side step, so
// requests of this process run side by side and instances cannot race each
// other.
//
// Failing open, every reply also updates the in-process counter, which
// therefore always holds the counts Redis last returned for each key: when
// Redis fails, the fallback continues from them instead of from zero, and
// when Redis answers again, the script raises its count to what was admitted
// locally meanwhile. Without this an instance could admit a whole limit
// twice around each switch.
type redisCounter struct {
	batch   *batcher
	base    string // prefix + policy name + ":{"
	limit   int
	window  time.Duration
	timeout time.Duration
	// The script's constant numbers: the window in microseconds, a
	// counter's TTL in milliseconds.
	windowMicros, ttlMillis int64
	health                  *health
	local                   *memoryCounter // nil when failing closed
	// reload asks a Cluster client to refresh its slot map; nil for other
	// clients.
	reload func(context.Context)
}

// clusterMap is a client that routes by a cached map of the cluster's
// slots (go-redis's ClusterClient). After a failover it keeps sending a
// slot's commands to the dead master until it reloads the map, which it does
// on a MOVED reply but not when the dead master refuses connections; so a
// failed call asks for a reload (go-redis runs at most one at a time), and
// the next probe finds the promoted replica.
type clusterMap interface {
	ReloadState(context.Context)
}

// ignoresDeadlines reports a go-redis client that would not honour the
// per-call timeout: unless ContextTimeoutEnabled is set, go-redis replaces
// the context for socket I/O and waits its own ReadTimeout (3s by default),
// so a stalled Redis would stall every request. Clients of other types are
// trusted.
func ignoresDeadlines(c redis.UniversalClient) bool {
	switch c := c.(type) {
	case *redis.Client:
		return !c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		return !c.Options().ContextTimeoutEnabled
	case *redis.Ring:
		return !c.Options().ContextTimeoutEnabled
	}
	return false
}

func newRedisCounter(cfg config, b *batcher, h *health, p Policy) *redisCounter {
	c := &redisCounter{
		batch:        b,
		base:         cfg.prefix + p.Name + ":{",
		limit:        p.Limit,
		window:       p.Window,
		timeout:      cfg.redisTimeout,
		health:       h,
		windowMicros: p.Window.Microseconds(),
		ttlMillis:    (2*p.Window + time.Second).Milliseconds(),
	}
	if !cfg.failClosed {
		c.local = newMemoryCounter(p.Limit, p.Window, cfg.maxKeys)
	}
	if m, ok := cfg.redis.(clusterMap); ok {
		c.reload = m.ReloadState
	}
	return c
}

func (c *redisCounter) take(ctx context.Context, key string) (result, error) {
	started := time.Now()
	if !c.health.shouldTry(started) {
		return c.fallback(ctx, key, errDown)
	}
	res, err := c.shared(ctx, key, started)
	if err != nil {
		if c.reload != nil {
			c.reload(ctx)
		}
		c.health.failed(ctx, started, err)
		return c.fallback(ctx, key, err)
	}
	c.health.succeeded(ctx, started)
	return res, nil
}

func (c *redisCounter) fallback(ctx context.Context, key string, cause error) (result, error) {
	if c.local == nil {
		return result{}, unavailableError{cause}
	}
	res, err := c.local.take(ctx, key)
	res.fallback = true
	return res, err
}

func (c *redisCounter) shared(ctx context.Context, key string, now time.Time) (result, error) {
	now = now.UTC()
	start := now.Truncate(c.window)
	var floor int64
	if c.local != nil {
		floor = c.local.current(key, start)
	}
	ch := checkPool.Get().(*check)
	ch.ctx = ctx
	ch.keys = c.keys(key, start)
	ch.limit, ch.window, ch.elapsed, ch.ttl, ch.floor = int64(c.limit), c.windowMicros, now.Sub(start).Microseconds(), c.ttlMillis, floor
	ch.deadline = now.Add(c.timeout)
	c.batch.run(ch)
	v, err := ch.reply, ch.err
	*ch = check{done: ch.done}
	checkPool.Put(ch)
	if err != nil {
		return result{}, err
	}
	if c.local != nil {
		c.local.seed(key, start, v[1], v[2])
	}
	return newResult(v[0] == 1, c.limit, v[1], v[2], c.window, start, now), nil
}

// keys names the current and previous window counters of key. The hashed
// key sits in a {hashtag} so both land in one Cluster slot, as a script's
// keys must; hashing bounds the key length and keeps API keys and other
// secrets a key function may return out of Redis.
func (c *redisCounter) keys(key string, start time.Time) [2]string {
	sum := sha256.Sum256([]byte(key))
	var buf [256]byte
	b := append(buf[:0], c.base...)
	b = base64.RawURLEncoding.AppendEncode(b, sum[:16])
	b = append(b, "}:"...)
	// Both names in one string, one allocation.
	n := len(b)
	b = strconv.AppendInt(b, start.UnixMilli(), 10)
	m := len(b)
	b = append(b, b[:n]...)
	both := string(strconv.AppendInt(b, start.Add(-c.window).UnixMilli(), 10))
	return [2]string{both[:m], both[m:]}
}
