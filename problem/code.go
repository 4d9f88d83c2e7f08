package problem

import (
	"errors"
	"fmt"
)

// Action tells a client what to do next, so it never has to infer it from
// prose.
type Action string

// The closed set of actions. ActionNone is an explicit refusal: the client
// should not try to work around it.
const (
	ActionRetry          Action = "retry"
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
	case ActionRetry, ActionFixRequest, ActionReauthenticate, ActionConfigure,
		ActionApprove, ActionUnlock, ActionNone:
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

// Code is one entry of the registry: a stable, machine-readable name and
// everything a client needs to branch on it.
type Code struct {
	// Name is snake_case, stable, never renumbered and never reused.
	Name   string
	Status int
	// Title is fixed per code: clients may show it, and it never varies with
	// the occurrence.
	Title     string
	Action    Action
	Cause     Cause
	Retryable bool
	// ShowDetail reports whether a detail set on a problem of this code may
	// reach the client. When false the client sees DefaultDetail and the set
	// detail goes to the log only: for codes such as internal, even text a
	// developer believed public is not trusted.
	ShowDetail bool
	// DefaultDetail is the public detail used when an occurrence has none.
	DefaultDetail string
	// Meaning explains the code for the documentation table.
	Meaning string
}

// ErrInvalidCode is wrapped by every error Register returns for a malformed
// code.
var ErrInvalidCode = errors.New("problem: invalid code")

// ErrDuplicateCode is wrapped by the error Register returns when a name is
// already taken.
var ErrDuplicateCode = errors.New("problem: duplicate code")

// Validate reports why c cannot be registered, or nil.
func (c Code) Validate() error {
	if !validName(c.Name) {
		return fmt.Errorf("%w: name %q is not snake_case (a-z, 0-9, single underscores, starting with a letter, at most 64 bytes)", ErrInvalidCode, c.Name)
	}
	if c.Status < 400 || c.Status > 599 {
		return fmt.Errorf("%w: %s: status %d is not an error status", ErrInvalidCode, c.Name, c.Status)
	}
	if c.Title == "" {
		return fmt.Errorf("%w: %s: empty title", ErrInvalidCode, c.Name)
	}
	if !c.Action.valid() {
		return fmt.Errorf("%w: %s: unknown action %q", ErrInvalidCode, c.Name, c.Action)
	}
	if !c.Cause.valid() {
		return fmt.Errorf("%w: %s: unknown cause %q", ErrInvalidCode, c.Name, c.Cause)
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
