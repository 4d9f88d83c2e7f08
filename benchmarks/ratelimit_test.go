package benchmarks

import (
	"bufio"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/httprate"
	httprateredis "github.com/go-chi/httprate-redis"
	"github.com/redis/go-redis/v9"

	"github.com/faultline-go/faultline/ratelimit"
)

// The rate-limit benchmarks run every contender with 32 concurrent clients
// (b.SetParallelism scaled to GOMAXPROCS) and a limit no client reaches, so
// they measure the cost of admitting a request: for the Redis contenders
// that is dominated by round trips and by whether requests queue behind a
// process-wide lock (httprate's RateLimiter holds one across Get and
// IncrementBy). "distinct" gives every client goroutine its own key, as
// per-client limits do; "shared" puts all of them on one key.
//
//	go test -run '^$' -bench RateLimit -benchmem ./benchmarks/
const (
	rlClients = 32
	rlLimit   = math.MaxInt32
	rlWindow  = time.Minute
)

func rlKey(r *http.Request) (string, error) { return r.Header.Get("X-Key"), nil }

func BenchmarkRateLimit(b *testing.B) {
	addr := startRedisServer(b)
	// Both Redis contenders get equally generous clients; faultline needs
	// ContextTimeoutEnabled for its per-call timeout.
	newClient := func() *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 2 * rlClients, ContextTimeoutEnabled: true})
		b.Cleanup(func() { _ = c.Close() })
		return c
	}
	contenders := []struct {
		name string
		mw   func() func(http.Handler) http.Handler
	}{
		{"memory/faultline", func() func(http.Handler) http.Handler {
			return ratelimit.LimitBy(rlLimit, rlWindow, rlKey)
		}},
		{"memory/httprate", func() func(http.Handler) http.Handler {
			return httprate.LimitBy(rlLimit, rlWindow, rlKey)
		}},
		{"redis/faultline", func() func(http.Handler) http.Handler {
			return ratelimit.LimitBy(rlLimit, rlWindow, rlKey, ratelimit.WithRedis(newClient()), ratelimit.WithPrefix("bench:fl:"))
		}},
		{"redis/httprate-redis", func() func(http.Handler) http.Handler {
			return httprate.LimitBy(rlLimit, rlWindow, rlKey,
				httprateredis.WithRedisLimitCounter(&httprateredis.Config{Client: newClient(), PrefixKey: "bench:hr"}))
		}},
	}
	for _, keys := range []string{"distinct", "shared"} {
		for _, c := range contenders {
			b.Run(keys+"/"+c.name, func(b *testing.B) {
				h := c.mw()(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
				b.SetParallelism(max(1, rlClients/runtime.GOMAXPROCS(0)))
				var next atomic.Int64
				b.ReportAllocs()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					key := "shared"
					if keys == "distinct" {
						key = "client-" + strconv.FormatInt(next.Add(1), 10)
					}
					r := httptest.NewRequest(http.MethodGet, "/", nil)
					r.Header.Set("X-Key", key)
					w := &benchWriter{h: http.Header{}}
					for pb.Next() {
						clear(w.h)
						w.status = 0
						h.ServeHTTP(w, r)
						if w.status != 0 {
							b.Errorf("status %d: the limit must never be reached", w.status)
							return
						}
					}
				})
			})
		}
	}
}

type benchWriter struct {
	h      http.Header
	status int
}

func (w *benchWriter) Header() http.Header         { return w.h }
func (w *benchWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *benchWriter) WriteHeader(s int)           { w.status = s }

// startRedisServer runs a redis-server on a free loopback port for the
// benchmark (the kit's internal/redistest is out of reach from this module).
func startRedisServer(b *testing.B) string {
	b.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			b.Fatal("redis-server not found")
		}
		b.Skip("redis-server not found; install it to run the rate-limit benchmarks")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no", "--dir", b.TempDir())
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			_, _ = c.Write([]byte("PING\r\n"))
			line, _ := bufio.NewReader(c).ReadString('\n')
			_ = c.Close()
			if line == "+PONG\r\n" {
				return addr
			}
		}
	}
	b.Fatal("redis-server did not start")
	return ""
}
