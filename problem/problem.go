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
// Its members are read through methods named after them and set only by
// the With methods, each of which returns a new Problem and leaves its
// receiver as it was, so a Problem may be shared (a package-level sentinel
// such as `var ErrNoBook = problem.New(NoBook)`): deriving one request's
// occurrence from it can never show up in another request's response.
// Writing a Problem never modifies it either. The code decides type, title
// and status: a failure that needs another status is another Kind.
type Problem struct {
	typ    string
	title  string
	status int
	// detail is the occurrence's public text. For a code that does not show
	// details (Definition.ShowDetail false, such as internal) it is never
	// rendered, however it was set: the client sees the code's default
	// detail and the text goes to the log.
	detail string
	// instance is a URI reference to the occurrence; the writer sets the
	// request's escaped path.
	instance string

	// code is the Kind this problem is an occurrence of.
	code      string
	action    Action
	cause     Cause
	retryable bool
	// retryAfter is rendered as retry_after_ms and as the Retry-After header
	// when the problem is retryable.
	retryAfter    time.Duration
	outcome       Outcome
	correlationID string
	fieldErrors   []FieldError

	// hideDetail mirrors !Definition.ShowDetail; defaultDetail is then the only
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
	// pending marks a problem New made without a definition of its code:
	// the Writer that sends it fills in the defaults (see fillFrom).
	// retryableSet records that a With method decided retryable, which
	// the defaults then leave alone.
	pending, retryableSet bool
	// unclaimed marks a bare status no code claims (Registry.ForStatus):
	// type about:blank, its code a family name.
	unclaimed bool
	// correlationPublic marks a CorrelationID that needs no public tier:
	// the ID the correlation layer accepted for the request (the header
	// echoes it and the log is keyed by it), or one that already passed
	// the tier. Any other, a literal or a peer's, passes it when rendered.
	correlationPublic bool
	// correlationPlain marks a correlationPublic ID the correlation layer
	// accepted for the request (see correlationOf): the body copies its
	// bytes without a pass for escapes. correlationFresh marks one it
	// generated, a UUID, which the log tier leaves as it is.
	correlationPlain, correlationFresh bool
	// seg holds the body runs of the code as the Writer that resolved the
	// problem renders them, so AppendJSON copies them too; appendJSONWith
	// takes a run only while the problem still renders what it holds.
	seg *jsonSegments
	// rpcCode is the kind's JSON-RPC error code.
	rpcCode  int
	ext      []extension
	err      error
	logAttrs []slog.Attr
	// origin is the shared Problem FromError copied this occurrence from,
	// so errors.Is still finds it although the copy is another value.
	origin *Problem
	// buildErr records misuse found while building (an invalid extension
	// name), reported in the problem's log record.
	buildErr error
}

// Type is the type URI; the Writer sets it from the code when it resolves
// the problem.
func (p *Problem) Type() string { return p.typ }

// Title is the code's title, or a peer's.
func (p *Problem) Title() string { return p.title }

// Status is the HTTP status; zero for a peer's document without one.
func (p *Problem) Status() int { return p.status }

// Detail is the occurrence's detail as set, before the code decides
// whether a client may see it (see Message).
func (p *Problem) Detail() string { return p.detail }

// Instance is the URI reference of the occurrence: the request's path
// once the Writer resolved it.
func (p *Problem) Instance() string { return p.instance }

// Code is the Kind the problem is an occurrence of, so it compares with
// the kind constants: p.Code() == problem.NotFound.
func (p *Problem) Code() Kind { return Kind(p.code) }

// Action is what the client should do next.
func (p *Problem) Action() Action { return p.action }

// Cause is whose problem the failure is.
func (p *Problem) Cause() Cause { return p.cause }

// Retryable reports whether the client may repeat the request.
func (p *Problem) Retryable() bool { return p.retryable }

// RetryAfter is how long the client should wait before retrying; it is
// rendered as retry_after_ms and Retry-After when the problem is retryable.
func (p *Problem) RetryAfter() time.Duration { return p.retryAfter }

// Outcome is what became of the operation.
func (p *Problem) Outcome() Outcome { return p.outcome }

// CorrelationID is the request's correlation ID, set by the Writer.
func (p *Problem) CorrelationID() string { return p.correlationID }

