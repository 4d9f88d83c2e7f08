package problem

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/logmark"
	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/sanitize"
)

// Writer writes problems to HTTP responses with one configuration: the type
// base URI, header names, legacy window, logger and error mappers. A Writer
// is safe for concurrent use and never modified after NewWriter.
type Writer struct {
	registry          *Registry
	baseURI           string
	brand             string
	codeHeader        string
	correlationHeader string
	// correlationRewritten: the correlation header is one the problem
	// itself sets or drops before it echoes the ID, so its value must be
	// read again at that point instead of taken from the header scan.
	correlationRewritten bool
	legacy               *Legacy
	now                  func() time.Time
	logger               *slog.Logger
	clientErrorLevel     slog.Level
	mappers              []Mapper
	observer             func(*http.Request, *Problem)
	dev                  bool
	// codes caches per registered code its kind and the strings the hot
	// error path would otherwise allocate for every response (a *codeEntry
	// per code).
	codes sync.Map
}

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
// up codes; the default is DefaultRegistry.
func WithRegistry(r *Registry) Option { return func(w *Writer) { w.registry = r } }

// WithBaseURI sets the prefix of every type URI: type = base + code. Give
// it the address where the service documents its codes (problemdocs serves
// those pages): without it the built-in codes point at DefaultBaseURI and
// the service's own codes are type about:blank.
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

// WithClock replaces time.Now, for tests of the legacy window.
func WithClock(now func() time.Time) Option { return func(w *Writer) { w.now = now } }

// WithLogger sets where every written problem is logged (default
// slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(w *Writer) { w.logger = l } }

// WithClientErrorLevel sets the level of 4xx problems other than 429 and
// auth denials (default Info).
func WithClientErrorLevel(l slog.Level) Option {
	return func(w *Writer) { w.clientErrorLevel = l }
}

// WithMappers appends error mappers, consulted in order by FromError.
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
	w.codeHeader = http.CanonicalHeaderKey(w.codeHeader)
	w.correlationHeader = http.CanonicalHeaderKey(w.correlationHeader)
	switch w.correlationHeader {
	case "Content-Type", "Cache-Control", "X-Content-Type-Options", "Vary", "Retry-After", w.codeHeader:
		w.correlationRewritten = true
	default:
		w.correlationRewritten = isRepresentationHeader(w.correlationHeader)
	}
	if w.dev && productionMarked() {
		w.dev = false
		w.Logger().Error("problem: WithInsecureDevelopmentMode refused: " + ProductionEnv + " marks this process as production")
	}
	return w
}

func productionMarked() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(ProductionEnv))) {
	case "production", "prod":
		return true
	}
	return false
}

// DevelopmentMode reports whether WithInsecureDevelopmentMode is in effect.
func (wr *Writer) DevelopmentMode() bool { return wr.dev }

// BaseURI returns the prefix of every type URI.
func (wr *Writer) BaseURI() string { return wr.baseURI }

// CodeHeader returns the name of the header that carries the code, or ""
// when it is disabled.
func (wr *Writer) CodeHeader() string { return wr.codeHeader }

// CorrelationHeader returns the header that echoes the correlation ID.
func (wr *Writer) CorrelationHeader() string { return wr.correlationHeader }

// TypeURI returns the type URI of a code: the base URI plus the code, or
// about:blank for a service's own code under DefaultBaseURI.
func (wr *Writer) TypeURI(code string) string { return wr.typeURI(code) }

var defaultWriter atomic.Pointer[Writer]

func init() { defaultWriter.Store(NewWriter()) }

// Default returns the Writer used by the package-level functions when the
// request's context carries none.
func Default() *Writer { return defaultWriter.Load() }

// SetDefault replaces the Writer used by the package-level functions.
func SetDefault(w *Writer) { defaultWriter.Store(w) }

