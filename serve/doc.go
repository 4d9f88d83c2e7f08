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
// exits with Run's error exits 0 after a clean shutdown.
//
// One edge stays outside any middleware: net/http answers some malformed
// requests itself, in text/plain, before a handler runs: 400 for a bad
// request line or header, 431 for headers over the cap, 505 for an
// unsupported HTTP version, 501 for an unknown Transfer-Encoding. Those
// replies are not problems and net/http does not log them.
package serve
