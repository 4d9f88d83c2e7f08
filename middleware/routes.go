package middleware

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/problem"
)

// NotFound returns a handler that answers with the not_found problem, for
// chi's r.NotFound.
func NotFound(opts ...Option) http.HandlerFunc {
	cfg := newConfig(opts)
	return func(w http.ResponseWriter, r *http.Request) {
		_ = cfg.problemWriter(r.Context()).Write(w, r, problem.New(problem.NotFound))
	}
}

// MethodNotAllowed returns a handler for chi's r.MethodNotAllowed that
// answers with the method_not_allowed problem and an Allow header. chi does
// not give custom handlers the allowed methods, so they are computed by
// matching the request path against the router for each standard method:
// exactly what the router will serve. (chi does not route HEAD to GET
// handlers unless chi's middleware.GetHead is mounted, so HEAD is listed
// only where it is routed.) When no method matches at all, which happens
// when chi refuses a method it does not know on a path it does not know,
// the answer is not_found: a 405 without a usable Allow header would be
// wrong.
func MethodNotAllowed(opts ...Option) http.HandlerFunc {
	cfg := newConfig(opts)
	return func(w http.ResponseWriter, r *http.Request) {
		allow := allowedMethods(r)
		if allow == "" {
			_ = cfg.problemWriter(r.Context()).Write(w, r, problem.New(problem.NotFound))
			return
		}
		w.Header().Set("Allow", allow)
		_ = cfg.problemWriter(r.Context()).Write(w, r, problem.New(problem.MethodNotAllowed))
	}
}

var standardMethods = [...]string{
	http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace,
}

func allowedMethods(r *http.Request) string {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil || rctx.Routes == nil {
		return ""
	}
	// The same path chi's top-level router routed on.
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	if path == "" {
		path = "/"
	}
	var b strings.Builder
	probe := chi.NewRouteContext()
	for _, m := range standardMethods {
		probe.Reset()
		if rctx.Routes.Match(probe, m, path) {
			if b.Len() > 0 {
				b.WriteString(", ")
			}
			b.WriteString(m)
		}
	}
	return b.String()
}
