package middleware

import (
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/faultline-go/faultline/internal/logmark"
	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

// Guard makes every error response a problem. When the handler, a library
// below it or http.ServeMux itself sends a status of 400 or more without a
// problem body (http.Error, a bare WriteHeader(404), ServeMux's text 404
// and 405), the response is replaced by the registry problem for that
// status. Headers other than representation headers (Allow,
// WWW-Authenticate, Proxy-Authenticate, Retry-After, rate limits, CORS) are
// kept, and so is the Content-Range a 416 must carry; a Retry-After in
// seconds or as a date also sets retry_after_ms of a retryable problem, so
// header and body agree. The handler's body is discarded from the response
// and quoted, sanitized and truncated, in the problem's log record, so an
// operator sees what the handler said. A problem the handler writes with
// problem.Write passes through unchanged, and so does every success
// response, byte for byte and unbuffered, with http.Flusher, http.Hijacker,
// io.ReaderFrom and Unwrap (for http.ResponseController) preserved.
func Guard() func(http.Handler) http.Handler {
	return (&config{}).layer(partGuard)
}

// MarkProblem is problem.Writer's announcement that the response it is
// about to start is a problem, so the guard lets it through.
func (st *state) MarkProblem() { st.flags.Or(fProblem) }

// isProblem reports whether the response being started is already a
// problem: problem.Writer marked it, or a problem media type is set (a
// problem from a proxied service, or written through a wrapper that hides
// the mark), or the text plane (see textPlane).
func (st *state) isProblem() bool {
	if st.flags.Load()&fProblem != 0 {
		return true
	}
	h := st.shadow
	if h == nil {
		h = st.w.Header()
	}
	var ct string
	if v := h["Content-Type"]; len(v) > 0 {
		ct = v[0]
	}
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.TrimSpace(mt)
	switch {
	case strings.EqualFold(mt, "application/problem+json"), strings.EqualFold(mt, "application/problem+xml"):
		return true
	case strings.EqualFold(mt, "text/plain"):
		return st.textPlane(h)
	}
	return false
}

// textPlane reports whether a text/plain response is the serving Writer's
// text plane, written through a wrapper that hid its mark: the Writer's
// code header names a code its registry holds. The header alone is not
// enough: X-Error-Code is a common name, and a handler's own http.Error
// setting it (X-Error-Code: DB_DOWN) would send its raw text through.
func (st *state) textPlane(h http.Header) bool {
	wr := st.writer()
	name := problemhook.FactsOf(wr).CodeHeader
	if name == "" || len(h[name]) == 0 {
		return false
	}
	_, ok := wr.Registry().Lookup(problem.Kind(h[name][0]))
	return ok
}

// replace decides that the handler's bare error status becomes a problem.
// The status line is not sent yet: the problem is written with the
// handler's first body write, so that its log record can quote that body,
// or when the handler flushes or returns. Called with mu held.
func (st *state) replace(code int) {
	st.flags.Or(fStarted | fReplaced)
	st.commitHeaders()
	st.pending.Store(int32(code))
}

// replacedBodyMax bounds how much of a replaced body reaches the log:
// enough to read the handler's message, too little to flood the log.
const replacedBodyMax = 512

// writeReplacement writes the problem for the pending bare status, if
// there still is one, quoting body, the start of what the handler meant to
// send, in its log record.
func (st *state) writeReplacement(body []byte) {
	if w, p, ok := st.takeReplacement(body); ok {
		st.safeWrite(w, p)
	}
}

// takeReplacement claims the pending bare status, and returns the problem
// that replaces it and the writer to write it with. The handler's
// goroutine and the deadline's can both try; the swap lets exactly one
// write.
func (st *state) takeReplacement(body []byte) (http.ResponseWriter, *problem.Problem, bool) {
	code := int(st.pending.Swap(0))
	if code == 0 {
		return nil, nil, false
	}
	p := st.guardProblem(code)
	p = p.WithLogAttrs(slog.Int("handler_status", code), slog.String("written_by", "faultline.guard"))
	if len(body) > 0 {
		p = p.WithLogAttrs(replacedBodyAttrs(body)...)
	}
	var w http.ResponseWriter = st.w
	if cr := st.w.Header()["Content-Range"]; code == http.StatusRequestedRangeNotSatisfiable && len(cr) > 0 {
		// RFC 9110 §15.5.17: a 416 names the representation's length in
		// Content-Range, which the writer drops as a representation header.
		w = &keepHeader{ResponseWriter: st.w, name: "Content-Range", value: cr}
	}
	return w, p, true
}

// guardProblem is the problem that replaces a bare error status.
func (st *state) guardProblem(code int) *problem.Problem {
	if st.flags.Load()&fTripped != 0 && (code == http.StatusBadRequest || code == http.StatusRequestEntityTooLarge || code >= 500) {
		return tooLarge(st)
	}
	p := st.writer().Registry().ForStatus(code)
	switch {
	case code == http.StatusRequestedRangeNotSatisfiable:
		p = p.WithDetail("The requested range does not overlap the resource; Content-Range gives its length.")
	case p.Cause() == problem.CauseInternal:
		p = p.ForRequest(st.req)
	}
	if p.Retryable() {
		if d, ok := retryAfter(st.w.Header().Get("Retry-After"), time.Now()); ok {
			p = p.WithRetryAfter(d)
		}
	}
	return p
}

// retryAfter reads a Retry-After value, delay-seconds or an HTTP-date
// (RFC 9110 §10.2.3), as a wait from now.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseUint(v, 10, 32); err == nil {
		return time.Duration(n) * time.Second, n > 0
	}
	t, err := http.ParseTime(v)
	if err != nil || !t.After(now) {
		return 0, false
	}
	return t.Sub(now), true
}

// replacedBodyAttrs quotes the start of a replaced body through the log
// tier, cut at a character boundary. The tier reads the body before the
// cut, which could hide a credential's shape from it: a token cut after
// its first bytes no longer reads as one, and its head would reach the
// log.
func replacedBodyAttrs(body []byte) []slog.Attr {
	if len(body) <= replacedBodyMax {
		return []slog.Attr{sanitize.LogAttr("handler_body", string(body))}
	}
	text, cut := logmark.Cut(sanitize.Log(string(body[:min(len(body), sanitize.MaxLogLen)])), replacedBodyMax)
	if !cut {
		// The tier's redactions made it short enough.
		return []slog.Attr{sanitize.LogAttr("handler_body", text)}
	}
	return []slog.Attr{sanitize.LogAttr("handler_body", text), slog.Bool("handler_body_truncated", true)}
}

// keepHeader sets a header the problem writer would drop just before the
// status line goes out, and otherwise passes everything to the writer it
// wraps, including the announcements of problem.Writer.
type keepHeader struct {
	http.ResponseWriter
	name  string
	value []string
}

func (k *keepHeader) WriteHeader(code int) {
	k.ResponseWriter.Header()[k.name] = k.value
	k.ResponseWriter.WriteHeader(code)
}

func (k *keepHeader) MarkProblem() {
	if m, ok := k.ResponseWriter.(problemhook.ProblemMarker); ok {
		m.MarkProblem()
	}
}

func (k *keepHeader) ResponseStarted() bool {
	rs, ok := k.ResponseWriter.(problemhook.ResponseStarter)
	return ok && rs.ResponseStarted()
}

func (k *keepHeader) Unwrap() http.ResponseWriter { return k.ResponseWriter }
