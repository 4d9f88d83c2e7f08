package benchmarks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/httprate"
	httprateredis "github.com/go-chi/httprate-redis"
	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"

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
	addr, redisPID := startRedisServer(b)
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
			// A Redis timeout a loaded machine cannot miss: a timed-out
			// batch would count in process and flatter the row.
			return ratelimit.LimitBy(rlLimit, rlWindow, rlKey, ratelimit.WithRedis(newClient()),
				ratelimit.WithPrefix("bench:fl:"), ratelimit.WithRedisTimeout(5*time.Second))
		}},
		{"redis/httprate-redis", func() func(http.Handler) http.Handler {
			return httprate.LimitBy(rlLimit, rlWindow, rlKey,
				httprateredis.WithRedisLimitCounter(&httprateredis.Config{Client: newClient(), PrefixKey: "bench:hr"}))
		}},
		{"redis/redis_rate", func() func(http.Handler) http.Handler {
			// go-redis/redis_rate v10: GCRA, one script per request.
			l := redis_rate.NewLimiter(newClient())
			limit := redis_rate.Limit{Rate: rlLimit, Burst: rlLimit, Period: rlWindow}
			return check(func(ctx context.Context, key string) error {
				_, err := l.Allow(ctx, "bench:rr:"+key, limit)
				return err
			})
		}},
		{"redis/floor_evalsha", func() func(http.Handler) http.Handler {
			// The one-round-trip floor: a script that does nothing, one
			// EVALSHA per request, as any limiter of one script per request
			// pays at least.
			c, noop := newClient(), redis.NewScript("return 1")
			return check(func(ctx context.Context, key string) error {
				return noop.Run(ctx, c, []string{key}).Err()
			})
		}},
		{"redis/rueidis_script", func() func(http.Handler) http.Handler {
			// faultline's own sliding-window script through rueidis'
			// automatic pipelining: the other way to batch (see README).
			src, err := os.ReadFile("../ratelimit/sliding_window.lua")
			if err != nil {
				b.Fatal(err)
			}
			c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableCache: true})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(c.Close)
			script := rueidis.NewLuaScript(string(src))
			return check(func(ctx context.Context, key string) error {
				now := time.Now()
				start := now.Truncate(rlWindow)
				base := "bench:ru:{" + key + "}:"
				keys := []string{base + strconv.FormatInt(start.UnixMilli(), 10), base + strconv.FormatInt(start.Add(-rlWindow).UnixMilli(), 10)}
				// One check's record, as the limiter packs it (see
				// sliding_window.lua): its two keys, then the numbers.
				rec := binary.LittleEndian.AppendUint16(nil, 1)
				rec = binary.LittleEndian.AppendUint16(rec, 2)
				for _, n := range []int64{rlLimit, rlWindow.Microseconds(), now.Sub(start).Microseconds(), (2 * rlWindow).Milliseconds(), 0} {
					rec = binary.LittleEndian.AppendUint64(rec, uint64(n))
				}
				return script.Exec(ctx, c, keys, []string{string(rec)}).Error()
			})
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
				// CPU time, of this process and of redis-server, is what a
				// check costs whatever else the machine runs: wall time on a
				// shared machine swings with the neighbours' load.
				self0, redis0 := processCPU(0), processCPU(redisPID)
				runs0 := scriptRuns(b, addr)
				defer func() {
					if n := float64(b.N); strings.HasPrefix(c.name, "redis/") {
						b.ReportMetric(float64(processCPU(0)-self0)/n, "cpu-ns/op")
						b.ReportMetric(float64(processCPU(redisPID)-redis0)/n, "redis-cpu-ns/op")
						// How many checks one script run served: 1 for one
						// script per request, more when checks are batched.
						if runs := scriptRuns(b, addr) - runs0; runs > 0 {
							b.ReportMetric(n/float64(runs), "checks/script")
						}
					}
				}()
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

// check is a middleware around a contender that has no http.Handler of its
// own: a failed call answers 500, which the benchmark reports.
func check(f func(ctx context.Context, key string) error) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := f(r.Context(), r.Header.Get("X-Key")); err != nil {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

type benchWriter struct {
	h      http.Header
	status int
}

func (w *benchWriter) Header() http.Header         { return w.h }
func (w *benchWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *benchWriter) WriteHeader(s int)           { w.status = s }

// scriptRuns is how many EVALSHA and EVAL commands the redis-server at
// addr has run since it started.
func scriptRuns(b *testing.B, addr string) int64 {
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, line := range strings.Split(info, "\n") {
		for _, cmd := range []string{"cmdstat_evalsha:calls=", "cmdstat_eval:calls="} {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), cmd); ok {
				v, _ := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
				n += v
			}
		}
	}
	return n
}

// processCPU is the user and system time a process has used so far, from
// /proc (pid 0: this one), or 0 where /proc cannot tell.
func processCPU(pid int) time.Duration {
	name := "/proc/self/stat"
	if pid != 0 {
		name = "/proc/" + strconv.Itoa(pid) + "/stat"
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return 0
	}
	// The fields after the parenthesised command name; utime and stime are
	// the 14th and 15th of the whole line, in clock ticks of 10ms.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// startRedisServer runs a redis-server on a free loopback port for the
// benchmark (the kit's internal/redistest is out of reach from this module)
// and returns its address and process ID.
func startRedisServer(b *testing.B) (string, int) {
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
				return addr, cmd.Process.Pid
			}
		}
	}
	b.Fatal("redis-server did not start")
	return "", 0
}
