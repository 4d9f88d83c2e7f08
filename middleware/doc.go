// Package middleware holds faultline's net/http middlewares: Recover,
// Guard, BodyLimit, Timeout, the chi NotFound and MethodNotAllowed handlers,
// and Stack, which composes them. Each middleware is a
// func(http.Handler) http.Handler, so it works with chi's Use, with
// http.ServeMux and with any router, and each writes its failures as
// problems through a *problem.Writer: the one Stack is given (WithWriter),
// which it hands to everything below it through the request's context,
// else problem.Default() (set once with problem.SetDefault). Only Stack
// takes options. The writer is the one place
// a service configures: its logger is where every failure, a panic's stack
// and a rejected request ID included, is logged.
//
// Each behaviour lives in the file named after it: guard.go, recover.go,
// timeout.go, bodylimit.go, routes.go (404, 405 and HEAD on chi), stack.go;
// layer.go runs them, state.go is the per-request ResponseWriter they
// share and context.go the same state seen as the request's context.
//
// # Beside chi's middleware package
//
// Stack replaces chi's RequestID and Recoverer; mount neither with it.
// chi's Recoverer mounted after Stack (r.Use(middleware.Stack(...),
// chimw.Recoverer)) catches a panic before Stack's Recover does and prints
// the raw panic value and stack to stderr, where a DSN's password or a
// token in the panic message bypasses the log tier; the client still gets
// a problem only because Guard replaces Recoverer's bare 500. chi's
// RequestID gives every request a second ID, unrelated to the correlation
// ID in the response and the log. Read the request's ID with
// correlation.ID(r.Context()) where chi code calls middleware.GetReqID.
// chi's other middlewares (Logger, RealIP, Compress, ...) work beside
// Stack. Stack sets no body limit and no deadline unless asked: pass
// WithBodyLimit and WithRequestTimeout. Import chi's package under another
// name (chimw) next to this one.
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
// its context, and the ID when one is generated). On chi, Stack also routes
// a HEAD request for which no HEAD route exists to the GET route of its
// path (RFC 9110 §9.1; net/http drops the body); http.ServeMux does so
// itself.
//
// # Timeouts are 503
//
// A request that runs past the server's own deadline gets the timeout
// problem with status 503, not 504: 504 means a gateway waited in vain for
// an upstream, which is what upstream_timeout reports. Here the server
// itself gave up on its own work, a temporary condition of this service.
// The problem's outcome tells a client whether retrying is safe:
// not_committed for safe methods, which are retryable with Retry-After and
// retry_after_ms of one second; unknown for unsafe ones, which are retryable
// (with the same wait) only when the request carried an Idempotency-Key, and
// otherwise say action verify, with no retry time: the client must find out
// whether the write took effect before doing anything else.
//
// The answer goes out at the deadline whatever the handler is doing, also
// while it is blocked reading a body the client uploads slowly: the timeout
// ends that read with an expired read deadline (http.ResponseController),
// because net/http would otherwise hold the response until it could discard
// the rest of the body. The handler's read fails, and over HTTP/1 the
// connection is closed after the response (over HTTP/2 only the stream
// ends: the connection the client's other streams share stays open).
//
// # Why Guard decides at WriteHeader
//
// Guard never buffers a success. At WriteHeader the status and the headers
// are known and no byte of the body has gone out, so that is the last
// moment a bare error can still be replaced by a problem, and the first
// moment a success can be streamed through untouched. A response whose
// Content-Type is already a problem media type is passed through; any other
// status of 400 or more is replaced: the problem is written with the
// handler's first body write, whose start it quotes in its log record
// (through the log tier, truncated), or when the handler returns, and the
// handler's body never reaches the client. Deciding later would mean
// holding a success back; deciding earlier is impossible, since the status
// is not known.
package middleware
