package main

import (
	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/middleware"
)

// newChiRouter is the smallest adoption on chi: Stack and the two router
// handlers; the handlers themselves are unchanged.
func newChiRouter(s *shelf) *chi.Mux {
	r := chi.NewRouter()
	r.Use(middleware.Stack())
	r.NotFound(middleware.NotFound())
	r.MethodNotAllowed(middleware.MethodNotAllowed())

	r.Get("/books/{id}", s.getBook)
	return r
}
