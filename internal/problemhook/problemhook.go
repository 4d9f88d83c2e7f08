// Package problemhook holds the plumbing between the problem writer and the
// kit's response-writer wrappers: the context key the writer is stored
// under, and the interfaces a wrapper implements so the writer can ask
// whether the response has started and announce that a problem is being
// written. Users never need any of it, so it lives outside the public API.
package problemhook

import (
	"context"
	"fmt"
	"time"
)

// ContextKey is the key NewContext stores the Writer under. Context
// types that answer Value themselves (the middleware's per-request state)
// compare against it to hand out the Writer without another allocation.
type ContextKey struct{}

// ResponseStarter is implemented by response-writer wrappers that know
// whether the status line has gone out; the writer then refuses to send a
// second one.
type ResponseStarter interface {
	ResponseStarted() bool
}

// Answered is implemented by response-writer wrappers that can tell that
// the response already sent is a complete problem the kit wrote in the
// handler's place (the timeout's). A problem the handler writes afterwards
// is then the consequence of that answer, not a second failure: the writer
// drops it without a record, so a request has exactly one.
type Answered interface {
	Answered() bool
}

// ProblemMarker is implemented by response-writer wrappers that must tell a
// problem apart from any other error response (the guard replaces bare error
// statuses and must not replace a problem). The writer calls MarkProblem
// just before WriteHeader.
type ProblemMarker interface {
	MarkProblem()
}

// TooLargeDetail is the public detail of request_too_large, naming the limit
// so the client knows how much to cut. The writer's error mapping, the body
// limit and bind all say it, so it has one home.
func TooLargeDetail(limit int64) string {
	return fmt.Sprintf("The request body exceeds the limit of %d bytes.", limit)
}

// PeerMembers are members of a peer's problem that the client takes from
// elsewhere in the response (the status line, headers, a plain error
// body) when the document lacks them. A zero member is left as it is.
type PeerMembers struct {
	Status                             int
	Code, Title, Detail, CorrelationID string
	RetryAfter                         time.Duration
}

// CompletePeer sets m's non-zero members on p, a *problem.Problem that
// problem.Parse returned to the caller and nobody else holds. The problem
// package installs it: the members are read-only to everyone else, and a
// peer's document is the one value whose status and title a client, not
// a code, decides.
var CompletePeer func(p any, m PeerMembers)

// WriterFacts is what the kit's other layers read of a problem.Writer's
// configuration, which is not the Writer's API: a service configures it
// once with the Writer's options and never needs to read it back.
type WriterFacts struct {
	// Brand is the name the text plane opens with (WithBrand).
	Brand string
	// CorrelationHeader is the header the ID is echoed under.
	CorrelationHeader string
	// CodeHeader is the header that carries a problem's code
	// (WithCodeHeader), empty when it is disabled.
	CodeHeader string
	// Legacy is the problem.Legacy window WithLegacy configured, nil
	// without one; LegacyActive says whether its members are sent now.
	Legacy       any
	LegacyActive bool
}

// FactsOf returns the facts of wr, a *problem.Writer; the problem package
// installs it.
var FactsOf func(wr any) WriterFacts

// AppendText appends the text/plain rendering of p, a *problem.Problem,
// under brand, for documentation that shows it beside the JSON; the
// problem package installs it.
var AppendText func(p any, dst []byte, brand string) []byte

// WithClock returns a problem.Option replacing time.Now, for tests of the
// legacy window; the problem package installs it.
var WithClock func(now func() time.Time) any

// CLILine returns the one-line "<code>: <message>" form of p, a
// *problem.Problem, which client.Line and mcpfault's tool errors show; the
// problem package installs it.
var CLILine func(p any) string

// Retired reports whether code was retired from reg, a *problem.Registry,
// for the documentation, which answers a retired code's type URI with 410;
// the problem package installs it.
var Retired func(reg any, code string) bool

// RetiredCodes lists the codes retired from reg, a *problem.Registry,
// sorted, for the documentation's index; the problem package installs it.
var RetiredCodes func(reg any) []string

// NewContext returns a copy of ctx carrying wr, a *problem.Writer, under
// ContextKey, as middleware.Stack's WithWriter does for every request: the
// kit's tests and layers that run without the Stack use it.
func NewContext(ctx context.Context, wr any) context.Context {
	return context.WithValue(ctx, ContextKey{}, wr)
}

// MaxLoggedPath bounds the request path a failure's record quotes: net/http
// takes request lines up to its header limit (1 MiB by default), and a
// client must not make each of its failures a record of that size. An
// operator finds the route by the path's start.
const MaxLoggedPath = 2 << 10

// LoggedPath returns p cut to MaxLoggedPath bytes at a rune's start, with
// the marker a cut text ends with when it was longer.
func LoggedPath(p string) string {
	if len(p) <= MaxLoggedPath {
		return p
	}
	cut := MaxLoggedPath
	for cut > 0 && p[cut]&0xc0 == 0x80 {
		cut--
	}
	return p[:cut] + truncated
}

// truncated is sanitize.Truncated, which this package cannot import.
const truncated = "…[truncated]"
