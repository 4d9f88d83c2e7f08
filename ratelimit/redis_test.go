package ratelimit_test

import (
	"context"
	"github.com/faultline-go/faultline/internal/testlog"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/httprate"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/faultline-go/faultline/client"
	"github.com/faultline-go/faultline/internal/redistest"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/ratelimit"
)

// go-redis logs every failed dial; the outage tests cause many on purpose.
func init() { redis.SetLogger(discardRedisLog{}) }

type discardRedisLog struct{}

func (discardRedisLog) Printf(context.Context, string, ...any) {}

func redisOptions(addr string) *redis.UniversalOptions {
	return &redis.UniversalOptions{Addrs: []string{addr}, ContextTimeoutEnabled: true}
}

func newRedisClient(t *testing.T, addr string) redis.UniversalClient {
	t.Helper()
	c := redis.NewUniversalClient(redisOptions(addr))
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// instance is one service instance: its own Redis client, limiter and HTTP
// server, as on another machine.
type instance struct {
	url  string
	logs *testlog.Buffer
}

func newInstance(t *testing.T, addr string, policies []ratelimit.Policy, opts ...ratelimit.Option) instance {
	t.Helper()
	return newInstanceOn(t, newRedisClient(t, addr), policies, opts...)
}

// newInstanceOn is newInstance with a client of the caller's, such as a
// Cluster client.
func newInstanceOn(t *testing.T, client redis.UniversalClient, policies []ratelimit.Policy, opts ...ratelimit.Option) instance {
	t.Helper()
	var logs testlog.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	opts = append([]ratelimit.Option{
		// Generous by default: a burst of 120 on fresh connections under
		// the race detector on a loaded machine waits for the pool longer
		// than a second, and a timed-out call falls back to counting in
		// process. Outage tests set their own.
		ratelimit.WithRedisTimeout(5 * time.Second),
		ratelimit.WithRedis(client),
	}, opts...)
	l, err := ratelimit.New(policies, opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := serve(t, withWriter(problem.NewWriter(problem.WithLogger(logger)), l.Handler)(okHandler))
	return instance{url: srv.URL, logs: &logs}
}

// burst sends n concurrent requests with the given key, alternating between
// the instances, and counts the statuses.
func burst(t *testing.T, n int, key string, instances ...instance) map[int]int {
	t.Helper()
	var mu sync.Mutex
	counts := map[int]int{}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			resp, _ := get(t, instances[i%len(instances)].url, map[string]string{"X-Key": key})
			mu.Lock()
			counts[resp.StatusCode]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return counts
}

func TestRedisInstancesShareOneLimit(t *testing.T) {
	rs := redistest.Start(t)
	// An hour-long window: a burst of a few hundred milliseconds almost
	// never straddles a window boundary, where httprate's sliding estimate
	// legitimately lets a few more through. Within one window with an empty
	// previous one the estimate is exact, so the total must be too.
	policies := []ratelimit.Policy{{Name: "shared", Limit: 25, Window: time.Hour, Key: ratelimit.ByHeader("X-Key")}}
	a := newInstance(t, rs.Addr(), policies)
	b := newInstance(t, rs.Addr(), policies)

	counts := burst(t, 120, "client-1", a, b)
	if counts[200] != 25 || counts[429] != 95 {
		t.Errorf("statuses %v: want exactly 25 admitted in total across both instances", counts)
	}
	for _, in := range []instance{a, b} {
		if strings.Contains(in.logs.String(), "unreachable") {
			t.Errorf("Redis was considered down, so the count is not the shared one:\n%s", in.logs.String())
		}
	}
	// Another key has its own bucket.
	if counts := burst(t, 10, "client-2", a, b); counts[200] != 10 {
		t.Errorf("second key: statuses %v", counts)
	}
}

func TestRedisRefusalIsARateLimitedProblem(t *testing.T) {
	rs := redistest.Start(t)
	window := 2 * time.Second
	in := newInstance(t, rs.Addr(), []ratelimit.Policy{{Limit: 2, Window: window, Key: httprate.Key("k")}}, ratelimit.WithDraftHeaders())
	sleepUntilPhase(window, 0.5)
	for range 2 {
		if resp, _ := get(t, in.url, nil); resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	resp, body := get(t, in.url, nil)
	p, err := problem.Parse(body)
	if resp.StatusCode != 429 || err != nil || p.Code() != "rate_limited" || p.Action() != problem.ActionRetry || !p.Retryable() {
		t.Fatalf("status %d body %s", resp.StatusCode, body)
	}
	if ms := p.RetryAfter().Milliseconds(); ms <= 0 || ms >= window.Milliseconds() {
		t.Errorf("retry_after_ms %d", ms)
	}
	if resp.Header.Get("X-RateLimit-Remaining") != "0" || resp.Header.Get("X-RateLimit-Limit") != "2" ||
		resp.Header.Get("Retry-After") == "" || resp.Header.Get("RateLimit") == "" {
		t.Errorf("headers %v", resp.Header)
	}
	if strings.Contains(in.logs.String(), "unreachable") {
		t.Errorf("Redis was considered down:\n%s", in.logs.String())
	}
}

func served(statuses map[int]int) int {
	n := 0
	for _, c := range statuses {
		n += c
	}
	return n
}

// checkTransitions wants transitions logged, not requests: records
// alternate between outage and recovery, starting with an outage, and are
// far fewer than the requests served meanwhile. (A loaded machine may add a
// spurious timeout beyond the two real outages, which is a transition too.)
func checkTransitions(t *testing.T, name, logs string, requests int) {
	t.Helper()
	var seq []string
	for _, line := range strings.Split(logs, "\n") {
		switch {
		case strings.Contains(line, "redis unreachable"):
			seq = append(seq, "down")
		case strings.Contains(line, "reachable again"):
			seq = append(seq, "up")
		}
	}
	if len(seq) < 2 || len(seq) > 8 || len(seq) > requests/20 {
		t.Errorf("instance %s: %d transition records for %d requests:\n%s", name, len(seq), requests, logs)
	}
	for i, s := range seq {
		if want := [2]string{"down", "up"}[i%2]; s != want {
			t.Errorf("instance %s: record %d is %q, want %q:\n%s", name, i, s, want, logs)
			break
		}
	}
}

// load keeps clients busy against the instances until stop is closed,
// recording every status and the slowest request.
type load struct {
	mu       sync.Mutex
	statuses map[int]int
	slowest  time.Duration
	stop     chan struct{}
	wg       sync.WaitGroup
}

func startLoad(t *testing.T, clients int, instances ...instance) *load {
	l := &load{statuses: map[int]int{}, stop: make(chan struct{})}
	for c := range clients {
		l.wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-l.stop:
					return
				default:
				}
				in := instances[(c+i)%len(instances)]
				start := time.Now()
				resp, _ := get(t, in.url, map[string]string{"X-Key": "load"})
				d := time.Since(start)
				l.mu.Lock()
				l.statuses[resp.StatusCode]++
				l.slowest = max(l.slowest, d)
				l.mu.Unlock()
				time.Sleep(2 * time.Millisecond)
			}
		})
	}
	return l
}

