// Package approval answers a request that must wait for a person's or a
// policy's approval, and the poll that follows.
//
// Waiting for an approval is not a failure: nothing failed yet. The request
// is answered 202 Accepted with a status document (not a problem) that
// carries the approval's id and state, a poll URL in Location and a
// Retry-After. The client polls that URL; it never repeats the original
// request, because an approval queue does not deduplicate and a second
// request would wait for a second approval. The approval id is a workflow
// identifier, not an idempotency key.
//
// A request that may not proceed at all without an approval the client must
// first obtain elsewhere is a different thing: the approval_required problem
// (403, action approve).
package approval

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/problem"
)

// State is where an approval stands.
type State string

// The states an approval goes through: pending, then approved or denied.
const (
	Pending  State = "pending"
	Approved State = "approved"
	Denied   State = "denied"
)

// Approval is one approval as the status document shows it.
type Approval struct {
	ID    string
	State State
	// PollURL is where the client reads the approval's state; it is sent as
	// Location and poll_url.
	PollURL string
	// RetryAfter is how long the client waits before its next poll;
	// DefaultPollInterval when not set.
	RetryAfter time.Duration
	// ResultURL, once approved, is where the outcome of the approved
	// operation can be read; the poll answers with it as Location too.
	ResultURL string
	// Result, once approved, is the operation's result inline, when small.
	Result any
}

// DefaultPollInterval is the wait a pending approval announces when its
// RetryAfter is not set: a client told to poll is always told when, so it
// neither spins nor guesses.
const DefaultPollInterval = time.Second

// pollAfter is how long the client waits before its next poll. It is at
// least a millisecond, as a problem's retry time is: a shorter one would
// read as no retry_after_ms at all.
func (a Approval) pollAfter() time.Duration {
	if a.RetryAfter <= 0 {
		return DefaultPollInterval
	}
	return max(a.RetryAfter, time.Millisecond)
}

// document is the status document. Its members follow the contract's names
// (action, retry_after_ms, correlation_id) so a client reads it with the
// same code it reads problems with; it is application/json, not a problem.
type document struct {
	ApprovalID    string `json:"approval_id"`
	State         State  `json:"state"`
	Action        string `json:"action"`
	PollURL       string `json:"poll_url,omitempty"`
	RetryAfterMS  int64  `json:"retry_after_ms,omitempty"`
	ResultURL     string `json:"result_url,omitempty"`
	Result        any    `json:"result,omitempty"`
	CorrelationID string `json:"correlation_id,omitempty"`
}

// action says what the client does next in each state: poll while pending,
// read the result once approved, and nothing once denied (an explicit
// refusal; asking again means a new request and a new approval).
func (s State) action() string {
	switch s {
	case Approved:
		return "read_result"
	case Denied:
		return "none"
	}
	return "poll"
}

func (a Approval) document(r *http.Request) document {
	d := document{
		ApprovalID:    a.ID,
		State:         a.State,
		Action:        a.State.action(),
		PollURL:       a.PollURL,
		CorrelationID: correlation.ID(r.Context()),
	}
	switch a.State {
	case Pending:
		d.RetryAfterMS = a.pollAfter().Milliseconds()
	case Approved:
		d.ResultURL, d.Result = a.ResultURL, a.Result
	}
	return d
}

// WriteAccepted answers the request that started the approval: 202 Accepted,
// Location and Retry-After, and the status document.
func WriteAccepted(w http.ResponseWriter, r *http.Request, a Approval) error {
	if a.State == "" {
		a.State = Pending
	}
	if a.PollURL != "" {
		w.Header().Set("Location", a.PollURL)
	}
	return writeDocument(w, r, http.StatusAccepted, a)
}

func writeDocument(w http.ResponseWriter, r *http.Request, status int, a Approval) error {
	body, err := json.Marshal(a.document(r))
	if err != nil {
		// Only Result can fail to marshal; the client still learns the state.
		a.Result = nil
		body, _ = json.Marshal(a.document(r))
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	if a.State == Pending {
		h.Set("Retry-After", strconv.FormatInt(int64((a.pollAfter()+time.Second-1)/time.Second), 10))
	}
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err = w.Write(body)
	return err
}

// Store reads approvals for the poll endpoint.
type Store interface {
	// Get returns the approval with this id, or an error wrapping
	// ErrNotFound.
	Get(ctx context.Context, id string) (Approval, error)
}

// ErrNotFound is what a Store's Get wraps for an unknown id.
var ErrNotFound = errors.New("approval: not found")

// PollHandler answers GET on an approval's poll URL: 200 with the status
// document in every state (pending with Retry-After, approved with the
// result or its Location, denied), not_found for an unknown id. id extracts
// the approval id from the request (for example r.PathValue("id") on
// ServeMux, chi.URLParam on chi).
func PollHandler(store Store, id func(*http.Request) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			problem.Write(w, r, problem.New(problem.MethodNotAllowed))
			return
		}
		a, err := store.Get(r.Context(), id(r))
		if errors.Is(err, ErrNotFound) {
			problem.Write(w, r, problem.New(problem.NotFound).WithDetail("No approval has this id."))
			return
		}
		if err != nil {
			problem.Write(w, r, problem.From(r, err))
			return
		}
		if a.State == Approved && a.ResultURL != "" {
			w.Header().Set("Location", a.ResultURL)
		}
		writeDocument(w, r, http.StatusOK, a)
	})
}
