package problem

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/faultline-go/faultline/sanitize"
)

// Problem is one occurrence of a failure: the RFC 9457 members, faultline's
// guidance members, field errors and extension members. It implements error,
// so handlers can return it and errors.As finds it.
//
// Every With method returns a new Problem and leaves its receiver as it was,
// so a Problem may be shared (a package-level sentinel such as
// `var ErrNoBook = problem.New(NoBook)`): deriving one request's occurrence
// from it can never show up in another request's response. Writing a
// Problem never modifies it either. Assigning to the fields of a shared
// Problem is the one way to break this; build a new one instead.
type Problem struct {
	Type   string
	Title  string
	Status int
	// Detail is the occurrence's public text. For a code that does not show
	// details (Kind.ShowDetail false, such as internal) it is never
	// rendered, however it was set: the client sees the code's default
	// detail and the text goes to the log.
	Detail string
	// Instance is a URI reference to the occurrence; the writer sets the
	// request's escaped path.
	Instance string

	// Code is the Name of the Kind this problem is an occurrence of.
	Code      string
	Action    Action
	Cause     Cause
	Retryable bool
	// RetryAfter is rendered as retry_after_ms and as the Retry-After header
	// when the problem is retryable.
	RetryAfter    time.Duration
	Outcome       Outcome
	CorrelationID string
	Errors        []FieldError

	// hideDetail mirrors !Kind.ShowDetail; defaultDetail is then the only
	// detail a client sees.
	hideDetail    bool
	defaultDetail string
	// fromKind marks a problem made by New: its code, and its type and
	// title while they are kindType and kindTitle (what the registry or the
	// kit gave it), need no public tier. Anything else (a problem read
	// with Parse, built as a literal, or a type or title assigned by hand)
	// passes it.
	fromKind            bool
	kindType, kindTitle string
	// unclaimed marks a bare status no code claims (Registry.ForStatus):
	// type about:blank, its code a family name.
	unclaimed bool
	// correlationPublic marks a CorrelationID that needs no public tier:
	// the ID the correlation layer accepted for the request (the header
	// echoes it and the log is keyed by it), or one that already passed
	// the tier. Any other, a literal or a peer's, passes it when rendered.
	correlationPublic bool
	// rpcCode is the kind's JSON-RPC error code.
	rpcCode  int
	ext      []Extension
	err      error
	logAttrs []slog.Attr
	// origin is the shared Problem FromError copied this occurrence from,
	// so errors.Is still finds it although the copy is another value.
	origin *Problem
	// buildErr records misuse found while building (an invalid extension
	// name), reported in the problem's log record.
	buildErr error
}

// FieldError is one entry of the errors array of validation_failed.
type FieldError struct {
	Detail  string `json:"detail"`
	Pointer string `json:"pointer"`
	Code    string `json:"code,omitempty"`
}

// Extension is one extension member, in the order it was set.
type Extension struct {
	Name  string
	Value any
}

// New returns an occurrence of k with the kind's defaults.
func New(k Kind) *Problem {
	p := problemOf(k)
	return &p
}

// problemOf is New as a value.
func problemOf(k Kind) Problem {
	return Problem{
		Title:         k.Title,
		Status:        k.Status,
		Detail:        k.DefaultDetail,
		Code:          k.Name,
		Action:        k.Action,
		Cause:         k.Cause,
		Retryable:     k.Retryable,
		Outcome:       k.Outcome,
		hideDetail:    !k.ShowDetail,
		defaultDetail: k.DefaultDetail,
		rpcCode:       k.JSONRPCCode(),
		fromKind:      true,
		kindTitle:     k.Title,
	}
}

// renderedType and renderedTitle are type and title as rendered: those of
// a Problem not made by New (a peer's, read with Parse) pass the public
// tier, and type stays a URI reference.
func (p *Problem) renderedType() string {
	if p.fromKind && p.Type == p.kindType {
		return p.Type
	}
	return publicInstance(p.Type)
}

// peerText passes text of a Problem not made by New through the public
// tier: a code is the kit's own otherwise, but a peer's document may hold
// anything in it.
func (p *Problem) peerText(s string) string {
	if p.fromKind {
		return s
	}
	return sanitize.Public(s)
}

// renderedCorrelationID is correlation_id as every representation sends it.
func (p *Problem) renderedCorrelationID() string {
	if p.correlationPublic {
		return p.CorrelationID
	}
	return sanitize.Public(p.CorrelationID)
}

