package problem

import (
	"errors"
	"fmt"
	"time"
)

// Action tells a client what to do next, so it never has to infer it from
// prose.
type Action string

// The closed set of actions. ActionNone is an explicit refusal: the client
// should not try to work around it.
const (
	ActionRetry Action = "retry"
	// ActionVerify: the outcome of a write is unknown and replaying it could
	// apply it twice. Find out whether it took effect (by its
	// Idempotency-Key, an operation id or a read) before doing anything else.
	ActionVerify         Action = "verify"
	ActionFixRequest     Action = "fix_request"
	ActionReauthenticate Action = "reauthenticate"
	ActionConfigure      Action = "configure"
	ActionApprove        Action = "approve"
	ActionUnlock         Action = "unlock"
	ActionNone           Action = "none"
)

// Cause says whose problem a failure is.
type Cause string

// The closed set of causes. CauseUpstream and CauseEnvironment are not the
// server's fault; they are reported because this hop is the one that saw them.
const (
	CauseRequest     Cause = "request"
	CauseAuth        Cause = "auth"
	CausePolicy      Cause = "policy"
	CauseConfig      Cause = "config"
	CauseInternal    Cause = "internal"
	CauseUpstream    Cause = "upstream"
	CauseEnvironment Cause = "environment"
)

// Outcome describes what became of an operation that may have side effects.
type Outcome string

// The closed set of outcomes.
const (
	OutcomeNotStarted   Outcome = "not_started"
	OutcomeNotCommitted Outcome = "not_committed"
	OutcomeCommitted    Outcome = "committed"
	OutcomeUnknown      Outcome = "unknown"
)

func (a Action) valid() bool {
	switch a {
	case ActionRetry, ActionVerify, ActionFixRequest, ActionReauthenticate, ActionConfigure,
		ActionApprove, ActionUnlock, ActionNone:
		return true
	}
	return false
}

func (o Outcome) valid() bool {
	switch o {
	case "", OutcomeNotStarted, OutcomeNotCommitted, OutcomeCommitted, OutcomeUnknown:
		return true
	}
	return false
}

func (c Cause) valid() bool {
	switch c {
	case CauseRequest, CauseAuth, CausePolicy, CauseConfig, CauseInternal,
		CauseUpstream, CauseEnvironment:
		return true
	}
	return false
}

// Kind is a code, such as not_found: what a client branches on. The
// built-in kinds are constants of this package, and a service's own are
// returned by MustRegister, so no package can change what a code means for
// every response of the process. What a code decides (status, title,
// guidance) is its Definition, held by the registry; a Problem is one
// occurrence of a Kind.
type Kind string

// Error returns the code, so a Kind is itself an error: a handler may
// return a Kind as its failure (the writer makes an occurrence of it), and
// errors.Is(err, k) reports whether err is, or wraps, a problem of kind k.
func (k Kind) Error() string { return string(k) }

// Definition is what a code decides, registered once per code: every
// occurrence of the Kind takes its status, title and guidance from it.
type Definition struct {
	// Code is snake_case, stable, never renumbered and never reused (a
	// retired code stays refused, see Registry.Retire).
	Code   Kind
	Status int
	// Title is fixed per code: clients may show it, and it never varies with
	// the occurrence.
	Title     string
	Action    Action
	Cause     Cause
	Retryable bool
	// Outcome is the outcome every occurrence starts with, for codes that
	// always fail before any side effect (audit_unavailable: not_started).
	// Empty for most codes: the occurrence says.
	Outcome Outcome
	// ShowDetail reports whether a detail set on a problem of this code may
	// reach the client. When false the client sees DefaultDetail and the set
	// detail goes to the log only: for codes such as internal, even text a
	// developer believed public is not trusted. The writer enforces it when
	// rendering, whatever path set the detail.
	ShowDetail bool
	// DefaultDetail is the public detail used when an occurrence has none.
	DefaultDetail string
	// Meaning explains the code for the documentation table.
	Meaning string
	// RPCCode is the JSON-RPC 2.0 error code the code maps to on JSON-RPC
	// surfaces (MCP servers). Zero derives it: -32602 (invalid params) when
	// the action is fix_request, -32603 (internal error) otherwise.
	RPCCode int
	// Deprecated, when set, is the date the code was deprecated: it still
	// works, but should no longer be produced or relied on.
	Deprecated time.Time
	// Successor is the code that replaces a deprecated one, if any.
	Successor Kind
}

// JSON-RPC 2.0 error codes the catalog uses.
const (
	RPCInvalidRequest = -32600
	RPCInvalidParams  = -32602
	RPCInternalError  = -32603
)

// jsonRPCCode returns the code's JSON-RPC 2.0 error code.
func (d *Definition) jsonRPCCode() int {
	if d.RPCCode != 0 {
		return d.RPCCode
	}
	return actionRPCCode(d.Action)
}

// actionRPCCode is the JSON-RPC error code derived from an action.
func actionRPCCode(a Action) int {
	if a == ActionFixRequest {
		return RPCInvalidParams
	}
	return RPCInternalError
}

// ErrInvalidCode is wrapped by every error Register returns: a malformed
// definition, a code already taken, a retired code. Each is a mistake in
// the service's source, and the error's text says which.
var ErrInvalidCode = errors.New("problem: invalid code")

// validate reports why d cannot be registered, or nil; Register returns it.
func (d *Definition) validate() error {
	if !validName(string(d.Code)) {
		return fmt.Errorf("%w: code %q is not snake_case (a-z, 0-9, single underscores, starting with a letter, at most 64 bytes)", ErrInvalidCode, d.Code)
	}
	if d.Status < 400 || d.Status > 599 {
		return fmt.Errorf("%w: %s: status %d is not an error status", ErrInvalidCode, d.Code, d.Status)
	}
	if d.Title == "" {
		return fmt.Errorf("%w: %s: empty title", ErrInvalidCode, d.Code)
	}
	if !d.Action.valid() {
		return fmt.Errorf("%w: %s: unknown action %q", ErrInvalidCode, d.Code, d.Action)
	}
	if !d.Cause.valid() {
		return fmt.Errorf("%w: %s: unknown cause %q", ErrInvalidCode, d.Code, d.Cause)
	}
	if !d.Outcome.valid() {
		return fmt.Errorf("%w: %s: unknown outcome %q", ErrInvalidCode, d.Code, d.Outcome)
	}
	if d.Action == ActionRetry && !d.Retryable {
		return fmt.Errorf("%w: %s: action retry on a code that is not retryable", ErrInvalidCode, d.Code)
	}
	if s := d.Successor; s != "" && (!validName(string(s)) || s == d.Code) {
		return fmt.Errorf("%w: %s: successor %q is not another code", ErrInvalidCode, d.Code, s)
	}
	return nil
}

func validName(s string) bool {
	if len(s) == 0 || len(s) > 64 || s[0] < 'a' || s[0] > 'z' || s[len(s)-1] == '_' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '_' && s[i-1] != '_':
		default:
			return false
		}
	}
	return true
}
