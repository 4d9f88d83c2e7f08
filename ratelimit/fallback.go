package ratelimit

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

// ErrUnavailable is wrapped by the error behind a fail-closed 503: the
// shared counter could not be reached.
var ErrUnavailable = errors.New("ratelimit: shared counter unavailable")

var (
	errDown        = errors.New("redis marked down, waiting for the next probe")
	errScriptReply = errors.New("unexpected reply from the rate-limit script")
	// errBatchPanicked fails the checks that shared a round trip with one
	// whose Redis call panicked.
	errBatchPanicked = errors.New("the Redis call of this check's batch panicked")
)

type unavailableError struct{ cause error }

func (e unavailableError) Error() string { return ErrUnavailable.Error() + ": " + e.cause.Error() }
func (e unavailableError) Unwrap() []error {
	return []error{ErrUnavailable, e.cause}
}

// health tracks whether Redis answers, shared by every policy of a Limiter.
// It is driven by requests rather than a background goroutine, so there is
// nothing to stop and nothing to leak: while Redis is down, at most one
// request per interval tries it (and waits at most the call timeout); all
// others skip it at no cost. The hot path is one atomic load; the mutex is
// taken only around transitions.
type health struct {
	observe    func(context.Context, error)
	every      time.Duration
	failClosed bool
	down       atomic.Bool
	nextProbe  atomic.Int64 // UnixNano

	mu    sync.Mutex
	since int64 // UnixNano of the last transition
}

// shouldTry reports whether this request should call Redis: always while it
// is up, and only the one request claiming the probe slot while it is down.
func (h *health) shouldTry(now time.Time) bool {
	if !h.down.Load() {
		return true
	}
	next := h.nextProbe.Load()
	t := now.UnixNano()
	return t >= next && h.nextProbe.CompareAndSwap(next, t+int64(h.every))
}

// logger is the logger of the request's writer, where every problem is
// logged too.
func (h *health) logger(ctx context.Context) *slog.Logger {
	return problem.FromContext(ctx).Logger()
}

// failed marks Redis down, logging only the transition so that an outage
// under load is one log record, not one per request. A call that began
// before the last transition says nothing about the present (it may have
// waited on a connection from before a restart) and changes nothing.
func (h *health) failed(ctx context.Context, started time.Time, err error) {
	if h.down.Load() {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.down.Load() || started.UnixNano() < h.since {
		return
	}
	now := time.Now()
	h.since = now.UnixNano()
	h.nextProbe.Store(now.Add(h.every).UnixNano())
	h.down.Store(true)
	mode := "counting in process (fail-open): each instance enforces the limits on its own"
	if h.failClosed {
		mode = "refusing requests with 503 unavailable (fail-closed)"
	}
	// The interval is logged as text ("1s"): a JSON handler would print a
	// slog.Duration as nanoseconds.
	h.logger(ctx).LogAttrs(ctx, slog.LevelWarn, "ratelimit: redis unreachable, "+mode,
		sanitize.LogAttr("error", err.Error()), slog.String("probe_interval", h.every.String()))
	if h.observe != nil {
		h.observe(ctx, err)
	}
}

// succeeded marks Redis up again, unless the call began before the outage
// was noticed: a reply that was already on its way proves nothing.
func (h *health) succeeded(ctx context.Context, started time.Time) {
	if !h.down.Load() {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.down.Load() || started.UnixNano() < h.since {
		return
	}
	now := time.Now()
	outage := time.Duration(now.UnixNano() - h.since)
	h.since = now.UnixNano()
	h.down.Store(false)
	h.logger(ctx).LogAttrs(ctx, slog.LevelInfo, "ratelimit: redis reachable again, limits are shared again",
		slog.String("outage", outage.Round(time.Millisecond).String()))
	if h.observe != nil {
		h.observe(ctx, nil)
	}
}
