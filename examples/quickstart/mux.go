package main

import (
	"net/http"

	"github.com/faultline-go/faultline/middleware"
)

// newServeMux is the same adoption on the standard library: the mux's own
// 404 and 405 are text/plain, and Stack's guard turns them into problems.
func newServeMux(s *shelf) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /books/{id}", s.getBook)
	return middleware.Stack()(mux) // serve this, not mux
}
