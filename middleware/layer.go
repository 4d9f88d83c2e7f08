package middleware

import "net/http"

// parts says which behaviours a layer adds; the body limit and the timeout
// are on when their config value is.
type parts uint8

const (
	partRecover parts = 1 << iota
	partGuard
	// partHeadAsGet: chi routes a HEAD request to the GET route of its path
	// (Stack only; see routeHeadAsGet).
	partHeadAsGet
)

// layer is every faultline middleware: which parts are on depends on the
// constructor. Layers on the same request share one state when they can.
type layer struct {
	cfg   *config
	parts parts
	next  http.Handler
	// deadlines times every request of the layer when it has a timeout.
	deadlines *deadlineQueues
}

func (c *config) layer(p parts) func(http.Handler) http.Handler {
	var q *deadlineQueues
	if c.timeout > 0 {
		q = newDeadlineQueues()
	}
	return func(next http.Handler) http.Handler {
		return &layer{cfg: c, parts: p, next: next, deadlines: q}
	}
}

func (l *layer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st := joinable(w, r)
	// A second deadline, or a Stack with another writer, need a state of
	// their own; a layer without a writer writes with the one the request
	// carries, which is the state's.
	own := st == nil || l.cfg.timeout > 0 && st.timeout > 0 || l.cfg.writer != nil && st.cfg.writer != l.cfg.writer
	if own {
		st = newState(w, r, l.cfg)
		// The handler's copy of the request lives in the state: one
		// allocation for both.
		st.reqCopy = *r.WithContext(st)
		r = &st.reqCopy
		st.req = r
	}
	if l.parts&partRecover != 0 {
		defer l.recoverPanic(st, own)
	} else {
		defer l.finish(st, own, nil)
	}
	var q *deadlineQueue
	if l.cfg.timeout > 0 {
		q = st.prepare(l.deadlines, l.cfg.timeout)
	}
	if l.cfg.acceptor != nil {
		// Under a deadline the ID header goes on the handler's map, which
		// the state hands out.
		hw := w
		if q != nil {
			hw = st
		}
		l.cfg.acceptor.Accept(&st.corr, hw, r, st)
	}
	if l.parts&partGuard != 0 {
		st.guard = true
	}
	if l.parts&partHeadAsGet != 0 {
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
	if q != nil {
		st.arm(q)
	}
	l.next.ServeHTTP(st, r)
}

// finish runs when the handler has returned or panicked; v is the panic
// value a recovering layer took (see recoverPanic), else nil.
func (l *layer) finish(st *state, own bool, v any) {
	if v == nil && own {
		switch {
		case st.pending.Load() != 0:
			// The handler returned after a bare error status without a body.
			st.writeReplacement(nil)
		case st.flags.Load()&(fTripped|fStarted|fHijacked) == fTripped:
			// The limit cut the body and the handler gave up without
			// answering: net/http would send an empty 200, a silent drop.
			st.safeWrite(st, tooLarge(st))
		}
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
