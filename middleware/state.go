package middleware

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/corrstate"
	"github.com/faultline-go/faultline/internal/logmark"
	"github.com/faultline-go/faultline/problem"
)

// Bits of state.flags. They live in one atomic word so the passthrough
// Write can decide with a single load and no lock.
const (
	// fStarted: a status line went to the underlying writer (ours or the
	// handler's); nothing may replace it any more.
	fStarted uint32 = 1 << iota
	// fReplaced: the guard replaces the handler's error response with a
	// problem, so the handler's body is swallowed.
	fReplaced
	// fTimedOut: the deadline passed first and the timeout problem went out;
	// the handler's output is refused with http.ErrHandlerTimeout.
	fTimedOut
	fHijacked
	// fFinished: ServeHTTP is returning; a late timer must not write.
	fFinished
	// fTripped: the body limit cut the body, so a bare error status the
	// handler sends afterwards is really request_too_large.
	fTripped
	// fAbort: writing a problem panicked; the connection is aborted when the
	// handler returns, because the response may be half written.
	fAbort
	// fProblem: problem.Writer announced that the response it is starting is
	// a problem, in whatever representation it negotiated.
	fProblem
	// fExpired: the deadline timer fired; Err reports DeadlineExceeded.
	fExpired
	// fHasBody: the request came with a body the handler may be reading
	// when the deadline passes.
	fHasBody
	// fLateDeadline: the deadline passed after the response started; the
	// timeout was logged, and the handler ends its response as it can.
	fLateDeadline
)

// state is everything faultline keeps per request in one allocation: it is
// the ResponseWriter the handler writes to (guard, timeout and recover
// bookkeeping), the request's context (deadline without context.WithTimeout's
// allocations, correlation without a context of correlation.Middleware's),
// and the body limit's reader. Layers nested on the same request join the
// state of the outermost one instead of wrapping again.
type state struct {
	context.Context // the parent

	w   http.ResponseWriter // what this state wraps
	srv http.ResponseWriter // the writer http.MaxBytesReader must see: the server's own
	req *http.Request       // the request as the handler sees it, for problems written on its behalf
	// reqCopy is the request with this state as its context, when the
	// layer that made the state passed it on (req then points here).
	reqCopy http.Request
	cfg     *config

	flags atomic.Uint32
	guard bool
	// headAsGet: Stack serves HEAD on GET routes, so MethodNotAllowed lists
	// HEAD wherever GET is allowed.
	headAsGet bool
	// pending is the bare error status the guard has decided to replace
	// but not written yet: the problem goes out with the handler's first
	// body write (which its log record quotes) or when the handler returns,
	// or at the deadline if the handler stalls before either. Whoever
	// swaps it to zero writes the problem (see takeReplacement).
	pending atomic.Int32
	// committed is the shadow's size when it was last committed: once the
	// response has started, only new keys (trailers) need committing again.
	committed int32
	// mu orders the decision to start the response between the handler's
	// goroutine and the timeout timer's.
	mu sync.Mutex

	timeout time.Duration
	// now is the time the request reached the state, read once for a
	// generated ID and the deadline (now + timeout) both (see Now).
	now   time.Time
	timer *deadlineQueue // the layer's, once the deadline is armed
	link  deadlineLink
	dctx  atomic.Pointer[deadlineCtx]
	// shadow is the header map the handler sees while a timeout may still
	// fire: the timer writes the problem with the real map, and the handler
	// must never touch that one concurrently.
	shadow http.Header
	// pooled is the shadow map to recycle (not the throwaway one a handler
	// gets after a timeout).
	pooled http.Header

	limit int64
	body  limitedBody

	// corr is the request's correlation when Stack accepted it; otherwise
	// it stays zero and lookups reach the parent's.
	corr corrstate.Request

	// mark is the room for the mark of the request's problem record (see
	// MarkSlot).
	mark logmark.Slot
}