// Write writes p with the Writer r's context carries (see NewContext), or
// the default Writer.
func Write(w http.ResponseWriter, r *http.Request, p *Problem) error {
	return writerFor(r).write(w, r, p, 0)
}

// WriteError maps err and writes it with the Writer r's context carries, or
// the default Writer.
func WriteError(w http.ResponseWriter, r *http.Request, err error) error {
	wr := writerFor(r)
	var p Problem
	wr.fromError(err, &p)
	return wr.write(w, r, &p, 0)
}

// Registry returns the writer's registry.
func (wr *Writer) Registry() *Registry { return wr.registry }

// Logger returns where the writer logs problems. The kit's other layers
// (middlewares, rate limits, bind, correlation) log through it too, so a
// service gives its logger once, to the Writer.
func (wr *Writer) Logger() *slog.Logger {
	if wr.logger != nil {
		return wr.logger
	}
	return slog.Default()
}

// Brand returns the name the text plane opens with.
func (wr *Writer) Brand() string { return wr.brand }

// ErrResponseStarted is returned by Write when the response was already
// committed: a second status line cannot be sent, so nothing is written.
var ErrResponseStarted = errors.New("problem: response already started")

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// headerScan is what writing a problem needs to know of the handler's
// header map, read in the one pass over it that looking for representation
// headers takes anyway: three lookups fewer, each a hash of its key, on
// every problem.
type headerScan struct {
	retryAfter, vary, correlation []string
	hasRetryAfter                 bool
	// representation: the map holds a header that describes a body the
	// problem replaces.
	representation bool
}

func (wr *Writer) scanHeader(h http.Header) headerScan {
	var hs headerScan
	for name, v := range h {
		switch name {
		case "Retry-After":
			hs.retryAfter, hs.hasRetryAfter = v, true
		case "Vary":
			hs.vary = v
		}
		if name == wr.correlationHeader {
			hs.correlation = v
		}
		if isRepresentationHeader(name) {
			hs.representation = true
		}
	}
	return hs
}

// isRepresentationHeader reports the headers that describe a body; the
// problem replaces that body, so they would lie about it: a client checking
// a digest (RFC 9530's Content-Digest and Repr-Digest) would reject the
// problem, and Expires would outlive its no-store. Every other header
// (Allow, Retry-After, WWW-Authenticate, rate limits, CORS, security) is
// kept. The writer ranges over the few headers a response has rather than
// deleting each of these names from it.
func isRepresentationHeader(name string) bool {
	switch name {
	case "Content-Length", "Content-Encoding", "Content-Range", "Content-Language",
		"Content-Location", "Content-Disposition", "Content-Md5", "Digest",
		"Content-Digest", "Repr-Digest", "Expires",
		"Etag", "Last-Modified", "Accept-Ranges", "Transfer-Encoding", "Trailer":
		return true
	}
	return false
}

// Constant header values are shared slices: assigning them costs no
// allocation per response. Nothing in net/http modifies a value slice in
// place, and Add appends past their length into a new array.
var (
	noStore     = []string{"no-store"}
	noSniff     = []string{"nosniff"}
	varyAccept  = []string{"Accept"}
	mediaValues = [...][]string{
		mediaJSON: {"application/problem+json"},
		mediaXML:  {"application/problem+xml; charset=utf-8"},
		mediaText: {"text/plain; charset=utf-8"},
	}
)

// Write renders p for r and writes it to w: status, headers, then the body
// in the negotiated representation (none for HEAD). It fills type,
// instance and correlation_id from the request without modifying p, logs
// exactly one record, and writes nothing (returning ErrResponseStarted)
// when the response has already started.
//
// Whatever p says, what goes out keeps the contract: a code the Writer's
// registry does not know is sent as internal (its record names the
// mistake, see Check); action, cause and the detail rule come from the
// registry; a
// problem whose outcome is unknown is not retryable and asks the client
// to verify unless the request carried an Idempotency-Key; one whose
// outcome is committed, for an unsafe method without an Idempotency-Key,
// is not retryable; action retry is
// never sent with retryable false; a retryable problem sends
// retry_after_ms and Retry-After together and agreeing (a handler's
// Retry-After, in seconds or as an HTTP date, lends the problem its retry
// time); a problem that is not retryable never sends retry_after_ms, and
// keeps a Retry-After the handler set unless its action is verify.
func (wr *Writer) Write(w http.ResponseWriter, r *http.Request, p *Problem) error {
	return wr.write(w, r, p, 0)
}

