package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"time"

	"github.com/faultline-go/faultline/approval"
)

// memoryStore keeps approvals in memory: the approval.Store of this
// example, where a service keeps its own in its database. Its ids are
// random, so one cannot be guessed from another.
type memoryStore struct {
	mu        sync.Mutex
	approvals map[string]approval.Approval
	pollURL   func(id string) string
	wait      time.Duration
}

// newMemoryStore returns an empty store. pollURL builds the poll URL of an
// id; wait is the Retry-After of a pending approval.
func newMemoryStore(pollURL func(id string) string, wait time.Duration) *memoryStore {
	return &memoryStore{approvals: map[string]approval.Approval{}, pollURL: pollURL, wait: wait}
}

// create starts a pending approval and returns it.
func (s *memoryStore) create() approval.Approval {
	id := "apr_" + rand.Text()
	a := approval.Approval{ID: id, State: approval.Pending, PollURL: s.pollURL(id), RetryAfter: s.wait}
	s.mu.Lock()
	s.approvals[id] = a
	s.mu.Unlock()
	return a
}

// approve marks a pending approval approved, with its result.
func (s *memoryStore) approve(id, resultURL string, result any) error {
	return s.decide(id, func(a *approval.Approval) { a.State, a.ResultURL, a.Result = approval.Approved, resultURL, result })
}

// deny marks a pending approval denied.
func (s *memoryStore) deny(id string) error {
	return s.decide(id, func(a *approval.Approval) { a.State = approval.Denied })
}

func (s *memoryStore) decide(id string, set func(*approval.Approval)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.approvals[id]
	if !ok {
		return fmt.Errorf("%w: %s", approval.ErrNotFound, id)
	}
	if a.State != approval.Pending {
		return fmt.Errorf("approval: %s is already %s", id, a.State)
	}
	set(&a)
	s.approvals[id] = a
	return nil
}

// Get implements approval.Store.
func (s *memoryStore) Get(_ context.Context, id string) (approval.Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.approvals[id]
	if !ok {
		return approval.Approval{}, fmt.Errorf("%w: %s", approval.ErrNotFound, id)
	}
	return a, nil
}
