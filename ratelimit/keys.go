package ratelimit

import (
	"errors"
	"net/http"
	"net/netip"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/go-chi/httprate"

	"github.com/faultline-go/faultline/problem"
)

// ErrEmptyKey is wrapped by the error of a request whose rate-limit key is
// empty. Counting it anyway would put every such client into one shared
// bucket, where one client could starve all the others; so the request
// fails with 500 internal and the reason goes to the log.
var ErrEmptyKey = errors.New("ratelimit: empty rate-limit key")

var (
	errNoClientIP = &keyError{"no client IP in the request context: install one of chi's middleware.ClientIPFrom* before the limiter"}
	errNoRoute    = &keyError{"no chi routing context: ByRoutePattern needs a chi router"}
	errEmptyPart  = &keyError{"a key function joined by Join returned an empty key"}
)

type keyError struct{ reason string }

func (e *keyError) Error() string { return ErrEmptyKey.Error() + ": " + e.reason }
func (e *keyError) Unwrap() error { return ErrEmptyKey }

// ByIP keys by the client IP that one of chi's middleware.ClientIPFrom*
// middlewares resolved, which only trusts forwarding headers from the
// proxies it was told about; a header a client sets itself never changes
// the key. IPv6 clients are keyed by their /64, since one host commonly
// owns a whole /64 and could otherwise take a fresh bucket per address.
func ByIP(r *http.Request) (string, error) {
	ip := middleware.GetClientIPAddr(r.Context())
	if !ip.IsValid() {
		return "", errNoClientIP
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		return netip.PrefixFrom(ip, 64).Masked().String(), nil
	}
	return ip.String(), nil
}

// unmatchedRoute keys requests no route matches (they will get 404 or 405).
// It cannot collide with a pattern, which always starts with "/", and it
// keeps scans of random paths in one bucket instead of one per path.
const unmatchedRoute = "!unmatched"

// ByRoutePattern keys by the chi route pattern, such as "/orders/{id}",
// never by the raw path, so /orders/1 and /orders/2 share a bucket and the
// number of keys stays bounded by the number of routes. It works both on a
// route (r.With, r.Group) and in r.Use, where chi has not routed yet and the
// pattern is looked up in the router.
func ByRoutePattern(r *http.Request) (string, error) {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil {
		return "", errNoRoute
	}
	pattern := rctx.RoutePattern()
	// Before routing the pattern is empty, or "/prefix/*" in a sub-router's
	// middleware; ask the top router for the final one.
	if (pattern == "" || strings.HasSuffix(pattern, "*")) && rctx.Routes != nil {
		path := r.URL.RawPath
		if path == "" {
			path = r.URL.Path
		}
		if found := rctx.Routes.Find(chi.NewRouteContext(), r.Method, path); found != "" {
			pattern = found
		}
	}
	if pattern == "" {
		return unmatchedRoute, nil
	}
	return pattern, nil
}

// ByHeader keys by a request header, such as an API key. A request without
// it is the client's to fix: it is answered 400 bad_request naming the
// header. Redis keys hold a hash of the value, never the value itself.
func ByHeader(name string) httprate.KeyFunc {
	name = http.CanonicalHeaderKey(name)
	missing := problem.New(problem.BadRequest).
		WithDetail("The request must carry the " + name + " header.")
	return func(r *http.Request) (string, error) {
		if v := r.Header.Get(name); v != "" {
			return v, nil
		}
		return "", missing
	}
}

// Join combines key functions, for example ByIP and ByRoutePattern for a
// per-client, per-route limit. Unlike httprate.JoinKeys it rejects an empty
// part, which would otherwise vanish into a non-empty joined key. Parts are
// separated by a byte no part of those built here contains.
func Join(fns ...httprate.KeyFunc) httprate.KeyFunc {
	return func(r *http.Request) (string, error) {
		var b strings.Builder
		for i, fn := range fns {
			k, err := fn(r)
			if err != nil {
				return "", err
			}
			if k == "" {
				return "", errEmptyPart
			}
			if i > 0 {
				b.WriteByte(0)
			}
			b.WriteString(k)
		}
		return b.String(), nil
	}
}