func (l *load) finish() (map[int]int, time.Duration) {
	close(l.stop)
	l.wg.Wait()
	return l.statuses, l.slowest
}

const (
	testTimeout = 100 * time.Millisecond
	// latencyMargin covers HTTP over loopback and the race detector on a
	// loaded machine (CI saw 590 ms); the point is that an outage costs
	// about one timeout, not go-redis's own: a stall it did not bound
	// would take its 3 s read timeout, and retries on top.
	latencyMargin = 1400 * time.Millisecond
)

func TestRedisOutageFailOpen(t *testing.T) {
	rs := redistest.Start(t)
	policies := []ratelimit.Policy{
		{Name: "roomy", Limit: 1_000_000, Window: time.Hour, Key: ratelimit.ByHeader("X-Key")},
		{Name: "tight", Limit: 10, Window: time.Hour, Key: ratelimit.Join(ratelimit.ByHeader("X-Key"), httprate.Key("tight"))},
	}
	opts := []ratelimit.Option{ratelimit.WithRedisTimeout(testTimeout), ratelimit.WithProbeInterval(100 * time.Millisecond)}
	a := newInstance(t, rs.Addr(), policies[:1], opts...)
	b := newInstance(t, rs.Addr(), policies[:1], opts...)

	ld := startLoad(t, 4, a, b)
	time.Sleep(200 * time.Millisecond)
	rs.Pause() // stalled: replies never come
	time.Sleep(400 * time.Millisecond)
	rs.Resume()
	time.Sleep(300 * time.Millisecond)
	rs.Kill() // gone: connections refused
	time.Sleep(500 * time.Millisecond)
	rs.Restart()
	time.Sleep(500 * time.Millisecond)
	statuses, slowest := ld.finish()

	t.Logf("statuses %v, slowest request %v (timeout %v)", statuses, slowest, testTimeout)
	for status, n := range statuses {
		if status != 200 {
			t.Errorf("%d responses with status %d in fail-open mode", n, status)
		}
	}
	if slowest > testTimeout+latencyMargin {
		t.Errorf("slowest request took %v, more than the %v timeout plus %v", slowest, testTimeout, latencyMargin)
	}
	for name, in := range map[string]instance{"a": a, "b": b} {
		checkTransitions(t, name, in.logs.String(), served(statuses))
	}

	// After the restart the limit is shared again: two instances together
	// admit the limit once, not once each as their local fallbacks would.
	a2 := newInstance(t, rs.Addr(), policies[1:])
	b2 := newInstance(t, rs.Addr(), policies[1:])
	if counts := burst(t, 40, "after-restart", a2, b2); counts[200] != 10 {
		t.Errorf("after restart: statuses %v, want exactly 10 admitted in total\n%s%s", counts, a2.logs, b2.logs)
	}
}

