package blackbox

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/faultline-go/faultline/internal/redistest"
	"github.com/faultline-go/faultline/internal/testlog"
	"github.com/faultline-go/faultline/ratelimit"
)

const bearer = "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlc2lnbmF0dXJl"

// limitedMux is a ServeMux service (no chi) limited per credential, the
// way an API limits per token: the key is a secret and must show nowhere,
// neither to the client nor in the log.
func limitedMux(t *testing.T, opts ...ratelimit.Option) *app {
	a := &app{t: t, logs: &testlog.Buffer{}, execs: &counter{n: map[string]int{}}}
	wr := newWriter(testlog.Logger(a.logs), false)
	l, err := ratelimit.New([]ratelimit.Policy{{Name: "per-token", Limit: 2, Window: time.Minute, Key: ratelimit.ByHeader("Authorization")}},
		opts...)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /v1/items", l.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})))
	a.srv = httptest.NewServer(stack(wr)(mux))
	t.Cleanup(a.srv.Close)
	return a
}

func TestRateLimitKeyedByASecretLeaksNothing(t *testing.T) {
	a := limitedMux(t)
	for range 2 {
		if ans := a.request("GET", "/v1/items", "", "Authorization", bearer); ans.status != http.StatusNoContent {
			t.Fatalf("within the limit: %d %s", ans.status, ans.body)
		}
	}
	ans := a.request("GET", "/v1/items", "", "Authorization", bearer)
	a.checkContract("limited per token", ans, 429, "rate_limited")
	// Another credential has its own budget.
	if ans := a.request("GET", "/v1/items", "", "Authorization", "Bearer other"); ans.status != http.StatusNoContent {
		t.Errorf("another key was limited: %d", ans.status)
	}
	if strings.Contains(a.logs.String(), "c2lnbmF0dXJlc2lnbmF0dXJl") {
		t.Errorf("the limiter's key reached the log:\n%s", a.logs.String())
	}
}

// Redis going away under load: fail-closed answers the contract's 503
// (never a bare 500, never a retry of a write), fail-open admits; when
// Redis is back the shared limit holds again.
func TestRedisGoingAwayMidLoad(t *testing.T) {
	srv := redistest.Start(t)
	for _, failClosed := range []bool{false, true} {
		rc := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
		t.Cleanup(func() { rc.Close() })
		opts := []ratelimit.Option{ratelimit.WithRedis(rc), ratelimit.WithRedisTimeout(100 * time.Millisecond), ratelimit.WithPrefix("bb" + time.Now().Format("150405.000000"))}
		if failClosed {
			opts = append(opts, ratelimit.WithFailClosed())
		}
		a := limitedMux(t, opts...)
		token := "Bearer mode-" + time.Now().Format("150405.000000")
		for range 2 {
			if ans := a.request("GET", "/v1/items", "", "Authorization", token); ans.status != http.StatusNoContent {
				t.Fatalf("within the limit: %d %s", ans.status, ans.body)
			}
		}
		a.checkContract("limited via Redis", a.request("GET", "/v1/items", "", "Authorization", token), 429, "rate_limited")
		srv.Kill()
		for i := range 5 {
			ans := a.request("GET", "/v1/items", "", "Authorization", "Bearer fresh-"+string(rune('a'+i)))
			if !failClosed {
				if ans.status != http.StatusNoContent {
					t.Errorf("fail-open with Redis down: %d %s", ans.status, ans.body)
				}
			} else {
				if ans.status != http.StatusServiceUnavailable || ans.doc == nil || ans.doc["retryable"] != true {
					t.Errorf("fail-closed with Redis down: %d %s", ans.status, ans.body)
				} else {
					a.checkContract("fail-closed", ans, 503, ans.doc["code"].(string))
				}
			}
		}
		srv.Restart()
	}
}

// The same, with requests in flight while Redis dies: every answer is a
// pass or a problem of the contract, never a bare 500 or a hang.
func TestRedisDyingUnderConcurrentLoad(t *testing.T) {
	srv := redistest.Start(t)
	for _, failClosed := range []bool{false, true} {
		rc := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
		t.Cleanup(func() { rc.Close() })
		opts := []ratelimit.Option{ratelimit.WithRedis(rc), ratelimit.WithRedisTimeout(100 * time.Millisecond), ratelimit.WithPrefix("load" + time.Now().Format("150405.000000"))}
		if failClosed {
			opts = append(opts, ratelimit.WithFailClosed())
		}
		a := limitedMux(t, opts...)
		const workers, each = 8, 25
		type got struct {
			status int
			ans    answer
		}
		results := make(chan got, workers*each)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					req, _ := http.NewRequest("GET", a.srv.URL+"/v1/items", nil)
					req.Header.Set("Authorization", fmt.Sprintf("Bearer w%d-%d", w, i%3))
					res, err := a.srv.Client().Do(req)
					if err != nil {
						results <- got{status: -1}
						continue
					}
					body, _ := io.ReadAll(res.Body)
					res.Body.Close()
					ans := answer{status: res.StatusCode, header: res.Header, body: body}
					if strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
						_ = json.Unmarshal(body, &ans.doc)
					}
					results <- got{status: res.StatusCode, ans: ans}
				}
			}()
		}
		time.Sleep(20 * time.Millisecond)
		srv.Kill()
		wg.Wait()
		close(results)
		counts := map[int]int{}
		for r := range results {
			counts[r.status]++
			// A few of each kind get the full check, which reads the whole
			// log; every answer must be of an expected kind.
			full := counts[r.status] <= 5
			switch {
			case r.status == http.StatusNoContent:
			case r.status == http.StatusTooManyRequests && r.ans.doc != nil:
				if full {
					a.checkContract("limited under load", r.ans, 429, "rate_limited")
				}
			case r.status == http.StatusServiceUnavailable && failClosed && r.ans.doc != nil:
				if full {
					a.checkContract("fail-closed under load", r.ans, 503, r.ans.doc["code"].(string))
				}
			default:
				t.Errorf("fail-closed %v: answer %d %s", failClosed, r.status, r.ans.body)
			}
		}
		t.Logf("fail-closed %v: %v", failClosed, counts)
		srv.Restart()
	}
}