// Errors returns the field errors of validation_failed.
func (p *Problem) Errors() []FieldError { return slices.Clone(p.fieldErrors) }

// FieldError is one entry of the errors array of validation_failed.
type FieldError struct {
	Detail  string `json:"detail"`
	Pointer string `json:"pointer"`
	Code    string `json:"code,omitempty"`
}

// extension is one extension member, in the order it was set.
type extension struct {
	Name  string
	Value any
}

// New returns an occurrence of k with the defaults of its definition.
// A Kind no registry holds yet, or one registries define differently,
// takes them from the registry of the Writer that sends it; a Kind that
// registry does not hold either is sent as internal and its record names
// the mistake (see Writer.Check).
func New(k Kind) *Problem {
	p := new(Problem)
	p.become(k)
	return p
}

// become makes p what New(k) returns, in place: one copy of the kind's
// template, where a Problem returned by value is copied twice.
func (p *Problem) become(k Kind) {
	if t := templateOf(k); t != nil && t.occ != nil {
		*p = *t.occ
		return
	}
	*p = Problem{code: string(k), pending: true}
}

// occurrenceOf is a new occurrence of d's code.
func occurrenceOf(d *Definition) Problem {
	return Problem{
		title:         d.Title,
		status:        d.Status,
		detail:        d.DefaultDetail,
		code:          string(d.Code),
		action:        d.Action,
		cause:         d.Cause,
		retryable:     d.Retryable,
		outcome:       d.Outcome,
		hideDetail:    !d.ShowDetail,
		defaultDetail: d.DefaultDetail,
		rpcCode:       d.jsonRPCCode(),
		fromKind:      true,
		kindTitle:     d.Title,
	}
}

// fillFrom gives a pending problem (see New) the defaults of d, its code's
// definition in the serving Writer's registry, where no With method set
// the member already.
func (p *Problem) fillFrom(d *Definition) {
	o := occurrenceOf(d)
	if p.detail != "" {
		o.detail = p.detail
	}
	if p.action != "" {
		o.action = p.action
	}
	if p.cause != "" {
		o.cause = p.cause
	}
	if p.outcome != "" {
		o.outcome = p.outcome
	}
	if p.retryableSet {
		o.retryable = p.retryable
	}
	p.title, p.status, p.detail, p.action, p.cause, p.outcome, p.retryable = o.title, o.status, o.detail, o.action, o.cause, o.outcome, o.retryable
	p.hideDetail, p.defaultDetail, p.rpcCode, p.fromKind, p.kindTitle = o.hideDetail, o.defaultDetail, o.rpcCode, true, o.kindTitle
	p.pending = false
}

// renderedType and renderedTitle are type and title as rendered: those of
// a Problem not made by New (a peer's, read with Parse) pass the public
// tier, and type stays a URI reference.
func (p *Problem) renderedType() string {
	if p.fromKind && p.typ == p.kindType {
		return p.typ
	}
	return publicInstance(p.typ)
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
		return p.correlationID
	}
	return sanitize.Public(p.correlationID)
}

func (p *Problem) renderedTitle() string {
	if p.fromKind && p.title == p.kindTitle {
		return p.title
	}
	return sanitize.Public(p.title)
}

// Error returns the code and the public message, through the public tier
// of sanitize: the wrapped error's text and a hidden detail are absent, so
// printing a Problem never leaks them.
func (p *Problem) Error() string {
	if p == nil {
		return "problem: <nil>"
	}
	return p.peerText(p.code) + ": " + sanitize.Public(p.Message())
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
	return ok && p != nil && string(k) == p.code
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
	return p.title
}

// publicDetail is the detail a client may see: for a code that hides
// details, only its default.
func (p *Problem) publicDetail() string {
	if p.hideDetail {
		return p.defaultDetail
	}
	return p.detail
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
	g := guidance{action: p.action, cause: p.cause, outcome: p.outcome}
	if g.action != "" && !g.action.valid() {
		g.action = ""
	}
	if g.action == ActionRetry && !p.retryable {
		g.action = ActionNone
	}
	if g.cause != "" && !g.cause.valid() {
		g.cause = ""
	}
	if !g.outcome.valid() {
		g.outcome = ""
	}
	if p.retryable {
		g.retryAfterMS = p.retryAfter.Milliseconds()
	}
	return g
}

