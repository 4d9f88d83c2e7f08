package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"sync"

	"github.com/faultline-go/faultline/bind"
)

type Book struct {
	ID    string `json:"id" validate:"required,alphanum,max=16"`
	Title string `json:"title" validate:"required,max=200"`
}

var errBookExists = errors.New("book exists already")

// shelf is the domain: it knows nothing of HTTP or of problems.
type shelf struct {
	mu    sync.Mutex
	books map[string]Book
}

func newShelf() *shelf {
	return &shelf{books: map[string]Book{"1": {ID: "1", Title: "The Go Programming Language"}}}
}

func (s *shelf) add(b Book) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.books[b.ID]; ok {
		return errBookExists
	}
	s.books[b.ID] = b
	return nil
}

// getBook is an existing handler, left as it was: Stack's guard turns its
// http.Error into a not_found problem.
func (s *shelf) getBook(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	b, ok := s.books[r.PathValue("id")]
	s.mu.Unlock()
	if !ok {
		http.Error(w, "no such book", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(b)
}

func (s *shelf) createBook(w http.ResponseWriter, r *http.Request) error {
	book, err := bind.Decode[Book](r) // invalid_json, validation_failed, ... with every field error
	if err != nil {
		return err
	}
	if err := s.add(book); err != nil {
		return err // mapped by the writer; an unmapped error is internal, its text only in the log
	}
	w.WriteHeader(http.StatusCreated)
	return nil
}
