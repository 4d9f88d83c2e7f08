package middleware

import (
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/faultline-go/faultline/internal/toolarge"
	"github.com/faultline-go/faultline/problem"
)

// BodyLimit limits request bodies to n bytes. A Content-Length over the
// limit is refused at once with a 413 request_too_large problem, without
// reading the body. A body of unknown length is cut at the limit by
// http.MaxBytesReader, created with the server's own ResponseWriter so that
// net/http closes the connection after the response; the handler's read
// fails with the request_too_large problem itself, wrapping the
// *http.MaxBytesError (errors.As finds it), so returning or writing that
// error sends the same problem. A *http.MaxBytesError from any other
// reader (an upstream's body the handler capped) is not this request's
// fault and is mapped to internal.
// A handler that ignores that error and sends a bare 400, 413 or 5xx behind
// Guard gets request_too_large too, and so does one that returns without
// answering at all (net/http would send an empty 200).
//
// BodyLimit nested inside another (or inside Stack with WithBodyLimit), for
// example on a chi route group, replaces the outer limit with its own when
// it is smaller. It cannot raise it: the outer limit has already been
// enforced before routing, so the outermost limit is the largest any route
// accepts. Mount a generous limit in Stack and tighter ones on groups.
// Mount BodyLimit before anything that wraps the ResponseWriter, or the
// connection is not closed after an oversized body. BodyLimit panics if
// n <= 0.
func BodyLimit(n int64) func(http.Handler) http.Handler {
	if n <= 0 {
		panic("middleware: BodyLimit needs a positive limit")
	}
	return (&config{limit: n}).layer(0)
}

// limitBody applies limit n to the request and reports whether the handler
// may run.
func (st *state) limitBody(r *http.Request, n int64, own bool) (*http.Request, bool) {
	if st.limit == 0 || n < st.limit {
		st.limit = n
	}
	if r.ContentLength > st.limit {
		p := toolarge.Problem(st.limit, nil).WithLogAttrs(slog.Int64("content_length", r.ContentLength), slog.String("written_by", "faultline.bodylimit"))
		st.safeWrite(st, p)
		return r, false
	}
	// A declared length within the limit is enforced by net/http itself: it
	// never reads past Content-Length. Only a body of unknown length needs
	// the reader.
	if r.ContentLength < 0 && st.body.orig == nil && r.Body != nil && r.Body != http.NoBody {
		if !own {
			r = r.WithContext(r.Context())
		}
		st.body.orig = r.Body
		r.Body = &st.body
	}
	return r, true
}

// tooLarge is the problem of a body the limit cut while the handler read it.
func tooLarge(st *state) *problem.Problem { return toolarge.Problem(st.limit, nil) }

// limitedBody is the request body under a limit. The MaxBytesReader is made
// at the first read, so a tighter limit set by a nested BodyLimit still
// applies.
type limitedBody struct {
	st   *state
	orig io.ReadCloser
	mbr  io.ReadCloser
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.mbr == nil {
		b.mbr = http.MaxBytesReader(b.st.srv, b.orig, b.st.limit)
	}
	n, err := b.mbr.Read(p)
	if err != nil && err != io.EOF {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			b.st.flags.Or(fTripped)
			// The error names this request as the cause at its source, so
			// a mapper never has to guess whose limit a MaxBytesError is.
			return n, toolarge.Problem(b.st.limit, err)
		}
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.orig.Close() }
