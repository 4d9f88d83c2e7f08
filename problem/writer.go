package problem

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faultline-go/faultline/internal/problemhook"
)

// Writer writes problems to HTTP responses with one configuration: the type
// base URI, header names, legacy window, logger and error mappers. A Writer
// is safe for concurrent use and never modified after NewWriter. A nil
// *Writer, or a zero Writer (one NewWriter did not make), writes as
// Default() does.
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
	// per code); recentCodes finds the entries of the first codes used
	// without the map's hash (see cached).
	codes       sync.Map
	recentCodes [codeSlots]atomic.Pointer[codeEntry]
}

var defaultWriter atomic.Pointer[Writer]

func init() { defaultWriter.Store(NewWriter()) }

// Default returns the Writer used by the package-level functions when the
// request's context carries none.
func Default() *Writer { return defaultWriter.Load() }

// SetDefault replaces the Writer used by the package-level functions.
func SetDefault(w *Writer) { defaultWriter.Store(w) }

// Write writes p with the Writer r's context carries (see FromContext), or
// the default Writer.
func Write(w http.ResponseWriter, r *http.Request, p *Problem) error {
	return writerFor(r).write(w, r, p, 0)
}

// Registry returns the writer's registry.
func (wr *Writer) Registry() *Registry { return wr.usable().registry }

// usable is the Writer that does wr's work: wr, or Default() for a nil or
// zero Writer, which has no registry to resolve a code with. Left unset
// where a Writer is expected, it writes as the kit does without one
// instead of panicking on every problem, which under middleware.Stack
// left each failing client with an aborted connection and no answer.
func (wr *Writer) usable() *Writer {
	if wr == nil || wr.registry == nil {
		return Default()
	}
	return wr
}

// Logger returns where the writer logs problems. The kit's other layers
// (middlewares, rate limits, bind, correlation) log through it too, so a
// service gives its logger once, to the Writer.
func (wr *Writer) Logger() *slog.Logger {
	if wr = wr.usable(); wr.logger != nil {
		return wr.logger
	}
	return slog.Default()
}

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
	// Under middleware.Stack the map holds, as a rule, the correlation
	// header and nothing else: one lookup finds it, where a range over the
	// map costs a few hundred instructions (most of them the iterator's
	// random start). A correlation header of a name the writer looks for
	// below or sets itself (correlationRewritten) takes the range.
	if len(h) == 1 && !wr.correlationRewritten && wr.correlationHeader != "" {
		if v, ok := h[wr.correlationHeader]; ok {
			hs.correlation = v
			return hs
		}
	}
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
// when the response has already started. That needs w to know: under
// middleware.Stack and in a handler adapted by Handler it does; a bare
// net/http ResponseWriter cannot be asked, so a handler served without
// either must not call Write after its first write.
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
	wr = wr.usable()
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
	media := negotiate(acceptList(r.Header))
	wr.setHeaders(h, &hs, &res, e, media, legacy)
	if m, ok := w.(problemhook.ProblemMarker); ok {
		m.MarkProblem()
	}
	w.WriteHeader(res.status)
	wr.log(r, &res, e, false, pc)
	var err error
	if r.Method != http.MethodHead {
		err = wr.writeBody(w, &res, e, media, legacy)
	}
	wr.observe(r, &res)
	return err
}

// setHeaders sets the headers of res's response over the handler's, hs
// being what scanHeader found in them.
func (wr *Writer) setHeaders(h http.Header, hs *headerScan, res *Problem, e *codeEntry, media media, legacy bool) {
	if hs.representation {
		for name := range h {
			// A 416's Content-Range ("bytes */length") describes the selected
			// representation, not the body, and RFC 9110 §15.5.17 asks for it.
			if isRepresentationHeader(name) && (name != "Content-Range" || res.status != http.StatusRequestedRangeNotSatisfiable) {
				delete(h, name)
			}
		}
	}
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
			h[wr.codeHeader] = wr.codeValue(res.code)
		}
	}
	setRetryAfter(h, hs, res)
	if wr.correlationRewritten {
		hs.correlation = h[wr.correlationHeader]
	}
	if wr.correlationHeader != "" && res.correlationID != "" && (len(hs.correlation) == 0 || hs.correlation[0] != res.correlationID) {
		h.Set(wr.correlationHeader, res.correlationID)
	}
	if legacy && wr.legacy.DeprecationHeaders && !wr.legacy.Until.IsZero() {
		since := wr.legacy.Since
		if since.IsZero() {
			since = wr.legacy.Until
		}
		h.Set("Deprecation", "@"+strconv.FormatInt(since.Unix(), 10))
		h.Set("Sunset", wr.legacy.Until.UTC().Format(http.TimeFormat))
	}
}

// setRetryAfter makes Retry-After agree with the body.
func setRetryAfter(h http.Header, hs *headerScan, res *Problem) {
	if res.retryAfter > 0 {
		h["Retry-After"] = []string{strconv.FormatInt(retryAfterSeconds(res.retryAfter), 10)}
	} else if (res.retryable || res.action == ActionVerify) && hs.hasRetryAfter {
		// A retryable problem had no usable retry time in the handler's
		// Retry-After (malformed, zero or a past date): sent alone, it would
		// disagree with the body. Under verify a retry time would invite
		// the replay verify warns against. A problem that is not retryable
		// keeps a handler's header as Guard keeps any header that matters.
		delete(h, "Retry-After")
	}
}

// writeBody renders res in the negotiated media type into a pooled buffer
// and writes it.
func (wr *Writer) writeBody(w http.ResponseWriter, res *Problem, e *codeEntry, media media, legacy bool) error {
	bp := bufPool.Get().(*[]byte)
	buf := (*bp)[:0]
	switch media {
	case mediaXML:
		buf = res.appendXML(buf, legacy)
	case mediaText:
		buf = res.appendText(buf, wr.brand)
	default:
		buf = res.appendJSONWith(buf, legacy, e.jsonSegments())
	}
	_, err := w.Write(buf)
	if cap(buf) <= 64<<10 {
		*bp = buf
		bufPool.Put(bp)
	}
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

func init() {
	problemhook.FactsOf = func(v any) problemhook.WriterFacts {
		// A zero Writer writes as Default(): the layers that read its
		// facts (the docs' examples, Guard's text plane) must see those.
		wr := v.(*Writer).usable()
		f := problemhook.WriterFacts{Brand: wr.brand, CorrelationHeader: wr.correlationHeader, CodeHeader: wr.codeHeader, LegacyActive: wr.legacyActive()}
		if wr.legacy != nil {
			// The documentation (problemdocs' type-URI pages) announces
			// the legacy members and their end date.
			f.Legacy = *wr.legacy
		}
		return f
	}
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

// acceptList is the request's Accept as one list: several field lines
// mean their values joined by commas (RFC 9110 §5.3), so a preference on a
// later line counts. The usual single line costs no allocation.
func acceptList(h http.Header) string {
	v := h["Accept"]
	if len(v) == 1 {
		return v[0]
	}
	return strings.Join(v, ",")
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
