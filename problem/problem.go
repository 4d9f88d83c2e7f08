package problem

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// Problem is one occurrence of a failure: the RFC 9457 members, faultline's
// guidance members, field errors and extension members. It implements error,
// so handlers can return it and errors.As finds it.
//
// A Problem may be shared (for example a package-level sentinel): writing it
// never modifies it.
type Problem struct {
	Type     string
	Title    string
	Status   int
	Detail   string
	Instance string

	Code      string
	Action    Action
	Cause     Cause
	Retryable bool
	// RetryAfter is rendered as retry_after_ms and as the Retry-After header.
	RetryAfter    time.Duration
	Outcome       Outcome
	CorrelationID string
	Errors        []FieldError

	// showDetail mirrors Code.ShowDetail; hiddenDetail keeps a detail the
	// code forbids showing, so it still reaches the log.
	showDetail   bool
	hiddenDetail string
	ext          []Extension
	err          error
	logAttrs     []slog.Attr
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

// New returns an occurrence of c with the code's defaults.
func New(c Code) *Problem {
	return &Problem{
		Title:      c.Title,
		Status:     c.Status,
		Detail:     c.DefaultDetail,
		Code:       c.Name,
		Action:     c.Action,
		Cause:      c.Cause,
		Retryable:  c.Retryable,
		showDetail: c.ShowDetail,
	}
}

// Error returns the code and the public message; the wrapped error's text is
// deliberately absent so printing a Problem never leaks it.
func (p *Problem) Error() string {
	if p == nil {
		return "problem: <nil>"
	}
	return p.Code + ": " + p.Message()
}

// Unwrap returns the error the problem was built from, for errors.Is/As and
// for the log.
func (p *Problem) Unwrap() error { return p.err }

// Message is the one-line public text: the detail, or the title without one.
func (p *Problem) Message() string {
	if p.Detail != "" {
		return p.Detail
	}
	return p.Title
}

// WithDetail sets the public detail. Only text meant for clients belongs
// here: it is rendered (after sanitizing) unless the code hides details, in
// which case it goes to the log.
func (p *Problem) WithDetail(detail string) *Problem {
	if p.showDetail {
		p.Detail = detail
	} else {
		p.hiddenDetail = detail
	}
	return p
}

// WithDetailf is WithDetail with formatting. Never format an error into it.
func (p *Problem) WithDetailf(format string, args ...any) *Problem {
	return p.WithDetail(fmt.Sprintf(format, args...))
}

// Wrap records the error behind the problem. It is logged with the problem
// and never rendered.
func (p *Problem) Wrap(err error) *Problem {
	p.err = err
	return p
}

// WithRetryAfter sets when the client may retry; it also marks the problem
// retryable, since a retry time without permission to retry is contradictory.
func (p *Problem) WithRetryAfter(d time.Duration) *Problem {
	if d > 0 && d < time.Millisecond {
		d = time.Millisecond
	}
	p.RetryAfter = d
	if d > 0 {
		p.Retryable = true
	}
	return p
}

// WithOutcome sets what became of the operation.
func (p *Problem) WithOutcome(o Outcome) *Problem {
	p.Outcome = o
	return p
}

// WithStatus overrides the code's status, for a bare status that no code
// claims exactly.
func (p *Problem) WithStatus(status int) *Problem {
	p.Status = status
	return p
}

// WithErrors appends field errors.
func (p *Problem) WithErrors(errs ...FieldError) *Problem {
	p.Errors = append(p.Errors, errs...)
	return p
}

// WithLogAttrs adds attributes to the problem's log record only.
func (p *Problem) WithLogAttrs(attrs ...slog.Attr) *Problem {
	p.logAttrs = append(p.logAttrs, attrs...)
	return p
}

// ForRequest sets outcome and retryability for a failure whose effect on the
// server is unknown (a panic, a timeout): a safe method changed nothing, so
// it is not_committed and may be retried; an unsafe one has outcome unknown
// and is retryable only when the client sent an Idempotency-Key, because
// replaying it could apply it twice.
func (p *Problem) ForRequest(r *http.Request) *Problem {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		p.Outcome = OutcomeNotCommitted
	default:
		p.Outcome = OutcomeUnknown
		if r.Header.Get("Idempotency-Key") == "" {
			p.Retryable = false
		}
	}
	return p
}

// ErrReservedExtension is wrapped by SetExtension's error for a name that
// is a standard or faultline member.
var ErrReservedExtension = errors.New("problem: reserved extension name")

// ErrExtensionName is wrapped by SetExtension's error for a name outside
// RFC 9457 §3.2's recommended form.
var ErrExtensionName = errors.New("problem: invalid extension name")

var reserved = map[string]bool{
	"type": true, "title": true, "status": true, "detail": true, "instance": true,
	"code": true, "action": true, "cause": true, "retryable": true,
	"retry_after_ms": true, "outcome": true, "correlation_id": true, "errors": true,
	"error": true, "message": true,
}

// SetExtension sets an extension member. Names follow RFC 9457 §3.2: at
// least three characters, a leading ASCII letter, then letters, digits or
// underscores, so every client language can map them to identifiers. Setting
// a name twice replaces the value.
func (p *Problem) SetExtension(name string, value any) error {
	if reserved[name] {
		return fmt.Errorf("%w: %q", ErrReservedExtension, name)
	}
	if !validExtensionName(name) {
		return fmt.Errorf("%w: %q", ErrExtensionName, name)
	}
	for i := range p.ext {
		if p.ext[i].Name == name {
			p.ext[i].Value = value
			return nil
		}
	}
	p.ext = append(p.ext, Extension{Name: name, Value: value})
	return nil
}

// Extensions returns the extension members in the order they were set.
func (p *Problem) Extensions() []Extension {
	return append([]Extension(nil), p.ext...)
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

// clone returns a shallow copy the writer may fill in without touching a
// possibly shared original.
func (p *Problem) clone() Problem { return *p }
