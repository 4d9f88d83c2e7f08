package middleware

import (
	"context"
	"time"
)

// The state is the request's context.Context too: the deadline without
// context.WithTimeout's allocations, the correlation without a context of
// correlation.Middleware's, and the problem writer for everything below.

// deadlineCtx is the real context.WithDeadline, made only when someone asks
// for the Done channel: most handlers never do, and the timer above already
// covers the response.
type deadlineCtx struct {
	ctx    context.Context
	cancel context.CancelFunc
}

func (st *state) deadlineCtx() context.Context {
	if c := st.dctx.Load(); c != nil {
		return c.ctx
	}
	ctx, cancel := context.WithDeadline(st.Context, st.deadline())
	c := &deadlineCtx{ctx, cancel}
	if !st.dctx.CompareAndSwap(nil, c) {
		cancel()
		return st.dctx.Load().ctx
	}
	return ctx
}

// deadline is when the timeout passes.
func (st *state) deadline() time.Time { return st.now.Add(st.timeout) }

// timed reports whether the timeout's deadline applies to the context:
// there is one, and the connection was not hijacked. The deadline is for
// answering the request; a hijacked connection (a WebSocket) has nothing
// left to answer, and ending its context would close it after the request
// timeout. (A context derived from the request before the hijack keeps the
// deadline it saw.)
func (st *state) timed() bool {
	return st.timeout != 0 && st.flags.Load()&fHijacked == 0
}

// Deadline reports the earlier of the parent's deadline and the timeout's.
func (st *state) Deadline() (time.Time, bool) {
	d, ok := st.Context.Deadline()
	if !st.timed() || ok && d.Before(st.deadline()) {
		return d, ok
	}
	return st.deadline(), true
}

// Done is the parent's channel unless a timeout applies.
func (st *state) Done() <-chan struct{} {
	if !st.timed() {
		return st.Context.Done()
	}
	return st.deadlineCtx().Done()
}

// Err agrees with Done, and reports the passed deadline even when no one has
// asked for the channel, from the moment the timer fires.
func (st *state) Err() error {
	if !st.timed() {
		return st.Context.Err()
	}
	if c := st.dctx.Load(); c != nil {
		return c.ctx.Err()
	}
	if err := st.Context.Err(); err != nil {
		return err
	}
	if st.flags.Load()&fExpired != 0 {
		return context.DeadlineExceeded
	}
	return nil
}

// Value answers for the correlation first (the deadline context's parent is
// st's parent, not st), then comes from the parent, or from the deadline
// context once it exists so that context.Cause and derived contexts see its
// cancellation.
func (st *state) Value(key any) any {
	if v, ok := st.corr.Value(key); ok {
		return v
	}
	if key == (headAsGetKey{}) && st.headAsGet {
		return true
	}
	if key == problemWriterKey && st.cfg.writer != nil {
		// Everything below writes problems the way this layer was told to.
		return st.cfg.writer
	}
	if st.timeout != 0 {
		if c := st.dctx.Load(); c != nil {
			return c.ctx.Value(key)
		}
	}
	return st.Context.Value(key)
}
