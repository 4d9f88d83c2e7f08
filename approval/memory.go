package approval

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"time"
)

// MemoryStore keeps approvals in memory, for tests, examples and single
// instance services. Its ids are random, so one cannot be guessed from
// another.
type MemoryStore struct {
	mu        sync.Mutex
	approvals map[string]Approval
	pollURL   func(id string) string
	wait      time.Duration
}

// NewMemoryStore returns an empty store. pollURL builds the poll URL of an
// id; wait is the Retry-After of a pending approval.
func NewMemoryStore(pollURL func(id string) string, wait time.Duration) *MemoryStore {
	return &MemoryStore{approvals: map[string]Approval{}, pollURL: pollURL, wait: wait}
}

// Create starts a pending approval and returns it.
func (s *MemoryStore) Create() Approval {
	id := "apr_" + rand.Text()
	a := Approval{ID: id, State: Pending, PollURL: s.pollURL(id), RetryAfter: s.wait}
	s.mu.Lock()
	s.approvals[id] = a
	s.mu.Unlock()
	return a
}

// Approve marks a pending approval approved, with its result.
func (s *MemoryStore) Approve(id, resultURL string, result any) error {
	return s.decide(id, func(a *Approval) { a.State, a.ResultURL, a.Result = Approved, resultURL, result })
}

// Deny marks a pending approval denied.
func (s *MemoryStore) Deny(id string) error {
	return s.decide(id, func(a *Approval) { a.State = Denied })
}

func (s *MemoryStore) decide(id string, set func(*Approval)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.approvals[id]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if a.State != Pending {
		return fmt.Errorf("approval: %s is already %s", id, a.State)
	}
	set(&a)
	s.approvals[id] = a
	return nil
}

// Get implements Store.
func (s *MemoryStore) Get(_ context.Context, id string) (Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.approvals[id]
	if !ok {
		return Approval{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return a, nil
}
