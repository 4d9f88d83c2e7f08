package client

import (
	"context"
	cryptorand "crypto/rand"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"time"
)

// IdempotencyKeyHeader is the request header that makes a write safe to
// replay: a server applies one key at most once.
const IdempotencyKeyHeader = "Idempotency-Key"

// Transport is an http.RoundTripper that retries an operation as Policy
// decides from each failure. A caller sees one response (the last attempt's,
// its body readable whatever was read to decide, unless that read ran out
// of time: the Reader's timeout or the operation's MaxElapsed) or one
// error, as with any RoundTripper; ReadError turns a failed response into
// its problem.
//
// An operation is one call of RoundTrip; its attempts are the requests sent
// for it. Both are reported to the Observer and logged, so a retry storm
// shows as attempts, not as demand.
type Transport struct {
	base     http.RoundTripper
	policy   Policy
	keys     bool
	reader   Reader
	observer Observer
	logger   *slog.Logger
	now      func() time.Time
	sleep    func(context.Context, time.Duration) error
	jitter   func() float64
}

// Option configures a Transport.
type Option func(*Transport)

// WithPolicy sets the retry bounds.
func WithPolicy(p Policy) Option { return func(t *Transport) { t.policy = p } }

// WithIdempotencyKeys makes the Transport give every write (a request whose
// method is not idempotent) that has no Idempotency-Key a new random one,
// kept across the operation's attempts, so a write whose outcome is unknown
// can be replayed. Only enable it against servers that honour the header:
// a server that ignores it applies each replay.
func WithIdempotencyKeys() Option { return func(t *Transport) { t.keys = true } }

// WithReader sets how failed responses are read (body limit, read timeout,
// header names); ReadError on a response the Transport returned gives what
// it read so.
func WithReader(r Reader) Option { return func(t *Transport) { t.reader = r } }

// WithObserver sets the hooks told about each attempt and each operation.
func WithObserver(o Observer) Option { return func(t *Transport) { t.observer = o } }

// WithLogger sets where attempts and operations are logged; the default is
// slog.Default() at the time of the request. Failed attempts are logged at
// Info, operations at Debug when they succeeded first time and Info
// otherwise.
func WithLogger(l *slog.Logger) Option { return func(t *Transport) { t.logger = l } }

// withSleep sets how the Transport waits between attempts; it must return
// early with ctx's error when ctx ends. Tests wait without a clock.
func withSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(t *Transport) { t.sleep = sleep }
}

// withJitter sets the source of Attempt.Jitter, numbers in [0, 1); the
// default is math/rand/v2's Float64. Tests fix it.
func withJitter(f func() float64) Option { return func(t *Transport) { t.jitter = f } }

// NewTransport returns a Transport sending through base, or through
// http.DefaultTransport when base is nil.
func NewTransport(base http.RoundTripper, opts ...Option) *Transport {
	t := &Transport{base: base, now: time.Now, sleep: sleepContext, jitter: rand.Float64}
	if t.base == nil {
		t.base = http.DefaultTransport
	}
	for _, o := range opts {
		o(t)
	}
	return t
}