func newState(w http.ResponseWriter, r *http.Request, cfg *config) *state {
	st := &state{Context: r.Context(), w: w, srv: w, cfg: cfg}
	if outer, ok := w.(*state); ok {
		st.srv = outer.srv
	}
	st.body.st = st
	return st
}

// joinable returns the state a layer can share: the one it is handed as the
// writer, provided nothing between derived a new context (which would
// not see a deadline the state gains later) or wrapped the writer.
func joinable(w http.ResponseWriter, r *http.Request) *state {
	st, ok := w.(*state)
	if ok && r.Context() == context.Context(st) {
		return st
	}
	return nil
}

// MarkSlot lends the state, as the request's context, to the mark of the
// first record logged with it (the problem's, see logmark.Slot): a failing
// request's record then needs no allocation for it.
func (st *state) MarkSlot(logmark.Key) *logmark.Slot { return &st.mark }

// writer is the configured Writer, else the one the request arrived with
// (problem.FromContext), else problem.Default().
func (st *state) writer() *problem.Writer { return st.cfg.problemWriter(st.Context) }

// Logger is where the state logs what cannot go through the problem writer
// (a panic inside the writer itself) and where correlation reports a
// rejected inbound ID: the problem writer's own logger, so a service
// configures its logger once.
func (st *state) Logger() *slog.Logger { return st.writer().Logger() }

// Now is the time the request reached the state. The clock is read at most
// once per request, and only when something needs it: on virtual machines
// without a fast clock a read costs more than the rest of the success path's
// bookkeeping.
func (st *state) Now() time.Time {
	if st.now.IsZero() {
		st.now = time.Now()
	}
	return st.now
}

