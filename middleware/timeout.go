package middleware

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

// Timeout gives each request a deadline of d. When it passes before the
// handler has started its response, the client gets a timeout problem (503,
// see the package documentation) at that moment, and everything the handler
// writes afterwards is refused with http.ErrHandlerTimeout. A response that
// has already started is left alone: the handler sees ctx.Done() and ends it
// as it can, and the timeout is logged (once, with response_started). A
// bare error status that Guard is replacing has sent nothing yet: if the
// handler stalls before its body, Guard's problem goes out at the deadline.
// A stream that outlives the deadline (server-sent events) sees its context
// end: mount Timeout on the route groups that answer rather than in Stack
// when some routes stream. A hijacked connection (a WebSocket) leaves the
// deadline behind: from the hijack on, the request's context is its
// parent's (one derived before the hijack keeps the deadline it saw).
// The handler runs on the request's own goroutine and its success is not
// buffered.
//
// Headers the handler sets are kept apart until it starts its response, so
// a timeout problem carries only the headers set before Timeout ran: put
// CORS and similar middlewares outside it. Timeout panics if d <= 0.
func Timeout(d time.Duration) func(http.Handler) http.Handler {
	if d <= 0 {
		panic("middleware: Timeout needs a positive duration")
	}
	return (&config{timeout: d}).layer(0)
}

// deadlineQueue is the deadline of every request of one timeout layer: one
// timer for all of them instead of one armed and stopped per request, which
// cost a timer heap insertion and removal (and a pooled timer) on every
// request, though almost every request finishes long before its deadline.
// All requests of a layer have the same timeout, so their deadlines come in
// the order they start: the queue is a list in that order, and its timer is
// set for the first deadline. A request that finishes unlinks itself (two
// pointer writes under the lock); the timer is left running, and when it
// fires it expires the requests whose deadline has passed and sets itself
// for the next one, or stops when none is left. Under a steady load of fast
// requests it fires about once per timeout, whatever the request rate.
type deadlineQueue struct {
	mu         sync.Mutex
	head, tail *state
	t          *time.Timer
	// armed: the timer will fire; when it is not, the next request sets it.
	armed bool
	// spare holds cleared shadow header maps of finished requests for the
	// next ones, given back in the lock that withdraws a deadline: a
	// sync.Pool's Get and Put cost about 200 instructions more (pinning
	// the goroutine to its P, twice).
	spare []http.Header
}

// spareMax bounds a queue's spare maps. Beyond what a burst of requests
// finishing together returns, a map is left to the collector; a layer
// keeps at most 128 idle small maps, about 50 KB.
const spareMax = 16

// deadlineLink is a request's place in its layer's deadlineQueue, guarded
// by the queue's mutex.
type deadlineLink struct {
	prev, next *state
	// queued: the deadline has neither fired nor been withdrawn.
	queued bool
}

// deadlineQueues are a layer's queues. One mutex taken twice by every
// request of a busy layer would have all cores wait on it; requests spread
// over several queues, each in start order, with a timer of its own.
type deadlineQueues [8]deadlineQueue

func newDeadlineQueues() *deadlineQueues {
	qs := &deadlineQueues{}
	for i := range qs {
		q := &qs[i]
		q.spare = make([]http.Header, 0, spareMax)
		q.t = time.AfterFunc(time.Hour, q.fire)
		q.t.Stop()
	}
	return qs
}

// of picks st's queue by the page st lies on. A core allocates its states
// one after another from a span of its own (eleven to a page in the
// state's size class), so the requests of one core mostly meet on one
// queue: its lock, its spare maps and the states it links stay in that
// core's cache, instead of changing cores on nearly every request as
// under a hash of each address. A multiplicative hash of the page number
// spreads the pages, and so the cores, over the queues.
func (qs *deadlineQueues) of(st *state) *deadlineQueue {
	const pageShift = 13 // the runtime's 8 KiB pages
	h := uint64(uintptr(unsafe.Pointer(st))>>pageShift) * 0x9e3779b97f4a7c15
	return &qs[h>>(64-3)]
}

