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

// Kind is one entry of the registry: a kind of failure, named by its code
// (Name), with everything a client needs to branch on it. A Problem is one
// occurrence of a Kind; its Code field holds the Kind's Name.
type Kind struct {
	// Name is the code: snake_case, stable, never renumbered and never
	// reused (a retired name stays refused, see Registry.Retire).
	Name   string
	Status int
	// Title is fixed per code: clients may show it, and it never varies with
	// the occurrence.
	Title     string
	Action    Action
	Cause     Cause
	Retryable bool
	// Outcome is the outcome every occurrence starts with, for kinds that
	// always fail before any side effect (audit_unavailable: not_started).
	// Empty for most kinds: the occurrence says.
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
	// RPCCode is the JSON-RPC 2.0 error code the kind maps to on JSON-RPC
	// surfaces (MCP servers). Zero derives it: -32602 (invalid params) when
	// the action is fix_request, -32603 (internal error) otherwise.
	RPCCode int
	// Deprecated, when its Since is set, announces that the code is on its
	// way out and which code replaces it.
	Deprecated Deprecation
}

// Error returns the code, so a Kind is itself an error: a handler may
// return a Kind as its failure (the writer makes an occurrence of it), and
// errors.Is(err, k) reports whether err is, or wraps, a problem of kind k.
func (k Kind) Error() string { return k.Name }

// Deprecation marks a code that still works but should no longer be
// produced or relied on.
type Deprecation struct {
	// Since is the date the code was deprecated; zero means not deprecated.
	Since time.Time
	// Successor is the code to use instead, if any.
	Successor string
}

// JSON-RPC 2.0 error codes the catalog uses.
const (
	RPCInvalidRequest = -32600
	RPCInvalidParams  = -32602
	RPCInternalError  = -32603
)

// jsonRPCCode returns the kind's JSON-RPC 2.0 error code.
func (k Kind) jsonRPCCode() int {
	switch {
	case k.RPCCode != 0:
		return k.RPCCode
	case k.Action == ActionFixRequest:
		return RPCInvalidParams
	}
	return RPCInternalError
}

// ErrInvalidCode is wrapped by every error Register returns for a malformed
// kind.
var ErrInvalidCode = errors.New("problem: invalid code")

// ErrDuplicateCode is wrapped by the error Register returns when a name is
// already taken.
var ErrDuplicateCode = errors.New("problem: duplicate code")

// ErrRetiredCode is wrapped by the error Register returns for a name that
// was retired: a client may still hold the old meaning.
var ErrRetiredCode = errors.New("problem: retired code")

// validate reports why k cannot be registered, or nil; Register returns it.
func (k Kind) validate() error {
	if !validName(k.Name) {
		return fmt.Errorf("%w: name %q is not snake_case (a-z, 0-9, single underscores, starting with a letter, at most 64 bytes)", ErrInvalidCode, k.Name)
	}
	if k.Status < 400 || k.Status > 599 {
		return fmt.Errorf("%w: %s: status %d is not an error status", ErrInvalidCode, k.Name, k.Status)
	}
	if k.Title == "" {
		return fmt.Errorf("%w: %s: empty title", ErrInvalidCode, k.Name)
	}
	if !k.Action.valid() {
		return fmt.Errorf("%w: %s: unknown action %q", ErrInvalidCode, k.Name, k.Action)
	}
	if !k.Cause.valid() {
		return fmt.Errorf("%w: %s: unknown cause %q", ErrInvalidCode, k.Name, k.Cause)
	}
	if !k.Outcome.valid() {
		return fmt.Errorf("%w: %s: unknown outcome %q", ErrInvalidCode, k.Name, k.Outcome)
	}
	if k.Action == ActionRetry && !k.Retryable {
		return fmt.Errorf("%w: %s: action retry on a code that is not retryable", ErrInvalidCode, k.Name)
	}
	if d := k.Deprecated.Successor; d != "" && (!validName(d) || d == k.Name) {
		return fmt.Errorf("%w: %s: successor %q is not another code", ErrInvalidCode, k.Name, d)
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