// write is called directly by every exported function that writes a
// problem, so the code that asked for it is always the same number of frames
// up from log; pc, when not 0, names that code instead (see Handler).
func (wr *Writer) write(w http.ResponseWriter, r *http.Request, p *Problem, pc uintptr) error {
	if p == nil {
		// Writing nothing would leave a bare response, the third state.
		p = New(Internal)
	}
	h := w.Header()
	hs := wr.scanHeader(h)
	res, e := wr.resolve(r, p, hs.retryAfter)
	if rs, ok := w.(problemhook.ResponseStarter); ok && rs.ResponseStarted() {
		if a, ok := w.(problemhook.Answered); !ok || !a.Answered() {
			wr.log(r, &res, e, true, pc)
			wr.observe(r, &res)
		}
		return ErrResponseStarted
	}
	legacy := wr.legacyActive()
	if hs.representation {
		for name := range h {
			// A 416's Content-Range ("bytes */length") describes the selected
			// representation, not the body, and RFC 9110 §15.5.17 asks for it.
			if isRepresentationHeader(name) && (name != "Content-Range" || res.Status != http.StatusRequestedRangeNotSatisfiable) {
				delete(h, name)
			}
		}
	}
	media := negotiate(firstValue(r.Header, "Accept"))
	h["Content-Type"] = mediaValues[media]
	h["Cache-Control"] = noStore
	h["X-Content-Type-Options"] = noSniff
	if vary := hs.vary; len(vary) == 0 {
		h["Vary"] = varyAccept
	} else if !headerHasToken(vary, varyAccept[0]) {
		h.Add("Vary", varyAccept[0])
	}
	if wr.codeHeader != "" {
		if e != nil {
			h[wr.codeHeader] = e.header
		} else {
			h[wr.codeHeader] = wr.codeValue(res.Code)
		}
	}
	if res.RetryAfter > 0 {
		h["Retry-After"] = []string{strconv.FormatInt(retryAfterSeconds(res.RetryAfter), 10)}
	} else if res.Retryable || res.Action == ActionVerify {
		// A retryable problem had no usable retry time in the handler's
		// Retry-After (malformed, zero or a past date): sent alone, it would
		// disagree with the body. Under verify a retry time would invite
		// the replay verify warns against. A problem that is not retryable
		// keeps a handler's header as Guard keeps any header that matters.
		if hs.hasRetryAfter {
			delete(h, "Retry-After")
		}
	}
	if wr.correlationRewritten {
		hs.correlation = h[wr.correlationHeader]
	}
	if wr.correlationHeader != "" && res.CorrelationID != "" && (len(hs.correlation) == 0 || hs.correlation[0] != res.CorrelationID) {
		h.Set(wr.correlationHeader, res.CorrelationID)
	}
	if legacy && wr.legacy.DeprecationHeaders && !wr.legacy.Until.IsZero() {
		since := wr.legacy.Since
		if since.IsZero() {
			since = wr.legacy.Until
		}
		h.Set("Deprecation", "@"+strconv.FormatInt(since.Unix(), 10))
		h.Set("Sunset", wr.legacy.Until.UTC().Format(http.TimeFormat))
	}
	if m, ok := w.(problemhook.ProblemMarker); ok {
		m.MarkProblem()
	}
	w.WriteHeader(res.Status)
	wr.log(r, &res, e, false, pc)
	var err error
	if r.Method != http.MethodHead {
		bp := bufPool.Get().(*[]byte)
		buf := (*bp)[:0]
		switch media {
		case mediaXML:
			buf = res.appendXML(buf, legacy)
		case mediaText:
			buf = res.AppendText(buf, wr.brand)
		default:
			buf = res.appendJSONWith(buf, legacy, e.jsonSegments())
		}
		_, err = w.Write(buf)
		if cap(buf) <= 64<<10 {
			*bp = buf
			bufPool.Put(bp)
		}
	}
	wr.observe(r, &res)
	return err
}

