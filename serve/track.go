package serve

import (
	"bufio"
	"bytes"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faultline-go/faultline/internal/corrstate"
	"github.com/faultline-go/faultline/internal/corrwire"
	"github.com/faultline-go/faultline/problem"
)

// ErrShutdown is returned to a handler that writes after its request was
// answered with the shutdown problem.
var ErrShutdown = errors.New("serve: request answered by shutdown")

// tracker knows every request in flight, so that shutdown can count them
// and answer the ones still running when the budget ends. It sits outermost
// so it sees every request, including those the kit's middlewares answer.
type tracker struct {
	next     http.Handler
	wr       *problem.Writer
	draining atomic.Bool

	mu    sync.Mutex
	calls map[*call]struct{}
	idle  chan struct{} // closed when draining and calls is empty
}

// newTracker returns the tracker and the handler to serve: the ID is
// accepted in front of the tracker, outside the kit's Stack (which keeps
// it), so a request cut by shutdown is logged under the same correlation
// ID as everything else about it.
func newTracker(next http.Handler, cfg *runConfig) (*tracker, http.Handler) {
	t := &tracker{next: next, wr: cfg.writer, calls: map[*call]struct{}{}}
	opts := corrwire.Options(cfg.writer, cfg.correlation...)
	return t, corrstate.NewMiddleware(opts, corrwire.Env{Writer: cfg.writer})(t)
}

func (t *tracker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if t.draining.Load() {
		t.refuse(w, r)
		return
	}
	c := calls.Get().(*call)
	c.w, c.r, c.started = w, r, time.Now()
	t.mu.Lock()
	t.calls[c] = struct{}{}
	t.mu.Unlock()
	defer t.done(c)
	t.next.ServeHTTP(c, r)
}

// done unregisters c. The cutoff holds t.mu for as long as it uses any
// call, so once c is out of the map nothing else refers to it.
func (t *tracker) done(c *call) {
	t.mu.Lock()
	delete(t.calls, c)
	if t.idle != nil && len(t.calls) == 0 {
		close(t.idle)
		t.idle = nil
	}
	t.mu.Unlock()
	c.reset()
	calls.Put(c)
}

func (t *tracker) inFlight() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.calls)
}

// drained returns a channel closed once no request is in flight.
func (t *tracker) drained() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	ch := make(chan struct{})
	if len(t.calls) == 0 {
		close(ch)
	} else {
		t.idle = ch
	}
	return ch
}

// refuse answers a request that arrived after shutdown began, without
// running it: its outcome is not_started, so any client may retry it
// elsewhere.
func (t *tracker) refuse(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Connection", "close")
	p := problem.New(problem.Unavailable).
		WithDetail("The server is shutting down; the request was not started.").
		WithOutcome(problem.OutcomeNotStarted).
		WithRetryAfter(DefaultRetryAfter).
		WithLogAttrs(slog.String("written_by", "faultline.serve"))
	_ = t.writer().Write(w, r, p)
}

func (t *tracker) writer() *problem.Writer {
	if t.wr != nil {
		return t.wr
	}
	return problem.Default()
}

// cutAll answers every request still in flight and reports how many were
// answered and how many had already started a response they cannot finish.
func (t *tracker) cutAll(budget time.Duration) (answered, broken int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for c := range t.calls {
		if t.cut(c, budget) {
			answered++
		} else {
			broken++
		}
	}
	return answered, broken
}

// cut answers c with the shutdown problem if its handler has not started a
// response, and reports whether it did. A started response cannot become a
// problem: its problem is logged as not written, and the connection closes
// under it.
func (t *tracker) cut(c *call, budget time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hijacked {
		return true
	}
	p := problem.New(problem.Unavailable).
		WithDetail("The server is shutting down; the request was stopped before it finished.").
		ForRequest(c.r)
	if p.Retryable() {
		p = p.WithRetryAfter(DefaultRetryAfter)
	}
	p = p.WithLogAttrs(
		slog.String("written_by", "faultline.serve"),
		durationAttr("running", time.Since(c.started)),
		durationAttr("shutdown_budget", budget),
	)
	if c.wroteHeader {
		if c.complete() {
			// Already answered in full, as by the kit's timeout while
			// its handler runs on: nothing is lost.
			return true
		}
		_ = t.writer().Write(startedResponse{}, c.r, p)
		return false
	}
	c.cut = true
	// A handler blocked reading the body holds the body's lock, which
	// net/http's first response write waits on; a read deadline in the
	// past ends that read at once. A client that does not read must not
	// hold up the shutdown either, so the write gets a deadline too.
	rc := http.NewResponseController(c.w)
	_ = rc.SetReadDeadline(time.Now())
	_ = rc.SetWriteDeadline(time.Now().Add(cutWriteTimeout))
	// The problem goes out whole, with its length, and is flushed: the
	// handler may never return, and the connection is closed after it.
	bw := &bufferedResponse{header: c.w.Header()}
	_ = t.writer().Write(bw, c.r, p)
	h := c.w.Header()
	h.Set("Connection", "close")
	if c.r.Method != http.MethodHead {
		h.Set("Content-Length", strconv.Itoa(bw.body.Len()))
	}
	c.w.WriteHeader(bw.status)
	_, _ = c.w.Write(bw.body.Bytes())
	_ = rc.Flush()
	return true
}