// RoundTrip runs one operation. It never modifies req: a generated
// Idempotency-Key goes on a copy. A body is replayed through req.GetBody;
// a request with a body and no GetBody is sent once, whatever the verdict.
// The context's deadline bounds the operation as Policy.MaxElapsed does: a
// wait that would end after it is not begun, and the last response is
// returned. When req's context ends during a wait, RoundTrip returns its
// error.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	op := operation{t: t, req: req, start: t.now()}
	out := req
	hasKey := req.Header.Get(IdempotencyKeyHeader) != ""
	generated := !hasKey && t.keys && !idempotent(req.Method)
	if generated {
		key := cryptorand.Text()
		op.id = key
		out = withHeader(req, IdempotencyKeyHeader, key)
		hasKey = true
	}
	pol := t.policy.withDefaults()
	if deadline, ok := req.Context().Deadline(); ok {
		// The caller's deadline bounds the operation as MaxElapsed does: a
		// wait that ends after it could only end in the context's error,
		// with the server's answer lost. At least 1ns, as zero means the
		// default.
		pol.MaxElapsed = max(min(pol.MaxElapsed, deadline.Sub(op.start)), 1)
	}
	budget := pol.MaxElapsed
	for n := 1; ; n++ {
		res, err := t.base.RoundTrip(out)
		if err == nil && res.StatusCode < 400 {
			op.succeeded(n, res)
			return res, nil
		}
		a := Attempt{Method: req.Method, Err: err, Number: n, IdempotencyKey: hasKey}
		var e *ResponseError
		if err == nil {
			e = t.readWithin(res, budget-t.now().Sub(op.start))
			// A key drawn here is gone when the process is: whoever runs
			// the command again sends a new one.
			e.keyed = e.keyed && !generated
			a.Problem = e.Problem
		}
		// Measured after the body was read: reading it is part of the
		// operation's time, so a trickling error body cannot push the
		// next attempt past MaxElapsed.
		a.Elapsed, a.ContextErr, a.Jitter = t.now().Sub(op.start), callerEnded(req.Context()), t.jitter()
		d := pol.Decide(a)
		if d.Verdict == Retry && !replayable(req) {
			d = Decision{Verdict: Stop, Reason: reasonBody, exit: d.exit}
		}
		op.attempt(a, res, d)
		if d.Verdict != Retry {
			op.ended(n, res, err, d)
			if e != nil {
				remember(res, out, e)
			}
			return res, err
		}
		if res != nil {
			// What the reader left unread is not worth waiting for; the
			// connection is reused only when the body was read to its end.
			_ = res.Body.Close()
		}
		if err := t.sleep(req.Context(), d.Delay); err != nil {
			op.ended(n, nil, err, Decision{Verdict: Stop, Reason: reasonCanceled, exit: ExitInternal})
			return nil, err
		}
		if out, err = rewind(req, out); err != nil {
			op.ended(n, nil, err, Decision{Verdict: Stop, Reason: reasonBody, exit: ExitInternal})
			return nil, err
		}
	}
}

// minBodyRead is the least time an error body is given when the budget is
// (nearly) spent: enough to take a body that has already arrived with the
// headers, so the decision still rests on what the server said, and too
// little to wait for one that has not.
const minBodyRead = 20 * time.Millisecond

// readWithin reads an error body within the Reader's timeout and what is
// left of the operation's budget, whichever ends first.
func (t *Transport) readWithin(res *http.Response, left time.Duration) *ResponseError {
	rd := t.reader
	rd.Timeout = min(rd.timeout(), max(left, minBodyRead))
	return rd.read(res)
}

// readKey is the context key under which the request of a failed
// response a Transport returned carries what the Transport read from it.
type readKey struct{}

type readResult struct {
	res *http.Response
	err *ResponseError
}

// remember attaches e to res through its request's context, not only its
// body: http.Client.Timeout and other layers above the Transport wrap the
// body, and ReadError must still give e, read with the Transport's Reader
// and knowing which Idempotency-Key the Transport drew.
func remember(res *http.Response, sent *http.Request, e *ResponseError) {
	req := res.Request
	if req == nil {
		req = sent
	}
	res.Request = req.WithContext(context.WithValue(req.Context(), readKey{}, readResult{res: res, err: e}))
}

// remembered is what a Transport read from res, if res is a response it
// returned.
func remembered(res *http.Response) (*ResponseError, bool) {
	if res.Request == nil {
		return nil, false
	}
	r, ok := res.Request.Context().Value(readKey{}).(readResult)
	return r.err, ok && r.res == res
}

const reasonBody = "the request body cannot be replayed (no GetBody)"

func replayable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// rewind returns the request for the next attempt: prev itself without a
// body, else a copy of prev with a fresh body from GetBody.
func rewind(orig, prev *http.Request) (*http.Request, error) {
	if orig.Body == nil || orig.Body == http.NoBody {
		return prev, nil
	}
	body, err := orig.GetBody()
	if err != nil {
		return nil, err
	}
	next := *prev
	next.Body = body
	return &next, nil
}

func withHeader(req *http.Request, name, value string) *http.Request {
	out := *req
	out.Header = req.Header.Clone()
	if out.Header == nil {
		out.Header = http.Header{}
	}
	out.Header.Set(name, value)
	return &out
}

func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// callerEnded reports whether the caller's end has come. http.Client's
// Timeout cancels a RoundTripper it does not know through Request.Cancel on
// a timer of its own, racing the deadline of the context it also sets: the
// base transport can give up before ctx.Err reports it. A passed deadline
// is then the caller's end all the same, never a transport failure to
// retry.
func callerEnded(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if deadline, ok := ctx.Deadline(); ok && !time.Now().Before(deadline) {
		return context.DeadlineExceeded
	}
	return nil
}