func (wr *Writer) observe(r *http.Request, res *Problem) {
	if wr.observer != nil {
		// A copy made only here, so writing without an observer does not
		// move res to the heap.
		o := new(Problem)
		*o = *res
		wr.observer(r, o)
	}
}

// WriteError maps err to a problem and writes it; the error is kept for the
// log.
func (wr *Writer) WriteError(w http.ResponseWriter, r *http.Request, err error) error {
	var p Problem
	wr.fromError(err, &p)
	return wr.write(w, r, &p, 0)
}

// Resolve returns the problem as Write would render it for r: type,
// instance and correlation_id filled in and the contract's rules applied.
// It is for surfaces other than an HTTP response (JSON-RPC, CLI) that still
// want the request's context; r may be nil.
func (wr *Writer) Resolve(r *http.Request, p *Problem) *Problem {
	if p == nil {
		p = New(Internal)
	}
	res, _ := wr.resolve(r, p, nil)
	return &res
}

// LegacyActive reports whether the legacy members are emitted now.
func (wr *Writer) LegacyActive() bool { return wr.legacyActive() }

// resolve returns the occurrence as it goes out, and the registry entry of
// its code when the lookup it made found one. retryAfter is the values of
// the response's Retry-After header, which may lend the problem its retry
// time.
func (wr *Writer) resolve(r *http.Request, p *Problem, retryAfter []string) (Problem, *codeEntry) {
	res := *p
	var entry *codeEntry
	if res.Code == "" {
		// A problem built by hand without a code stands for its status.
		fs := wr.registry.ForStatus(res.Status)
		res.Code, res.Action, res.Cause, res.unclaimed = fs.Code, fs.Action, fs.Cause, fs.unclaimed
		if res.Status < 400 || res.Status > 599 {
			res.Status = fs.Status
		}
		if fs.unclaimed && res.Type == "" {
			res.Type = fs.Type
		}
		if res.Title == "" {
			res.Title = fs.Title
		}
	}
	if res.unclaimed {
		// Family codes keep their family's rules whatever the registry.
		k := Internal
		if res.Status < 500 {
			k = BadRequest
		}
		res.Action, res.Cause, res.hideDetail = k.Action, k.Cause, !k.ShowDetail
	} else if e := wr.cached(res.Code); e != nil {
		entry = e
		k := &e.kind
		if res.Type == "" || res.Type == e.typ {
			// A type documents one title and one status.
			res.Type, res.Title, res.Status, res.fromKind = e.typ, k.Title, k.Status, true
		}
		if !res.Action.valid() {
			res.Action = k.Action
		}
		if !res.Cause.valid() {
			res.Cause = k.Cause
		}
		if !k.ShowDetail && !res.hideDetail {
			res.hideDetail, res.defaultDetail = true, k.DefaultDetail
		}
	} else {
		res = wr.unregistered(p)
	}
	if res.Status < 400 || res.Status > 599 {
		res.Status = http.StatusInternalServerError
	}
	if !res.Outcome.valid() {
		res.Outcome = OutcomeUnknown
	}
	if res.Outcome == "" && res.Retryable && r != nil && (res.Cause == CauseInternal || res.Cause == CauseUpstream) {
		// The server or a dependency failed while the request ran: what
		// became of a write nobody knows, so it says so, as a panic or a
		// timeout of the same request would.
		res.forRequest(r)
	}
	if res.Title == "" {
		res.Title = http.StatusText(res.Status)
	}
	if r != nil {
		if res.Instance == "" && r.URL != nil {
			res.Instance = r.URL.EscapedPath()
			if strings.HasPrefix(res.Instance, "//") {
				// "//host/x" would read as a network-path reference to
				// another host; a leading dot segment keeps it the path it
				// is (RFC 3986 §3.3), and resolving removes the dot again.
				res.Instance = "/." + res.Instance
			}
		}
	}
	res.CorrelationID, res.correlationPublic = correlationOf(r, &res)
	// The retry rules, in one place for every problem: a write whose
	// outcome is unknown may be replayed only under an Idempotency-Key;
	// without one the client must find out what happened first.
	if res.Outcome == OutcomeUnknown && (r == nil || r.Header.Get("Idempotency-Key") == "") {
		res.Retryable = false
		res.Action = ActionVerify
	}
	// A write that took effect is not repeated: without an Idempotency-Key
	// the server could not tell the replay from a second write. Outside
	// HTTP (Report) only the caller knows whether the operation may be
	// repeated (mcpfault reads a tool's idempotent annotation), so it
	// decides.
	if res.Outcome == OutcomeCommitted && r != nil && !safeMethod(r.Method) && r.Header.Get("Idempotency-Key") == "" {
		res.Retryable = false
	}
	if res.Action == ActionRetry && !res.Retryable {
		// Telling a client to retry what it may not retry is the one
		// contradiction a client cannot resolve; refusing is the safe side.
		res.Action = ActionNone
	}
	if !res.Retryable {
		res.RetryAfter = 0
	} else if res.RetryAfter <= 0 && len(retryAfter) > 0 {
		res.RetryAfter = retryAfterFromHeader(retryAfter[0], wr.now())
	}
	if !res.Action.valid() {
		res.Action = ActionNone
	}
	if !res.Cause.valid() {
		res.Cause = CauseInternal
	}
	if err := misuse(p, &res); err != nil {
		// Loud for the developer, in the problem's own record; the client
		// gets the repaired problem.
		res.buildErr = errors.Join(p.buildErr, err)
	}
	if wr.dev {
		res.ext = append(slices.Clip(res.ext), developmentMembers(p)...)
	}
	return res, entry
}

