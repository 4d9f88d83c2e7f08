package ratelimit

import (
	"errors"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/go-chi/httprate"

	"github.com/faultline-go/faultline/internal/textclass"
	"github.com/faultline-go/faultline/problem"
)

// errEmptyKey is the error of a request whose rate-limit key is empty.
// Counting it anyway would put every such client into one shared bucket,
// where one client could starve all the others; so the request fails with
// 500 internal and the reason goes to the log.
var errEmptyKey = errors.New("ratelimit: empty rate-limit key")

var (
	errNoClientIP = &keyError{"the request's RemoteAddr holds no IP address (a Unix socket?): resolve the client IP with one of chi's middleware.ClientIPFrom* before the limiter"}
	errNoRoute    = &keyError{"no route pattern: ByRoutePattern needs a chi router, or a ServeMux route it is installed on"}
	errEmptyPart  = &keyError{"a key function joined by Join returned an empty key"}
)

type keyError struct{ reason string }

func (e *keyError) Error() string { return errEmptyKey.Error() + ": " + e.reason }
func (e *keyError) Unwrap() error { return errEmptyKey }

// ByIP keys by the client IP: the one chi's middleware.ClientIPFrom*
// resolved if one of them ran, else the address of the connection
// (RemoteAddr), so it works on a plain http.ServeMux. Forwarding headers are
// never read: a header a client sets itself must not change its key. Behind
// a reverse proxy or load balancer every request comes from the proxy, so
// all clients would share one bucket: use ByIPBehindProxies there. IPv6
// clients are keyed by their /64, since one host commonly owns a whole /64
// and could otherwise take a fresh bucket per address.
func ByIP(r *http.Request) (string, error) {
	ip := middleware.GetClientIPAddr(r.Context())
	if !ip.IsValid() {
		ip = remoteIP(r)
	}
	if !ip.IsValid() {
		return "", errNoClientIP
	}
	return ipKey(ip), nil
}

// ByIPBehindProxies keys by the client IP as reported by the reverse proxies
// in front of the service: when the connection comes from a trusted address,
// X-Forwarded-For is read from the right, past every trusted hop, to the
// first address no trusted proxy is, which is the client (with no
// X-Forwarded-For, X-Real-IP is the client). A connection from anywhere else
// is keyed by its own address, whatever its headers say, so only a trusted
// proxy can name a client. An entry that is not an IP address ends the walk
// at the last trusted hop. Keys are formed as ByIP forms them.
//
// It panics at startup if trusted is empty or holds an invalid or
// catch-all (/0) prefix: trusting every address would let each client pick
// its own key.
func ByIPBehindProxies(trusted ...netip.Prefix) httprate.KeyFunc {
	if len(trusted) == 0 {
		panic("ratelimit: ByIPBehindProxies needs at least one trusted proxy prefix; without proxies use ByIP")
	}
	nets := make([]netip.Prefix, len(trusted))
	for i, p := range trusted {
		if p.IsValid() && p.Addr().Is4In6() && p.Bits() >= 96 {
			// Addresses are compared unmapped, so a v4-mapped prefix is
			// its IPv4 prefix.
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		if !p.IsValid() || p.Bits() == 0 {
			panic("ratelimit: ByIPBehindProxies: " + strconv.Quote(trusted[i].String()) + " is not a prefix of proxies to trust (invalid or /0)")
		}
		nets[i] = p.Masked()
	}
	isTrusted := func(ip netip.Addr) bool {
		for _, p := range nets {
			if p.Contains(ip) {
				return true
			}
		}
		return false
	}
	return func(r *http.Request) (string, error) {
		peer := remoteIP(r)
		if !peer.IsValid() {
			return "", errNoClientIP
		}
		if !isTrusted(peer) {
			return ipKey(peer), nil
		}
		client := peer
		hops := r.Header.Values("X-Forwarded-For")
		if len(hops) == 0 {
			if ip := parseHop(r.Header.Get("X-Real-Ip")); ip.IsValid() {
				return ipKey(ip), nil
			}
			return ipKey(peer), nil
		}
		for i := len(hops) - 1; i >= 0; i-- {
			list := hops[i]
			for list != "" {
				entry := list
				if j := strings.LastIndexByte(list, ','); j >= 0 {
					entry, list = list[j+1:], list[:j]
				} else {
					list = ""
				}
				ip := parseHop(entry)
				if !ip.IsValid() {
					return ipKey(client), nil
				}
				client = ip
				if !isTrusted(ip) {
					return ipKey(ip), nil
				}
			}
		}
		return ipKey(client), nil
	}
}

// parseHop reads one forwarded address: an IP, or an IP with a port as some
// proxies write it.
func parseHop(s string) netip.Addr {
	s = strings.TrimSpace(s)
	if ip, err := netip.ParseAddr(s); err == nil {
		return ip.Unmap().WithZone("")
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone("")
	}
	return netip.Addr{}
}

func remoteIP(r *http.Request) netip.Addr {
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		return ap.Addr().Unmap().WithZone("")
	}
	ip, _ := netip.ParseAddr(r.RemoteAddr)
	return ip.Unmap().WithZone("")
}

func ipKey(ip netip.Addr) string {
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		return netip.PrefixFrom(ip, 64).Masked().String()
	}
	return ip.String()
}

// unmatchedRoute keys requests no route matches (they will get 404 or 405).
// It cannot collide with a pattern, which always starts with "/", and it
// keeps scans of random paths in one bucket instead of one per path.
const unmatchedRoute = "!unmatched"

// ByRoutePattern keys by the route pattern, such as "/orders/{id}", never
// by the raw path, so /orders/1 and /orders/2 share a bucket and the number
// of keys stays bounded by the number of routes. On chi it works both on a
// route (r.With, r.Group) and in r.Use, where chi has not routed yet and the
// pattern is looked up in the router. On an http.ServeMux the pattern is
// known only below the mux: wrap the route's handler, not the mux.
func ByRoutePattern(r *http.Request) (string, error) {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil {
		if r.Pattern != "" {
			return r.Pattern, nil
		}
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
// header. Redis keys hold a hash of the value, never the value itself. It
// panics at startup if name is not a header field name no client could
// send.
func ByHeader(name string) httprate.KeyFunc {
	if !textclass.IsFieldName(name) {
		// No client can send a header by this name, so every request
		// would be refused as the client's fault.
		panic("ratelimit: ByHeader: " + strconv.Quote(name) + " is not a header field name (RFC 9110 token)")
	}
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
// separated by a byte no part of those built here contains. It panics at
// startup if fns is empty or holds nil.
func Join(fns ...httprate.KeyFunc) httprate.KeyFunc {
	// Without parts every key would be empty, and a nil part would panic
	// in the request, a 500 that tells clients to retry a wiring mistake.
	if len(fns) == 0 || slices.ContainsFunc(fns, func(fn httprate.KeyFunc) bool { return fn == nil }) {
		panic("ratelimit: Join needs at least one key function and no nil one")
	}
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
