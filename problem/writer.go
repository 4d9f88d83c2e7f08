package problem

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faultline-go/faultline/correlation"
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
	legacy            *Legacy
	now               func() time.Time
	logger            *slog.Logger
	clientErrorLevel  slog.Level
	mappers           []Mapper
	// codes caches per registered code the strings the hot error path
	// would otherwise allocate for every response (a *codeStrings per code).
	codes sync.Map
}

// Legacy configures the transition window during which the pre-RFC members
// error (= code) and message (= detail or title) are emitted too.
type Legacy struct {
	// Until ends the window: from then on the legacy members are gone. Zero
	// means no announced end (and no Deprecation or Sunset headers).
	Until time.Time
	// Since is when the legacy members were deprecated, announced in the
	// Deprecation header; zero announces Until instead.
	Since time.Time
}

// Option configures a Writer.
type Option func(*Writer)

// WithRegistry sets the registry used to resolve bare statuses and to look
// up codes; the default is DefaultRegistry.
func WithRegistry(r *Registry) Option { return func(w *Writer) { w.registry = r } }

// WithBaseURI sets the prefix of every type URI: type = base + code.
func WithBaseURI(base string) Option { return func(w *Writer) { w.baseURI = base } }

// WithBrand sets the name that opens the text/plain proxy plane's first line.
func WithBrand(brand string) Option { return func(w *Writer) { w.brand = brand } }

// WithCodeHeader sets the name of the header that carries the code on every
// problem (default X-Error-Code); empty disables it.
func WithCodeHeader(name string) Option { return func(w *Writer) { w.codeHeader = name } }

// WithCorrelationHeader sets the header that echoes the correlation ID
// (default correlation.DefaultHeader).
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

// DefaultBaseURI is the type prefix when none is configured.
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
	return w
}

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
	return writerFor(r).write(w, r, p)
}

// WriteError maps err and writes it with the Writer r's context carries, or
// the default Writer.
func WriteError(w http.ResponseWriter, r *http.Request, err error) error {
	wr := writerFor(r)
	return wr.write(w, r, wr.FromError(err))
}

// Registry returns the writer's registry.
func (wr *Writer) Registry() *Registry { return wr.registry }

// Logger returns where the writer logs problems.
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

// ResponseStarter is implemented by response writer wrappers that know
// whether the status line has gone out (faultline's middlewares do).
type ResponseStarter interface {
	ResponseStarted() bool
}

