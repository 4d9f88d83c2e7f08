package correlation

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/faultline-go/faultline/internal/corrstate"
	"github.com/faultline-go/faultline/internal/logmark"
	"github.com/faultline-go/faultline/internal/textclass"
)

// DefaultHeader is the header the middleware echoes the correlation ID in,
// and the first one it accepts an inbound ID from.
const DefaultHeader = "X-Request-Id"

// Option configures Middleware.
type Option func(*config)

type config struct {
	inbound  []string
	response string
}

// WithHeaders sets the inbound headers an ID is accepted from, in order of
// preference. The default is X-Request-Id, then X-Correlation-Id. With no
// names, inbound IDs are ignored and every request gets a fresh one.
func WithHeaders(names ...string) Option {
	return func(c *config) {
		c.inbound = make([]string, len(names))
		for i, n := range names {
			c.inbound[i] = http.CanonicalHeaderKey(n)
		}
	}
}

// WithResponseHeader sets the response header the ID is echoed in
// (default X-Request-Id). Middleware panics when name is not a header
// field name (a token: "", "X Id"): net/http drops such a header without
// a word, and with it the ID every response is meant to carry.
func WithResponseHeader(name string) Option {
	return func(c *config) { c.response = http.CanonicalHeaderKey(name) }
}

// traceparentHeader is in canonical form so it can index http.Header directly.
const traceparentHeader = "Traceparent"

// Middleware gives every request a correlation ID. It accepts an inbound ID
// only when every value of every configured inbound header agrees and is
// Valid; otherwise it generates a fresh ID and logs the rejected value at
// Warn, escaped, truncated and, when sanitize is linked into the program
// (it is with every faultline middleware), with credentials redacted, to
// slog.Default() at the time of the request
// (inside faultline's middleware.Stack, to its problem writer's logger, so
// a service gives its logger once). A bad ID never fails the request. A valid
// traceparent header contributes the trace ID. Both go into the request
// context (see ID), and the ID is set on the response header
// before the next handler runs, so it is present even on responses that
// handler writes early or abandons.
//
// Stacking the middleware twice on one request (say once for the whole
// server and once in a route group) is harmless: the inner one keeps the
// outer one's ID, so a rejected inbound value is neither logged twice nor
// replaced by two different IDs.
func Middleware(opts ...Option) func(http.Handler) http.Handler {
	return middlewareWith(newAcceptor(opts...), defaultEnv{})
}

func middlewareWith(a *acceptor, env corrstate.Env) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c := &idContext{Context: r.Context()}
			a.Accept(&c.req, w, r, env)
			next.ServeHTTP(w, r.WithContext(c))
		})
	}
}

// defaultEnv reports to slog.Default() at the time of the report, so a
// later slog.SetDefault still takes effect, and reads the clock itself.
type defaultEnv struct{}

func (defaultEnv) Logger() *slog.Logger { return slog.Default() }
func (defaultEnv) Now() time.Time       { return time.Now() }

func init() {
	corrstate.NewAcceptor = func(opts any) corrstate.Acceptor {
		o, _ := opts.([]Option)
		return newAcceptor(o...)
	}
	corrstate.NewMiddleware = func(opts any, env corrstate.Env) func(http.Handler) http.Handler {
		o, _ := opts.([]Option)
		return middlewareWith(newAcceptor(o...), env)
	}
	corrstate.NewID = newID
}

// acceptor is what Middleware does to each request. faultline's
// middleware.Stack uses it through corrstate, keeping the Request inside its
// own per-request state instead of paying for an idContext.
type acceptor struct {
	cfg config
}

func newAcceptor(opts ...Option) *acceptor {
	a := &acceptor{cfg: config{
		inbound:  []string{DefaultHeader, "X-Correlation-Id"},
		response: DefaultHeader,
	}}
	for _, o := range opts {
		o(&a.cfg)
	}
	if !textclass.IsFieldName(a.cfg.response) {
		panic("correlation: WithResponseHeader(" + strconv.Quote(a.cfg.response) + ") is not a header field name")
	}
	return a
}

