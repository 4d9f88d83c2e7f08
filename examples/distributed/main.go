// Command distributed runs two instances of one API on two ports, the way
// two replicas run behind a load balancer, and shares their rate limit
// through one Redis: a client gets the limit once, however its requests are
// spread across the instances. Each instance has its own Limiter and its own
// Redis client, exactly as separate processes would; only Redis is shared.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/redis/go-redis/v9"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/ratelimit"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/faultline-go/faultline/serve"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "distributed:", err)
		os.Exit(1)
	}
}

type config struct {
	addrs    [2]string
	redisURL string
	limit    int
	window   time.Duration
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("distributed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.addrs[0], "addr-a", "127.0.0.1:8091", "listen address of instance a")
	fs.StringVar(&cfg.addrs[1], "addr-b", "127.0.0.1:8092", "listen address of instance b")
	fs.StringVar(&cfg.redisURL, "redis", "redis://127.0.0.1:6379/0", "Redis URL both instances count in")
	fs.IntVar(&cfg.limit, "limit", 5, "requests per window per client, across both instances")
	fs.DurationVar(&cfg.window, "window", 10*time.Second, "rate-limit window")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if cfg.limit <= 0 || cfg.window <= 0 {
		return cfg, errors.New("-limit and -window must be positive")
	}
	return cfg, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	ropts, err := redis.ParseURL(cfg.redisURL)
	if err != nil {
		// The URL may hold a password, so it is not repeated.
		return errors.New("-redis is not a valid redis:// URL")
	}
	// ratelimit bounds each Redis call with a context deadline; the client
	// only honours it with this set.
	ropts.ContextTimeoutEnabled = true
	base := slog.New(correlation.NewHandler(sanitize.NewLogHandler(slog.NewJSONHandler(stderr, nil))))
	// go-redis logs failed dials and the like on its own, process-wide:
	// as records of the same JSON log, not as plain text lines beside it.
	redis.SetLogger(redisLog{base})

	var clients []*redis.Client
	// Servers drain before the Redis clients close, so a request in flight
	// still reaches its counter.
	defer func() {
		for _, c := range clients {
			_ = c.Close()
		}
	}()
	// One instance failing stops the other.
	ctx, stopAll := context.WithCancel(ctx)
	defer stopAll()
	errc := make(chan error, len(cfg.addrs))
	started := 0
	for i, addr := range cfg.addrs {
		name := string(rune('a' + i))
		logger := base.With(slog.String("instance", name))
		client := redis.NewClient(ropts)
		clients = append(clients, client)
		// One Writer per instance, given to its Stack and to serve.Run.
		wr := problem.NewWriter(problem.WithLogger(logger))
		h, err := newInstance(name, client, wr, cfg)
		if err != nil {
			return err
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "instance %s listening on http://%s\n", name, ln.Addr())
		started++
		go func() {
			errc <- serve.Run(ctx, serve.NewServer(h), ln, serve.WithWriter(wr), serve.WithShutdownBudget(5*time.Second))
		}()
	}
	fmt.Fprintf(stdout, "\n# %d requests per %s in total, whichever instance they reach:\n", cfg.limit, cfg.window)
	fmt.Fprintf(stdout, "for i in $(seq %d); do for a in %s %s; do curl -s -o /dev/null -w \"$a %%{http_code}\\n\" http://$a/v1/quota; done; done\n",
		cfg.limit, cfg.addrs[0], cfg.addrs[1])

	var first error
	for range started {
		if err := <-errc; err != nil && first == nil {
			first = err
			stopAll()
		}
	}
	return first
}

func newInstance(name string, client redis.UniversalClient, wr *problem.Writer, cfg config) (http.Handler, error) {
	// Both instances use this policy name with the same Redis: that, and
	// nothing else, is what makes them share one bucket per client.
	limiter, err := ratelimit.New([]ratelimit.Policy{{
		Name: "distributed-quota", Limit: cfg.limit, Window: cfg.window, Key: ratelimit.ByIP,
	}}, ratelimit.WithRedis(client))
	if err != nil {
		return nil, err
	}
	r := chi.NewRouter()
	r.Use(middleware.Stack(
		middleware.WithWriter(wr),
		middleware.WithRequestTimeout(2*time.Second),
	))
	r.NotFound(middleware.NotFound())
	r.MethodNotAllowed(middleware.MethodNotAllowed())
	r.With(limiter.Handler).Get("/v1/quota", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"served_by": name})
	})
	return r, nil
}

// redisLog turns each line go-redis logs into a warning record of the JSON
// log. The text passes the log tier: go-redis may quote an address with
// its credentials.
type redisLog struct{ logger *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	if ctx == nil {
		// Some of go-redis's background work logs without one; the
		// correlation handler reads it.
		ctx = context.Background()
	}
	text := strings.TrimRight(fmt.Sprintf(format, v...), "\n")
	l.logger.LogAttrs(ctx, slog.LevelWarn, "redis client", sanitize.LogAttr("redis_log", text))
}
