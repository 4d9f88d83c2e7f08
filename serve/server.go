package serve

import (
	"context"
	"log"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/faultline-go/faultline/problem"
)

// The defaults of NewServer. Each bounds what one client can hold.
const (
	// DefaultReadHeaderTimeout bounds how long a client may take to send
	// its request line and headers (slowloris); five seconds is ample for
	// any real client on any network.
	DefaultReadHeaderTimeout = 5 * time.Second
	// DefaultReadTimeout bounds the whole request, body included, for
	// uploads trickled byte by byte. It is set well above a typical
	// middleware.Timeout so that the timeout answers a slow request with a
	// problem first; raise it for endpoints that accept large uploads.
	DefaultReadTimeout = 30 * time.Second
	// DefaultIdleTimeout closes keep-alive connections nobody uses. It is
	// longer than the 60 seconds common at load balancers, so the proxy
	// and not the server closes a pooled connection: the other order
	// races a request the proxy sends on a connection being closed, which
	// the client sees as a 502.
	DefaultIdleTimeout = 90 * time.Second
	// DefaultMaxHeaderBytes caps request headers at 64 KiB, several times
	// what browsers send with large cookies, instead of net/http's 1 MiB:
	// with 1 MiB, two hundred clients pin hundreds of megabytes.
	DefaultMaxHeaderBytes = 64 << 10
)

// NewServer returns an *http.Server for h with the defaults above, no
// WriteTimeout, and net/http's error log (TLS handshake failures, panics
// outside the kit's recover, accept errors) written at Warn with
// source=net/http to the logger of problem.Default() at the time of each
// record; Run routes it to its own writer's logger instead. Change any of
// them on the returned server before serving, as with any http.Server:
//
//	hs := serve.NewServer(h)
//	hs.ReadTimeout = 5 * time.Minute // an upload endpoint
//
// There is no WriteTimeout by default: it runs from the end of the request
// headers, so it also limits handler time, and a handler that outlives it
// has its response thrown away with the connection: the client gets no
// status at all, a silent drop. The kit's Timeout middleware bounds
// handler time with a problem instead. Set WriteTimeout well above that
// timeout to bound clients that read responses too slowly.
func NewServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: DefaultReadHeaderTimeout,
		ReadTimeout:       DefaultReadTimeout,
		IdleTimeout:       DefaultIdleTimeout,
		MaxHeaderBytes:    DefaultMaxHeaderBytes,
		ErrorLog:          errorLog(nil),
	}
}

func logger(wr *problem.Writer) *slog.Logger {
	if wr == nil {
		wr = problem.Default()
	}
	return wr.Logger()
}

// errorLog is net/http's error log as slog records of wr's logger (of
// problem.Default() when wr is nil), looked up at each record so that a
// writer or default set after the server was built still gets them.
func errorLog(wr *problem.Writer) *log.Logger {
	return log.New(netLog{wr}, "", 0)
}

// netLog is the writer behind errorLog; its type is how Run tells the log
// NewServer set, which it reroutes, from one the caller set, which it
// keeps.
type netLog struct{ wr *problem.Writer }

func (n netLog) Write(p []byte) (int, error) {
	h := logger(n.wr).Handler()
	ctx := context.Background()
	if h.Enabled(ctx, slog.LevelWarn) {
		r := slog.NewRecord(time.Now(), slog.LevelWarn, strings.TrimSuffix(string(p), "\n"), 0)
		r.AddAttrs(slog.String("source", "net/http"))
		_ = h.Handle(ctx, r)
	}
	return len(p), nil
}

// ownErrorLog reports whether l is nil or the log NewServer set.
func ownErrorLog(l *log.Logger) bool {
	if l == nil {
		return true
	}
	_, ok := l.Writer().(netLog)
	return ok
}
