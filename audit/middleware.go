package audit

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/go-chi/chi/v5"
)

// Option configures Middleware.
type Option func(*config)

type config struct {
	strict    bool
	principal func(*http.Request) string
	timeout   time.Duration
	// pending holds a token for each write under way on the sink,
	// including those the timeout gave up on (see maxPendingWrites).
	pending chan struct{}
}

// maxPendingWrites bounds the writes waiting on the sink at once. A write
// the timeout gave up on keeps waiting on a sink that ignores its context
// (a file whose fsync hangs on a dead disk), with its goroutine and event;
// unbounded, a service answering thousands of requests a second would pile
// them up until it ran out of memory. Beyond the bound the sink counts as
// refusing at once: strict mode rejects, a failure event goes to the log.
// A healthy sink has far fewer pending: requests per second times its
// latency.
const maxPendingWrites = 1024

// errSinkSaturated is the refusal of a write while maxPendingWrites wait
// on the sink.
var errSinkSaturated = errors.New("audit: too many writes pending on the sink; it is not keeping up or hangs")

// retryAfter is the retry hint of an audit_unavailable rejection: a sink
// that refused a write is usually back within seconds (a Redis failover, a
// disk's fsync stall), and the request was not started, so any client may
// send it again then.
const retryAfter = 2 * time.Second

// Strict makes the middleware write an attempt event before the handler
// and reject the request with audit_unavailable when the sink refuses it.
func Strict() Option { return func(c *config) { c.strict = true } }

// WithPrincipal names who made the request (a user id, a client id), for
// the events; it runs after the handler, so authentication middleware has
// had its turn.
func WithPrincipal(f func(*http.Request) string) Option { return func(c *config) { c.principal = f } }

// WithSinkTimeout bounds each write to the sink (default 500ms): in strict
// mode a sink slower than this rejects the request rather than stalling it.
// A sink that ignores its context keeps the writes it was given; while 1024
// of them are pending, the sink counts as refusing at once.
func WithSinkTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// Middleware records denied and failed requests to sink; see the package
// documentation for strict mode.
func Middleware(sink Sink, opts ...Option) func(http.Handler) http.Handler {
	c := config{timeout: 500 * time.Millisecond, pending: make(chan struct{}, maxPendingWrites)}
	for _, o := range opts {
		o(&c)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if c.strict {
				if err := c.write(r.Context(), sink, c.event(r, KindAttempt)); err != nil {
					problem.Write(w, r, problem.New(problem.AuditUnavailable).
						WithOutcome(problem.OutcomeNotStarted).
						WithRetryAfter(retryAfter).
						Wrap(err))
					return
				}
			}
			rec := &recorder{ResponseWriter: w, r: r}
			defer func() {
				// A panic fails the request as a 500 once the recoverer
				// above has answered; it is audited as such, then goes on
				// to that recoverer.
				if v := recover(); v != nil {
					c.recordFailure(r, http.StatusInternalServerError, string(problem.Internal), sink)
					panic(v)
				}
			}()
			next.ServeHTTP(rec, r)
			if rec.status >= 400 {
				c.recordFailure(r, rec.status, rec.code, sink)
			}
		})
	}
}

// recordFailure writes the failure event of a request that is over (or
// cancelled: the event still has to be written), or logs it whole.
func (c *config) recordFailure(r *http.Request, status int, code string, sink Sink) {
	ev := c.event(r, KindFailure)
	ev.Status, ev.Code = status, code
	if c.principal != nil {
		ev.Principal = c.principal(r)
	}
	if err := c.write(context.WithoutCancel(r.Context()), sink, ev); err != nil {
		logLost(r, ev, err)
	}
}

// write gives the sink the timeout and holds to it even when the sink does
// not watch its context (a file stuck in fsync, a lock held by a stalled
// write): the request is answered, and an event the sink accepts after the
// deadline is an attempt recorded for a request that was refused, or a
// failure both stored and logged; over-recording, never a loss.
func (c *config) write(parent context.Context, sink Sink, ev Event) error {
	select {
	case c.pending <- struct{}{}:
	default:
		return errSinkSaturated
	}
	ctx, cancel := context.WithTimeout(parent, c.timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		// The token goes back when the sink returns, not at the timeout.
		defer func() { <-c.pending }()
		done <- sink.Write(ctx, ev)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *config) event(r *http.Request, kind string) Event {
	return Event{
		Time:          time.Now().UTC(),
		Kind:          kind,
		CorrelationID: correlation.ID(r.Context()),
		Method:        r.Method,
		Route:         route(r),
	}
}

// route prefers the matched pattern (bounded, no identifiers) to the path.
// Mounted with chi's Use, the middleware runs before routing (always so
// for the strict-mode attempt), so the router is asked which pattern will
// match. A path is the client's text and passes the log tier: a token in
// a reset link must not reach the audit store in clear.
func route(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		if p := rc.RoutePattern(); p != "" {
			return p
		}
		if p := patternAhead(rc, r); p != "" {
			return p
		}
	}
	if r.Pattern != "" {
		return r.Pattern
	}
	return sanitize.Log(r.URL.EscapedPath())
}

// patternAhead asks rc's router for the pattern r will be routed to, on the
// path chi itself routes by.
func patternAhead(rc *chi.Context, r *http.Request) string {
	if rc.Routes == nil {
		return ""
	}
	path := rc.RoutePath
	if path == "" {
		path = r.URL.Path
		if r.URL.RawPath != "" {
			path = r.URL.RawPath
		}
	}
	probe := chi.NewRouteContext()
	if !rc.Routes.Match(probe, r.Method, path) {
		return ""
	}
	return probe.RoutePattern()
}

// logLost writes an event the sink refused to the log, whole, so an
// operator can replay it into the audit store.
func logLost(r *http.Request, ev Event, err error) {
	problem.FromContext(r.Context()).Logger().LogAttrs(r.Context(), slog.LevelError, "audit event not recorded",
		slog.String("kind", ev.Kind),
		slog.Time("event_time", ev.Time),
		slog.String("correlation_id", ev.CorrelationID),
		slog.String("method", ev.Method),
		slog.String("route", ev.Route),
		slog.Int("status", ev.Status),
		slog.String("code", ev.Code),
		slog.String("principal", ev.Principal),
		// The store's error may quote its connection string.
		sanitize.LogAttr("error", err.Error()),
	)
}

// recorder notes the status and the problem code of the response.
type recorder struct {
	http.ResponseWriter
	r      *http.Request
	status int
	code   string
}

// WriteHeader reads an error's code under the header the request's writer
// sends it (problem.WithCodeHeader): a service that renamed it configured
// the name once, on the writer, and its events keep their codes.
func (w *recorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
		if status >= 400 {
			if name := problemhook.FactsOf(problem.FromContext(w.r.Context())).CodeHeader; name != "" {
				w.code = w.Header().Get(name)
			}
		}
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *recorder) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController and the kit's writer reach the
// response writers below.
func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// MarkProblem and ResponseStarted pass the kit's own interfaces through, so
// a problem a handler writes below the audit middleware stays a problem.
func (w *recorder) MarkProblem() {
	if m, ok := w.ResponseWriter.(problemhook.ProblemMarker); ok {
		m.MarkProblem()
	}
}

func (w *recorder) ResponseStarted() bool {
	if s, ok := w.ResponseWriter.(problemhook.ResponseStarter); ok {
		return s.ResponseStarted()
	}
	return w.status != 0
}