// hasStatus reports whether the problem has an HTTP status to render: a
// peer's document may have none, and RFC 9457 makes the member optional
// rather than let a client read 0 as a status.
func (p *Problem) hasStatus() bool { return p.status >= 100 && p.status <= 999 }

// hiddenDetail is a detail that was set but may not be shown, for the log.
func (p *Problem) hiddenDetail() string {
	if p.hideDetail && p.detail != p.defaultDetail {
		return p.detail
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
	c.detail = detail
	return c
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
	c.retryAfter = d
	if d > 0 {
		c.retryable, c.retryableSet = true, true
	}
	return c
}

// WithOutcome returns a copy saying what became of the operation.
func (p *Problem) WithOutcome(o Outcome) *Problem {
	c := p.derive()
	c.outcome = o
	return c
}

// WithAction returns a copy telling the client what to do next, in place
// of the code's default. An action outside the closed set is a
// programming error: the Writer sends the code's action instead and logs
// the misuse at error level, and Writer.Check returns it.
func (p *Problem) WithAction(a Action) *Problem {
	c := p.derive()
	c.action = a
	return c
}

// WithCause returns a copy saying whose problem the failure is, in place
// of the code's default; a cause outside the closed set is treated as
// WithAction treats an unknown action.
func (p *Problem) WithCause(cause Cause) *Problem {
	c := p.derive()
	c.cause = cause
	return c
}

// WithRetryable returns a copy saying whether the client may repeat the
// request. Refusing a retry also drops the retry time, which only a
// retryable problem carries.
func (p *Problem) WithRetryable(retryable bool) *Problem {
	c := p.derive()
	c.retryable, c.retryableSet = retryable, true
	if !retryable {
		c.retryAfter = 0
	}
	return c
}

// WithErrors returns a copy with field errors appended.
func (p *Problem) WithErrors(errs ...FieldError) *Problem {
	c := p.derive()
	// Clipping makes append copy, so the copy never writes into an array
	// the receiver still uses.
	c.fieldErrors = append(slices.Clip(p.fieldErrors), errs...)
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
		p.outcome = OutcomeNotCommitted
	default:
		p.outcome = OutcomeUnknown
		if firstValue(r.Header, "Idempotency-Key") == "" {
			p.retryable = false
			p.action = ActionVerify
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

// errReservedExtension is wrapped by the build error of an extension whose
// name is a standard or faultline member.
var errReservedExtension = errors.New("problem: reserved extension name")

// errExtensionName is wrapped by the build error of an extension name
// outside RFC 9457 §3.2's recommended form.
var errExtensionName = errors.New("problem: invalid extension name")

var reserved = map[string]bool{
	"type": true, "title": true, "status": true, "detail": true, "instance": true,
	"code": true, "action": true, "cause": true, "retryable": true,
	"retry_after_ms": true, "outcome": true, "correlation_id": true, "errors": true,
	"error": true, "message": true,
}

// WithExtension returns a copy with an extension member set. Names follow
// RFC 9457 §3.2: at least three characters, a leading ASCII letter, then
// letters, digits or underscores, so every client language can map them to
// identifiers. Setting a name twice replaces the value. A reserved name
// (a standard or faultline member's, in any case) or a malformed one is a
// programming error: the member is left out and the
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
	c.ext = append(c.ext, extension{Name: name, Value: value})
	return c
}

// reservedName reports a name that is a standard or faultline member's
// up to case: encoding/json, and every decoder that folds case, reads
// "Retryable" or "STATUS" into the member itself, so such an extension
// would overrule the contract for those clients.
func reservedName(name string) bool {
	if reserved[name] {
		return true
	}
	// Folded on the stack: the names are ASCII and at most 14 bytes, and
	// a map lookup of string(bytes) does not allocate, where ToLower of a
	// camelCase extension would on every render.
	var folded [len("correlation_id")]byte
	if len(name) > len(folded) {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		folded[i] = c
	}
	return reserved[string(folded[:len(name)])]
}

func checkExtensionName(name string) error {
	if reservedName(name) {
		return fmt.Errorf("%w: %q", errReservedExtension, name)
	}
	if !validExtensionName(name) {
		return fmt.Errorf("%w: %q", errExtensionName, name)
	}
	return nil
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
