// Package serve runs an HTTP server the way the rest of faultline expects:
// hardened against slow and oversized requests, logging through slog, and
// shutting down without dropping a request silently.
//
// NewServer returns an *http.Server with deadlines on reading headers and
// bodies, an idle timeout, a header size cap and net/http's own error log
// routed into the problem Writer's logger. Run serves it until its context
// ends, then drains: it stops accepting, lets in-flight requests finish
// within a budget, and answers every request still running when the budget
// ends with an unavailable problem (503, with the outcome the method
// allows and Retry-After when a retry is safe), logged like any other
// problem. It returns nil once every request was answered, so a main that
// exits with Run's error exits 0 after a clean shutdown:
//
//	// wr is the writer given to middleware.Stack: its logger gets the
//	// shutdown records and net/http's error log.
//	err := serve.Run(ctx, serve.NewServer(handler), ln, serve.WithWriter(wr))
//
// # What NewServer sets
//
// Each default closes what an http.Server leaves open; change one by
// setting the field on the returned server (hs.ReadTimeout = ...):
//
//	setting            default  why
//	ReadHeaderTimeout  5 s      a client trickling its headers (slowloris) holds a connection and a goroutine
//	ReadTimeout        30 s     the same for a trickled body; above middleware.Timeout, so that answers first
//	IdleTimeout        90 s     longer than the 60 s common at load balancers, so the proxy closes first
//	MaxHeaderBytes     64 KiB   net/http's 1 MiB let 200 clients pin ~390 MB; with the cap each costs
//	                            ~350 KiB of garbage and gets 431
//	WriteTimeout       none     it also limits handler time and drops a late response with no status;
//	                            middleware.Timeout bounds handler time with a problem instead
//	ErrorLog           slog     the Writer's logger (Run's WithWriter) at Warn, source=net/http:
//	                            TLS handshake errors, panics outside the kit's recover, accept errors
//
// # How Run drains
//
// When ctx ends (signal.NotifyContext in main), Run logs the number of
// requests in flight, stops accepting and lets them finish within the
// budget. Every request still running when the budget ends is answered with
// unavailable (503, Connection: close): outcome not_committed for safe
// methods and unknown for the others, which get Retry-After only with an
// Idempotency-Key (without one the client must verify first). A request
// arriving on a draining connection is not run and gets outcome not_started
// with Retry-After. Each is one problem record in the log, and request
// contexts are cancelled. A handler that had already started its response
// cannot be turned into a problem: it is logged as not written and Run
// returns [ErrResponsesCut].
//
// One edge stays outside any middleware: net/http answers some malformed
// requests itself, in text/plain, before a handler runs: 400 for a bad
// request line or header, 431 for headers over the cap, 505 for an
// unsupported HTTP version, 501 for an unknown Transfer-Encoding. Those
// replies are not problems and net/http does not log them.
package serve
