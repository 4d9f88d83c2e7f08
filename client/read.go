package client

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
)

// DefaultBodyLimit is how much of an error response Reader reads when its
// Limit is zero. Problem documents are small; a body larger than this is not
// one a client should buffer to find out what to do.
const DefaultBodyLimit = 64 << 10

// DefaultReadTimeout bounds reading an error body when Reader's Timeout is
// zero, so a server that sends headers and then stalls cannot hang the
// client even when the request's context has no deadline.
const DefaultReadTimeout = 10 * time.Second

// ErrNoProblemBody is what a ResponseError wraps when its problem was
// built from the status line and headers instead of the body: the body was
// of another media type (an HTML page from a proxy, plain text, nothing at
// all), claimed JSON or XML but was not a document of it, exceeded the
// reader's limit, or was not read within its timeout. The error's text
// says which; what to do next does not depend on it, since the status and
// the headers decide.
var ErrNoProblemBody = errors.New("client: no problem document in the error body")

// Why a body yielded no problem, for the error's text.
var (
	errBodyTooLarge  = fmt.Errorf("%w: it exceeds the limit", ErrNoProblemBody)
	errMalformedBody = fmt.Errorf("%w: it is malformed", ErrNoProblemBody)
	errBodyRead      = fmt.Errorf("%w: reading it failed", ErrNoProblemBody)
)

// ResponseError is an error response read as a problem. errors.As finds
// the *problem.Problem in it; errors.Is finds ErrNoProblemBody when the
// body did not yield one.
type ResponseError struct {
	// Problem is never nil. Its Status is the status the response carried
	// (RFC 9457 §3.1.2: the HTTP status wins over the member), its
	// CorrelationID comes from the body or else the correlation header, and
	// its RetryAfter from retry_after_ms or else the Retry-After header.
	// A document with neither title nor detail gets the status text (for
	// a status without one, "Client Error" or "Server Error") as title, so
	// Line always has a message. Built from the status line
	// alone, it has type about:blank, the status text as title and no code.
	Problem *problem.Problem
	// Err is nil when the body was a problem document or a plain JSON error
	// body; otherwise it wraps ErrNoProblemBody.
	Err error
	// keyed: the request carried an Idempotency-Key its sender chose (not
	// one a Transport generated), so sending it again under that key is
	// safe; ExitCode reads it.
	keyed bool
}

// Error is the CLI line, followed by why the body was not used, if it was
// not.
func (e *ResponseError) Error() string {
	if e.Err == nil {
		return Line(e.Problem)
	}
	return Line(e.Problem) + " (" + e.Err.Error() + ")"
}

// Unwrap returns the problem and, when set, Err.
func (e *ResponseError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Problem}
	}
	return []error{e.Problem, e.Err}
}

// Reader says how a Transport reads error responses (WithReader); the zero
// value is ReadError's.
type Reader struct {
	// Limit is the most bytes of body read; zero means DefaultBodyLimit.
	Limit int64
	// Timeout bounds reading the body; zero means DefaultReadTimeout. A
	// Transport also ends the read when its operation's MaxElapsed does.
	Timeout time.Duration
	// CorrelationHeader names the response header holding the correlation
	// ID when the body has none; empty means X-Request-Id.
	CorrelationHeader string
	// CodeHeader names the response header holding the code when the body
	// is not a problem; empty means X-Error-Code.
	CodeHeader string
	// Now is the clock a Retry-After HTTP-date is measured against when the
	// response has no Date header; nil means time.Now.
	Now func() time.Time
}

// ReadError returns nil for a response below 400. For any other it returns
// a *ResponseError: the one a Transport read to decide, with the Transport's
// Reader, when the response came through one (even when a layer above it,
// such as http.Client's Timeout, wrapped the body); otherwise it reads the body
// itself, up to DefaultBodyLimit within DefaultReadTimeout. The body stays
// readable: what was read is put back in front of what was not, and the
// caller still closes it.
func ReadError(res *http.Response) error { return Reader{}.readError(res) }

func (rd Reader) readError(res *http.Response) error {
	if res.StatusCode < 400 {
		return nil
	}
	if e, ok := remembered(res); ok {
		return e
	}
	if fb, ok := res.Body.(*failureBody); ok {
		return fb.err
	}
	return rd.read(res)
}

// read buffers up to the limit, builds the ResponseError and gives the
// response a body that replays what was read.
func (rd Reader) read(res *http.Response) *ResponseError {
	buf, complete, readErr := rd.readBody(res)
	e := rd.build(res, buf, complete, readErr)
	res.Body = &failureBody{Reader: io.MultiReader(bytes.NewReader(buf), res.Body), orig: res.Body, err: e}
	return e
}

// failureBody is the body of an error response after it was read: the
// buffered bytes, then whatever the limit left unread. It keeps the
// ResponseError so reading it again costs nothing.
type failureBody struct {
	io.Reader
	orig io.ReadCloser
	err  *ResponseError
}

func (b *failureBody) Close() error { return b.orig.Close() }

func (rd Reader) timeout() time.Duration {
	if rd.Timeout <= 0 {
		return DefaultReadTimeout
	}
	return rd.Timeout
}

func (rd Reader) readBody(res *http.Response) (buf []byte, complete bool, err error) {
	if res.Body == nil || res.Body == http.NoBody {
		res.Body = http.NoBody
		return nil, true, nil
	}
	limit := rd.Limit
	if limit <= 0 {
		limit = DefaultBodyLimit
	}
	timeout := rd.timeout()
	// Closing the body is the one way to unblock a read from a stalled
	// server that every ReadCloser honours.
	body := res.Body
	stalled := time.AfterFunc(timeout, func() { body.Close() })
	buf, err = io.ReadAll(io.LimitReader(body, limit+1))
	if !stalled.Stop() {
		return buf, false, fmt.Errorf("%w: no complete body within %s", errBodyRead, timeout)
	}
	if err != nil {
		return buf, false, fmt.Errorf("%w: %v", errBodyRead, err)
	}
	if int64(len(buf)) > limit {
		return buf, false, fmt.Errorf("%w (%d bytes)", errBodyTooLarge, limit)
	}
	return buf, true, nil
}