// correlationOf returns the correlation ID res goes out with and whether it
// is public as it is: the request's own ID when res names none or the
// same, otherwise res's own through the public tier, since a literal
// (`Problem{CorrelationID: ...}`) is text like any other. r may be nil.
func correlationOf(r *http.Request, res *Problem) (string, bool) {
	id := res.CorrelationID
	if res.correlationPublic {
		return id, true
	}
	var own string
	if r != nil {
		own = correlation.ID(r.Context())
	}
	if id == "" || id == own {
		return own, true
	}
	return sanitize.Public(id), true
}

// unregistered turns a problem whose code the registry does not know into
// internal: its action and cause would be guesses. The original code and
// error go to the log, and the problem's record names the misuse (see
// misuse).
func (wr *Writer) unregistered(p *Problem) Problem {
	res := *New(Internal)
	if e := wr.cached(Internal.Name); e != nil {
		res.Type = e.typ
	}
	res.err, res.logAttrs, res.buildErr = p.err, p.logAttrs, p.buildErr
	res.logAttrs = append(slices.Clip(res.logAttrs), logString("unregistered_code", p.Code))
	if p.Detail != "" {
		res.Detail = p.Detail
	}
	res.Instance, res.CorrelationID = p.Instance, p.CorrelationID
	return res
}

