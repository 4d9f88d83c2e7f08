package middleware

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/problem"
)

// NotFound returns a handler that answers with the not_found problem, for
// chi's r.NotFound.
func NotFound() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_ = problem.FromContext(r.Context()).Write(w, r, problem.New(problem.NotFound))
	}
}

// MethodNotAllowed returns a handler for chi's r.MethodNotAllowed that
// answers with the method_not_allowed problem and an Allow header. chi does
// not give custom handlers the allowed methods, so they are computed by
// matching the request path against the router for each standard method:
// exactly what the router will serve. (Under Stack, which serves HEAD on
// every GET route, HEAD is listed wherever GET is; without it, only where a
// HEAD route exists.) When no method matches at all, which happens
// when chi refuses a method it does not know on a path it does not know,
// the answer is not_found: a 405 without a usable Allow header would be
// wrong.
func MethodNotAllowed() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		allow := allowedMethods(r)
		if allow == "" {
			_ = problem.FromContext(r.Context()).Write(w, r, problem.New(problem.NotFound))
			return
		}
		w.Header().Set("Allow", allow)
		_ = problem.FromContext(r.Context()).Write(w, r, problem.New(problem.MethodNotAllowed))
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
	headAsGet := r.Context().Value(headAsGetKey{}) != nil
	var b strings.Builder
	probe := chi.NewRouteContext()
	getAllowed := false
	for _, m := range standardMethods {
		probe.Reset()
		ok := rctx.Routes.Match(probe, m, path)
		if m == http.MethodGet {
			getAllowed = ok
		} else if m == http.MethodHead {
			ok = ok || headAsGet && getAllowed
		}
		if ok {
			if b.Len() > 0 {
				b.WriteString(", ")
			}
			b.WriteString(m)
		}
	}
	return b.String()
}

// headAsGetKey is answered by a request's state when Stack serves HEAD on
// GET routes.
type headAsGetKey struct{}

// routeHeadAsGet makes chi route a HEAD request for which the router has no
// HEAD route as a GET, keeping the method HEAD: RFC 9110 §9.1 requires a
// server that supports GET to support HEAD, and net/http already sends a
// HEAD response without its body. http.ServeMux needs none of this: a GET
// pattern matches HEAD too. The match runs on the whole path against the
// top router, which resolves mounted subrouters as chi will.
func routeHeadAsGet(r *http.Request) {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil || rctx.Routes == nil || rctx.RouteMethod != "" && rctx.RouteMethod != http.MethodHead {
		return
	}
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	if !rctx.Routes.Match(chi.NewRouteContext(), http.MethodHead, path) {
		rctx.RouteMethod = http.MethodGet
	}
}
