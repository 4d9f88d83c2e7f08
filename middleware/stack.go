package middleware

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
)

// Option configures a middleware. Options that belong to another layer (a
// body limit given to Recover, say) are ignored.
type Option func(*config)

type config struct {
	writer  *problem.Writer
	logger  *slog.Logger
	limit   int64
	timeout time.Duration
	corr    []correlation.Option
	// acceptor is set by Stack alone: the layers mounted one by one leave
	// correlation to correlation.Middleware.
	acceptor *correlation.Acceptor
}

// WithWriter sets the problem writer. A layer given one also hands it to
// everything below through the request's context (problem.FromContext), so
// chi's NotFound and MethodNotAllowed handlers, the rate limiter and
// problem.Write in handlers use it without being told again. Without one, a
// layer uses the writer the request arrived with, else problem.Default()
// at the time of the request (so a later problem.SetDefault still applies).
func WithWriter(w *problem.Writer) Option { return func(c *config) { c.writer = w } }

// WithLogger sets where failures that cannot go through the problem writer
// are logged: a panic inside the writer itself. The default is the problem
// writer's own logger, where every problem is logged.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithBodyLimit sets Stack's request body limit in bytes; zero (the
// default) sets none.
func WithBodyLimit(n int64) Option { return func(c *config) { c.limit = n } }

// WithTimeout sets Stack's request deadline; zero (the default) sets none.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithCorrelation passes options to the correlation middleware Stack
// includes.
func WithCorrelation(opts ...correlation.Option) Option {
	return func(c *config) { c.corr = append(c.corr, opts...) }
}

func newConfig(opts []Option) *config {
	c := &config{}
	for _, o := range opts {
		o(c)
	}
	return c
}

var problemWriterKey any = problemhook.ContextKey{}

// problemWriter is the configured Writer, else the one ctx carries (Stack's,
// for chi's NotFound and MethodNotAllowed handlers, which run inside it),
// else problem.Default().
func (c *config) problemWriter(ctx context.Context) *problem.Writer {
	if c.writer != nil {
		return c.writer
	}
	return problem.FromContext(ctx)
}

func (st *state) log() *slog.Logger {
	if st.cfg.logger != nil {
		return st.cfg.logger
	}
	return st.writer().Logger()
}

// Stack returns the recommended middleware chain as one middleware:
// correlation (outermost, so every log record and problem carries the ID),
// then recover, guard, body limit and timeout. All five keep their
// per-request state in a single allocation, which is why Stack costs less
// than the same layers mounted one by one. Under an outer
// correlation.Middleware, Stack keeps that middleware's ID.
//
//	r.Use(middleware.Stack(middleware.WithBodyLimit(1<<20), middleware.WithTimeout(5*time.Second)))
func Stack(opts ...Option) func(http.Handler) http.Handler {
	cfg := newConfig(opts)
	cfg.acceptor = correlation.NewAcceptor(cfg.corr...)
	if cfg.limit < 0 {
		cfg.limit = 0
	}
	if cfg.timeout < 0 {
		cfg.timeout = 0
	}
	l := cfg.layer(true, true)
	return func(next http.Handler) http.Handler {
		h := l(next).(*layer)
		h.headAsGet = true
		return h
	}
}

// layer is every faultline middleware: which parts are on depends on the
// constructor. Layers on the same request share one state when they can.
type layer struct {
	cfg     *config
	recover bool
	guard   bool
	// headAsGet: chi routes a HEAD request to the GET route of its path
	// (Stack only; see headAsGet).
	headAsGet bool
	next      http.Handler
}

func (c *config) layer(recover, guard bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return &layer{cfg: c, recover: recover, guard: guard, next: next}
	}
}

func (l *layer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st := joinable(w, r)
	// A second deadline, or problems written with another configuration,
	// need a state of their own.
	own := st == nil || l.cfg.timeout > 0 && st.timeout > 0 ||
		st.cfg.writer != l.cfg.writer || st.cfg.logger != l.cfg.logger
	if own {
		st = newState(w, r, l.cfg)
		r = r.WithContext(st)
		st.req = r
	}
	defer l.finish(st, own)
	if l.cfg.acceptor != nil {
		// Before the timeout is armed, so the ID header is on the real
		// header map and goes out with a timeout problem too.
		l.cfg.acceptor.Accept(&st.corr, w, r)
	}
	if l.guard {
		st.guard = true
	}
	if l.headAsGet {
		st.headAsGet = true
		if r.Method == http.MethodHead {
			routeHeadAsGet(r)
		}
	}
	if l.cfg.limit > 0 {
		var ok bool
		if r, ok = st.limitBody(r, l.cfg.limit, own); !ok {
			return
		}
	}
	if l.cfg.timeout > 0 {
		st.arm(l.cfg.timeout)
	}
	l.next.ServeHTTP(st, r)
}

// finish is deferred so that it runs on a panic too; it is the function
// that calls recover, as recover requires.
func (l *layer) finish(st *state, own bool) {
	var v any
	if l.recover {
		v = recover()
	}
	if v == nil && own && st.pending != 0 {
		// The handler returned after a bare error status without a body.
		st.writeReplacement(nil)
	}
	if l.cfg.timeout > 0 && st.timer != nil {
		st.disarm()
	}
	if v != nil {
		l.recovered(st, v)
	}
	if own && st.flags.Load()&fAbort != 0 {
		panic(http.ErrAbortHandler)
	}
}