// developmentMembers are the members WithInsecureDevelopmentMode adds.
func developmentMembers(p *Problem) []Extension {
	var out []Extension
	if d := p.hiddenDetail(); d != "" {
		out = append(out, Extension{"debug_detail", logText(sanitize.Log(d))})
	}
	var chain []any
	for err := p.err; err != nil; err = errors.Unwrap(err) {
		chain = append(chain, logText(sanitize.Log(err.Error())))
	}
	if chain != nil {
		out = append(out, Extension{"debug_errors", chain})
	}
	return out
}

// retryAfterFromHeader reads a Retry-After in delta-seconds or as an HTTP
// date (RFC 9110 §10.2.3) seen from now; a past date or anything malformed
// counts as absent.
func retryAfterFromHeader(v string, now time.Time) time.Duration {
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	if v == "" || len(v) > 9 {
		return 0
	}
	var s int64
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0
		}
		s = s*10 + int64(v[i]-'0')
	}
	return time.Duration(s) * time.Second
}

type codeEntry struct {
	kind   Kind
	header []string // the code header's value
	typ    string   // the type URI
	// code is the record's attribute for the code, made once.
	code slog.Attr
	// prefix is the logger's handler with the code's attributes added
	// (see prefixed), routes the same with a route's added too.
	prefix atomic.Pointer[prefixedHandler]
	routes routePrefixes
	// json holds the runs of the code's problem+json bodies rendered once.
	json atomic.Pointer[jsonSegments]
}

// jsonSegments returns the runs of body every occurrence of e's code
// shares while it keeps its kind's members, made on first use; nil for a
// nil e.
func (e *codeEntry) jsonSegments() *jsonSegments {
	if e == nil {
		return nil
	}
	if s := e.json.Load(); s != nil {
		return s
	}
	s := newJSONSegments(e.kind, e.typ)
	e.json.Store(s)
	return s
}

// cached returns the kind and strings of a registered code, made on first
// use; nil for a code the registry does not know, which is not kept.
func (wr *Writer) cached(code string) *codeEntry {
	if v, ok := wr.codes.Load(code); ok {
		return v.(*codeEntry)
	}
	k, registered := wr.registry.Lookup(code)
	if !registered {
		return nil
	}
	v, _ := wr.codes.LoadOrStore(code, &codeEntry{
		kind: k, header: []string{code}, typ: typeFor(wr.baseURI, code),
		code: logString("code", code),
	})
	return v.(*codeEntry)
}

func (wr *Writer) codeValue(code string) []string {
	if c := wr.cached(code); c != nil {
		return c.header
	}
	return []string{code}
}

func (wr *Writer) typeURI(code string) string {
	if c := wr.cached(code); c != nil {
		return c.typ
	}
	return typeFor(wr.baseURI, code)
}

func (wr *Writer) legacyActive() bool {
	if wr.legacy == nil {
		return false
	}
	return wr.legacy.Until.IsZero() || wr.now().Before(wr.legacy.Until)
}

