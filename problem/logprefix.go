package problem

import (
	"hash/maphash"
	"log/slog"
	"sync/atomic"

	"github.com/faultline-go/faultline/internal/logmark"
)

// A problem's record starts with what every record of its code carries
// (code, status, cause, action), then its route (method, path). Rendered
// again on every failure, these six cost as much as the rest of the record;
// added to the logger's handler once with WithAttrs, slog's JSON and text
// handlers copy them as text they rendered before. Both are done only where
// the handler writes them exactly as it would write them at the head of the
// record (logmark.AttrsAlike), so the line is the same byte for byte.

// prefixedHandler is a logger's handler with the attributes every record
// of one code carries added once with WithAttrs.
type prefixedHandler struct {
	base, h slog.Handler
}

// prefixed returns base with the code, status, cause and action of e's
// kind added with WithAttrs, made once per code and handler, when res
// keeps all four and base writes them as it would write them at the head
// of the record. Otherwise nil: they go in the record.
func (e *codeEntry) prefixed(base slog.Handler, res *Problem) slog.Handler {
	if e == nil || res.code != string(e.def.Code) || res.status != e.def.Status ||
		res.cause != e.def.Cause || res.action != e.def.Action {
		return nil
	}
	if p := e.prefix.Load(); p != nil && p.base == base {
		return p.h
	}
	if !logmark.AttrsAlike(base) {
		return nil
	}
	h := base.WithAttrs([]slog.Attr{e.code, slog.Int("status", e.def.Status),
		causeAttrs.attr(e.def.Cause), actionAttrs.attr(e.def.Action)})
	e.prefix.Store(&prefixedHandler{base: base, h: h})
	return h
}

// routePrefixes remembers, per code, the prefixed handler with a route's
// method and path added too, for the routes that failed most recently: an
// error storm fails on one route thousands of times. The table is small
// and fixed, so a client that asks for a new path on every request (a
// scan for unknown routes) costs a bounded amount of memory. A route is
// remembered the second time it fails, so paths that never repeat cost two
// hashes and nothing else. As for textAttrs, only keyed hashes of a path
// are kept, never the path, which may hold a secret the log tier takes out
// of the text the handler renders.
type routePrefixes struct {
	seen  [routeSlots]atomic.Uint64
	slots [routeSlots]atomic.Pointer[routePrefix]
}

const (
	routeSlots = 64
	// routeMaxLen: longer paths go in the record; they are rarely the
	// route of a storm, and a slot holds the path's rendering.
	routeMaxLen = 256
)

type routePrefix struct {
	base   slog.Handler // the logger's handler the prefix was made from
	h1, h2 uint64       // keyed hashes of the method and path
	n      int          // the path's length
	h      slog.Handler
}

var routeSeed1, routeSeed2 = maphash.MakeSeed(), maphash.MakeSeed()

// routePrefixed returns codeHandler, made by prefixed from base, with the
// method and path attributes added, when the route failed before with this
// code and handler; otherwise nil, and they go in the record. Only the
// standard methods are kept: any other is rendered where it is.
func (e *codeEntry) routePrefixed(base, codeHandler slog.Handler, method, path string) slog.Handler {
	m, ok := methodAttrs.index(method)
	if !ok || len(path) > routeMaxLen {
		return nil
	}
	h1 := routeHash(routeSeed1, m, path)
	i := h1 % routeSlots
	if p := e.routes.slots[i].Load(); p != nil && p.h1 == h1 && p.n == len(path) && p.base == base &&
		p.h2 == routeHash(routeSeed2, m, path) {
		return p.h
	}
	if e.routes.seen[i].Swap(h1) != h1 {
		return nil
	}
	h := codeHandler.WithAttrs([]slog.Attr{methodAttrs.attrs[m], textAttrs.attr("path", path)})
	e.routes.slots[i].Store(&routePrefix{base: base, h1: h1, h2: routeHash(routeSeed2, m, path), n: len(path), h: h})
	return h
}

// routeHash is a keyed hash of a method (by its index in methodAttrs) and
// a path.
func routeHash(seed maphash.Seed, method int, path string) uint64 {
	return maphash.String(seed, path) ^ uint64(method+1)*0x9e3779b97f4a7c15
}
