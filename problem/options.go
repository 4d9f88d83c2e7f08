package problem

import (
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/problemhook"
)

// Legacy configures the transition window during which the pre-RFC members
// error (= code) and message (= detail or title) are emitted too.
type Legacy struct {
	// Until ends the window: from then on the legacy members are gone. Zero
	// means no announced end.
	Until time.Time
	// Since is when the legacy members were deprecated, announced in the
	// Deprecation header when DeprecationHeaders is set; zero announces
	// Until instead.
	Since time.Time
	// DeprecationHeaders sends Deprecation (RFC 9745) and Sunset (RFC 8594)
	// on every problem response while the window runs. Off by default:
	// those headers make statements about the resource itself, so a client
	// library would flag a live endpoint as deprecated when only two body
	// members are. Turn it on only when the whole API version behind this
	// Writer is being deprecated and sunset on those dates. The end of the
	// legacy members is otherwise announced in the documentation.
	DeprecationHeaders bool
}

// Option configures a Writer.
type Option func(*Writer)

// WithRegistry sets the registry used to resolve bare statuses and to look
// up codes; the default, and what nil means, is DefaultRegistry.
func WithRegistry(r *Registry) Option { return func(w *Writer) { w.registry = r } }

// WithBaseURI sets the prefix of every type URI: type = base + code. Give
// it the address where the service documents its codes (problemdocs serves
// those pages): without it the built-in codes point at DefaultBaseURI and
// the service's own codes are type about:blank. A base that cannot prefix
// a code is repaired, and NewWriter logs an error saying so: bytes a URI
// cannot hold are percent-encoded, and a base that ends with its host
// ("https://errors.example.com") gets its "/", since the code would
// otherwise extend the host name.
func WithBaseURI(base string) Option { return func(w *Writer) { w.baseURI = base } }

// WithBrand sets the name that opens the text/plain proxy plane's first line.
func WithBrand(brand string) Option { return func(w *Writer) { w.brand = brand } }

// WithCodeHeader sets the name of the header that carries the code on every
// problem (default X-Error-Code); empty disables it.
func WithCodeHeader(name string) Option { return func(w *Writer) { w.codeHeader = name } }

// WithCorrelationHeader sets the header that echoes the correlation ID
// (default correlation.DefaultHeader). middleware.Stack given this writer
// accepts and echoes the ID under the same header.
func WithCorrelationHeader(name string) Option {
	return func(w *Writer) { w.correlationHeader = name }
}

// WithLegacy turns on dual emission of error and message for the window l
// describes.
func WithLegacy(l Legacy) Option { return func(w *Writer) { w.legacy = &l } }

func init() {
	problemhook.WithClock = func(now func() time.Time) any { return Option(func(w *Writer) { w.now = now }) }
}

// WithLogger sets where every written problem is logged (default
// slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(w *Writer) { w.logger = l } }

// WithClientErrorLevel sets the level of 4xx problems other than 429 and
// auth denials (default Info).
func WithClientErrorLevel(l slog.Level) Option {
	return func(w *Writer) { w.clientErrorLevel = l }
}

// WithMappers appends error mappers, consulted in order whenever the
// writer maps an error (From, FromError, a returned error).
func WithMappers(m ...Mapper) Option {
	return func(w *Writer) { w.mappers = append(w.mappers, m...) }
}

// WithObserver sets a function called exactly once for every problem the
// Writer writes, after its headers and body went out, with the request and
// the occurrence as sent (status, code, action, cause, retryable, outcome,
// correlation ID, all final). It is the hook for metrics and traces. It
// runs on the goroutine that writes the problem, which is not always the
// handler's: middleware.Stack's timeout writes from its timer while the
// handler may still run, so fn must not touch what the handler owns (read
// r's context, not r's mutable fields), and it must be quick. It may keep
// p. A problem that could not be written because the response had started
// (a panic after the first write) is observed too, once, after it was
// logged: the failure happened, and a trace must show it, although the
// client got the started response cut short rather than p. Without an
// observer nothing is allocated.
func WithObserver(fn func(r *http.Request, p *Problem)) Option {
	return func(w *Writer) { w.observer = fn }
}

// ProductionEnv is the environment variable that marks a production
// process: when it holds "production" or "prod" (any case),
// WithInsecureDevelopmentMode refuses to turn on.
const ProductionEnv = "FAULTLINE_ENV"

// WithInsecureDevelopmentMode adds to every problem what is otherwise only
// logged: the detail a code hides (member debug_detail) and the wrapped
// error chain, outermost first (member debug_errors), both through the log
// tier of sanitize (credentials redacted; SQL, addresses and paths kept).
// It is for a developer's own machine: those members map the program's
// insides for anyone who sees them. It refuses to turn on, and logs an
// error saying so, when the environment variable FAULTLINE_ENV is
// "production" or "prod".
func WithInsecureDevelopmentMode() Option { return func(w *Writer) { w.dev = true } }

// DefaultBaseURI is the type prefix of the built-in codes when none is
// configured; it is never applied to a service's own codes.
const DefaultBaseURI = "https://faultline.dev/problems/"

// DefaultCodeHeader carries the code on every problem response.
const DefaultCodeHeader = "X-Error-Code"

// NewWriter returns a Writer with opts applied over the defaults.
func NewWriter(opts ...Option) *Writer {
	w := &Writer{
		registry:          defaultRegistry,
		baseURI:           DefaultBaseURI,
		brand:             "faultline",
		codeHeader:        DefaultCodeHeader,
		correlationHeader: correlation.DefaultHeader,
		now:               time.Now,
		clientErrorLevel:  slog.LevelInfo,
	}
	for _, o := range opts {
		o(w)
	}
	if w.registry == nil {
		// WithRegistry(nil): a Writer without a registry could not
		// resolve a single code.
		w.registry = defaultRegistry
	}
	w.codeHeader = http.CanonicalHeaderKey(w.codeHeader)
	w.correlationHeader = http.CanonicalHeaderKey(w.correlationHeader)
	switch w.correlationHeader {
	case "Content-Type", "Cache-Control", "X-Content-Type-Options", "Vary", "Retry-After", w.codeHeader:
		w.correlationRewritten = true
	default:
		w.correlationRewritten = isRepresentationHeader(w.correlationHeader)
	}
	if base := prefixBase(w.baseURI); base != w.baseURI {
		w.Logger().Error("problem: WithBaseURI repaired: a code cannot follow it as given", "base_uri", w.baseURI, "using", base)
		w.baseURI = base
	}
	if w.dev && productionMarked() {
		w.dev = false
		w.Logger().Error("problem: WithInsecureDevelopmentMode refused: " + ProductionEnv + " marks this process as production")
	}
	return w
}

// prefixBase is base as a prefix a code can follow: a URI reference, and
// not one that ends with its authority, where the code would join the
// host ("https://errors.example.comnot_found", a domain nobody checked).
func prefixBase(base string) string {
	fixed := escapeURI(base, true)
	if scheme, rest, ok := strings.Cut(fixed, "://"); ok && isScheme(scheme) && !strings.ContainsAny(rest, "/?#") {
		fixed += "/"
	}
	return fixed
}

func productionMarked() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(ProductionEnv))) {
	case "production", "prod":
		return true
	}
	return false
}
