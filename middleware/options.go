package middleware

import (
	"context"
	"time"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/corrstate"
	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
)

// Option configures any of the package's middlewares and handlers. Options
// that fit Stack alone are StackOptions, which the other constructors do not
// accept: a misplaced option is a compile error, not a silent no-op.
type Option func(*config)

// StackOption configures Stack: every Option, plus WithBodyLimit,
// WithRequestTimeout and WithCorrelation.
type StackOption interface {
	applyStack(*config)
}

func (o Option) applyStack(c *config) { o(c) }

// stackOption is an option only Stack takes.
type stackOption func(*config)

func (o stackOption) applyStack(c *config) { o(c) }

type config struct {
	writer  *problem.Writer
	limit   int64
	timeout time.Duration
	corr    []correlation.Option
	// acceptor is set by Stack alone: the layers mounted one by one leave
	// correlation to correlation.Middleware.
	acceptor corrstate.Acceptor
	// corrHeader is the response header the acceptor sets.
	corrHeader string
}

// WithWriter sets the problem writer, and with it the logger every failure
// is logged to (problem.WithLogger): there is no other logger to give. A
// layer given a writer also hands it to everything below through the
// request's context (problem.FromContext), so chi's NotFound and
// MethodNotAllowed handlers, the rate limiter and problem.Write in handlers
// use it without being told again. Without one, a layer uses the writer the
// request arrived with, else problem.Default() at the time of the request
// (so a later problem.SetDefault still applies).
func WithWriter(w *problem.Writer) Option { return func(c *config) { c.writer = w } }

// WithBodyLimit sets Stack's request body limit in bytes (see BodyLimit);
// zero, the default, sets none.
func WithBodyLimit(n int64) StackOption {
	return stackOption(func(c *config) { c.limit = max(n, 0) })
}

// WithRequestTimeout sets Stack's deadline for each request (see Timeout);
// zero, the default, sets none.
func WithRequestTimeout(d time.Duration) StackOption {
	return stackOption(func(c *config) { c.timeout = max(d, 0) })
}

// WithCorrelation passes options to the correlation Stack includes (see
// correlation.Middleware). A rejected inbound ID is logged to the problem
// writer's logger.
func WithCorrelation(opts ...correlation.Option) StackOption {
	return stackOption(func(c *config) { c.corr = append(c.corr, opts...) })
}

func newConfig(opts []Option) *config {
	c := &config{}
	for _, o := range opts {
		o(c)
	}
	return c
}

var problemWriterKey any = problemhook.ContextKey{}

// problemWriter is the configured Writer, else the one ctx carries (Stack's,
// for chi's NotFound and MethodNotAllowed handlers, which run inside it),
// else problem.Default().
func (c *config) problemWriter(ctx context.Context) *problem.Writer {
	if c.writer != nil {
		return c.writer
	}
	return problem.FromContext(ctx)
}