// spareMap is a cleared header map for a handler's shadow.
func (q *deadlineQueue) spareMap() http.Header {
	q.mu.Lock()
	var sh http.Header
	if n := len(q.spare); n > 0 {
		sh = q.spare[n-1]
		q.spare[n-1] = nil
		q.spare = q.spare[:n-1]
	}
	q.mu.Unlock()
	if sh == nil {
		sh = make(http.Header, 8)
	}
	return sh
}

func (q *deadlineQueue) push(st *state) {
	q.mu.Lock()
	st.link = deadlineLink{prev: q.tail, queued: true}
	if q.tail != nil {
		q.tail.link.next = st
	} else {
		q.head = st
	}
	q.tail = st
	if !q.armed {
		q.armed = true
		q.t.Reset(time.Until(st.deadline()))
	}
	q.mu.Unlock()
}

// unlink takes st off the list; q.mu is held.
func (q *deadlineQueue) unlink(st *state) {
	if p := st.link.prev; p != nil {
		p.link.next = st.link.next
	} else {
		q.head = st.link.next
	}
	if n := st.link.next; n != nil {
		n.link.prev = st.link.prev
	} else {
		q.tail = st.link.prev
	}
	st.link = deadlineLink{}
}

// withdraw reports whether st's deadline was still pending, and if so
// takes it off the queue, so it can no longer fire. A cleared header map
// (or nil) is kept for the next request.
func (q *deadlineQueue) withdraw(st *state, spare http.Header) bool {
	q.mu.Lock()
	pending := st.link.queued
	if pending {
		q.unlink(st)
	}
	q.keep(spare)
	q.mu.Unlock()
	return pending
}

// keep adds a cleared header map to the spares; q.mu is held.
func (q *deadlineQueue) keep(spare http.Header) {
	if spare != nil && len(q.spare) < spareMax {
		q.spare = append(q.spare, spare)
	}
}

// fire expires every request whose deadline has passed, each on a
// goroutine of its own as a timer of its own would: one client that is slow
// to take its problem must not hold back the others'. A request whose clock
// was read just before an earlier one's but queued after it waits behind
// it: by the few microseconds between.
func (q *deadlineQueue) fire() {
	now := time.Now()
	var expired []*state
	q.mu.Lock()
	for st := q.head; st != nil && !st.deadline().After(now); st = q.head {
		q.unlink(st)
		st.flags.Or(fExpired)
		expired = append(expired, st)
	}
	if q.head != nil {
		q.t.Reset(q.head.deadline().Sub(now))
	} else {
		q.armed = false
	}
	q.mu.Unlock()
	for _, st := range expired {
		go st.expire()
	}
}

// prepare gives the handler its own header map, before anything of the
// layer's sets a header: Stack's correlation header goes on it alone, and
// reaches the real map when the response starts (or when expire writes the
// timeout problem), instead of being set on the real map and copied. Nearly
// every handler asks for the map. It returns the queue for arm.
func (st *state) prepare(qs *deadlineQueues, d time.Duration) *deadlineQueue {
	st.timeout = d
	st.Now()
	if st.req.ContentLength != 0 {
		st.flags.Or(fHasBody)
	}
	q := qs.of(st)
	st.takeShadow(q.spareMap())
	return q
}

// arm starts the request's deadline, once the state is complete: the
// expiry reads the correlation. It runs before the handler, so nothing has
// seen the state's Done channel yet.
func (st *state) arm(q *deadlineQueue) {
	st.timer = q
	q.push(st)
}

