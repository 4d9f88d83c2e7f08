package serve

import (
	"log/slog"
	"net/http"
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
// outside the kit's recover, accept errors) written to the problem
// Writer's logger at Warn with source=net/http.
//
// There is no WriteTimeout by default: it runs from the end of the request
// headers, so it also limits handler time, and a handler that outlives it
// has its response thrown away with the connection: the client gets no
// status at all, a silent drop. The kit's Timeout middleware bounds
// handler time with a problem instead. Set WithWriteTimeout well above
// that timeout to bound clients that read responses too slowly.
func NewServer(h http.Handler, opts ...ServerOption) *http.Server {
	cfg := serverConfig{
		readHeader: DefaultReadHeaderTimeout,
		read:       DefaultReadTimeout,
		idle:       DefaultIdleTimeout,
		maxHeader:  DefaultMaxHeaderBytes,
	}
	for _, o := range opts {
		o.applyServer(&cfg)
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: cfg.readHeader,
		ReadTimeout:       cfg.read,
		WriteTimeout:      cfg.write,
		IdleTimeout:       cfg.idle,
		MaxHeaderBytes:    cfg.maxHeader,
		ErrorLog:          slog.NewLogLogger(logger(cfg.writer).With(slog.String("source", "net/http")).Handler(), slog.LevelWarn),
	}
}

func logger(wr *problem.Writer) *slog.Logger {
	if wr == nil {
		wr = problem.Default()
	}
	return wr.Logger()
}

// ServerOption configures NewServer.
type ServerOption interface{ applyServer(*serverConfig) }

type serverConfig struct {
	readHeader, read, write, idle time.Duration
	maxHeader                     int
	writer                        *problem.Writer
}

type serverOption func(*serverConfig)

func (o serverOption) applyServer(c *serverConfig) { o(c) }

// WithReadHeaderTimeout replaces DefaultReadHeaderTimeout; d <= 0 keeps
// the default, since no limit at all is what the default exists to avoid.
func WithReadHeaderTimeout(d time.Duration) ServerOption {
	return serverOption(func(c *serverConfig) {
		if d > 0 {
			c.readHeader = d
		}
	})
}

// WithReadTimeout replaces DefaultReadTimeout; d <= 0 keeps the default.
// Keep it above the kit's Timeout, so a slow upload is answered by the
// timeout's problem rather than by a failed read.
func WithReadTimeout(d time.Duration) ServerOption {
	return serverOption(func(c *serverConfig) {
		if d > 0 {
			c.read = d
		}
	})
}

// WithWriteTimeout sets http.Server.WriteTimeout (none by default; see
// NewServer). It must exceed the longest a handler runs plus the time to
// send its response, or those responses are dropped without a status.
func WithWriteTimeout(d time.Duration) ServerOption {
	return serverOption(func(c *serverConfig) { c.write = max(d, 0) })
}

// WithIdleTimeout replaces DefaultIdleTimeout; d <= 0 keeps the default.
func WithIdleTimeout(d time.Duration) ServerOption {
	return serverOption(func(c *serverConfig) {
		if d > 0 {
			c.idle = d
		}
	})
}

// WithMaxHeaderBytes replaces DefaultMaxHeaderBytes; n <= 0 keeps the
// default. Larger headers get net/http's own 431.
func WithMaxHeaderBytes(n int) ServerOption {
	return serverOption(func(c *serverConfig) {
		if n > 0 {
			c.maxHeader = n
		}
	})
}

// WithWriter names the problem Writer whose logger gets the server's
// records and, for Run, which writes the problems of requests cut by
// shutdown. The default is problem.Default() at the time of the call.
func WithWriter(wr *problem.Writer) interface {
	ServerOption
	RunOption
} {
	return writerOption{wr}
}

type writerOption struct{ wr *problem.Writer }

func (o writerOption) applyServer(c *serverConfig) { c.writer = o.wr }
func (o writerOption) applyRun(c *runConfig)       { c.writer = o.wr }