func (rd Reader) build(res *http.Response, body []byte, complete bool, readErr error) *ResponseError {
	var p *problem.Problem
	err := readErr
	if complete {
		p, err = parseBody(res.Header.Get("Content-Type"), body, res.StatusCode)
	}
	if p == nil {
		p = statusProblem(res.StatusCode, headerToken(res.Header.Get(cmp.Or(rd.CodeHeader, "X-Error-Code"))))
	}
	m := problemhook.PeerMembers{Status: res.StatusCode}
	if p.Title() == "" && p.Detail() == "" {
		// Both are optional (RFC 9457 §3.1); a message is not.
		m.Title = statusText(res.StatusCode)
	}
	if p.CorrelationID() == "" {
		m.CorrelationID = res.Header.Get(cmp.Or(rd.CorrelationHeader, "X-Request-Id"))
	}
	if p.RetryAfter() <= 0 {
		m.RetryAfter = retryAfter(res.Header, rd.Now)
	}
	problemhook.CompletePeer(p, m)
	keyed := res.Request != nil && res.Request.Header.Get(IdempotencyKeyHeader) != ""
	return &ResponseError{Problem: p, Err: err, keyed: keyed}
}

// parseBody reads a problem from a body of the given media type. A nil
// problem with a nil error means the media type carries no problem.
func parseBody(contentType string, body []byte, status int) (*problem.Problem, error) {
	media, _, _ := mime.ParseMediaType(contentType)
	// A byte order mark may be ignored (RFC 8259 §8.1); some Windows
	// servers send one.
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	switch {
	case media == "application/problem+xml":
		return parseXML(body, status)
	case media == "application/problem+json":
		return parseJSON(body, status, true)
	case media == "application/json" || strings.HasSuffix(media, "+json"):
		return parseJSON(body, status, false)
	case media == "text/plain":
		if p, ok := parseText(body, status); ok {
			return p, nil
		}
	}
	return nil, fmt.Errorf("%w (%s)", ErrNoProblemBody, describeMedia(media, len(body)))
}

func describeMedia(media string, n int) string {
	if n == 0 {
		return "empty body"
	}
	if media == "" {
		return "body without a media type"
	}
	return headerToken(media) + " body"
}

// statusProblem is the problem a response says by its status line alone.
func statusProblem(status int, code string) *problem.Problem {
	doc := map[string]any{"type": "about:blank", "status": status, "title": statusText(status)}
	if code != "" {
		doc["code"] = code
	}
	return mustParse(doc)
}

// statusText is the status's reason phrase, or for a status net/http has
// none for (a proxy's 499 or 520) the name of its class (RFC 9110 §15),
// "Server Error" for any status past 4xx.
func statusText(status int) string {
	if text := http.StatusText(status); text != "" {
		return text
	}
	if status >= 400 && status < 500 {
		return "Client Error"
	}
	return "Server Error"
}

// mustParse builds a Problem from members this package assembled, through
// problem.Parse, so every Problem the client returns is one the problem
// package itself read.
func mustParse(doc map[string]any) *problem.Problem {
	p, err := parseDoc(doc)
	if err != nil {
		panic("client: problem.Parse refused a document this package built: " + err.Error())
	}
	return p
}

// parseDoc reads members gathered from another form (XML, a plain JSON
// error body, a status line) with problem.Parse. The values are strings,
// integers, booleans and lists of string maps, which always marshal.
func parseDoc(doc map[string]any) (*problem.Problem, error) {
	b, _ := json.Marshal(doc)
	return problem.Parse(b)
}

// headerToken keeps a header value only if it is a plain token (a code, a
// media type), so a hostile header cannot smuggle text into a CLI line.
func headerToken(s string) string {
	if len(s) == 0 || len(s) > 64 {
		return ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '/' || c == '+') {
			return ""
		}
	}
	return s
}

// retryAfter reads the Retry-After header, delay-seconds or an HTTP-date
// (RFC 9110 §10.2.3). A date is measured against the response's own Date
// header when it has one, so the two clocks' skew does not matter. A
// number of seconds too large for a Duration saturates at the largest
// one, as problem.Parse does for retry_after_ms: the server said "not
// before then", and then is past any budget.
func retryAfter(h http.Header, now func() time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if digits(v) {
		// Only a range error is left for a string of digits.
		secs, err := strconv.ParseUint(v, 10, 64)
		if err != nil || secs > math.MaxInt64/uint64(time.Second) {
			return math.MaxInt64
		}
		return time.Duration(secs) * time.Second
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	ref, err := http.ParseTime(h.Get("Date"))
	if err != nil {
		if now == nil {
			now = time.Now
		}
		ref = now()
	}
	if d := at.Sub(ref); d > 0 {
		return d
	}
	return 0
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// jsonNumber is text as the JSON number it spells, so that a number read
// from XML or plain text reaches problem.Parse and is read by its one rule
// (every spelling, saturation); ok is false for anything else.
func jsonNumber(text string) (n json.Number, ok bool) {
	text = strings.TrimSpace(text)
	if text == "" || text[0] != '-' && (text[0] < '0' || text[0] > '9') || !json.Valid([]byte(text)) {
		return "", false
	}
	return json.Number(text), true
}