// Header returns the handler's header map: the real one, except while a
// timeout may still fire or after it fired, when the timer owns the real
// map and the handler gets the shadow.
func (st *state) Header() http.Header {
	if sh := st.shadow; sh != nil {
		// Only the handler's goroutine sets or clears the shadow, so once it
		// exists no lock is needed to hand it out again. It stays the
		// handler's map after the response started, so trailers set on a
		// map taken earlier reach the wire (see disarm).
		return sh
	}
	if st.timeout == 0 || st.flags.Load()&(fStarted|fTimedOut) == fStarted {
		return st.w.Header()
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.shadow == nil {
		if st.flags.Load()&fTimedOut != 0 {
			// Too late to matter, but the handler may still set headers.
			st.shadow = http.Header{}
			return st.shadow
		}
		st.takeShadow(make(http.Header, len(st.w.Header())+4))
	}
	return st.shadow
}

// takeShadow gives the handler its own copy of the real header map, in sh,
// a cleared map. Called with mu held, or before the deadline can fire.
func (st *state) takeShadow(sh http.Header) {
	st.shadow, st.pooled = sh, sh
	h := st.w.Header()
	if len(h) == 0 {
		return
	}
	// Under a Stack without a deadline of its own the real map holds, as a
	// rule, the correlation header Stack has just set and nothing else: one
	// lookup copies it, where a range over the map costs about 400
	// instructions (most of them the iterator's random start).
	if name := st.cfg.corrHeader; len(h) == 1 && name != "" {
		if v, ok := h[name]; ok {
			sh[name] = v
			return
		}
	}
	maps.Copy(sh, h)
}

// releaseShadow runs once the handler has returned and no one touches the
// shadow any more: it returns the map, cleared, for another request, or nil
// when there is none or it outgrew the eight slots of a small map, which
// would cost more to keep idle and to clear than a new one.
func (st *state) releaseShadow() http.Header {
	m := st.pooled
	st.pooled, st.shadow = nil, nil
	if m == nil || len(m) > 8 {
		return nil
	}
	clear(m)
	return m
}

// commitHeaders makes the real header map what the handler built in the
// shadow: when the response starts, and again when the handler returns, for
// the trailers it set after the body. Called with mu held (or when the
// timer can no longer fire).
func (st *state) commitHeaders() {
	if st.shadow == nil {
		return
	}
	// After the copy the real map holds every key of the shadow, so it has
	// the same length only if the handler removed none of the keys it was
	// handed: the pass that deletes them is needed only when it did.
	h := st.w.Header()
	if !st.copyUsualHeaders(h) {
		maps.Copy(h, st.shadow)
	}
	if len(h) != len(st.shadow) {
		for k := range h {
			if _, ok := st.shadow[k]; !ok {
				delete(h, k)
			}
		}
	}
	st.committed = int32(len(st.shadow))
}

// copyUsualHeaders copies the shadow to h by name when it holds no header
// but Content-Type and the correlation header, as a success response
// under Stack usually does, and reports whether it did: two lookups
// instead of the range over the map maps.Copy makes (about 400
// instructions, most of them the iterator's random start).
func (st *state) copyUsualHeaders(h http.Header) bool {
	sh := st.shadow
	ct, hasCT := sh["Content-Type"]
	n := 0
	if hasCT {
		n++
	}
	name := st.cfg.corrHeader
	var id []string
	hasID := false
	if name != "" {
		if id, hasID = sh[name]; hasID {
			n++
		}
	}
	if n != len(sh) {
		return false
	}
	if hasCT {
		h["Content-Type"] = ct
	}
	if hasID {
		h[name] = id
	}
	return true
}

// WriteHeader is where the guard decides: the status and the headers are
// known, no byte of the body has gone out, and the handler's body can still
// be swallowed.
func (st *state) WriteHeader(code int) {
	f := st.flags.Load()
	if f&(fStarted|fHijacked) != 0 {
		if f&(fReplaced|fTimedOut|fHijacked) == 0 {
			// A second call on a passthrough response is the handler's own
			// bug; net/http reports it as it would without us.
			st.w.WriteHeader(code)
		}
		return
	}
	if st.timeout != 0 {
		// Only a timer, armed before the handler ran, can race the
		// handler for the response; without one the decision needs no lock.
		st.mu.Lock()
		defer st.mu.Unlock()
		f = st.flags.Load()
		if f&(fStarted|fHijacked) != 0 {
			return
		}
	}
	if code < 200 && code != http.StatusSwitchingProtocols {
		// Informational responses do not start the response. 101 is not
		// one for net/http: it is the exchange's final status, which a
		// WebSocket handshake sends before it hijacks.
		st.commitHeaders()
		st.w.WriteHeader(code)
		return
	}
	if code >= 400 && st.guard && !st.isProblem() {
		st.replace(code)
		return
	}
	st.flags.Or(fStarted)
	st.commitHeaders()
	st.w.WriteHeader(code)
}

// Write passes the handler's bytes straight through once the response has
// started; success is never buffered.
func (st *state) Write(b []byte) (int, error) {
	swallow, err := st.bodyGate()
	switch {
	case err != nil:
		return 0, err
	case swallow:
		st.writeReplacement(b)
		return len(b), nil
	}
	return st.w.Write(b)
}

// bodyGate starts the response implicitly, as net/http does on a first body
// write, and says what becomes of the handler's body bytes: refused with
// err (timed out, hijacked), swallowed (the guard replaced the response), or
// passed through when both results are zero.
func (st *state) bodyGate() (swallow bool, err error) {
	f := st.flags.Load()
	if f&fStarted == 0 {
		st.WriteHeader(http.StatusOK)
		f = st.flags.Load()
	}
	switch {
	case f&fTimedOut != 0:
		return false, http.ErrHandlerTimeout
	case f&fReplaced != 0:
		return true, nil
	case f&fHijacked != 0:
		return false, http.ErrHijacked
	}
	return false, nil
}

// ReadFrom keeps sendfile and splice available to handlers serving files.
func (st *state) ReadFrom(src io.Reader) (int64, error) {
	swallow, err := st.bodyGate()
	switch {
	case err != nil:
		return 0, err
	case swallow:
		if st.pending.Load() == 0 {
			return io.Copy(io.Discard, src)
		}
		// More than the log keeps, so that the tier reads past the cut.
		var head [4 * replacedBodyMax]byte
		n, _ := io.ReadFull(src, head[:])
		st.writeReplacement(head[:n])
		rest, err := io.Copy(io.Discard, src)
		return int64(n) + rest, err
	}
	if rf, ok := st.w.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(writerOnly{st.w}, src)
}

// writerOnly hides a ReadFrom that would otherwise call back into itself.
type writerOnly struct{ io.Writer }

// FlushError is what http.ResponseController.Flush calls; it starts the
// response like net/http does when nothing was written yet.
func (st *state) FlushError() error {
	f := st.flags.Load()
	if f&fStarted == 0 {
		st.WriteHeader(http.StatusOK)
		f = st.flags.Load()
	}
	if w, p, ok := st.takeReplacement(nil); ok {
		// A flush asks for the response to reach the client now, and
		// the handler may yet stall or abort (httputil.ReverseProxy
		// panics with http.ErrAbortHandler when an upstream's body
		// fails): the problem goes out whole, with its length.
		st.writeNow(w, p)
		return nil
	}
	if f&(fTimedOut|fReplaced|fHijacked) != 0 {
		// The response is the timer's or the guard's, or no longer ours.
		return nil
	}
	return http.NewResponseController(st.w).Flush()
}

// Flush implements http.Flusher for code that type-asserts it.
func (st *state) Flush() { _ = st.FlushError() }

// Hijack hands the connection over; faultline stops writing for the request.
func (st *state) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if f := st.flags.Load(); f&(fTimedOut|fReplaced) != 0 {
		return nil, nil, http.ErrHandlerTimeout
	}
	c, rw, err := http.NewResponseController(st.w).Hijack()
	if err == nil {
		st.flags.Or(fHijacked | fStarted)
	}
	return c, rw, err
}

