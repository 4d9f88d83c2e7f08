package ratelimit_test

import (
	"context"
	"github.com/faultline-go/faultline/internal/testlog"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

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
	}, ratelimit.WithRedis(client), ratelimit.WithRedisTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	h := withWriter(testlog.Writer(io.Discard), l.Handler)(okHandler)
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

// panicHook panics in the next script runs it sees that carry more than one
// check, as many times as it is armed.
type panicHook struct{ armed atomic.Int32 }

func (h *panicHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *panicHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		// EVALSHA, the script, the key count, the keys, then the checks'
		// records, of 44 bytes each.
		args := cmd.Args()
		if recs, ok := args[len(args)-1].([]byte); ok && len(recs) > 44 && h.armed.Add(-1) >= 0 {
			panic("hook failed")
		}
		return next(ctx, cmd)
	}
}
func (h *panicHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestRedisPanicInABatchStrandsNoCheck: a go-redis hook that panics during
// a batch's round trip panics the request that led it, as it would without
// batching, while the checks that shared the round trip are answered
// (fail-open: counted in process) and the checks after them still reach
// Redis; nothing waits forever.
func TestRedisPanicInABatchStrandsNoCheck(t *testing.T) {
	rs := redistest.Start(t)
	client := redis.NewClient(&redis.Options{Addr: rs.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = client.Close() })
	hook := &panicHook{}
	client.AddHook(hook)
	l, err := ratelimit.New([]ratelimit.Policy{{Limit: 1000, Window: time.Hour, Key: ratelimit.ByHeader("X-Key")}},
		ratelimit.WithRedis(client), ratelimit.WithRedisTimeout(5*time.Second),
		ratelimit.WithProbeInterval(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	h := withWriter(testlog.Writer(io.Discard), l.Handler)(okHandler)
	var panics, served atomic.Int32
	send := func(key string) {
		defer func() {
			if recover() != nil {
				panics.Add(1)
			}
		}()
		rec := &statusRecorder{header: http.Header{}}
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "/", nil)
		req.Header.Set("X-Key", key)
		h.ServeHTTP(rec, req)
		if rec.status == 0 {
			served.Add(1)
		}
	}
	wave := func(n int) {
		var ready, wg sync.WaitGroup
		start := make(chan struct{})
		ready.Add(n)
		for i := range n {
			wg.Go(func() {
				ready.Done()
				<-start
				send("k" + strconv.Itoa(i))
			})
		}
		ready.Wait()
		close(start)
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("checks still waiting 10s after a batch panicked")
		}
	}
	// Twice: a lane that recovered from one panic survives the next. One
	// panic is armed per wave: under load a wave's checks can fill two
	// batches on two lanes, and both armed up front then went to the first.
	for range 2 {
		// The failed batch marked Redis down: past the probe interval one
		// check alone (which the hook lets through) brings it back.
		time.Sleep(50 * time.Millisecond)
		send("probe")
		panics.Store(0)
		served.Store(0)
		hook.armed.Store(1)
		wave(40)
		if panics.Load() != 1 || served.Load() != 39 {
			t.Errorf("%d panics and %d served of 40: want the leader's request to panic and every other one served", panics.Load(), served.Load())
		}
	}
	time.Sleep(50 * time.Millisecond)
	send("probe")
	before := commandCalls(t, rs.Addr())
	panics.Store(0)
	served.Store(0)
	for range 3 {
		wave(20)
	}
	if panics.Load() != 0 || served.Load() != 60 {
		t.Errorf("after the panic: %d panics and %d served of 60", panics.Load(), served.Load())
	}
	if calls := commandCalls(t, rs.Addr()) - before; calls == 0 {
		t.Error("no check reached Redis after the panic")
	}
}
