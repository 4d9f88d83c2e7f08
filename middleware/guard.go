package middleware

import "net/http"

// Guard makes every error response a problem. When the handler, a library
// below it or http.ServeMux itself sends a status of 400 or more without a
// problem body (http.Error, a bare WriteHeader(404), ServeMux's text 404
// and 405), the response is replaced by the registry problem for that
// status. Headers other than representation headers (Allow,
// WWW-Authenticate, Retry-After, rate limits, CORS) are kept; the handler's
// body is discarded. A problem the handler writes with problem.Write passes
// through unchanged, and so does every success response, byte for byte and
// unbuffered, with http.Flusher, http.Hijacker, io.ReaderFrom and Unwrap
// (for http.ResponseController) preserved.
func Guard(opts ...Option) func(http.Handler) http.Handler {
	cfg := newConfig(opts)
	cfg.limit, cfg.timeout = 0, 0
	return cfg.layer(false, true)
}