// ProblemMarker is implemented by response writer wrappers that must tell a
// problem apart from any other error response (faultline's Guard replaces
// bare error statuses, and must not replace a problem in any of its
// representations). Write calls MarkProblem just before WriteHeader.
type ProblemMarker interface {
	MarkProblem()
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// representation headers describe a body; the problem replaces that body, so
// they would lie about it. Every other header (Allow, Retry-After,
// WWW-Authenticate, rate limits, CORS, security) is kept.
var representationHeaders = []string{
	"Content-Length", "Content-Encoding", "Content-Range", "Content-Language",
	"Content-Location", "Content-Disposition", "Content-Md5", "Digest",
	"Etag", "Last-Modified", "Accept-Ranges", "Transfer-Encoding", "Trailer",
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
// in the negotiated representation. It fills type, instance and
// correlation_id from the request without modifying p, logs exactly one
// record, and writes nothing (returning ErrResponseStarted) when the
// response has already started.
func (wr *Writer) Write(w http.ResponseWriter, r *http.Request, p *Problem) error {
	return wr.write(w, r, p)
}

// write is called directly by every exported function that writes a
// problem, so the code that asked for it is always the same number of frames
// up from log.
func (wr *Writer) write(w http.ResponseWriter, r *http.Request, p *Problem) error {
	if p == nil {
		// Writing nothing would leave a bare response, the third state.
		p = New(Internal)
	}
	res := wr.resolve(r, p)
	if rs, ok := w.(ResponseStarter); ok && rs.ResponseStarted() {
		wr.log(r, &res, p, true)
		return ErrResponseStarted
	}
	legacy := wr.legacyActive()
	h := w.Header()
	for _, name := range representationHeaders {
		delete(h, name)
	}
	media := negotiate(r.Header.Get("Accept"))
	h["Content-Type"] = mediaValues[media]
	h["Cache-Control"] = noStore
	h["X-Content-Type-Options"] = noSniff
	if vary := h["Vary"]; len(vary) == 0 {
		h["Vary"] = varyAccept
	} else if !headerHasToken(vary, varyAccept[0]) {
		h.Add("Vary", varyAccept[0])
	}
	if wr.codeHeader != "" {
		h[wr.codeHeader] = wr.codeValue(res.Code)
	}
	if res.RetryAfter > 0 {
		h.Set("Retry-After", strconv.FormatInt(retryAfterSeconds(res.RetryAfter), 10))
	}
	if wr.correlationHeader != "" && res.CorrelationID != "" && h.Get(wr.correlationHeader) != res.CorrelationID {
		h.Set(wr.correlationHeader, res.CorrelationID)
	}
	if legacy && !wr.legacy.Until.IsZero() {
		since := wr.legacy.Since
		if since.IsZero() {
			since = wr.legacy.Until
		}
		h.Set("Deprecation", "@"+strconv.FormatInt(since.Unix(), 10))
		h.Set("Sunset", wr.legacy.Until.UTC().Format(http.TimeFormat))
	}
	if m, ok := w.(ProblemMarker); ok {
		m.MarkProblem()
	}
	w.WriteHeader(res.Status)
	wr.log(r, &res, p, false)
	if r.Method == http.MethodHead {
		return nil
	}
	bp := bufPool.Get().(*[]byte)
	buf := (*bp)[:0]
	switch media {
	case mediaXML:
		buf = res.AppendXML(buf, legacy)
	case mediaText:
		buf = res.AppendText(buf, wr.brand)
	default:
		buf = res.AppendJSON(buf, legacy)
	}
	_, err := w.Write(buf)
	if cap(buf) <= 64<<10 {
		*bp = buf
		bufPool.Put(bp)
	}
	return err
}

// WriteError maps err to a problem and writes it; the error is kept for the
// log.
func (wr *Writer) WriteError(w http.ResponseWriter, r *http.Request, err error) error {
	return wr.write(w, r, wr.FromError(err))
}

// Resolve returns the problem as Write would render it for r: type,
// instance and correlation_id filled in. It is for surfaces other than an
// HTTP response (JSON-RPC, CLI) that still want the request's context.
func (wr *Writer) Resolve(r *http.Request, p *Problem) *Problem {
	res := wr.resolve(r, p)
	return &res
}

// LegacyActive reports whether the legacy members are emitted now.
func (wr *Writer) LegacyActive() bool { return wr.legacyActive() }

func (wr *Writer) resolve(r *http.Request, p *Problem) Problem {
	res := p.clone()
	if res.Status < 400 || res.Status > 599 {
		res.Status = http.StatusInternalServerError
	}
	if res.Type == "" && res.Code != "" {
		res.Type = wr.typeURI(res.Code)
	}
	if res.Title == "" {
		res.Title = http.StatusText(res.Status)
	}
	if res.Code == "" {
		c := wr.registry.ForStatus(res.Status)
		res.Code, res.Action, res.Cause = c.Name, c.Action, c.Cause
	}
	if r != nil {
		if res.Instance == "" && r.URL != nil {
			res.Instance = r.URL.Path
		}
		if res.CorrelationID == "" {
			res.CorrelationID = correlation.ID(r.Context())
		}
	}
	return res
}

type codeStrings struct {
	header []string // the code header's value
	typ    string   // the type URI
}

// cached returns the strings of a registered code, made on first use;
// nil for a code the registry does not know, which is not worth keeping.
func (wr *Writer) cached(code string) *codeStrings {
	if v, ok := wr.codes.Load(code); ok {
		return v.(*codeStrings)
	}
	if _, registered := wr.registry.Lookup(code); !registered {
		return nil
	}
	v, _ := wr.codes.LoadOrStore(code, &codeStrings{header: []string{code}, typ: wr.baseURI + code})
	return v.(*codeStrings)
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
	return wr.baseURI + code
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

func headerHasToken(values []string, token string) bool {
	for _, v := range values {
		if v == token || v == "*" {
			return true
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
func (wr *Writer) log(r *http.Request, res *Problem, orig *Problem, started bool) {
	ctx := context.Background()
	if r != nil {
		ctx = r.Context()
	}
	wr.logContext(ctx, r, res, orig, started)
}

// logContext is log for a problem that may have no HTTP request; it is
// called one frame below log's callers, as log itself is.
func (wr *Writer) logContext(ctx context.Context, r *http.Request, res *Problem, orig *Problem, started bool) {
	h := wr.Logger().Handler()
	level := wr.level(res)
	if !h.Enabled(ctx, level) {
		return
	}
	msg := "problem"
	if started {
		msg = "problem not written: response already started"
	}
	var pcs [1]uintptr
	runtime.Callers(5, pcs[:])
	rec := slog.NewRecord(time.Now(), level, msg, pcs[0])
	// The first five fill the record's inline storage; the rest go in one
	// AddAttrs call so the overflow is allocated once.
	rec.AddAttrs(
		slog.String("code", res.Code),
		slog.Int("status", res.Status),
		slog.String("cause", string(res.Cause)),
		slog.String("action", string(res.Action)),
		slog.String("correlation_id", res.CorrelationID),
	)
	var more [5]slog.Attr
	n := 0
	if r != nil {
		more[0], more[1] = slog.String("method", r.Method), slog.String("path", r.URL.Path)
		n = 2
	}
	if orig.err != nil {
		more[n] = sanitize.LogAttr("error", orig.err.Error())
		n++
	}
	if orig.hiddenDetail != "" {
		more[n] = sanitize.LogAttr("hidden_detail", orig.hiddenDetail)
		n++
	}
	if started {
		more[n] = slog.Bool("response_started", true)
		n++
	}
	rec.AddAttrs(more[:n]...)
	rec.AddAttrs(orig.logAttrs...)
	_ = h.Handle(ctx, rec)
}

func (wr *Writer) level(p *Problem) slog.Level {
	switch {
	case p.Status >= 500:
		return slog.LevelError
	case p.Status == http.StatusTooManyRequests, p.Status == http.StatusUnauthorized,
		p.Status == http.StatusForbidden, p.Cause == CauseAuth:
		return slog.LevelWarn
	}
	return wr.clientErrorLevel
}
