package ratelimit_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/redistest"
	"github.com/faultline-go/faultline/ratelimit"
)

// TestRedisConcurrentChecksShareRoundTrips sends waves of concurrent
// checks, on distinct keys and on one shared key, and reads from the
// server how many script runs served them: checks that arrive while a
// round trip is in flight go out together, so far fewer runs than checks,
// and every limit stays exact.
func TestRedisConcurrentChecksShareRoundTrips(t *testing.T) {
	rs := redistest.Start(t)
	client := newRedisClient(t, rs.Addr())
	const clients, waves, limit = 48, 5, 7
	l, err := ratelimit.New([]ratelimit.Policy{
		{Name: "roomy", Limit: 1_000_000, Window: time.Hour, Key: ratelimit.ByHeader("X-Key")},
		{Name: "tight", Limit: limit, Window: time.Hour, Key: ratelimit.ByHeader("X-Shared")},
	}, ratelimit.WithRedis(client), ratelimit.WithRedisTimeout(5*time.Second), ratelimit.WithWriter(quietWriter(io.Discard)))
	if err != nil {
		t.Fatal(err)
	}
	h := l.Handler(okHandler)
	before := commandCalls(t, rs.Addr())
	statuses := map[int]int{}
	var mu sync.Mutex
	for wave := range waves {
		var ready, wg sync.WaitGroup
		start := make(chan struct{})
		ready.Add(clients)
		for c := range clients {
			wg.Go(func() {
				rec := &statusRecorder{header: http.Header{}}
				req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "/", nil)
				req.Header.Set("X-Key", "client-"+strconv.Itoa(wave)+"-"+strconv.Itoa(c))
				req.Header.Set("X-Shared", "everyone")
				ready.Done()
				<-start
				h.ServeHTTP(rec, req)
				mu.Lock()
				statuses[max(rec.status, 200)]++
				mu.Unlock()
			})
		}
		ready.Wait()
		close(start)
		wg.Wait()
	}
	calls := commandCalls(t, rs.Addr()) - before
	checks := 2 * clients * waves // every request is checked by both policies
	t.Logf("%d checks in %d script runs; statuses %v", checks, calls, statuses)
	if statuses[200] != limit || statuses[429] != clients*waves-limit {
		t.Errorf("statuses %v: want exactly %d admitted by the shared key's limit", statuses, limit)
	}
	if calls <= 0 || calls > checks/4 {
		t.Errorf("%d script runs for at least %d checks: concurrent checks were not batched", calls, checks)
	}
}

// commandCalls is how many EVALSHA and EVAL commands the server has run
// since it started, from INFO commandstats.
func commandCalls(t *testing.T, addr string) int {
	t.Helper()
	info, err := redistest.Do(addr, "INFO", "commandstats")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(info, "\n") {
		for _, cmd := range []string{"cmdstat_evalsha:calls=", "cmdstat_eval:calls="} {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), cmd); ok {
				v, _ := strconv.Atoi(rest[:strings.IndexByte(rest, ',')])
				n += v
			}
		}
	}
	return n
}