func (p *Problem) renderedTitle() string {
	if p.fromKind && p.Title == p.kindTitle {
		return p.Title
	}
	return sanitize.Public(p.Title)
}

// Error returns the code and the public message, through the public tier
// of sanitize: the wrapped error's text and a hidden detail are absent, so
// printing a Problem never leaks them.
func (p *Problem) Error() string {
	if p == nil {
		return "problem: <nil>"
	}
	return p.peerText(p.Code) + ": " + sanitize.Public(p.Message())
}

// Is reports whether target is the Kind p is an occurrence of (same code),
// so errors.Is(err, problem.NotFound) matches any not_found problem, or the
// shared Problem that FromError copied p from.
func (p *Problem) Is(target error) bool {
	if t, ok := target.(*Problem); ok {
		for o := p.origin; p != nil && o != nil; o = o.origin {
			if o == t {
				return true
			}
		}
		return false
	}
	k, ok := target.(Kind)
	return ok && p != nil && k.Name == p.Code
}

// Unwrap returns the error the problem was built from, for errors.Is/As and
// for the log.
func (p *Problem) Unwrap() error {
	if p == nil {
		return nil
	}
	return p.err
}

// Message is the one-line public text before sanitizing: the detail a
// client may see, or the title without one.
func (p *Problem) Message() string {
	if d := p.publicDetail(); d != "" {
		return d
	}
	return p.Title
}

// publicDetail is the detail a client may see: for a code that hides
// details, only its default.
func (p *Problem) publicDetail() string {
	if p.hideDetail {
		return p.defaultDetail
	}
	return p.Detail
}

// renderedDetail is the public detail as rendered. A code's default detail
// is fixed text from the registry, like its title, so it skips the public
// tier; every other detail passes it.
func (p *Problem) renderedDetail() string {
	d := p.publicDetail()
	if d == p.defaultDetail {
		return d
	}
	return sanitize.Public(d)
}

// guidance is the retry guidance as every rendering shows it, whatever
// path set the fields (a peer's document, a direct assignment): members
// outside the closed sets are left out, action retry never goes with
// retryable false, and a retry time goes only with a retryable problem.
// The Writer applies the full retry rules before rendering; this keeps
// a problem rendered without it from contradicting itself.
type guidance struct {
	action       Action
	cause        Cause
	outcome      Outcome
	retryAfterMS int64
}

func (p *Problem) renderedGuidance() guidance {
	g := guidance{action: p.Action, cause: p.Cause, outcome: p.Outcome}
	if g.action != "" && !g.action.valid() {
		g.action = ""
	}
	if g.action == ActionRetry && !p.Retryable {
		g.action = ActionNone
	}
	if g.cause != "" && !g.cause.valid() {
		g.cause = ""
	}
	if !g.outcome.valid() {
		g.outcome = ""
	}
	if p.Retryable {
		g.retryAfterMS = p.RetryAfter.Milliseconds()
	}
	return g
}

// hasStatus reports whether the problem has an HTTP status to render: a
// peer's document may have none, and RFC 9457 makes the member optional
// rather than let a client read 0 as a status.
func (p *Problem) hasStatus() bool { return p.Status >= 100 && p.Status <= 999 }

// hiddenDetail is a detail that was set but may not be shown, for the log.
func (p *Problem) hiddenDetail() string {
	if p.hideDetail && p.Detail != p.defaultDetail {
		return p.Detail
	}
	return ""
}

// derive returns a copy of p for a With method to change.
func (p *Problem) derive() *Problem {
	c := *p
	return &c
}

// WithDetail returns a copy with the public detail set. Only text meant for
// clients belongs here: it is rendered (after sanitizing) unless the code
// hides details, in which case it goes to the log.
func (p *Problem) WithDetail(detail string) *Problem {
	c := p.derive()
	c.Detail = detail
	return c
}

// WithDetailf is WithDetail with formatting. Never format an error into it.
func (p *Problem) WithDetailf(format string, args ...any) *Problem {
	return p.WithDetail(fmt.Sprintf(format, args...))
}

// Wrap returns a copy that records the error behind the problem. It is
// logged with the problem and never rendered.
func (p *Problem) Wrap(err error) *Problem {
	c := p.derive()
	c.err = err
	return c
}

