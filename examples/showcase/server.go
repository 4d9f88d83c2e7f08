package main

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/problem"
)

type server struct {
	handler http.Handler
	close   func()
}

func newServer(cfg config, logger *slog.Logger, getenv func(string) string) (*server, error) {
	wr := newWriter(logger)
	orders := newOrderStore()

	r := chi.NewRouter()
	r.Use(correlation.Middleware(correlation.WithLogger(logger)))
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		_ = wr.Write(w, r, problem.New(problem.NotFound))
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		_ = wr.Write(w, r, problem.New(problem.MethodNotAllowed))
	})

	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Method(http.MethodPost, "/v1/orders", wr.Handler(orders.create))
	r.Method(http.MethodGet, "/v1/orders/{id}", wr.Handler(orders.get))
	r.Method(http.MethodGet, "/v1/upstream", wr.Handler(callUpstream))

	return &server{handler: r, close: func() {}}, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