func TestRedisOutageFailClosed(t *testing.T) {
	rs := redistest.Start(t)
	in := newInstance(t, rs.Addr(),
		[]ratelimit.Policy{{Limit: 1000, Window: time.Hour, Key: httprate.Key("k")}},
		ratelimit.WithFailClosed(),
		ratelimit.WithRedisTimeout(testTimeout), ratelimit.WithProbeInterval(100*time.Millisecond))

	if resp, _ := get(t, in.url, nil); resp.StatusCode != 200 {
		t.Fatalf("before the outage: status %d", resp.StatusCode)
	}
	rs.Kill()
	for i := range 20 {
		start := time.Now()
		resp, body := get(t, in.url, nil)
		if d := time.Since(start); d > testTimeout+latencyMargin {
			t.Errorf("request %d took %v", i, d)
		}
		p, err := problem.Parse(body)
		if resp.StatusCode != 503 || err != nil || p.Code() != "unavailable" || p.Action() != problem.ActionRetry || !p.Retryable() || p.RetryAfter() <= 0 {
			t.Fatalf("request %d during the outage: status %d body %s", i, resp.StatusCode, body)
		}
		if strings.Contains(string(body), "refused") || strings.Contains(string(body), "127.0.0.1") {
			t.Errorf("internal error text leaked: %s", body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	rs.Restart()
	deadline := time.Now().Add(2 * time.Second)
	for {
		resp, _ := get(t, in.url, nil)
		if resp.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still status %d two seconds after the restart", resp.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
	logs := in.logs.String()
	if strings.Count(logs, "redis unreachable") != 1 || strings.Count(logs, "reachable again") != 1 || !strings.Contains(logs, "fail-closed") {
		t.Errorf("want one outage and one recovery record:\n%s", logs)
	}
	if !strings.Contains(logs, "code=unavailable") || !strings.Contains(logs, `error="ratelimit: shared counter unavailable: `) {
		t.Errorf("the 503s' log records should carry the cause:\n%s", logs)
	}
}

// TestRedisNoGoroutineLeft runs traffic through an outage and checks that
// once the servers and the Redis client are closed nothing of the limiter is
// left running: it probes on requests, not in a background goroutine.
func TestRedisClientMustHonourDeadlines(t *testing.T) {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer client.Close()
	_, err := ratelimit.New([]ratelimit.Policy{{Limit: 1, Window: time.Second, Key: httprate.Key("k")}}, ratelimit.WithRedis(client))
	if err == nil || !strings.Contains(err.Error(), "ContextTimeoutEnabled") {
		t.Fatalf("New accepted a client that ignores deadlines: %v", err)
	}
}

func TestRedisNoGoroutineLeft(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	rs := redistest.Start(t)
	client := redis.NewUniversalClient(redisOptions(rs.Addr()))
	l, err := ratelimit.New([]ratelimit.Policy{{Limit: 100, Window: time.Second, Key: httprate.Key("k")}},
		ratelimit.WithRedis(client), ratelimit.WithRedisTimeout(testTimeout))
	if err != nil {
		t.Fatal(err)
	}
	h := withWriter(testlog.Writer(io.Discard), l.Handler)(okHandler)
	var served atomic.Int32
	do := func() {
		rec := &statusRecorder{header: http.Header{}}
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "/", nil)
		h.ServeHTTP(rec, req)
		if rec.status == 0 || rec.status == 200 {
			served.Add(1)
		}
	}
	for range 20 {
		do()
	}
	rs.Kill()
	for range 20 {
		do()
	}
	rs.Restart()
	time.Sleep(1100 * time.Millisecond)
	for range 20 {
		do()
	}
	if served.Load() != 60 {
		t.Errorf("served %d of 60", served.Load())
	}
	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
	rs.Close()
}

type statusRecorder struct {
	header http.Header
	status int
}

func (r *statusRecorder) Header() http.Header         { return r.header }
func (r *statusRecorder) Write(b []byte) (int, error) { return len(b), nil }
func (r *statusRecorder) WriteHeader(status int)      { r.status = status }

// TestFailClosedRefusalSaysNothingRan: a fail-closed 503 is given before
// the handler runs, so it must say so (outcome not_started). Without an
// outcome a 503 leaves a write's fate unknown, and a client that follows
// the contract verifies a POST instead of sending it again, although
// nothing was done.
func TestFailClosedRefusalSaysNothingRan(t *testing.T) {
	rs := redistest.Start(t)
	in := newInstance(t, rs.Addr(),
		[]ratelimit.Policy{{Limit: 1000, Window: time.Hour, Key: ratelimit.ByIP}},
		ratelimit.WithFailClosed(),
		ratelimit.WithRedisTimeout(testTimeout), ratelimit.WithProbeInterval(200*time.Millisecond))
	rs.Kill()
	for _, method := range []string{http.MethodPost, http.MethodPatch, http.MethodDelete, http.MethodPut, http.MethodGet} {
		req, err := http.NewRequest(method, in.url+"/orders", strings.NewReader(`{"n":1}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		p, err := problem.Parse(body)
		if resp.StatusCode != 503 || err != nil || p.Code() != "unavailable" {
			t.Fatalf("%s: status %d body %s", method, resp.StatusCode, body)
		}
		if p.Outcome() != problem.OutcomeNotStarted {
			t.Errorf("%s: outcome %q, want not_started: %s", method, p.Outcome(), body)
		}
		d := client.Policy{}.Decide(client.Attempt{Method: method, Problem: p, Number: 1})
		if d.Verdict != client.Retry {
			t.Errorf("%s: a contract client decides %v (%s) on a request that never ran", method, d.Verdict, d.Reason)
		}
	}
}