// WithRetryAfter returns a copy saying when the client may retry; it also
// marks the copy retryable, since a retry time without permission to retry
// is contradictory.
func (p *Problem) WithRetryAfter(d time.Duration) *Problem {
	if d > 0 && d < time.Millisecond {
		d = time.Millisecond
	}
	c := p.derive()
	c.RetryAfter = d
	if d > 0 {
		c.Retryable = true
	}
	return c
}

// WithOutcome returns a copy saying what became of the operation.
func (p *Problem) WithOutcome(o Outcome) *Problem {
	c := p.derive()
	c.Outcome = o
	return c
}

// WithErrors returns a copy with field errors appended.
func (p *Problem) WithErrors(errs ...FieldError) *Problem {
	c := p.derive()
	// Clipping makes append copy, so the copy never writes into an array
	// the receiver still uses.
	c.Errors = append(slices.Clip(p.Errors), errs...)
	return c
}

// WithLogAttrs returns a copy with attributes added to its log record only.
func (p *Problem) WithLogAttrs(attrs ...slog.Attr) *Problem {
	c := p.derive()
	c.logAttrs = append(slices.Clip(p.logAttrs), attrs...)
	return c
}

// ForRequest returns a copy whose outcome and retryability fit a failure
// whose effect on the server is unknown (a panic, a timeout): a safe method
// changed nothing, so it is not_committed and may be retried; an unsafe one
// has outcome unknown, and unless the client sent an Idempotency-Key it is
// not retryable and its action is verify, because replaying it could apply
// it twice.
func (p *Problem) ForRequest(r *http.Request) *Problem {
	c := p.derive()
	c.forRequest(r)
	return c
}

func (p *Problem) forRequest(r *http.Request) {
	switch {
	case safeMethod(r.Method):
		p.Outcome = OutcomeNotCommitted
	default:
		p.Outcome = OutcomeUnknown
		if r.Header.Get("Idempotency-Key") == "" {
			p.Retryable = false
			p.Action = ActionVerify
		}
	}
}

// safeMethod reports whether a method is safe (RFC 9110 §9.2.1): a request
// with it changes nothing on the server.
func safeMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// ErrReservedExtension is wrapped by the build error of an extension whose
// name is a standard or faultline member.
var ErrReservedExtension = errors.New("problem: reserved extension name")

// ErrExtensionName is wrapped by the build error of an extension name
// outside RFC 9457 §3.2's recommended form.
var ErrExtensionName = errors.New("problem: invalid extension name")

var reserved = map[string]bool{
	"type": true, "title": true, "status": true, "detail": true, "instance": true,
	"code": true, "action": true, "cause": true, "retryable": true,
	"retry_after_ms": true, "outcome": true, "correlation_id": true, "errors": true,
	"error": true, "message": true,
}

// WithExtension returns a copy with an extension member set. Names follow
// RFC 9457 §3.2: at least three characters, a leading ASCII letter, then
// letters, digits or underscores, so every client language can map them to
// identifiers. Setting a name twice replaces the value. A reserved or
// malformed name is a programming error: the member is left out and the
// problem's log record says why (Writer.Write logs it at error level).
//
// Values are rendered through the public tier, and a value whose name marks
// it as a secret (password, token, api_key, ...) at any depth is redacted.
func (p *Problem) WithExtension(name string, value any) *Problem {
	c := p.derive()
	if err := checkExtensionName(name); err != nil {
		c.buildErr = errors.Join(p.buildErr, err)
		return c
	}
	c.ext = slices.Clone(p.ext)
	for i := range c.ext {
		if c.ext[i].Name == name {
			c.ext[i].Value = value
			return c
		}
	}
	c.ext = append(c.ext, Extension{Name: name, Value: value})
	return c
}

func checkExtensionName(name string) error {
	if reserved[name] {
		return fmt.Errorf("%w: %q", ErrReservedExtension, name)
	}
	if !validExtensionName(name) {
		return fmt.Errorf("%w: %q", ErrExtensionName, name)
	}
	return nil
}

// Extensions returns the extension members in the order they were set.
func (p *Problem) Extensions() []Extension {
	return slices.Clone(p.ext)
}

// Extension returns the value of one extension member.
func (p *Problem) Extension(name string) (any, bool) {
	for _, e := range p.ext {
		if e.Name == name {
			return e.Value, true
		}
	}
	return nil, false
}

func validExtensionName(s string) bool {
	if len(s) < 3 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i == 0 && !letter {
			return false
		}
		if !letter && c != '_' && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
