package ratelimit

import (
	"context"
	"hash/maphash"
	"net/http"
	"time"

	"github.com/go-chi/httprate"
)

// memoryShards spreads keys over independent httprate limiters. Each
// httprate.RateLimiter serializes every request behind one mutex; with
// shards, requests for different keys rarely meet, while every single key is
// still counted by exactly one httprate limiter with httprate's semantics.
const memoryShards = 64

// memoryCounter counts in process with httprate's own limiter and counter.
type memoryCounter struct {
	limit   int
	window  time.Duration
	seed    maphash.Seed
	shards  [memoryShards]*httprate.RateLimiter
	counter [memoryShards]httprate.LimitCounter
}

// neutralRequest is what httprate sees instead of the client's request: its
// context carries no httprate.WithIncrement or WithRequestLimit override, so
// the in-memory path counts exactly like the Redis path, which cannot read
// those unexported context values.
var neutralRequest = (&http.Request{}).WithContext(context.Background())

// discardWriter receives nothing: the limiters below are built with no
// response headers and no-op handlers, so httprate never writes; faultline
// writes the one response itself.
type discardWriter struct{}

func (discardWriter) Header() http.Header         { return http.Header{} }
func (discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (discardWriter) WriteHeader(int)             {}

func newMemoryCounter(limit int, window time.Duration) *memoryCounter {
	m := &memoryCounter{limit: limit, window: window, seed: maphash.MakeSeed()}
	for i := range m.shards {
		// Passing the local counter explicitly keeps httprate's windows on
		// the wall clock (window start = now.Truncate(window)) instead of the
		// limiter's start instant, which is private to httprate: faultline
		// needs the window start to compute the retry time, and the Redis
		// path uses the same alignment so a fallback behaves alike.
		c := httprate.NewLocalLimitCounter(window)
		m.counter[i] = c
		m.shards[i] = httprate.NewRateLimiter(limit, window,
			httprate.WithLimitCounter(c),
			httprate.WithResponseHeaders(httprate.ResponseHeaders{}),
			httprate.WithLimitHandler(func(http.ResponseWriter, *http.Request) {}),
			httprate.WithErrorHandler(func(http.ResponseWriter, *http.Request, error) {}),
		)
	}
	return m
}

func (m *memoryCounter) take(_ context.Context, key string) (result, error) {
	i := maphash.String(m.seed, key) % memoryShards
	limited := m.shards[i].OnLimit(discardWriter{}, neutralRequest, key)
	// Read the clock after httprate did, so both look at the same window
	// except across a boundary crossed in between, which only costs a
	// slightly stale remaining count.
	now := time.Now().UTC()
	start := now.Truncate(m.window)
	curr, prev, err := m.counter[i].Get(key, start, start.Add(-m.window))
	if err != nil {
		return result{}, err
	}
	return newResult(!limited, m.limit, int64(curr), int64(prev), m.window, start, now), nil
}
