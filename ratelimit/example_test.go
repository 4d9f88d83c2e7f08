package ratelimit_test

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/faultline-go/faultline/internal/redistest"
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
	fmt.Println(resp.StatusCode, p.Code, p.Action, "retryable:", p.Retryable, "| Retry-After set:", resp.Header.Get("Retry-After") != "")
	fmt.Println(p.Detail)
}

// A limit of two requests per minute per client IP on a plain ServeMux:
// ByIP keys by the connection's address, no other middleware needed.
func ExampleLimitBy() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/orders", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "[]")
	})
	// Problems are logged by the writer; this one logs nowhere.
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))
	limited := ratelimit.LimitBy(2, time.Minute, ratelimit.ByIP, ratelimit.WithWriter(wr))

	srv := httptest.NewServer(limited(mux))
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
	// The limit of 2 requests per 1m0s was reached.
}

// Two instances of a service, each with its own Redis client, share one
// limit of two requests per minute per API key: the third request is
// refused whichever instance it reaches.
func Example_redis() {
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))
	// go-redis's own log lines go to the same logger, as records.
	redis.SetLogger(ratelimit.RedisLogger{Logger: wr.Logger()})

	instance := func() *httptest.Server {
		// ContextTimeoutEnabled lets WithRedisTimeout bound every call.
		client := redis.NewClient(&redis.Options{Addr: exampleRedis, ContextTimeoutEnabled: true})
		limiter, err := ratelimit.New([]ratelimit.Policy{{
			Name: "orders-per-key", Limit: 2, Window: time.Minute, Key: ratelimit.ByHeader("X-Api-Key"),
		}}, ratelimit.WithRedis(client), ratelimit.WithRedisTimeout(time.Second), ratelimit.WithWriter(wr))
		if err != nil {
			panic(err)
		}
		return httptest.NewServer(limiter.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "ok")
		})))
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
	// The limit of 2 requests per 1m0s was reached.
}
