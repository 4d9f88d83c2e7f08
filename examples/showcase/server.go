package main

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/redis/go-redis/v9"

	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/problemdocs"
	"github.com/faultline-go/faultline/ratelimit"
)

type server struct {
	handler http.Handler
	writer  *problem.Writer
	close   func() error
}

func newServer(cfg config, logger *slog.Logger, getenv func(string) string) (*server, error) {
	wr := newWriter(logger, cfg)
	orders := newOrderStore()

	limiter, closeRedis, err := newLimiter(cfg, logger, getenv("REDIS_URL"))
	if err != nil {
		return nil, err
	}

	r := chi.NewRouter()
	r.Use(middleware.Stack(
		middleware.WithWriter(wr),
		middleware.WithBodyLimit(cfg.bodyLimit),
		middleware.WithRequestTimeout(cfg.timeout),
	))
	// The showcase listens on loopback with no proxy in front, so the peer
	// address is the client; behind a proxy use ClientIPFromXFF with its
	// prefixes instead.
	r.Use(chimw.ClientIPFromRemoteAddr)
	r.NotFound(middleware.NotFound())
	r.MethodNotAllowed(middleware.MethodNotAllowed())

	// The catalog the type URIs point at.
	r.Handle("/problems/*", problemdocs.Handler(problemdocs.WithWriter(wr)))
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Route("/v1", func(r chi.Router) {
		r.Method(http.MethodPost, "/orders", wr.Handler(orders.create))
		r.Method(http.MethodGet, "/orders/{id}", wr.Handler(orders.get))
		r.Method(http.MethodDelete, "/orders/{id}", wr.Handler(orders.remove))
		r.Get("/panic", func(http.ResponseWriter, *http.Request) {
			panic("pricing table for region eu-west-3 was never loaded")
		})
		slow := slowHandler(cfg.slow)
		r.Get("/slow", slow)
		r.Post("/slow", slow)
		r.Method(http.MethodGet, "/upstream", wr.Handler(callUpstream))
		r.With(limiter.Handler).Get("/limited", func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, http.StatusOK, map[string]string{"status": "within the limit"})
		})
	})
	return &server{handler: r, writer: wr, close: closeRedis}, nil
}

// newLimiter counts in memory, or in Redis when redisURL is set so that
// every instance pointed at it shares the limit.
func newLimiter(cfg config, logger *slog.Logger, redisURL string) (*ratelimit.Limiter, func() error, error) {
	policy := ratelimit.Policy{Name: "showcase-limited", Limit: cfg.limit, Window: cfg.limitWindow, Key: ratelimit.ByIP}
	var opts []ratelimit.Option
	closeFn := func() error { return nil }
	if redisURL != "" {
		ropts, err := redis.ParseURL(redisURL)
		if err != nil {
			// The URL may carry a password: say which variable is wrong, not
			// what it holds.
			return nil, nil, errors.New("REDIS_URL is not a valid redis:// URL")
		}
		// ratelimit bounds each Redis call with a context deadline; the
		// client only honours it with this set.
		ropts.ContextTimeoutEnabled = true
		client := redis.NewClient(ropts)
		opts = append(opts, ratelimit.WithRedis(client))
		closeFn = client.Close
	}
	l, err := ratelimit.New([]ratelimit.Policy{policy}, opts...)
	if err != nil {
		_ = closeFn()
		return nil, nil, err
	}
	return l, closeFn, nil
}

// slowHandler works for d, longer than the request deadline, and gives up
// as soon as the request's context is done: the timeout middleware has
// answered the client by then, so there is nothing left to write.
func slowHandler(d time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			writeJSON(w, http.StatusOK, map[string]string{"status": "finished"})
		case <-r.Context().Done():
		}
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