// Unwrap lets http.ResponseController reach the deadlines and full-duplex
// switch of the underlying writer.
func (st *state) Unwrap() http.ResponseWriter { return st.w }

// ResponseStarted tells problem.Write that a status line has gone out.
func (st *state) ResponseStarted() bool {
	return st.flags.Load()&(fStarted|fHijacked) != 0
}

// Answered tells problem.Write that the timeout problem went out in the
// handler's place: a problem the handler writes afterwards (say, its body
// read failed because the timeout ended it) is not logged a second time.
func (st *state) Answered() bool { return st.flags.Load()&fTimedOut != 0 }

// safeWrite writes p to w. A panic in the writer (a bad log handler, a
// panicking String method in a log value) must neither crash the server nor
// loop through Recover again: it is logged and the connection is aborted
// when the handler returns.
func (st *state) safeWrite(w http.ResponseWriter, p *problem.Problem) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			ok = false
			st.flags.Or(fAbort)
			st.logWriterPanic("faultline: panic while writing a problem; connection aborted", p, v)
		}
	}()
	err := st.writer().Write(w, st.req, p)
	return err == nil
}

// logWriterPanic reports, as msg, a panic inside the problem writer to the
// writer's logger, and, when that is what panicked (a broken log handler),
// to slog.Default(); a panic there too is given up on rather than allowed to
// crash the server.
func (st *state) logWriterPanic(msg string, p *problem.Problem, v any) {
	attrs := []slog.Attr{
		slog.String("code", string(p.Code())),
		slog.String(correlation.AttrKey, correlation.ID(st)),
		slog.String("panic", safeString(v)),
		stackFrames(),
	}
	for _, l := range [...]func() *slog.Logger{st.Logger, slog.Default} {
		if logged(l, st, msg, attrs) {
			return
		}
	}
}

func logged(l func() *slog.Logger, st *state, msg string, attrs []slog.Attr) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	l().LogAttrs(st, slog.LevelError, msg, attrs...)
	return true
}
