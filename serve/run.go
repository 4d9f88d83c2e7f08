package serve

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/problem"
)

// DefaultShutdownBudget is how long Run's shutdown may take in all.
// Kubernetes sends SIGKILL 30 seconds after SIGTERM by default; ten
// seconds leaves room for whatever main does after Run returns.
const DefaultShutdownBudget = 10 * time.Second

// DefaultRetryAfter is the Retry-After of a request answered by shutdown:
// another instance, or this one restarted, can usually take it by then.
const DefaultRetryAfter = time.Second

// ErrResponsesCut is returned by Run when the budget ended while some
// handlers were in the middle of sending a response: those clients got a
// truncated response, and each is logged with the problem it could not be
// sent.
var ErrResponsesCut = errors.New("serve: shutdown cut responses that had started")

// Run serves hs on ln until ctx ends, then shuts down within the budget
// (WithShutdownBudget):
//
//  1. It stops accepting, closes idle connections, and logs how many
//     requests are in flight. A request that still arrives on an open
//     connection is answered with unavailable, outcome not_started.
//  2. In-flight requests have the budget, less a short grace, to finish.
//     If they all do, Run logs the drain and returns nil.
//  3. Otherwise every request still running is answered with an
//     unavailable problem (503, Connection: close): outcome not_committed
//     for safe methods, unknown for others, which are retryable with
//     Retry-After only when they carried an Idempotency-Key. Request
//     contexts are cancelled so handlers can stop, and after the grace
//     (at most a second) the remaining connections are closed.
//
// Run installs its request tracking around hs.Handler and chains
// hs.BaseContext, so hs must not be serving already. It returns the
// error Serve failed with, ErrResponsesCut if a started response had to
// be cut, and nil otherwise.
//
// net/http's error log goes to the writer's logger (WithWriter), at Warn
// with source=net/http, unless hs.ErrorLog was set to a log of the
// caller's own.
func Run(ctx context.Context, hs *http.Server, ln net.Listener, opts ...Option) error {
	cfg := runConfig{budget: DefaultShutdownBudget}
	for _, o := range opts {
		o(&cfg)
	}
	if ownErrorLog(hs.ErrorLog) {
		hs.ErrorLog = errorLog(cfg.writer)
	}
	next := hs.Handler
	if next == nil {
		next = http.DefaultServeMux
	}
	t, handler := newTracker(next, &cfg)
	hs.Handler = handler

	// Cancelling every request's context at the cutoff costs nothing per
	// request: they all descend from the base context.
	cutoff, cancelRequests := context.WithCancel(context.Background())
	defer cancelRequests()
	if base := hs.BaseContext; base != nil {
		hs.BaseContext = func(l net.Listener) context.Context {
			ctx, cancel := context.WithCancel(base(l))
			context.AfterFunc(cutoff, cancel)
			return ctx
		}
	} else {
		hs.BaseContext = func(net.Listener) context.Context { return cutoff }
	}

	log := logger(cfg.writer)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}

	began := time.Now()
	t.draining.Store(true)
	log.Info("shutdown: draining",
		slog.Int("in_flight", t.inFlight()),
		durationAttr("budget", cfg.budget))
	grace := min(time.Second, cfg.budget/5)
	drainCtx, cancel := context.WithTimeout(context.Background(), cfg.budget-grace)
	err := hs.Shutdown(drainCtx)
	cancel()
	if err == nil {
		<-errc
		log.Info("shutdown: drained", durationAttr("took", time.Since(began)))
		return nil
	}

	answered, broken := t.cutAll(cfg.budget)
	cancelRequests()
	// The answered clients have their problem; waiting for the handlers
	// (or the grace) before closing keeps the close from resetting a
	// connection whose response the client has not read yet.
	select {
	case <-t.drained():
	case <-time.After(grace):
	}
	_ = hs.Close()
	<-errc
	log.Warn("shutdown: budget ended with requests in flight",
		slog.Int("answered", answered),
		slog.Int("cut_mid_response", broken),
		durationAttr("took", time.Since(began)))
	if broken > 0 {
		return ErrResponsesCut
	}
	return nil
}

// durationAttr logs d as text ("1.5s"): slog's JSON handler writes a
// Duration as a count of nanoseconds, which an operator cannot read at a
// glance. Milliseconds are precision enough for a shutdown.
func durationAttr(key string, d time.Duration) slog.Attr {
	return slog.String(key, d.Round(time.Millisecond).String())
}

// Option configures Run.
type Option func(*runConfig)

type runConfig struct {
	budget      time.Duration
	writer      *problem.Writer
	correlation []correlation.Option
}

// WithWriter names the problem Writer that writes the problems of
// requests cut by shutdown and whose logger gets the shutdown records and
// net/http's error log: the one the service gives middleware.Stack. The
// default is problem.Default() at the time of the call.
func WithWriter(wr *problem.Writer) Option {
	return func(c *runConfig) { c.writer = wr }
}

// WithShutdownBudget replaces DefaultShutdownBudget; d <= 0 keeps the
// default.
func WithShutdownBudget(d time.Duration) Option {
	return func(c *runConfig) {
		if d > 0 {
			c.budget = d
		}
	}
}

// WithCorrelation passes the options the service gives Stack's
// WithCorrelation (inbound and response header names), so Run accepts a
// request's ID exactly as the rest of the stack does. Without it Run
// already does what Stack does by default: it accepts and echoes the ID
// under the writer's correlation header (problem.WithCorrelationHeader)
// and reports a rejected inbound ID to the writer's logger.
func WithCorrelation(opts ...correlation.Option) Option {
	return func(c *runConfig) { c.correlation = opts }
}
