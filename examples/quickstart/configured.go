package main

import (
	"log/slog"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
)

// newConfiguredRouter configures the writer once and hands it to Stack,
// through which every layer and handler below finds it.
func newConfiguredRouter(s *shelf, logger *slog.Logger) *chi.Mux {
	wr := problem.NewWriter(
		problem.WithLogger(logger),
		problem.WithBaseURI("https://errors.example.com/"), // type URIs of your own codes
		problem.WithMappers(problem.MapIs(errBookExists, func() *problem.Problem {
			return problem.New(problem.Conflict).WithDetail("A book with this ID exists already.")
		})),
	)
	r := chi.NewRouter()
	r.Use(middleware.Stack(
		middleware.WithWriter(wr),
		middleware.WithBodyLimit(1<<20),
		middleware.WithRequestTimeout(5*time.Second),
	))
	r.NotFound(middleware.NotFound())
	r.MethodNotAllowed(middleware.MethodNotAllowed())
	r.Get("/books/{id}", s.getBook)
	r.Post("/books", wr.Handler(s.createBook))
	return r
}