// Accept fills in v for r exactly as Middleware would, sets the response
// header on w and logs a rejected inbound ID to env.Logger(). If r's context already
// carries a Request accepted by an outer Middleware or Stack, v takes its
// ID and trace ID and nothing is logged again. The caller makes v reachable
// from the context the next handler sees (see corrstate.Request.Value).
// When v is reachable from r's context already, as when a layer shares an
// outer one's state, Accept only sets the header.
func (a *acceptor) Accept(v *corrstate.Request, w http.ResponseWriter, r *http.Request, env corrstate.Env) {
	cfg := &a.cfg
	if outer := corrstate.From(r.Context()); outer != nil && outer.Accepted {
		if outer == v {
			// v.Hdr may back an outer layer's header of another name; one
			// array under two headers would let an edit of one change both.
			w.Header()[cfg.response] = []string{v.ID}
			return
		}
		*v = corrstate.Request{ID: outer.ID, TraceID: outer.TraceID, Accepted: true, Generated: outer.Generated}
	} else {
		id, rej := cfg.accept(r.Header)
		generated := id == ""
		if generated {
			id = cfg.fresh(env)
		}
		*v = corrstate.Request{ID: id, Accepted: true, Generated: generated}
		if tp := r.Header[traceparentHeader]; len(tp) == 1 {
			if tc, ok := parseTraceparent(tp[0]); ok {
				v.TraceID = tc.TraceID
			}
		}
		if rej.reason != "" {
			// Only a rejection pays for a context, so that the warning
			// carries the replacement ID like any other record.
			cfg.report(&idContext{Context: r.Context(), req: *v}, rej, env.Logger())
		}
	}
	v.Hdr[0] = v.ID
	w.Header()[cfg.response] = v.Hdr[:]
}

func (a *acceptor) ResponseHeader() string { return a.cfg.response }

type rejection struct {
	header, value, reason string
}

// accept returns the inbound ID, or "" with the reason it was rejected (a
// zero rejection means no inbound ID was offered at all). Differing values
// are rejected rather than resolved by preference: a client or proxy that
// sends two IDs has already broken correlation, and picking one would hide it.
func (cfg *config) accept(h http.Header) (string, rejection) {
	var id string
	for _, name := range cfg.inbound {
		for _, v := range h[name] {
			if id != "" {
				if v != id {
					return "", rejection{name, v, "conflicting"}
				}
				continue
			}
			if reason := rejectReason(v); reason != "" {
				return "", rejection{name, v, reason}
			}
			id = v
		}
	}
	return id, rejection{}
}

func (cfg *config) fresh(env corrstate.Env) string {
	return newIDAt(env.Now())
}

// logValueMax bounds how much of a rejected value reaches the log: enough to
// recognise it, too little to flood the log or smuggle a payload through it.
const logValueMax = 64

func (cfg *config) report(ctx context.Context, rej rejection, l *slog.Logger) {
	// The whole value passes the log tier (when sanitize is linked in) before
	// the cut, which could hide a credential's shape from it: a client that
	// put its token where the ID belongs does not find it in the log.
	v, truncated := logmark.Cut(asciiEscaped(logmark.Text(rej.value)), logValueMax)
	l.LogAttrs(ctx, slog.LevelWarn, "correlation: inbound request ID rejected, generated a new one",
		slog.String(AttrKey, ID(ctx)),
		slog.String("header", rej.header),
		slog.String("reason", rej.reason),
		slog.String("value", v),
		slog.Int("length", len(rej.value)),
		slog.Bool("truncated", truncated),
	)
}

// asciiEscaped writes every control byte and every rune outside ASCII of s
// as a Go escape, leaving the rest, backslashes included, as it is: the log
// tier's own escapes ("\t") stay readable.
func asciiEscaped(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r >= 0x20 && r < 0x7f {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRuneToASCII(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}
