package middleware

import (
	"net/http"

	"github.com/faultline-go/faultline/internal/corrstate"
	"github.com/faultline-go/faultline/internal/corrwire"
)

// Stack returns the recommended middleware chain as one middleware:
// correlation (outermost, so every log record and problem carries the ID),
// then Recover, Guard, BodyLimit and Timeout, and, on chi, HEAD served by
// the GET route of its path. All of them keep their per-request state in a
// single allocation, which is why Stack costs less than the same layers
// mounted one by one. Under an outer correlation.Middleware, Stack keeps
// that middleware's ID.
//
//	r.Use(middleware.Stack(middleware.WithBodyLimit(1<<20), middleware.WithRequestTimeout(5*time.Second)))
func Stack(opts ...Option) func(http.Handler) http.Handler {
	cfg := &config{}
	for _, o := range opts {
		o(cfg)
	}
	cfg.acceptor = corrstate.NewAcceptor(corrwire.Options(cfg.writer, cfg.corr...))
	cfg.corrHeader = cfg.acceptor.ResponseHeader()
	return cfg.layer(partRecover | partGuard | partHeadAsGet)
}