// disarm withdraws the deadline when the handler returns. If it already
// fired, it waits for the expiry to finish writing (through mu), so
// ServeHTTP never returns while the underlying writer is in use.
func (st *state) disarm() {
	// A response the handler started itself is out of the timer's reach:
	// expire writes only while none has started. The trailers the handler
	// set after the body can be committed before the deadline is
	// withdrawn, and its map recycled in the same lock.
	f := st.flags.Load()
	handlers := f&(fStarted|fTimedOut|fReplaced|fHijacked) == fStarted
	var spare http.Header
	if handlers {
		if int32(len(st.shadow)) != st.committed {
			st.commitHeaders()
		}
		spare = st.releaseShadow()
	}
	if st.timer.withdraw(st, spare) {
		if st.deadlinePassed() {
			// The handler saw ctx.Done() and returned before our timer ran:
			// without this it would leave an empty 200, a third state.
			st.expire()
		}
	} else {
		// The deadline fired; its expiry may not have taken the lock yet.
		// Whoever gets there first writes the problem, and expire's flags
		// stop the other. Waiting on mu also keeps ServeHTTP from returning
		// while the expiry writes.
		st.expire()
		st.mu.Lock()
		st.flags.Or(fFinished)
		st.mu.Unlock()
	}
	if !handlers {
		if st.flags.Load()&(fTimedOut|fReplaced|fHijacked) == 0 {
			// The timer can no longer write and the handler never started
			// its response: net/http's implicit one goes out with the
			// handler's headers. (A response the timer or the guard wrote
			// instead keeps its own.)
			st.commitHeaders()
		}
		if spare := st.releaseShadow(); spare != nil {
			st.timer.mu.Lock()
			st.timer.keep(spare)
			st.timer.mu.Unlock()
		}
	}
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
		if f&(fFinished|fReplaced) == fReplaced {
			// The handler sent a bare error status and stalled before
			// its body: nothing is on the wire yet, and the guard's
			// problem is the answer, due now.
			if w, p, ok := st.takeReplacement(nil); ok {
				// The problem is the request's record: the deadline is
				// not logged again when the handler returns.
				st.flags.Or(fLateDeadline)
				st.writeNow(w, p.WithLogAttrs(slog.Bool("deadline_passed", true)))
				return
			}
		}
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
		// Over HTTP/1 the deadline stays on the connection: when the
		// handler had read the whole body, net/http would keep it alive and
		// the next request on it would start with its context cancelled. It
		// must close. Over HTTP/2 the deadline ends this stream's body only,
		// and Connection: close would send GOAWAY, tearing down the
		// connection every other stream of the client shares.
		if st.req.ProtoMajor == 1 {
			st.w.Header().Set("Connection", "close")
		}
	}
	if name := st.cfg.corrHeader; name != "" && st.corr.Accepted {
		// Stack set it on the handler's map (see prepare).
		st.w.Header()[name] = []string{st.corr.ID}
	}
	st.writeNow(st.w, timeoutProblem(st.req).
		WithLogAttrs(timeoutAttr(st.timeout), slog.String("written_by", "faultline.timeout")))
}

// writeNow writes p through w while the handler runs on (at the deadline,
// or when it flushes a replaced response). The client must have the whole
// problem now, not when the handler finally returns or aborts: so it goes
// out with a Content-Length and is flushed.
func (st *state) writeNow(w http.ResponseWriter, p *problem.Problem) {
	bw := &bufferedWriter{ResponseWriter: w}
	if !st.safeWrite(bw, p) {
		return
	}
	if st.req.Method != http.MethodHead {
		w.Header().Set("Content-Length", strconv.Itoa(bw.buf.Len()))
	}
	w.WriteHeader(bw.status)
	_, _ = w.Write(bw.buf.Bytes())
	_ = http.NewResponseController(st.w).Flush()
}

// logLateDeadline reports a deadline that passed after the handler started
// its response: the client may get a response cut short, which must not go
// unrecorded. It is logged once, never written: the handler still owns the
// response and its header map, so the record is built apart from both.
//
// It usually runs on the timer's goroutine, where nothing recovers a panic:
// a broken log handler must not crash the server, so its panic is reported
// as one inside the writer is (see safeWrite).
func (st *state) logLateDeadline() {
	st.flags.Or(fLateDeadline)
	p := problem.New(problem.Timeout).WithLogAttrs(
		slog.Bool("response_started", true),
		slog.String("method", st.req.Method),
		slog.String("path", sanitize.Log(problemhook.LoggedPath(st.req.URL.Path))),
		timeoutAttr(st.timeout),
		slog.String("written_by", "faultline.timeout"))
	defer func() {
		if v := recover(); v != nil {
			st.logWriterPanic("faultline: panic while logging a deadline passed after the response started", p, v)
		}
	}()
	st.writer().Report(st, correlation.ID(st), p)
}

// timeoutAttr logs the deadline as text ("2s"), as the kit logs every
// duration: a JSON handler writes a slog.Duration as nanoseconds.
func timeoutAttr(d time.Duration) slog.Attr { return slog.String("timeout", d.String()) }

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
