package ratelimit_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/faultline-go/faultline/internal/redistest"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/ratelimit"
)

// exampleRedis is the address of the redis-server TestMain started for the
// Redis example.
var exampleRedis string

func TestMain(m *testing.M) {
	addr, stop, err := redistest.StartProcess()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if addr == "" {
		// Examples cannot skip themselves: leave this one out locally.
		fmt.Fprintln(os.Stderr, "redis-server not installed: skipping Example_redis")
		_ = flag.Set("test.skip", "^Example_redis$")
	}
	exampleRedis = addr
	code := m.Run()
	if stop != nil {
		stop()
	}
	os.Exit(code)
}

// describe prints what a client sees of a response.
func describe(resp *http.Response) {
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		fmt.Println(resp.StatusCode, "remaining", resp.Header.Get("X-RateLimit-Remaining"))
		return
	}
	p, _ := problem.Parse(body)
	fmt.Println(resp.StatusCode, p.Code(), p.Action(), "retryable:", p.Retryable(), "| Retry-After set:", resp.Header.Get("Retry-After") != "")
	fmt.Println(p.Detail())
}

// A limit of two requests per minute per client IP on a plain ServeMux:
// ByIP keys by the connection's address.
func ExampleLimitBy() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/orders", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "[]")
	})
	// The limiter answers through the writer middleware.Stack configures
	// (problem.Default() without one), which logs every problem; this one
	// logs nowhere.
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))
	stack := middleware.Stack(middleware.WithWriter(wr))
	limited := ratelimit.LimitBy(2, time.Minute, ratelimit.ByIP)

	srv := httptest.NewServer(stack(limited(mux)))
	defer srv.Close()
	for range 3 {
		resp, err := http.Get(srv.URL + "/v1/orders")
		if err != nil {
			panic(err)
		}
		describe(resp)
	}
	// Output:
	// 200 remaining 1
	// 200 remaining 0
	// 429 rate_limited retry retryable: true | Retry-After set: true
	// The limit of 2 requests per minute was reached.
}

// Two instances of a service, each with its own Redis client, share one
// limit of two requests per minute per API key: the third request is
// refused whichever instance it reaches.
func Example_redis() {
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))

	instance := func() *httptest.Server {
		// ContextTimeoutEnabled lets WithRedisTimeout bound every call.
		client := redis.NewClient(&redis.Options{Addr: exampleRedis, ContextTimeoutEnabled: true})
		limiter, err := ratelimit.New([]ratelimit.Policy{{
			Name: "orders-per-key", Limit: 2, Window: time.Minute, Key: ratelimit.ByHeader("X-Api-Key"),
		}}, ratelimit.WithRedis(client), ratelimit.WithRedisTimeout(time.Second))
		if err != nil {
			panic(err)
		}
		stack := middleware.Stack(middleware.WithWriter(wr))
		return httptest.NewServer(stack(limiter.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "ok")
		}))))
	}
	a, b := instance(), instance()
	defer a.Close()
	defer b.Close()
	for _, srv := range []*httptest.Server{a, b, a} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		req.Header.Set("X-Api-Key", "key-of-one-client")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		describe(resp)
	}
	// Output:
	// 200 remaining 1
	// 200 remaining 0
	// 429 rate_limited retry retryable: true | Retry-After set: true
	// The limit of 2 requests per minute was reached.
}

// Behind a reverse proxy every connection comes from the proxy: trust its
// addresses, and X-Forwarded-For names the client. (Here the test client
// plays the proxy, from 127.0.0.1.)
func ExampleByIPBehindProxies() {
	key := ratelimit.ByIPBehindProxies(netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8"))
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))
	stack := middleware.Stack(middleware.WithWriter(wr))
	srv := httptest.NewServer(stack(ratelimit.LimitBy(1, time.Minute, key)(
		http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))))
	defer srv.Close()
	for _, xff := range []string{
		"198.51.100.1",
		"198.51.100.2",
		"203.0.113.66, 198.51.100.1", // the leftmost entry is the client's own claim
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		req.Header.Set("X-Forwarded-For", xff)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println(xff, "->", resp.StatusCode)
	}
	// Output:
	// 198.51.100.1 -> 200
	// 198.51.100.2 -> 200
	// 203.0.113.66, 198.51.100.1 -> 429
}

// An observer sees each policy's verdict (never the key), for metrics.
func ExampleWithObserver() {
	var mu sync.Mutex
	seen := map[string]int{}
	observer := ratelimit.Observer{
		OnDecision: func(_ context.Context, d ratelimit.Decision) {
			mu.Lock()
			defer mu.Unlock()
			seen[d.Policy+" "+string(d.Outcome)]++
		},
	}
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))
	limiter, err := ratelimit.New([]ratelimit.Policy{
		{Name: "per-key", Limit: 2, Window: time.Minute, Key: ratelimit.ByHeader("X-Api-Key")},
	}, ratelimit.WithObserver(observer))
	if err != nil {
		panic(err)
	}
	h := middleware.Stack(middleware.WithWriter(wr))(limiter.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	for range 3 {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("X-Api-Key", "k")
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	fmt.Println(seen)
	// Output:
	// map[per-key allowed:2 per-key limited:1]
}