// retryAfterSeconds rounds up: telling a client to come back before the
// limit resets would only earn it another refusal.
func retryAfterSeconds(d time.Duration) int64 {
	s := int64((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return s
}

// firstValue is h.Get(key) for a key already in canonical form, without
// canonicalizing it again on every problem.
func firstValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// headerHasToken reports whether a list-valued header (RFC 9110 §5.6.1),
// over any number of lines, names token or "*"; names compare without
// regard to case, as field names do.
func headerHasToken(values []string, token string) bool {
	for _, v := range values {
		for elem := range strings.SplitSeq(v, ",") {
			elem = strings.Trim(elem, " \t")
			if elem == "*" || strings.EqualFold(elem, token) {
				return true
			}
		}
	}
	return false
}

// log writes the one record a problem produces. The wrapped error chain and
// a hidden detail go here, never to the client; they pass the log tier of
// sanitize so credentials stay out of the log even when the caller's
// handler does not redact, while addresses and SQL stay for the operator.
//
// The record is built here and handed to the handler directly: Logger.LogAttrs
// would need the attributes in a slice that escapes, and would report this
// function as the source. The source is the code that called Write or
// WriteError (log, write, then the exported function: four frames up).
func (wr *Writer) log(r *http.Request, res *Problem, e *codeEntry, started bool, pc uintptr) {
	ctx := context.Background()
	if r != nil {
		ctx = r.Context()
	}
	wr.logRecord(ctx, r, res, e, started, pc, 5)
}

// logRecord builds and handles the record; e is the registry entry of
// res's code, if known. pc is the record's source, or 0 to take it from the
// stack, skip frames up from runtime.Callers.
//
// Every attribute the writer adds passes the log tier here: those that
// take one of a few values (code, cause, action, a standard method) were
// made once, and a path or error text that repeats is remembered
// (textAttrs). The record is handed on marked (internal/logmark), so
// sanitize's log handler scans only the attributes the problem's builder
// added. What is logged is the same, byte for byte, through any handler.
func (wr *Writer) logRecord(ctx context.Context, r *http.Request, res *Problem, e *codeEntry, started bool, pc uintptr, skip int) {
	h := wr.Logger().Handler()
	level := wr.level(res)
	if !h.Enabled(ctx, level) {
		return
	}
	msg := "problem"
	if started {
		msg = "problem not written: response already started"
	}
	if pc == 0 {
		var pcs [1]uintptr
		runtime.Callers(skip, pcs[:])
		pc = pcs[0]
	}
	rec := slog.NewRecord(time.Now(), level, msg, pc)
	// Collected first so that AddAttrs fills the record's inline storage and
	// allocates an overflow, if any, once.
	var attrs [10]slog.Attr
	n := 0
	// The attributes every record of the code carries, then those of the
	// route, come first: in the logger's handler when they could be added
	// there once (prefixed, routePrefixed), else in the record, in the same
	// order either way.
	codeInHandler, routeInHandler := false, false
	if ph := e.prefixed(h, res); ph != nil {
		codeInHandler = true
		if r != nil {
			if rh := e.routePrefixed(h, ph, r.Method, r.URL.Path); rh != nil {
				ph, routeInHandler = rh, true
			}
		}
		h = ph
	}
	if !codeInHandler {
		var code slog.Attr
		if e != nil && e.kind.Name == res.Code {
			code = e.code
		} else {
			code = logString("code", res.Code)
		}
		attrs[0], attrs[1], attrs[2], attrs[3] = code, slog.Int("status", res.Status),
			causeAttrs.attr(res.Cause), actionAttrs.attr(res.Action)
		n = 4
	}
	if r != nil && !routeInHandler {
		attrs[n], attrs[n+1] = methodAttrs.attr(r.Method), textAttrs.attr("path", r.URL.Path)
		n += 2
	}
	attrs[n] = logString("correlation_id", res.CorrelationID)
	n++
	if res.err != nil {
		attrs[n] = textAttrs.attr("error", res.err.Error())
		n++
	}
	if d := res.hiddenDetail(); d != "" {
		attrs[n] = textAttrs.attr("hidden_detail", d)
		n++
	}
	if res.buildErr != nil {
		attrs[n] = textAttrs.attr("build_error", res.buildErr.Error())
		n++
	}
	if started {
		attrs[n] = slog.Bool("response_started", true)
		n++
	}
	rec.AddAttrs(attrs[:n]...)
	rec.AddAttrs(res.logAttrs...)
	_ = h.Handle(logmark.With(ctx, rec, n), rec)
}

func (wr *Writer) level(p *Problem) slog.Level {
	switch {
	case p.buildErr != nil:
		// A programming error in how the problem was built.
		return slog.LevelError
	case p.Status >= 500:
		return slog.LevelError
	case p.Status == http.StatusTooManyRequests, p.Status == http.StatusUnauthorized,
		p.Status == http.StatusForbidden, p.Cause == CauseAuth:
		return slog.LevelWarn
	}
	return wr.clientErrorLevel
}
