package middleware

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

// Timeout gives each request a deadline of d. When it passes before the
// handler has started its response, the client gets a timeout problem (503,
// see the package documentation) at that moment, and everything the handler
// writes afterwards is refused with http.ErrHandlerTimeout. A response that
// has already started is left alone: the handler sees ctx.Done() and ends it
// as it can, and the timeout is logged (once, with response_started). The handler runs on the request's own goroutine and its success
// is not buffered.
//
// Headers the handler sets are kept apart until it starts its response, so
// a timeout problem carries only the headers set before Timeout ran: put
// CORS and similar middlewares outside it. Timeout panics if d <= 0.
func Timeout(d time.Duration, opts ...Option) func(http.Handler) http.Handler {
	if d <= 0 {
		panic("middleware: Timeout needs a positive duration")
	}
	cfg := newConfig(opts)
	cfg.timeout = d
	return cfg.layer(0)
}

// deadlineTimer is a reusable time.AfterFunc timer: arming one per request
// would cost two allocations (the timer and the bound callback).
type deadlineTimer struct {
	t  *time.Timer
	st atomic.Pointer[state]
}

var timerPool = sync.Pool{New: func() any {
	dt := &deadlineTimer{}
	dt.t = time.AfterFunc(time.Hour, dt.fire)
	dt.t.Stop()
	return dt
}}

func (dt *deadlineTimer) fire() {
	if st := dt.st.Load(); st != nil {
		st.flags.Or(fExpired)
		st.expire()
	}
}

// arm starts the request's deadline. It runs before the handler, so nothing
// has seen the state's Done channel yet.
func (st *state) arm(d time.Duration) {
	st.timeout = d
	st.Now()
	if st.req.ContentLength != 0 {
		st.flags.Or(fHasBody)
	}
	dt := timerPool.Get().(*deadlineTimer)
	dt.st.Store(st)
	st.timer = dt
	dt.t.Reset(d)
}

// disarm stops the timer when the handler returns. If the timer already
// fired, it waits for the callback to finish writing (through mu), so
// ServeHTTP never returns while the underlying writer is in use.
func (st *state) disarm() {
	dt := st.timer
	if dt.t.Stop() {
		dt.st.Store(nil)
		timerPool.Put(dt)
		if st.deadlinePassed() {
			// The handler saw ctx.Done() and returned before our timer ran:
			// without this it would leave an empty 200, a third state.
			st.expire()
		}
	} else {
		// The timer fired, so the deadline passed; its callback may not
		// have taken the lock yet. Whoever gets there first writes the
		// problem, and expire's flags stop the other. Waiting on mu also
		// keeps ServeHTTP from returning while the callback writes.
		// The timer is not put back: a callback that has not run yet would
		// otherwise read whichever state the next request stored.
		st.expire()
		st.mu.Lock()
		st.flags.Or(fFinished)
		st.mu.Unlock()
	}
	if f := st.flags.Load(); f&(fTimedOut|fReplaced|fHijacked) == 0 && (f&fStarted == 0 || int32(len(st.shadow)) != st.committed) {
		// The timer can no longer write: the handler's headers, including
		// trailers set after the body, are those of its own response. (A
		// response the timer or the guard wrote instead keeps its own.)
		st.commitHeaders()
	}
	st.releaseShadow()
	if c := st.dctx.Load(); c != nil {
		c.cancel()
	}
}

// deadlinePassed reports whether the handler can have seen the deadline
// pass: through the Done channel of the real deadline context, or through
// Err, which reports it once the timer fired. The timer is the clock here,
// so no other reading of it is needed.
func (st *state) deadlinePassed() bool {
	if c := st.dctx.Load(); c != nil && errors.Is(c.ctx.Err(), context.DeadlineExceeded) {
		return true
	}
	return st.flags.Load()&fExpired != 0
}

func (st *state) expire() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if f := st.flags.Load(); f&(fStarted|fFinished|fHijacked|fTimedOut) != 0 {
		if f&(fStarted|fFinished|fHijacked|fTimedOut|fLateDeadline) == fStarted {
			st.logLateDeadline()
		}
		return
	}
	st.flags.Or(fTimedOut | fStarted)
	if st.flags.Load()&fHasBody != 0 {
		// A handler blocked reading a slowly uploaded body holds the body's
		// lock, and net/http's first write of a response waits on that lock
		// to discard the unread rest: the problem would go out only when the
		// upload ends. An expired read deadline ends the read at once (and
		// the connection closes after the response, as it must with a body
		// left unread). Full duplex would not do: the handler would stay
		// blocked for as long as the client trickles.
		_ = http.NewResponseController(st.w).SetReadDeadline(time.Now())
		// The deadline stays on the connection: when the handler had read
		// the whole body, net/http would keep it alive and the next request
		// on it would start with its context cancelled. It must close.
		st.w.Header().Set("Connection", "close")
	}
	p := timeoutProblem(st.req).
		WithLogAttrs(slog.Duration("timeout", st.timeout), slog.String("written_by", "faultline.timeout"))
	// The client must have the whole problem now, not when the stuck
	// handler finally returns: so it goes out with a Content-Length and is
	// flushed.
	bw := &bufferedWriter{ResponseWriter: st.w}
	if !st.safeWrite(bw, p) {
		return
	}
	if st.req.Method != http.MethodHead {
		st.w.Header().Set("Content-Length", strconv.Itoa(bw.buf.Len()))
	}
	st.w.WriteHeader(bw.status)
	_, _ = st.w.Write(bw.buf.Bytes())
	_ = http.NewResponseController(st.w).Flush()
}

// logLateDeadline reports a deadline that passed after the handler started
// its response: the client may get a response cut short, which must not go
// unrecorded. It is logged once, never written: the handler still owns the
// response and its header map, so the record is built apart from both.
func (st *state) logLateDeadline() {
	st.flags.Or(fLateDeadline)
	st.writer().Report(st, correlation.ID(st), problem.New(problem.Timeout).WithLogAttrs(
		slog.Bool("response_started", true),
		slog.String("method", st.req.Method),
		slog.String("path", sanitize.Log(st.req.URL.Path)),
		slog.Duration("timeout", st.timeout),
		slog.String("written_by", "faultline.timeout")))
}

// timeoutRetryAfter is when a client may retry a request that timed out
// and is safe to replay. The deadline is the server's own, so a retry has
// as much chance as the first attempt once the load behind it eases; a
// second is long enough not to feed that load and short enough to be
// invisible to a person.
const timeoutRetryAfter = time.Second

// timeoutProblem is the problem for a request whose deadline passed. A
// retryable one carries Retry-After and retry_after_ms, so a client never
// guesses the wait; one that is not retryable (a write without an
// Idempotency-Key, whose outcome is unknown, so its action is verify)
// carries neither.
func timeoutProblem(r *http.Request) *problem.Problem {
	p := problem.New(problem.Timeout).ForRequest(r)
	if p.Retryable() {
		return p.WithRetryAfter(timeoutRetryAfter)
	}
	return p
}

// bufferedWriter holds the timeout problem back until its length is known.
type bufferedWriter struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
}

func (b *bufferedWriter) WriteHeader(code int)        { b.status = code }
func (b *bufferedWriter) Write(p []byte) (int, error) { return b.buf.Write(p) }