// cutWriteTimeout bounds sending one shutdown problem: a few hundred bytes
// that a reading client takes in at once.
const cutWriteTimeout = 500 * time.Millisecond

// call is the ResponseWriter a tracked handler writes to. Until the
// handler starts its response, the headers it sets are kept apart from the
// real ones, so the cutoff can write the problem's headers without racing
// the handler. Calls are pooled: this wrapper is on every request.
type call struct {
	w       http.ResponseWriter
	r       *http.Request
	started time.Time

	// header holds the handler's headers until the response starts.
	header http.Header
	// live is set once the real header map is the handler's, so Header
	// needs no lock.
	live atomic.Bool

	// length is the response's Content-Length (-1 if none) and written
	// what went out of it, so the cutoff can tell a response that is
	// whole from one it would truncate.
	length  int64
	written atomic.Int64

	mu          sync.Mutex
	wroteHeader bool
	bodyless    bool
	cut         bool
	hijacked    bool
}

var calls = sync.Pool{New: func() any { return &call{header: make(http.Header)} }}

func (c *call) reset() {
	clear(c.header)
	c.w, c.r = nil, nil
	c.live.Store(false)
	c.written.Store(0)
	c.wroteHeader, c.bodyless, c.cut, c.hijacked = false, false, false, false
}

// complete reports whether a started response has been sent in full.
func (c *call) complete() bool {
	return c.bodyless || c.length >= 0 && c.written.Load() >= c.length
}

func (c *call) Header() http.Header {
	if c.live.Load() {
		return c.w.Header()
	}
	return c.header
}

func (c *call) WriteHeader(code int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writeHeader(code)
}

// writeHeader moves the handler's headers to the real response and sends
// the status, unless the cutoff answered first. 1xx statuses pass with the
// headers so far and do not start the response.
func (c *call) writeHeader(code int) {
	if c.cut || c.hijacked || c.wroteHeader {
		return
	}
	h := c.w.Header()
	for k, v := range c.header {
		h[k] = v
	}
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		c.w.WriteHeader(code)
		return
	}
	clear(c.header)
	c.wroteHeader = true
	c.bodyless = c.r.Method == http.MethodHead || code == http.StatusNoContent || code == http.StatusNotModified
	c.length = -1
	if n, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64); err == nil {
		c.length = n
	}
	c.live.Store(true)
	c.w.WriteHeader(code)
}

// Write is not under the lock once the response started: the cutoff never
// touches a started response, and a write to a slow client must not hold up
// the shutdown.
func (c *call) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.writeHeader(http.StatusOK)
	cut := c.cut
	c.mu.Unlock()
	if cut {
		return 0, ErrShutdown
	}
	n, err := c.w.Write(b)
	c.written.Add(int64(n))
	return n, err
}

func (c *call) Flush() {
	_ = c.FlushError()
}

// FlushError lets http.ResponseController flush through the wrapper.
func (c *call) FlushError() error {
	c.mu.Lock()
	c.writeHeader(http.StatusOK)
	cut := c.cut
	c.mu.Unlock()
	if cut {
		return ErrShutdown
	}
	return http.NewResponseController(c.w).Flush()
}

// Hijack hands the connection over; a hijacked request is the handler's
// to end, and shutdown leaves it alone.
func (c *call) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cut {
		return nil, nil, ErrShutdown
	}
	conn, rw, err := http.NewResponseController(c.w).Hijack()
	if err == nil {
		c.hijacked = true
	}
	return conn, rw, err
}

// Unwrap lets http.ResponseController reach deadlines and full duplex on
// the real writer.
func (c *call) Unwrap() http.ResponseWriter { return c.w }

// bufferedResponse holds the cutoff's problem until its length is known.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header         { return b.header }
func (b *bufferedResponse) WriteHeader(code int)        { b.status = code }
func (b *bufferedResponse) Write(p []byte) (int, error) { return b.body.Write(p) }

// startedResponse stands for a response that started before the cutoff:
// the Writer logs the problem as not written, and touches none of the
// handler's headers.
type startedResponse struct{}

func (startedResponse) Header() http.Header         { return http.Header{} }
func (startedResponse) WriteHeader(int)             {}
func (startedResponse) Write(p []byte) (int, error) { return len(p), nil }
func (startedResponse) ResponseStarted() bool       { return true }
