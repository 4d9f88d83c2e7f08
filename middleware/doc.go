// Package middleware holds faultline's net/http middlewares: Recover,
// Guard, BodyLimit, Timeout, the chi NotFound and MethodNotAllowed handlers,
// and Stack, which composes them. Each middleware is a
// func(http.Handler) http.Handler, so it works with chi's Use, with
// http.ServeMux and with any router, and each writes its failures as
// problems through a *problem.Writer (WithWriter; problem.Default() if
// none).
//
// # Order
//
// Stack mounts, from the outside in: correlation, Recover, Guard,
// BodyLimit, Timeout. Correlation is outermost so that every problem and
// every log record, including a panic's, carries the request's ID. Recover
// sits outside Guard and Timeout so that a panic anywhere below, including
// in the guard's own rewriting, becomes a problem or an aborted connection,
// never a crashed goroutine. Guard sits outside BodyLimit and Timeout so
// that whatever they or the handler send is already a problem or becomes
// one. BodyLimit refuses an oversized request before a deadline starts to
// run. Timeout is innermost so its deadline covers the handler alone.
// Mounted one by one in that order, the layers after correlation share a
// single per-request state; Stack does the same in one middleware and keeps
// the correlation in that state too, so a request through Stack costs one
// allocation for all five (plus the request copy that carries the state as
// its context, and the ID when one is generated).
//
// # Timeouts are 503
//
// A request that runs past the server's own deadline gets the timeout
// problem with status 503, not 504: 504 means a gateway waited in vain for
// an upstream, which is what upstream_timeout reports. Here the server
// itself gave up on its own work, a temporary condition of this service, so
// 503 with action retry is the honest answer. The problem's outcome tells a
// client whether retrying is safe: not_committed for safe methods, unknown
// for unsafe ones, which are then retryable only when the request carried
// an Idempotency-Key.
//
// # Why Guard decides at WriteHeader
//
// Guard never buffers a response. At WriteHeader the status and the
// headers are known and no byte of the body has gone out, so that is the
// last moment a bare error can still be replaced by a problem, and the
// first moment a success can be streamed through untouched. A response
// whose Content-Type is already a problem media type is passed through; any
// other status of 400 or more is replaced at once and the handler's body
// writes are swallowed. Deciding later would mean holding the body back;
// deciding earlier is impossible, since the status is not known.
package middleware
