package middleware

import (
	"context"
	"strconv"
	"time"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/corrstate"
	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
)

// Option configures Stack. Stack is the one place the problem writer is
// set: the other middlewares and handlers of the package take no options
// and write with the writer the request carries (see WithWriter).
type Option func(*config)

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

// WithWriter sets Stack's problem writer, and with it the logger every
// failure is logged to (problem.WithLogger): there is no other logger to
// give. Stack hands the writer to everything below it through the
// request's context (problem.FromContext), so Recover, Guard, BodyLimit,
// Timeout, NotFound and MethodNotAllowed mounted inside it, the rate
// limiter and problem.Write in handlers use it without being told again.
// Without one, Stack uses problem.Default() at the time of the request
// (so a later problem.SetDefault still applies); so do the other
// middlewares mounted without Stack.
func WithWriter(w *problem.Writer) Option { return func(c *config) { c.writer = w } }

// WithBodyLimit sets Stack's request body limit in bytes (see BodyLimit);
// zero, the default, sets none. It panics if n is negative: read as none,
// a sign slip or an overflowed setting would remove the limit unseen.
func WithBodyLimit(n int64) Option {
	if n < 0 {
		panic("middleware: WithBodyLimit(" + strconv.FormatInt(n, 10) + "): a body limit cannot be negative; zero sets none")
	}
	return func(c *config) { c.limit = n }
}

// WithRequestTimeout sets Stack's deadline for each request (see Timeout);
// zero, the default, sets none. It panics if d is negative, as WithBodyLimit
// does.
func WithRequestTimeout(d time.Duration) Option {
	if d < 0 {
		panic("middleware: WithRequestTimeout(" + d.String() + "): a deadline cannot be negative; zero sets none")
	}
	return func(c *config) { c.timeout = d }
}

// WithCorrelation passes options to the correlation Stack includes (see
// correlation.Middleware). A rejected inbound ID is logged to the problem
// writer's logger.
func WithCorrelation(opts ...correlation.Option) Option {
	return func(c *config) { c.corr = append(c.corr, opts...) }
}

var problemWriterKey any = problemhook.ContextKey{}

// problemWriter is Stack's Writer, else the one ctx carries (an outer
// Stack's, for the layers and chi's NotFound and MethodNotAllowed handlers
// inside it), else problem.Default().
func (c *config) problemWriter(ctx context.Context) *problem.Writer {
	if c.writer != nil {
		return c.writer
	}
	return problem.FromContext(ctx)
}
